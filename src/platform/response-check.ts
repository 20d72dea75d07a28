/**
 * Test mode only (`VALIDATE_RESPONSES=true`, set by both test suites): every response is checked
 * against what its route declares (platform/response-schemas.ts). A success status the route does
 * not declare, a JSON body that does not match its schema (undeclared field, missing field, wrong
 * type), or an error body that is none of GitLab's three error shapes is a violation: it is logged
 * and named in the `X-Response-Schema-Violation` header, which the test harness turns into a failed
 * test. Production never installs this middleware.
 */
import type { MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from './context';
import { ErrorBody, isRaw, type ResponseSpec } from './response-schemas';
import { type RouteRecord, routeOf } from './router';

export const VIOLATION_HEADER = 'X-Response-Schema-Violation';

const recorded: string[] = [];
/**
 * Violations since the last call, cleared. The Node suite checks it after every test
 * (test/harness/node-setup.ts), which also covers tests that build their own app.
 */
export const takeViolations = (): string[] => recorded.splice(0);

export function responseCheck(): MiddlewareHandler<AppEnv> {
  return async function checkResponse(c, next) {
    await next();
    const route = routeOf(c);
    const problem = await violation(route, c.req.method, c.res);
    if (!problem) return;
    const where = `${c.req.method} ${route?.path ?? new URL(c.req.url).pathname} -> ${c.res.status}`;
    console.error(JSON.stringify({ level: 'error', msg: 'response schema violation', where, problem }));
    recorded.push(`${where}: ${problem}`);
    const res = new Response(c.res.body, c.res);
    // Header values are one line of ASCII.
    res.headers.set(VIOLATION_HEADER, encodeURIComponent(`${where}: ${problem}`).slice(0, 6000));
    c.res = undefined;
    c.res = res;
  };
}

/** What is wrong with the response, or null. */
export async function violation(route: RouteRecord | undefined, method: string, res: Response): Promise<string | null> {
  const status = res.status;
  if (status === 304 || method === 'HEAD') return null;
  const type = res.headers.get('content-type') ?? '';
  if (status >= 400) {
    // Plain text where GitLab's Rack layer answers: Rack::Attack's throttle (settings/rate-limits.ts), an
    // over-long request line, HandleNullBytes' 400 on a NUL byte (issues/issue-lists-routes.ts).
    if ((status === 429 || status === 414 || status === 400) && type.startsWith('text/plain')) return null;
    return checkJson(ErrorBody, res, type);
  }
  // A route that has not declared its responses yet is not checked (every route declares them: test/platform/openapi.test.ts).
  if (!route?.responses) return null;
  const spec: ResponseSpec | undefined = route.responses[status];
  if (spec === undefined) return `status ${status} is not declared (declared: ${Object.keys(route.responses).join(', ')})`;
  if (spec === null) return (await res.clone().text()) === '' ? null : `status ${status} is declared without a body, but one was sent`;
  // `image/*` declares any image type.
  if (isRaw(spec)) return type.startsWith(spec.contentType.replace(/\*$/, '')) ? null : `Content-Type ${type || '(none)'} is not the declared ${spec.contentType}`;
  return checkJson(spec, res, type);
}

async function checkJson(schema: z.ZodType, res: Response, type: string): Promise<string | null> {
  if (!type.startsWith('application/json')) return `Content-Type ${type || '(none)'} is not application/json`;
  let body: unknown;
  try {
    body = await res.clone().json();
  } catch {
    return 'the body is not JSON';
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return null;
  return explain(parsed.error.issues)
    .slice(0, 8)
    .map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`)
    .join('; ');
}

type Issue = { code: string; path: PropertyKey[]; message: string; errors?: Issue[][] };

/** A union's failure is explained by the branch that came closest (fewest problems), not "Invalid input". */
function explain(issues: readonly Issue[], prefix: PropertyKey[] = []): { path: PropertyKey[]; message: string }[] {
  return issues.flatMap((i) => {
    const path = [...prefix, ...i.path];
    if (i.code !== 'invalid_union' || !i.errors?.length) return [{ path, message: i.message }];
    const closest = i.errors.reduce((best, e) => (e.length < best.length ? e : best));
    return explain(closest, path);
  });
}
