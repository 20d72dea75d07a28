import { and, count, eq, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, UserRow } from '../platform/context';
import { planAllows } from '../platform/plan';
import type { UserExtras } from './user-entity';
import type { Db } from '../db/client';
import { identities, namespaces, userCustomAttributes, userFollows, users } from '../db/schema';
import { batchReads, inJson } from '../db/batch-reads';

/** Premium attributes of the administrator view exist only on Premium and Ultimate instances. */
export const premium = (c: Context<AppEnv>) => planAllows(c.var.config, 'premium');

type ExtrasOptions = { base: string; viewerId: number | null; admin: boolean; customAttributes?: boolean; premium?: boolean };

/** Everything the detailed user presenters need, in one round trip. */
export async function loadUserExtras(db: Db, user: UserRow, opts: ExtrasOptions): Promise<UserExtras> {
  return userExtrasFrom(user, opts, await batchReads(db, userExtrasQueries(db, user.id, user.createdById, opts)));
}

/**
 * The reads behind `loadUserExtras`, unexecuted, so a write can send them in its own batch after the
 * statements that create or change the user, or beside the user's own lookup (`userId` and
 * `createdById` may then be sub-selects).
 */
export function userExtrasQueries(db: Db, userId: number | SQL, createdById: number | SQL | null, opts: ExtrasOptions) {
  return [
    db.select().from(identities).where(eq(identities.userId, userId)).orderBy(identities.id),
    db.select({ n: count() }).from(userFollows).where(eq(userFollows.followeeId, userId)),
    db.select({ n: count() }).from(userFollows).where(eq(userFollows.followerId, userId)),
    opts.viewerId ? db.select({ n: count() }).from(userFollows).where(and(eq(userFollows.followerId, opts.viewerId), eq(userFollows.followeeId, userId))) : undefined,
    opts.admin ? db.select({ id: namespaces.id }).from(namespaces).where(and(eq(namespaces.kind, 'User'), eq(namespaces.ownerId, userId))).limit(1) : undefined,
    opts.admin && createdById ? db.select().from(users).where(eq(users.id, createdById)).limit(1) : undefined,
    opts.customAttributes ? db.select().from(userCustomAttributes).where(eq(userCustomAttributes.userId, userId)).orderBy(userCustomAttributes.key) : undefined,
  ] as const;
}

type ExtrasResults = Awaited<ReturnType<typeof batchReads<ReturnType<typeof userExtrasQueries>>>>;

/** `loadUserExtras`'s answer from the results of `userExtrasQueries` (in its order). */
export function userExtrasFrom(user: UserRow, opts: ExtrasOptions, results: ExtrasResults): UserExtras {
  const [ids, followers, following, followed, ns, createdBy, attrs] = results;
  return {
    base: opts.base,
    identities: ids,
    followers: followers[0]?.n ?? 0,
    following: following[0]?.n ?? 0,
    isFollowed: (followed?.[0]?.n ?? 0) > 0,
    namespaceId: ns?.[0]?.id ?? null,
    createdBy: createdBy?.[0] ?? null,
    customAttributes: attrs,
    canReadProfile: opts.admin || opts.viewerId === user.id || !user.privateProfile,
    premium: opts.premium,
  };
}


/**
 * Extras of a whole page of users in a fixed number of queries (GitLab preloads identities,
 * namespace, followers and followees for the admin list): no query per user.
 * `detailed` loads what UserWithAdmin needs; otherwise only custom attributes (when asked).
 */
export async function loadUserExtrasForPage(
  db: Db,
  page: UserRow[],
  opts: { base: string; viewerId: number | null; admin: boolean; detailed: boolean; customAttributes?: boolean; premium?: boolean },
): Promise<Map<number, UserExtras>> {
  const ids = page.map((u) => u.id);
  const creatorIds = [...new Set(page.map((u) => u.createdById).filter((x): x is number => x != null))];
  const [ids_, followers, following, followed, nss, creators, attrs] = await batchReads(db, [
    opts.detailed ? db.select().from(identities).where(inJson(identities.userId, ids)).orderBy(identities.id) : undefined,
    opts.detailed ? db.select({ id: userFollows.followeeId, n: count() }).from(userFollows).where(inJson(userFollows.followeeId, ids)).groupBy(userFollows.followeeId) : undefined,
    opts.detailed ? db.select({ id: userFollows.followerId, n: count() }).from(userFollows).where(inJson(userFollows.followerId, ids)).groupBy(userFollows.followerId) : undefined,
    opts.detailed && opts.viewerId
      ? db.select({ id: userFollows.followeeId }).from(userFollows).where(and(eq(userFollows.followerId, opts.viewerId), inJson(userFollows.followeeId, ids)))
      : undefined,
    opts.detailed && opts.admin
      ? db.select({ id: namespaces.id, ownerId: namespaces.ownerId }).from(namespaces).where(and(eq(namespaces.kind, 'User'), inJson(namespaces.ownerId, ids)))
      : undefined,
    opts.detailed && opts.admin && creatorIds.length ? db.select().from(users).where(inJson(users.id, creatorIds)) : undefined,
    opts.customAttributes
      ? db.select().from(userCustomAttributes).where(inJson(userCustomAttributes.userId, ids)).orderBy(userCustomAttributes.userId, userCustomAttributes.key)
      : undefined,
  ]);
  const group = <T extends { userId: number }>(rows: T[]) => {
    const m = new Map<number, T[]>();
    for (const r of rows) (m.get(r.userId) ?? m.set(r.userId, []).get(r.userId)!).push(r);
    return m;
  };
  const identitiesBy = group(ids_ ?? []);
  const attrsBy = group(attrs ?? []);
  const followersBy = new Map((followers ?? []).map((r) => [r.id, r.n]));
  const followingBy = new Map((following ?? []).map((r) => [r.id, r.n]));
  const followedSet = new Set((followed ?? []).map((r) => r.id));
  const nsBy = new Map((nss ?? []).map((r) => [r.ownerId, r.id]));
  const creatorsBy = new Map((creators ?? []).map((u) => [u.id, u]));
  const out = new Map<number, UserExtras>();
  for (const u of page) {
    out.set(u.id, {
      base: opts.base,
      identities: identitiesBy.get(u.id) ?? [],
      followers: followersBy.get(u.id) ?? 0,
      following: followingBy.get(u.id) ?? 0,
      isFollowed: followedSet.has(u.id),
      namespaceId: nsBy.get(u.id) ?? null,
      createdBy: u.createdById != null ? creatorsBy.get(u.createdById) ?? null : null,
      customAttributes: opts.customAttributes ? (attrsBy.get(u.id) ?? []) : undefined,
      canReadProfile: opts.admin || opts.viewerId === u.id || !u.privateProfile,
      premium: opts.premium,
    });
  }
  return out;
}
