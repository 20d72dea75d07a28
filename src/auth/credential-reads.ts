/**
 * The storage reads behind a credential (a token or session digest -> its row and its user), and the
 * refresh of a cached credential that is getting old.
 *
 * A credential and its user are two statements of one batch, not a join: a D1 batch answers rows as
 * objects keyed by column name, where the joined tables' equal names (id, created_at) would collide.
 * The user is found by a sub-select on the digest, so both need no earlier answer.
 */
import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client';
import { ride } from '../db/riders';
import { oauthAccessTokens, personalAccessTokens, users, webSessions } from '../db/schema';
import { primeSettings, settingsPrefetch } from '../settings/settings';
import { type CachedCredential, callerCacheGeneration, claimRefresh, type CredentialKind, forgetCredential, rememberCredential } from '../users/caller-cache';

export const patLookup = (db: Db, digest: string) => db.select().from(personalAccessTokens).where(eq(personalAccessTokens.tokenDigest, digest)).limit(1);
export const oauthLookup = (db: Db, digest: string) => db.select().from(oauthAccessTokens).where(eq(oauthAccessTokens.tokenDigest, digest)).limit(1);
export const sessionLookup = (db: Db, digest: string) => db.select().from(webSessions).where(eq(webSessions.sessionDigest, digest)).limit(1);

export const patUser = (db: Db, digest: string) =>
  db.select().from(users).where(inArray(users.id, db.select({ id: personalAccessTokens.userId }).from(personalAccessTokens).where(eq(personalAccessTokens.tokenDigest, digest)))).limit(1);
export const oauthUser = (db: Db, digest: string) =>
  db.select().from(users).where(inArray(users.id, db.select({ id: oauthAccessTokens.userId }).from(oauthAccessTokens).where(eq(oauthAccessTokens.tokenDigest, digest)))).limit(1);
export const sessionUser = (db: Db, digest: string) =>
  db.select().from(users).where(inArray(users.id, db.select({ id: webSessions.userId }).from(webSessions).where(eq(webSessions.sessionDigest, digest)))).limit(1);

const reads = {
  pat: (db: Db, digest: string) => [patLookup(db, digest), patUser(db, digest)] as const,
  oauth: (db: Db, digest: string) => [oauthLookup(db, digest), oauthUser(db, digest)] as const,
  session: (db: Db, digest: string) => [sessionLookup(db, digest), sessionUser(db, digest)] as const,
};

/**
 * A cached credential past half its TTL still answers this request, and its lookup (with the settings
 * row, which every lookup refreshes: settings/settings.ts `settingsPrefetch`) rides on the request's
 * next round trip (db/riders.ts): a busy caller's entry is renewed before it expires, so no request
 * pays a round trip for it. What the refresh finds is what a lookup would: a revoked token or blocked
 * user is cached as such (and refused by the next request), a deleted one is forgotten (and looked up,
 * then refused). A revocation elsewhere is therefore still seen within the TTL: an entry is at most
 * one TTL old, whether it was renewed or not. The generation noted now keeps a refresh that raced an
 * invalidation in this isolate from storing what the invalidation dropped. One request at a time
 * carries the refresh (`claimRefresh`).
 */
export function refreshOnNextTrip(db: Db, kind: CredentialKind, digest: string): void {
  if (!claimRefresh(db, kind, digest)) return;
  const generation = callerCacheGeneration(db);
  const prefetch = settingsPrefetch(db);
  const [token, user] = reads[kind](db, digest);
  ride(db, `caller:${kind}:${digest}`, [token, user, prefetch.query], (results) => {
    const [[t], [u], settingsRows] = results as [unknown[], (CachedCredential['user'] | undefined)[], Parameters<typeof primeSettings>[2]];
    primeSettings(db, prefetch, settingsRows);
    if (!t || !u) return forgetCredential(db, kind, digest);
    rememberCredential(db, generation, digest, { kind, token: t, user: u } as CachedCredential);
  });
}
