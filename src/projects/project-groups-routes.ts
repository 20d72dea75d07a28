/**
 * GET /projects/:id/groups (GitLab lib/api/projects.rb `:id/groups`, Projects::GroupsFinder): the
 * project's group and its ancestors, newest id first, as Entities::PublicGroupDetails.
 * With `with_shared`, the groups the project is shared with too (`project.invited_groups`), those
 * whose link gives at least `shared_min_access_level`, and with `shared_visible_only` only those the
 * caller may read.
 */
import { and, desc, not, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { namespaces } from '../db/schema';
import { countUpToQuery, baseUrl, linkParamsFrom, pageRequest, paginate, paginationParams } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { id, obj } from '../platform/response-schemas';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { namespaceAvatarUrl, namespaceWebUrl } from './namespace-entity';
import { namespaceFullNameSql } from './group-queries';
import { findReadableProject } from './projects';
import { groupVisibleSql, MEMBER_LEVELS } from './abilities';

export const PublicGroupDetailsSchema = obj({ id, web_url: z.string(), name: z.string(), avatar_url: z.string().nullable(), full_name: z.string(), full_path: z.string() }).meta({
  id: 'PublicGroupDetails',
});

const projectGroupsParams = params({
  id: g.string(),
  search: g.search().optional(),
  skip_groups: g.intCsv().optional(),
  with_shared: g.bool().default(false),
  shared_visible_only: g.bool().default(false),
  shared_min_access_level: g.intEnum(MEMBER_LEVELS).optional(),
  ...paginationParams,
});

export function mountProjectGroups(r: Router) {
  r.route(
    {
      method: 'GET',
      path: '/projects/:id/groups',
      summary: "List a project's ancestor groups",
      tags: ['projects'],
      params: projectGroupsParams,
      responses: { 200: z.array(PublicGroupDetailsSchema) },
    },
    async ({ c, p, caller }) => {
      const found = await findReadableProject(c, caller, p.id);
      const db = c.var.db;
      const raw = await requestParams(c);
      const path = found.namespace.traversalPath;
      // self_and_ancestors: the groups whose traversal path starts the project's namespace's one.
      const ancestors = path ? sql`${namespaces.traversalPath} = substr(${path}, 1, length(${namespaces.traversalPath}))` : sql`0`;
      const min = p.shared_min_access_level ?? 0;
      const invited = sql`${namespaces.id} IN (SELECT l.group_id FROM project_group_links l WHERE l.project_id = ${found.project.id} AND l.group_access >= ${min})`;
      const conds: (SQL | undefined)[] = [p.with_shared ? sql`(${ancestors} OR (${invited}${p.shared_visible_only ? sql` AND ${groupVisibleSql(caller) ?? sql`1`}` : sql``}))` : ancestors];
      if (p.skip_groups?.length) conds.push(not(sql`${namespaces.id} IN (SELECT value FROM json_each(${JSON.stringify(p.skip_groups)}))`));
      if (p.search) {
        const q = `%${p.search.replace(/[%_\\]/g, '\\$&')}%`;
        conds.push(sql`(${namespaces.name} LIKE ${q} ESCAPE '\\' OR ${namespaces.path} LIKE ${q} ESCAPE '\\')`);
      }
      const where = and(sql`${namespaces.kind} = 'Group'`, ...conds);
      const rows = await paginate(
        c,
        pageRequest(p, raw.per_page),
        linkParamsFrom(raw, { with_shared: false, shared_visible_only: false }),
        (limit, offset) => db.select({ ns: namespaces, fullName: namespaceFullNameSql().as('full_name') }).from(namespaces).where(where).orderBy(desc(namespaces.id)).limit(limit).offset(offset),
        (limit) => countUpToQuery(db, namespaces, where, limit),
      );
      const base = baseUrl(c);
      return c.json(
        rows.map(({ ns, fullName }) => ({ id: ns.id, web_url: namespaceWebUrl(ns, base), name: ns.name, avatar_url: namespaceAvatarUrl(ns, base), full_name: fullName, full_path: ns.fullPath })),
      );
    },
  );
}
