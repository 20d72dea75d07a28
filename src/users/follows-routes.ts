/**
 * Follow relations (GitLab lib/api/users.rb follow/unfollow/followers/following, User#follow,
 * Users::UserFollowUser, Users::UnfollowService).
 */
import type { Context } from 'hono';
import { and, asc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import type { Db } from '../db/client';
import { findUserById } from './user-queries';
import { userFollows, users } from '../db/schema';
import { userBasic, UserBasicSchema } from './user-entity';
import { ApiError, forbidden, notFound, notModified } from '../platform/errors';
import { baseUrl, linkParamsFrom, pageRequest, paginate, paginateWith, paginationParams } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { now } from '../platform/time';
import { params } from '../platform/validate';
import { requireUser } from '../platform/guards';
import { routeId } from './users-params';

/** Users::UserFollowUser::MAX_FOLLOWEE_LIMIT. */
export const MAX_FOLLOWEE_LIMIT = 300;
const FOLLOWEE_LIMIT_MESSAGE = `You can't follow more than ${MAX_FOLLOWEE_LIMIT} users. To follow more users, unfollow some others.`;

/** User#blocked? holds for every blocked state (UserPolicy `blocked_user`). */
const BLOCKED_STATES = new Set(['blocked', 'ldap_blocked', 'blocked_pending_approval', 'banned']);

const userIdParams = params({ id: routeId() });
const listParams = params({ id: routeId(), ...paginationParams });

export function mountUserFollows(r: Router) {
  r.route(
    { method: 'POST', path: '/users/:id/follow', summary: 'Follow a user', tags: ['users'], params: userIdParams, responses: { 201: UserBasicSchema, 304: null } },
    async ({ c, p, caller }) => {
      const me = requireUser(caller);
      const db = c.var.db;
      const user = await findUserById(db, p.id);
      if (!user) throw notFound('User');
      // User#follow returns false for yourself: not_modified!.
      if (user.id === me.id) throw notModified();
      // The model validation (max_follow_limit) runs before the insert, so it wins over "already following".
      if ((await countFollowees(db, me.id)) >= MAX_FOLLOWEE_LIMIT) throw followeeLimit();
      // One statement: the cap holds under concurrent follows, and the primary key turns a duplicate into no row.
      const inserted = await db.all<{ follower_id: number }>(sql`
        insert into ${userFollows} (follower_id, followee_id, created_at)
        select ${me.id}, ${user.id}, ${now()}
        where (select count(*) from (select 1 from ${userFollows} where follower_id = ${me.id} limit ${MAX_FOLLOWEE_LIMIT})) < ${MAX_FOLLOWEE_LIMIT}
        on conflict do nothing
        returning follower_id`);
      if (inserted.length === 0) {
        // RecordNotUnique → nil → not_modified!; otherwise a concurrent follow took the last slot.
        if (await isFollowing(db, me.id, user.id)) throw notModified();
        throw followeeLimit();
      }
      return c.json(userBasic(user, { base: baseUrl(c) }), 201);
    },
  );

  r.route(
    { method: 'POST', path: '/users/:id/unfollow', summary: 'Unfollow a user', tags: ['users'], params: userIdParams, responses: { 201: UserBasicSchema, 304: null } },
    async ({ c, p, caller }) => {
      const me = requireUser(caller);
      const db = c.var.db;
      const user = await findUserById(db, p.id);
      if (!user) throw notFound('User');
      const deleted = await db
        .delete(userFollows)
        .where(and(eq(userFollows.followerId, me.id), eq(userFollows.followeeId, user.id)))
        .returning({ followerId: userFollows.followerId });
      // Users::UnfollowService: nothing deleted is an error, answered not_modified!.
      if (deleted.length === 0) throw notModified();
      return c.json(userBasic(user, { base: baseUrl(c) }), 201);
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/users/:id/followers',
      summary: 'List the followers of a user',
      tags: ['users'],
      params: listParams,
      scopes: ['read_user'],
      rateLimit: 'user_followers',
      responses: { 200: z.array(UserBasicSchema) },
    },
    async ({ c, p, caller }) => listRelated(c, p, caller, 'followers'),
  );

  r.route(
    {
      method: 'GET',
      path: '/users/:id/following',
      summary: 'List the users a user follows',
      tags: ['users'],
      params: listParams,
      scopes: ['read_user'],
      rateLimit: 'user_following',
      responses: { 200: z.array(UserBasicSchema) },
    },
    async ({ c, p, caller }) => listRelated(c, p, caller, 'following'),
  );
}

const followeeLimit = () => new ApiError(400, { message: FOLLOWEE_LIMIT_MESSAGE });

async function countFollowees(db: Db, followerId: number): Promise<number> {
  const row = await db.get<{ n: number }>(
    sql`select count(*) as n from (select 1 from ${userFollows} where ${userFollows.followerId} = ${followerId} limit ${MAX_FOLLOWEE_LIMIT})`,
  );
  return Number(row?.n ?? 0);
}

const isFollowing = async (db: Db, followerId: number, followeeId: number) =>
  !!(await db
    .select({ one: sql`1` })
    .from(userFollows)
    .where(and(eq(userFollows.followerId, followerId), eq(userFollows.followeeId, followeeId)))
    .get());

/** `can?(current_user, :read_user_profile, user)`: private, blocked or unconfirmed profiles only for themselves and administrators. */
function canReadProfile(caller: Caller, viewer: UserRow, user: UserRow): boolean {
  if (viewer.id === user.id || caller.isAdmin) return true;
  return !(user.privateProfile || BLOCKED_STATES.has(user.state) || user.confirmedAt == null);
}

/** GET /users/:id/followers|following: signed in, profile readable, UserBasic ordered by user id (OffsetPagination default order). */
async function listRelated(c: Context<AppEnv>, p: { id: number; page?: number; per_page?: number }, caller: Caller, kind: 'followers' | 'following') {
  if (!caller.user) throw forbidden('Not authorized!');
  const viewer = caller.user;
  const db = c.var.db;
  // followers: rows pointing at the user, listing the follower; following: rows from the user, listing the followee.
  const [anchor, other] = kind === 'followers' ? [userFollows.followeeId, userFollows.followerId] : [userFollows.followerId, userFollows.followeeId];
  const raw = await requestParams(c);
  // The user and the page go in one round trip; the page is dropped when the profile is not readable.
  const { rows } = await paginateWith(
    c,
    pageRequest(p, raw.per_page),
    linkParamsFrom(raw, {}),
    (limit, offset) => db.select({ u: users }).from(userFollows).innerJoin(users, eq(users.id, other)).where(eq(anchor, p.id)).orderBy(asc(users.id)).limit(limit).offset(offset),
    (limit) => db.select({ n: sql<number>`count(*)` }).from(db.select({ one: sql`1` }).from(userFollows).innerJoin(users, eq(users.id, other)).where(eq(anchor, p.id)).limit(limit).as('t')),
    [db.select().from(users).where(eq(users.id, p.id)).limit(1)],
    ([[user]]) => {
      if (!user || !canReadProfile(caller, viewer, user)) throw notFound('User');
    },
  );
  const base = baseUrl(c);
  return c.json(rows.map(({ u }) => userBasic(u, { base })));
}
