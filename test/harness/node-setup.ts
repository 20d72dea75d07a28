/**
 * Node suite: after every test, no response may have broken its route's declared schemas
 * (platform/response-check.ts), including responses of apps a test builds itself; after every
 * file, no response may have leaked a secret (secret-sweep.ts).
 */
import { afterAll, afterEach } from 'vitest';
import { takeViolations } from '../../src/platform/response-check';
import { checkSweep } from './secret-sweep';

afterAll(checkSweep);

afterEach(() => {
  const found = takeViolations();
  if (found.length) throw new Error(`response schema violations:\n${found.join('\n')}`);
});
