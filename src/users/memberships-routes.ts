/**
 * What administrators read about a user's reach and activity (GitLab lib/api/users.rb
 * `:user_id/memberships` with lib/api/entities/membership.rb, and `/user/activities` with
 * lib/api/entities/user_activity.rb).
 */
import { and, asc, eq, isNotNull, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { members, namespaces, projects, users } from '../db/schema';
import { notFound } from '../platform/errors';
import { requireAdmin } from '../platform/guards';
import { countUpToQuery, linkParamsFrom, pageRequest, paginate, paginateWith, paginationParams } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { date, id, int, obj } from '../platform/response-schemas';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { routeId } from './users-params';

export const MembershipSchema = obj({ source_id: id, source_name: z.string(), source_type: z.enum(['Project', 'Namespace']), access_level: int }).meta({ id: 'Membership' });
export const UserActivitySchema = obj({ username: z.string(), last_activity_on: date, last_activity_at: date }).meta({ id: 'UserActivity' });

const membershipsParams = params({ user_id: routeId(), type: g.enum(['Project', 'Namespace'] as const).optional(), ...paginationParams });
const activitiesParams = params({ from: g.datetime().optional(), ...paginationParams });

const DAY = 86_400_000;

export function mountMemberships(r: Router) {
  r.route(
    {
      method: 'GET',
      path: '/users/:user_id/memberships',
      summary: "List a user's memberships of projects and groups (administrators)",
      tags: ['users'],
      params: membershipsParams,
      scopes: ['read_user'],
      responses: { 200: z.array(MembershipSchema) },
    },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const db = c.var.db;
      const raw = await requestParams(c);
      // user.members / project_members / group_members: memberships that are not access requests.
      const where: SQL | undefined = and(eq(members.userId, p.user_id), p.type ? eq(members.sourceType, p.type) : undefined);
      const sourceName = sql<string | null>`CASE ${members.sourceType} WHEN 'Project' THEN (SELECT p.name FROM ${projects} p WHERE p.id = ${members.sourceId}) ELSE (SELECT n.name FROM ${namespaces} n WHERE n.id = ${members.sourceId}) END`;
      // The user, the page (with each source's name) and its count: one round trip.
      const { rows } = await paginateWith(
        c,
        pageRequest(p, raw.per_page),
        linkParamsFrom(raw, {}),
        (limit, offset) =>
          db.select({ sourceId: members.sourceId, sourceType: members.sourceType, accessLevel: members.accessLevel, sourceName }).from(members).where(where).orderBy(asc(members.id)).limit(limit).offset(offset),
        (limit) => countUpToQuery(db, members, where, limit),
        [db.select({ id: users.id }).from(users).where(eq(users.id, p.user_id)).limit(1)],
        ([user]) => {
          if (!user[0]) throw notFound('User');
        },
      );
      return c.json(
        rows.map((m) => ({ source_id: m.sourceId, source_name: m.sourceName ?? '', source_type: m.sourceType as 'Project' | 'Namespace', access_level: m.accessLevel })),
      );
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/user/activities',
      summary: "List users' last activity dates (administrators)",
      tags: ['users'],
      params: activitiesParams,
      scopes: ['read_user'],
      responses: { 200: z.array(UserActivitySchema) },
    },
    async ({ c, p, caller }) => {
      requireAdmin(caller);
      const db = c.var.db;
      const raw = await requestParams(c);
      // `from` defaults to 6.months.ago; PostgreSQL compares the date column as midnight of its day,
      // so a `from` later in a day starts the list at the next day.
      const from = p.from ?? sixMonthsAgo();
      const fromDay = new Date(from % DAY === 0 ? from : from - (from % DAY) + DAY).toISOString().slice(0, 10);
      const where = and(isNotNull(users.lastActivityOn), sql`${users.lastActivityOn} >= ${fromDay}`);
      const rows = await paginate(
        c,
        pageRequest(p, raw.per_page),
        linkParamsFrom(raw, {}),
        (limit, offset) => db.select({ username: users.username, day: users.lastActivityOn }).from(users).where(where).orderBy(asc(users.lastActivityOn), asc(users.id)).limit(limit).offset(offset),
        (limit) => countUpToQuery(db, users, where, limit),
      );
      return c.json(rows.map((u) => ({ username: u.username, last_activity_on: u.day!, last_activity_at: u.day! })));
    },
  );
}

function sixMonthsAgo(): number {
  const d = new Date();
  d.setUTCMonth(d.getUTCMonth() - 6);
  return d.getTime();
}
