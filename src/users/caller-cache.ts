/**
 * The credentials this isolate resolved recently (a token or session digest -> its row and its user),
 * so a caller's next requests within ISOLATE_CACHE_TTL_MS (platform/isolate-cache.ts) spend no round
 * trip on authentication. Only found credentials are kept: a token created elsewhere works at once.
 * The validity checks (expiry, revocation, account state, scopes) still run on every request over the
 * cached rows, so expiry needs no invalidation.
 *
 * It lives here, below auth, because the writers that must drop entries are in users as well as auth:
 * every write that changes a user row (state, admin flag, attributes the caller carries), or revokes,
 * rotates or deletes a token or session, calls `invalidateCaller` in the same isolate; other isolates
 * pick the change up when their entry expires.
 */
import type { Db } from '../db/client';
import type { oauthAccessTokens, personalAccessTokens, webSessions } from '../db/schema';
import type { UserRow } from '../platform/context';
import { cacheNow, ISOLATE_CACHE_TTL_MS, perDb, TtlCache } from '../platform/isolate-cache';

/** Bounds the memory a burst of distinct callers can take (a few KB each). */
export const CALLER_CACHE_MAX_ENTRIES = 10_000;

export type CachedCredential =
  | { kind: 'pat'; token: typeof personalAccessTokens.$inferSelect; user: UserRow }
  | { kind: 'oauth'; token: typeof oauthAccessTokens.$inferSelect; user: UserRow }
  | { kind: 'session'; token: typeof webSessions.$inferSelect; user: UserRow };

export type CredentialKind = CachedCredential['kind'];

const cacheOf = perDb(() => new TtlCache<CachedCredential>(ISOLATE_CACHE_TTL_MS, CALLER_CACHE_MAX_ENTRIES));

const keyOf = (kind: CredentialKind, digest: string) => `${kind}:${digest}`;

/** The cached credential, and whether it is past half its TTL (`aging`: refresh it on the request's next round trip, auth/caller-refresh.ts). */
export function cachedCredential<K extends CredentialKind>(db: Db, kind: K, digest: string): { entry: Extract<CachedCredential, { kind: K }>; aging: boolean } | undefined {
  const hit = cacheOf(db).lookup(keyOf(kind, digest));
  return hit && { entry: hit.value as Extract<CachedCredential, { kind: K }>, aging: hit.aging };
}

/** Forgets one credential: a refresh found it no longer in storage (deleted elsewhere), so the next request looks it up and is refused. */
export function forgetCredential(db: Db, kind: CredentialKind, digest: string): void {
  claimsOf(db).delete(keyOf(kind, digest));
  cacheOf(db).delete(keyOf(kind, digest));
}

/** Note this before reading a credential from storage; `rememberCredential` stores it only if nothing was invalidated meanwhile. */
export const callerCacheGeneration = (db: Db) => cacheOf(db).generation;

export function rememberCredential(db: Db, generation: number, digest: string, entry: CachedCredential): void {
  claimsOf(db).delete(keyOf(entry.kind, digest));
  cacheOf(db).setIfCurrent(generation, keyOf(entry.kind, digest), entry);
}

/** When a request of this isolate last took on refreshing an aging credential (auth/credential-reads.ts). */
const claimsOf = perDb(() => new Map<string, number>());
/** A claim older than this is taken over: its request may have ended without a round trip to carry the refresh. */
const CLAIM_MS = ISOLATE_CACHE_TTL_MS / 4;

/**
 * True for the one request that should refresh an aging credential: under load, the requests in
 * flight when an entry turns half its TTL would otherwise each send the same refresh.
 */
export function claimRefresh(db: Db, kind: CredentialKind, digest: string): boolean {
  const claims = claimsOf(db);
  const key = keyOf(kind, digest);
  const now = cacheNow();
  const at = claims.get(key);
  if (at !== undefined && now - at < CLAIM_MS && now >= at) return false;
  if (claims.size >= CALLER_CACHE_MAX_ENTRIES) claims.clear();
  claims.set(key, now);
  return true;
}

/**
 * Drops the cached credentials of these users (every token and session of theirs), or all of them.
 * Call it after the write that changes a user or a credential, in the request that made it.
 */
export function invalidateCaller(db: Db, who: { userId: number } | { userIds: readonly number[] } | 'all'): void {
  const cache = cacheOf(db);
  if (who === 'all') return cache.invalidate();
  const ids = new Set('userId' in who ? [who.userId] : who.userIds);
  cache.invalidate((e) => ids.has(e.user.id));
}

/** How many credentials this isolate holds for `db` (tests). */
export const callerCacheSize = (db: Db) => cacheOf(db).size;
