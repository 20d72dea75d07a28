/**
 * The test side of platform/response-check.ts: a response the server found at odds with its
 * route's declared schemas fails the test that received it, naming the route and the problem.
 */
import { VIOLATION_HEADER } from '../../src/platform/response-check';

export function failOnSchemaViolation(res: Response): Response {
  const problem = res.headers.get(VIOLATION_HEADER);
  if (problem) throw new Error(`response schema violation: ${decodeURIComponent(problem)}`);
  return res;
}
