import { and, count, eq, inArray } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, UserRow } from '../platform/context';
import { planAllows } from '../platform/plan';
import type { UserExtras } from './user-entity';
import type { Db } from '../db/client';
import { identities, namespaces, userCustomAttributes, userFollows, users } from '../db/schema';
import { inChunks } from '../platform/chunks';

/** Premium attributes of the administrator view exist only on Premium and Ultimate instances. */
export const premium = (c: Context<AppEnv>) => planAllows(c.var.config, 'premium');

/** Everything the detailed user presenters need, in one round of parallel queries. */
export async function loadUserExtras(
  db: Db,
  user: UserRow,
  opts: { base: string; viewerId: number | null; admin: boolean; customAttributes?: boolean; premium?: boolean },
): Promise<UserExtras> {
  const [ids, followers, following, followed, ns, createdBy, attrs] = await Promise.all([
    db.select().from(identities).where(eq(identities.userId, user.id)).orderBy(identities.id).all(),
    db.select({ n: count() }).from(userFollows).where(eq(userFollows.followeeId, user.id)).get(),
    db.select({ n: count() }).from(userFollows).where(eq(userFollows.followerId, user.id)).get(),
    opts.viewerId
      ? db.select({ n: count() }).from(userFollows).where(and(eq(userFollows.followerId, opts.viewerId), eq(userFollows.followeeId, user.id))).get()
      : Promise.resolve({ n: 0 }),
    opts.admin ? db.select({ id: namespaces.id }).from(namespaces).where(and(eq(namespaces.kind, 'User'), eq(namespaces.ownerId, user.id))).get() : Promise.resolve(undefined),
    opts.admin && user.createdById ? db.select().from(users).where(eq(users.id, user.createdById)).get() : Promise.resolve(undefined),
    opts.customAttributes ? db.select().from(userCustomAttributes).where(eq(userCustomAttributes.userId, user.id)).orderBy(userCustomAttributes.key).all() : Promise.resolve(undefined),
  ]);
  return {
    base: opts.base,
    identities: ids,
    followers: followers?.n ?? 0,
    following: following?.n ?? 0,
    isFollowed: (followed?.n ?? 0) > 0,
    namespaceId: ns?.id ?? null,
    createdBy: createdBy ?? null,
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
  const none = Promise.resolve([] as never[]);
  const [ids_, followers, following, followed, nss, creators, attrs] = await Promise.all([
    opts.detailed ? inChunks(ids, (ch) => db.select().from(identities).where(inArray(identities.userId, ch)).orderBy(identities.id).all()) : none,
    opts.detailed
      ? inChunks(ids, (ch) => db.select({ id: userFollows.followeeId, n: count() }).from(userFollows).where(inArray(userFollows.followeeId, ch)).groupBy(userFollows.followeeId).all())
      : none,
    opts.detailed
      ? inChunks(ids, (ch) => db.select({ id: userFollows.followerId, n: count() }).from(userFollows).where(inArray(userFollows.followerId, ch)).groupBy(userFollows.followerId).all())
      : none,
    opts.detailed && opts.viewerId
      ? inChunks(ids, (ch) =>
          db.select({ id: userFollows.followeeId }).from(userFollows).where(and(eq(userFollows.followerId, opts.viewerId!), inArray(userFollows.followeeId, ch))).all(),
        )
      : none,
    opts.detailed && opts.admin
      ? inChunks(ids, (ch) => db.select({ id: namespaces.id, ownerId: namespaces.ownerId }).from(namespaces).where(and(eq(namespaces.kind, 'User'), inArray(namespaces.ownerId, ch))).all())
      : none,
    opts.detailed && opts.admin ? inChunks(creatorIds, (ch) => db.select().from(users).where(inArray(users.id, ch)).all()) : none,
    opts.customAttributes
      ? inChunks(ids, (ch) => db.select().from(userCustomAttributes).where(inArray(userCustomAttributes.userId, ch)).orderBy(userCustomAttributes.userId, userCustomAttributes.key).all())
      : none,
  ]);
  const group = <T extends { userId: number }>(rows: T[]) => {
    const m = new Map<number, T[]>();
    for (const r of rows) (m.get(r.userId) ?? m.set(r.userId, []).get(r.userId)!).push(r);
    return m;
  };
  const identitiesBy = group(ids_ as (typeof identities.$inferSelect)[]);
  const attrsBy = group(attrs as (typeof userCustomAttributes.$inferSelect)[]);
  const followersBy = new Map((followers as { id: number; n: number }[]).map((r) => [r.id, r.n]));
  const followingBy = new Map((following as { id: number; n: number }[]).map((r) => [r.id, r.n]));
  const followedSet = new Set((followed as { id: number }[]).map((r) => r.id));
  const nsBy = new Map((nss as { id: number; ownerId: number | null }[]).map((r) => [r.ownerId, r.id]));
  const creatorsBy = new Map((creators as UserRow[]).map((u) => [u.id, u]));
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
