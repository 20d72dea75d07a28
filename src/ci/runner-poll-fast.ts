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
import { clientIpOf } from '../users/audit';
import { authenticatedRunner, plainAnswer } from './runner-api-routes';
import { cachedRunner, contactWithoutWrite, reportsChange, runnerByToken } from './runner-tokens';

/** Larger bodies take the generic path (a runner's poll is under 1 KiB). */
const FAST_BODY_LIMIT = 64 * 1024;
const STRINGS = ['token', 'system_id', 'last_update'] as const;
const HASHES = ['info', 'session'] as const;
const utf8 = new TextDecoder('utf-8', { fatal: true });
/** The caller of a noAuth route (auth/authenticate.ts), for the rate limits. */
const anonymous: Caller = { user: null, sudoer: null, credential: null, isAdmin: false };

/** The parsed body when it is the plain case, else undefined (the routes will say what is wrong). */
function plainParams(text: string): Record<string, unknown> | undefined {
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

// ---- before the router ----

/** What the answer before the router uses of a plain body: the token it carries and the runner's info. */
interface Plain {
  token: string | undefined;
  info: Record<string, unknown> | undefined;
}

/** The last plain poll body of each token a `RUNNER-TOKEN` header named (bounded; the oldest goes first). */
const lastPolls = new Map<string, { text: string; plain: Plain }>();
const LAST_POLLS_MAX = 20_000;

/** The fields the answer reads of plain params. */
function plainFrom(params: Record<string, unknown>): Plain {
  const info = params.info as Record<string, unknown> | undefined;
  return { token: params.token as string | undefined, info: info && { name: info.name, version: info.version, revision: info.revision, platform: info.platform, architecture: info.architecture, executor: info.executor } };
}

/**
 * `plainParams` of a body, remembered per runner for polls. A runner sends the same poll body every
 * time (its token, system_id, the stamp it was last given, the same `info`) until the stamp
 * changes, and parsing it (about 0.9 KiB with gitlab-runner's feature list) was the largest single
 * cost of a cached poll on Node. Newer runners name themselves in the `RUNNER-TOKEN` header too, so
 * the previous body is found by that short key and compared whole (a string compare, far cheaper
 * than parsing, or than hashing the body as a map key); the same text parses the same.
 */
function plainOf(text: string, headerToken: string | null, kind: 'poll' | 'verify'): Plain | undefined {
  const last = headerToken !== null && kind === 'poll' ? lastPolls.get(headerToken) : undefined;
  if (last && last.text === text) return last.plain;
  const params = text.trim() ? plainParams(text) : undefined;
  if (!params) return undefined;
  const plain = plainFrom(params);
  if (headerToken !== null && kind === 'poll') {
    if (!last && lastPolls.size >= LAST_POLLS_MAX) lastPolls.delete(lastPolls.keys().next().value as string);
    lastPolls.set(headerToken, { text, plain });
  }
  return plain;
}

type Fetch = Hono<AppEnv>['fetch'];

/**
 * Answers a known runner's plain, cached poll or verify in the app's `fetch`, before Hono's router,
 * context and middleware: the case that needs no I/O at all (the token's runner in this isolate's
 * cache, no change check due, nothing reported that must be written, no contact due to be
 * persisted), a JSON body of declared length, no query string. Everything else, with the body already
 * read, goes to the app, where the fast path above (or the routes) answers.
 *
 * Why: once the poll itself cost almost nothing, the request's way to it (a Hono context, the
 * middleware chain, the round-trip meter's AsyncLocalStorage, the response's Headers) was most of a
 * cached poll's CPU on Node (issue 14's bench profile). The answer and its headers are the fast
 * path's; the round-trip headers say 0, as the meter would.
 */
export function answerRunnersFirst(app: Hono<AppEnv>, prefix: string, deps: Pick<AppEnv['Variables'], 'db' | 'config'>) {
  const kinds = new Map<string, 'poll' | 'verify'>([
    [`${prefix}/jobs/request`, 'poll'],
    [`${prefix}/runners/verify`, 'verify'],
  ]);
  const metered: Record<string, string> = deps.config.reportRoundTrips ? { 'X-Storage-Round-Trips': '0', ...(deps.config.reportRepeatedReads ? { 'X-Storage-Repeated-Reads': '0' } : {}) } : {};
  const inner: Fetch = app.fetch;

  /** The answer, or undefined when the app must answer. */
  function answer(kind: 'poll' | 'verify', req: Request, env: unknown, bytes: Uint8Array): Response | undefined {
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return undefined;
    }
    const headerToken = req.headers.get('runner-token');
    const plain = plainOf(text, headerToken, kind);
    const token = plain && (plain.token ?? headerToken ?? undefined);
    if (token === undefined) return undefined;
    const entry = cachedRunner(deps.db, token);
    if (!entry) return undefined;
    // What authenticatedRunner does when nothing is to be written; anything to write goes to the app.
    if (reportsChange(entry.runner, plain!.info, clientIpOf((name) => req.headers.get(name), env))) return undefined;
    if (!contactWithoutWrite(deps.db, entry)) return undefined;
    const requestId = req.headers.get('x-request-id')?.slice(0, 64) || randomIdHex(13);
    return plainAnswer(kind, token, entry.runner, { 'X-Request-Id': requestId, 'X-Frame-Options': 'SAMEORIGIN', 'X-Content-Type-Options': 'nosniff', ...metered });
  }

  app.fetch = (req, env, ctx) => {
    if (req.method !== 'POST') return inner(req, env, ctx);
    const url = req.url;
    const kind = kinds.get(url.slice(url.indexOf('/', url.indexOf('//') + 2)));
    if (!kind) return inner(req, env, ctx);
    const type = req.headers.get('content-type');
    const declared = req.headers.get('content-length');
    if (!type || !type.toLowerCase().includes('application/json') || !declared || !(Number(declared) <= FAST_BODY_LIMIT) || url.length > MAX_URL_BYTES) return inner(req, env, ctx);
    return req.arrayBuffer().then(
      (body) => {
        const bytes = new Uint8Array(body);
        // The app reads the body again from a request that carries it (the fast path above then parses it).
        return answer(kind, req, env, bytes) ?? inner(new Request(url, { method: 'POST', headers: req.headers, body: bytes }), env, ctx);
      },
      // The app's own read fails the same way and answers it.
      () => inner(req, env, ctx),
    );
  };
}
