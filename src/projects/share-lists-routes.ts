/**
 * Lists that follow sharing links (GitLab lib/api/groups.rb and projects.rb): the groups a group was
 * invited to (`GET /groups/:id/groups/shared`, Namespaces::Groups::SharedGroupsFinder) and the groups
 * invited to a group or project (`GET /groups/:id/invited_groups`, `GET /projects/:id/invited_groups`,
 * Namespaces::{Groups,Projects}::InvitedGroupsFinder). Links past their `expires_at` count as gone
 * (GitLab's RemoveExpiredGroupLinksWorker deletes them).
 */
import { and, asc, desc, eq, not, sql, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import { namespaces } from '../db/schema';
import type { AppEnv, Caller } from '../platform/context';
import { baseUrl, countUpToQuery, linkParamsFrom, pageRequest, paginate, paginationParams } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { today } from '../platform/time';
import { g, params } from '../platform/validate';
import { settingsOf } from '../settings/settings';
import { groupLevelSql, groupVisibleSql, MEMBER_LEVELS, traversalIds } from './abilities';
import { groupEntity, GroupSchema } from './group-entity';
import { namespaceFullNameSql } from './group-queries';
import { findReadableGroup } from './groups';
import { namespaceAvatarUrl, namespaceWebUrl } from './namespace-entity';
import { PublicGroupDetailsSchema } from './project-groups-routes';
import { findReadableProject } from './projects';

const VIS = ['private', 'internal', 'public'] as const;
const relation = g.csv().refine((list) => list.every((r) => r === 'direct' || r === 'inherited'), { message: 'does not have a valid value' });

const sharedGroupsParams = params({
  id: g.string(),
  skip_groups: g.intCsv().optional(),
  visibility: g.enum(VIS).optional(),
  search: g.search().optional(),
  min_access_level: g.intEnum(MEMBER_LEVELS).optional(),
  order_by: g.enum(['name', 'path', 'id', 'similarity'] as const).default('name'),
  sort: g.enum(['asc', 'desc'] as const).default('asc'),
  with_custom_attributes: g.bool().default(false),
  ...paginationParams,
});

const invitedGroupsParams = params({
  id: g.string(),
  relation: relation.optional(),
  search: g.search().optional(),
  min_access_level: g.intEnum(MEMBER_LEVELS).optional(),
  with_custom_attributes: g.bool().default(false),
  ...paginationParams,
});

const activeLink = sql`(l.expires_at IS NULL OR l.expires_at > ${today()})`;
const idsIn = (ids: number[]) => sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`;

/**
 * The filters the finders share (Namespaces::GroupsFilter) over `namespaces`: public_or_visible_to_user,
 * `search` with `include_parents` (the route's full path and full name), `min_access_level` (signed in only).
 */
function groupFilters(caller: Caller, p: { search?: string; min_access_level?: number }): (SQL | undefined)[] {
  const conds: (SQL | undefined)[] = [eq(namespaces.kind, 'Group'), groupVisibleSql(caller)];
  if (p.search) {
    const q = `%${p.search.replace(/[%_\\]/g, '\\$&')}%`;
    conds.push(sql`(${namespaces.fullPath} LIKE ${q} ESCAPE '\\' OR ${namespaceFullNameSql()} LIKE ${q} ESCAPE '\\')`);
  }
  if (caller.user && p.min_access_level) conds.push(sql`${groupLevelSql(caller.user.id)} >= ${p.min_access_level}`);
  return conds;
}

/** A page of groups with their full names (one round trip with the count), `present_groups` style. */
async function pageOfGroups(c: Context<AppEnv>, p: { page?: number; per_page?: number }, where: SQL | undefined, order: SQL[], defaults: Record<string, unknown>) {
  const db = c.var.db;
  const raw = await requestParams(c);
  return paginate(
    c,
    pageRequest(p, raw.per_page),
    linkParamsFrom(raw, defaults),
    (limit, offset) =>
      db
        .select({ ns: namespaces, fullName: namespaceFullNameSql().as('full_name') })
        .from(namespaces)
        .where(where)
        .orderBy(...order)
        .limit(limit)
        .offset(offset),
    (limit) => countUpToQuery(db, namespaces, where, limit),
  );
}

/** Which groups' links an invited-groups list follows: `relation` direct, inherited, or both (the default). */
function linkOwners(self: number[], ancestors: number[], rel: string[] | undefined): number[] {
  const direct = rel?.includes('direct') ?? false;
  const inherited = rel?.includes('inherited') ?? false;
  if (direct && !inherited) return self;
  if (inherited && !direct) return ancestors;
  return [...ancestors, ...self];
}

export function mountShareLists(r: Router) {
  r.route(
    { method: 'GET', path: '/groups/:id/groups/shared', summary: 'List the groups a group was invited to', tags: ['groups'], params: sharedGroupsParams, responses: { 200: z.array(GroupSchema) } },
    async ({ c, p, caller }) => {
      const { group } = await findReadableGroup(c, caller, p.id);
      const conds = [sql`${namespaces.id} IN (SELECT l.shared_group_id FROM group_group_links l WHERE l.shared_with_group_id = ${group.id} AND ${activeLink})`, ...groupFilters(caller, p)];
      if (p.visibility) conds.push(eq(namespaces.visibility, p.visibility));
      if (p.skip_groups?.length) conds.push(not(sql`${namespaces.id} IN ${idsIn(p.skip_groups)}`));
      // groups.rb order_groups: `order_by` (similarity is name order here) then id ascending.
      const dir = p.sort === 'desc' ? desc : asc;
      const order = p.order_by === 'id' ? [dir(namespaces.id)] : [dir(p.order_by === 'path' ? namespaces.path : namespaces.name), asc(namespaces.id)];
      const rows = await pageOfGroups(c, p, and(...conds), order, { id: p.id, order_by: 'name', sort: 'asc', with_custom_attributes: false });
      return c.json(await presentGroups(c, rows));
    },
  );

  r.route(
    { method: 'GET', path: '/groups/:id/invited_groups', summary: 'List the groups invited to a group', tags: ['groups'], params: invitedGroupsParams, responses: { 200: z.array(GroupSchema) } },
    async ({ c, p, caller }) => {
      const { group } = await findReadableGroup(c, caller, p.id);
      // GroupMembersHelper#group_group_links: the group's own links, its ancestors', or both.
      const owners = linkOwners([group.id], traversalIds(group).filter((id) => id !== group.id), p.relation);
      const invited = sql`${namespaces.id} IN (SELECT l.shared_with_group_id FROM group_group_links l WHERE l.shared_group_id IN ${idsIn(owners)} AND ${activeLink})`;
      // GroupsFilter#sort with no `sort` declared: newest id first.
      const rows = await pageOfGroups(c, p, and(invited, ...groupFilters(caller, p)), [desc(namespaces.id)], { id: p.id, with_custom_attributes: false });
      return c.json(await presentGroups(c, rows));
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/invited_groups',
      summary: 'List the groups invited to a project',
      tags: ['projects'],
      params: invitedGroupsParams,
      responses: { 200: z.array(PublicGroupDetailsSchema) },
    },
    async ({ c, p, caller }) => {
      const { project, namespace } = await findReadableProject(c, caller, p.id);
      const rel = p.relation ?? [];
      const both = rel.includes('direct') === rel.includes('inherited');
      // Projects::InvitedGroupsFinder: `direct` the project's links, `inherited` the links of its group and that group's ancestors.
      const direct = sql`${namespaces.id} IN (SELECT l.group_id FROM project_group_links l WHERE l.project_id = ${project.id} AND ${activeLink})`;
      const inherited = sql`${namespaces.id} IN (SELECT l.shared_with_group_id FROM group_group_links l WHERE l.shared_group_id IN ${idsIn(traversalIds(namespace))} AND ${activeLink})`;
      const scope = both ? sql`(${direct} OR ${inherited})` : rel.includes('direct') ? direct : inherited;
      const rows = await pageOfGroups(c, p, and(scope, ...groupFilters(caller, p)), [desc(namespaces.id)], { id: p.id, with_custom_attributes: false });
      const base = baseUrl(c);
      // projects.rb present_groups: Entities::PublicGroupDetails.
      return c.json(
        rows.map(({ ns, fullName }) => ({ id: ns.id, web_url: namespaceWebUrl(ns, base), name: ns.name, avatar_url: namespaceAvatarUrl(ns, base), full_name: fullName, full_path: ns.fullPath })),
      );
    },
  );
}

async function presentGroups(c: Context<AppEnv>, rows: { ns: typeof namespaces.$inferSelect; fullName: string }[]) {
  const base = baseUrl(c);
  const settings = await settingsOf(c);
  return rows.map(({ ns, fullName }) => groupEntity(ns, { base, fullName, settings }));
}
