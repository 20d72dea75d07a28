/**
 * The fast path of a runner's steady traffic: `POST /jobs/request` and `POST /runners/verify` of a
 * known runner, answered before the generic chain (request plumbing, dependency injection,
 * authentication, settings and rate limits, the generic parameter parser and its validation).
 *
 * Why: a fleet's polls are most of an instance's requests, and a cached poll does almost nothing
 * (a digest, a map lookup, a stamp), so the generic per-request work was nearly all of its CPU on
 * Node (issue 14's bench profile). The answer is the routes' own (runner-api-routes.ts
 * `plainAnswer`) with the headers requestBasics sets; the rate limits are left out
 * for a valid runner because GitLab's Rack::Attack does not count a request that names a runner
 * (Gitlab::RackAttack::Request#unauthenticated? is false when `authenticated_runner_id` is set),
 * and no authenticated throttle keys on a runner.
 *
 * A cached runner's plain poll is answered even earlier, before the router (runner-poll-first.ts):
 * what reaches this path is a miss, a change check due, a write due, or a server without that layer.
 *
 * Only the plain case is taken: a JSON body (of declared length up to FAST_BODY_LIMIT, or read within
 * the routes' limit when undeclared), no query string, every declared parameter of its type, a token that names a runner. Anything else (a form
 * body, a missing token, a wrong type, malformed JSON, NUL bytes) is handed on to the routes with the
 * body already read (params.ts BODY_READ), so every error is the generic path's, in its order. An
 * unknown or expired token is refused here, after the rate limits the generic path would apply
 * first (its runner read is not repeated).
 */
import type { Context, Hono, Next } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { randomIdHex } from '../platform/crypto';
import { badRequest, forbidden } from '../platform/errors';
import { checkParamStrings, MAX_URL_BYTES } from '../platform/limits';
import { BODY_READ, readBody } from '../platform/params';
import { enforceRateLimits } from '../settings/rate-limits';
import { authenticatedRunner, plainAnswer } from './runner-api-routes';
import { runnerByToken } from './runner-tokens';

/** Larger bodies take the generic path (a runner's poll is under 1 KiB). */
export const FAST_BODY_LIMIT = 64 * 1024;
const STRINGS = ['token', 'system_id', 'last_update'] as const;
const HASHES = ['info', 'session'] as const;
export const utf8 = new TextDecoder('utf-8', { fatal: true });
/** The caller of a noAuth route (auth/authenticate.ts), for the rate limits. */
const anonymous: Caller = { user: null, sudoer: null, credential: null, isAdmin: false };

/** The parsed body when it is the plain case, else undefined (the routes will say what is wrong). */
export function plainParams(text: string): Record<string, unknown> | undefined {
  let p: unknown;
  try {
    p = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!p || typeof p !== 'object' || Array.isArray(p)) return undefined;
  const params = p as Record<string, unknown>;
  for (const k of STRINGS) if (params[k] !== undefined && typeof params[k] !== 'string') return undefined;
  for (const k of HASHES) {
    const v = params[k];
    if (v !== undefined && (!v || typeof v !== 'object' || Array.isArray(v))) return undefined;
  }
  // A NUL or a lone surrogate can only come from a `\u` escape (JSON text holds neither raw, and the
  // text was strict UTF-8): without one there is nothing for the walk to find.
  if (text.includes('\\u')) {
    try {
      checkParamStrings(params);
    } catch {
      return undefined;
    }
  }
  return params;
}

/**
 * Mounts the fast path for both routes; `inject` is the app's dependency injection (what the generic
 * chain does first), run here only when the request leaves the fast path's plain case.
 */
export function mountRunnerFastPath(app: Hono<AppEnv>, prefix: string, deps: Pick<AppEnv['Variables'], 'db' | 'config'>, inject: (c: Context<AppEnv>) => void) {
  const fast = (answer: 'poll' | 'verify') =>
    async function runnerFastPath(c: Context<AppEnv>, next: Next) {
      const req = c.req.raw;
      const type = req.headers.get('content-type');
      const declared = req.headers.get('content-length');
      if (!type || !type.toLowerCase().includes('application/json') || (declared && !(Number(declared) <= FAST_BODY_LIMIT)) || req.url.includes('?') || req.url.length > MAX_URL_BYTES) return next();
      let bytes: Uint8Array<ArrayBuffer>;
      try {
        // A declared length is what the server let through (Node reads it straight from the socket);
        // a body of unknown length is read within the routes' limit, as params.ts does.
        bytes = declared ? new Uint8Array(await req.arrayBuffer().catch((): Promise<ArrayBuffer> => Promise.reject(badRequest('request body could not be read')))) : await readBody(c);
      } catch (e) {
        // The generic path reads the body after the rate limits: the same order here.
        inject(c);
        await enforceRateLimits(c, anonymous);
        throw e;
      }
      // Whatever happens next, the routes can read the body again.
      c.set(BODY_READ as never, bytes as never);
      let text: string;
      try {
        text = utf8.decode(bytes);
      } catch {
        return next();
      }
      const params = text.trim() ? plainParams(text) : undefined;
      const token = params && (typeof params.token === 'string' ? params.token : (req.headers.get('runner-token') ?? undefined));
      if (!params || token === undefined) return next();
      // requestBasics' headers; what the routes read from the context.
      const requestId = req.headers.get('x-request-id')?.slice(0, 64) || randomIdHex(13);
      c.set('requestId', requestId);
      c.set('db', deps.db);
      c.set('config', deps.config);
      c.set('rawParams', params);
      const entry = await runnerByToken(c, token);
      if (!entry) {
        c.header('X-Request-Id', requestId);
        c.header('X-Frame-Options', 'SAMEORIGIN');
        c.header('X-Content-Type-Options', 'nosniff');
        inject(c);
        await enforceRateLimits(c, anonymous);
        throw forbidden();
      }
      const writing = authenticatedRunner(c, entry, params);
      if (writing) await writing;
      return plainAnswer(answer, token, entry.runner, { 'X-Request-Id': requestId, 'X-Frame-Options': 'SAMEORIGIN', 'X-Content-Type-Options': 'nosniff' });
    };
  app.post(`${prefix}/jobs/request`, fast('poll'));
  app.post(`${prefix}/runners/verify`, fast('verify'));
}

