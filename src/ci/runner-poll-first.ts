/**
 * A known runner's plain, cached `POST /jobs/request` and `POST /runners/verify`, answered before
 * the app's router (platform/early-answers.ts; on Node before the web Request is built): the case
 * that needs no I/O at all. The token's runner is in this isolate's cache with no change check due
 * (runner-tokens.ts `cachedRunner`), it reports nothing that must be written and its contact is not
 * due to be persisted, the body is JSON of declared length with every declared parameter of its type
 * (runner-poll-fast.ts `plainParams`), and there is no query string. Everything else goes to the app
 * with the body already read, where the fast path (runner-poll-fast.ts) or the routes answer it.
 *
 * Why: once the poll itself cost almost nothing, the way to it (a Hono context, the middleware
 * chain, the round-trip meter's AsyncLocalStorage, Request and Response objects with their Headers)
 * was most of a cached poll's CPU on Node (issue 14's bench profile). The answer and its headers are
 * the fast path's (the request id, GitLab's security headers); the round-trip headers say 0, as the
 * meter would for a request that sent nothing.
 */
import type { EarlyAnswers, HeaderOf } from '../platform/early-answers';
import type { AppEnv } from '../platform/context';
import { randomIdHex } from '../platform/crypto';
import { MAX_URL_BYTES } from '../platform/limits';
import { clientIpOf } from '../users/audit';
import { plainAnswerParts } from './runner-api-routes';
import { FAST_BODY_LIMIT, plainParams, utf8 } from './runner-poll-fast';
import { cachedRunner, contactWithoutWrite, reportsChange } from './runner-tokens';

/** What the answer uses of a plain body: the token it carries and the runner's info. */
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
function plainOf(text: string, headerToken: string | null | undefined, kind: 'poll' | 'verify'): Plain | undefined {
  const keyed = typeof headerToken === 'string' && kind === 'poll';
  const last = keyed ? lastPolls.get(headerToken) : undefined;
  if (last && last.text === text) return last.plain;
  const params = text.trim() ? plainParams(text) : undefined;
  if (!params) return undefined;
  const plain = plainFrom(params);
  if (keyed) {
    if (!last && lastPolls.size >= LAST_POLLS_MAX) lastPolls.delete(lastPolls.keys().next().value as string);
    lastPolls.set(headerToken, { text, plain });
  }
  return plain;
}

export function runnerEarlyAnswers(prefix: string, deps: Pick<AppEnv['Variables'], 'db' | 'config'>): EarlyAnswers {
  const kinds = new Map<string, 'poll' | 'verify'>([
    [`${prefix}/jobs/request`, 'poll'],
    [`${prefix}/runners/verify`, 'verify'],
  ]);
  const metered: Record<string, string> = deps.config.reportRoundTrips ? { 'X-Storage-Round-Trips': '0', ...(deps.config.reportRepeatedReads ? { 'X-Storage-Repeated-Reads': '0' } : {}) } : {};
  return {
    wants(method: string, path: string, urlLength: number, header: HeaderOf): boolean {
      if (method !== 'POST' || !kinds.has(path)) return false;
      const type = header('content-type');
      const declared = header('content-length');
      return !!type && type.toLowerCase().includes('application/json') && !!declared && Number(declared) <= FAST_BODY_LIMIT && urlLength <= MAX_URL_BYTES;
    },
    answer(path: string, header: HeaderOf, env: unknown, body: Uint8Array) {
      const kind = kinds.get(path);
      if (!kind) return undefined;
      let text: string;
      try {
        text = utf8.decode(body);
      } catch {
        return undefined;
      }
      const headerToken = header('runner-token');
      const plain = plainOf(text, headerToken, kind);
      const token = plain && (plain.token ?? headerToken ?? undefined);
      if (token === undefined) return undefined;
      const entry = cachedRunner(deps.db, token);
      if (!entry) return undefined;
      // What authenticatedRunner does when nothing is to be written; a write goes to the app.
      if (reportsChange(entry.runner, plain!.info, clientIpOf(header, env))) return undefined;
      if (!contactWithoutWrite(deps.db, entry)) return undefined;
      const requestId = header('x-request-id')?.slice(0, 64) || randomIdHex(13);
      return plainAnswerParts(kind, token, entry.runner, { 'X-Request-Id': requestId, 'X-Frame-Options': 'SAMEORIGIN', 'X-Content-Type-Options': 'nosniff', ...metered });
    },
  };
}
