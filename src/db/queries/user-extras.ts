import { and, count, eq } from 'drizzle-orm';
import type { UserRow } from '../../context';
import type { UserExtras } from '../../entities/user';
import type { Db } from '../client';
import { identities, namespaces, userCustomAttributes, userFollows, users } from '../schema';

/** Everything the detailed user presenters need, in one round of parallel queries. */
export async function loadUserExtras(
  db: Db,
  user: UserRow,
  opts: { base: string; viewerId: number | null; admin: boolean; customAttributes?: boolean },
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
  };
}
