/**
 * Access given by sharing (GitLab ProjectGroupLink, GroupGroupLink; Project#max_member_access_for_user
 * through project_authorizations): as SQL terms over a `projects`/`namespaces` row, so that the
 * access reads stay one statement and the round-trip budget does not move.
 *
 * - A project shared with group G: members of G and of G's ancestors (inherited members) get
 *   min(their level, link's group_access) in the project.
 * - A group S shared with group G: members of G and of its ancestors get min(their level,
 *   group_access) in S, in every group below S and in their projects.
 * Expired links (`expires_at` on or before today) and expired memberships give nothing.
 *
 * Ancestors come from `traversal_path` ('/1/5/9/') turned into a JSON array for `json_each`, so
 * each probe is an index lookup (`members_user_source`, the links' unique indexes).
 */
import { type Placeholder, sql, type SQL } from 'drizzle-orm';

/** JSON array of the ids in a traversal path expression (NULL for personal namespaces: no rows). */
const idsOf = (path: SQL) => sql`json_each('[' || replace(trim(${path}, '/'), '/', ',') || ']')`;

type Uid = number | SQL | Placeholder;
type Day = string | Placeholder;

/** Best min(member level, link level) of the user over memberships in the linked group `groupPath` or its ancestors. */
const viaMembers = (userId: Uid, day: Day, groupPath: SQL) =>
  sql`m.user_id = ${userId} AND m.source_type = 'Namespace' AND m.source_id IN (SELECT value FROM ${idsOf(groupPath)}) AND (m.expires_at IS NULL OR m.expires_at > ${day})`;

/** SQL: the user's level in a project through groups the project is shared with (0 none). */
export function projectShareLevelSql(userId: Uid, day: Day, projectId: SQL) {
  return sql<number>`coalesce((SELECT max(min(m.access_level, l.group_access)) FROM project_group_links l JOIN namespaces g ON g.id = l.group_id JOIN members m ON ${viaMembers(userId, day, sql`g.traversal_path`)}
    WHERE l.project_id = ${projectId} AND (l.expires_at IS NULL OR l.expires_at > ${day})), 0)`;
}

/** SQL: the user's level in a group (by its traversal path) through groups it or an ancestor is shared with (0 none). */
export function groupShareLevelSql(userId: Uid, day: Day, nsPath: SQL) {
  return sql<number>`coalesce((SELECT max(min(m.access_level, l.group_access)) FROM group_group_links l JOIN namespaces g ON g.id = l.shared_with_group_id JOIN members m ON ${viaMembers(userId, day, sql`g.traversal_path`)}
    WHERE l.shared_group_id IN (SELECT value FROM ${idsOf(nsPath)}) AND (l.expires_at IS NULL OR l.expires_at > ${day})), 0)`;
}

/**
 * SQL over a group row (by its traversal path): 1 when a share gives the user access to a project or
 * a group below it, which lets them read the group as a membership below it would (GroupPolicy
 * `has_projects`, whose project authorizations include shares). Driven from the user's group
 * memberships: their groups and subgroups, the links from those, the shared things' namespaces.
 */
export function shareBelowSql(userId: Uid, day: Day, nsPath: SQL) {
  const mine = sql`members m JOIN namespaces a ON a.id = m.source_id JOIN namespaces g ON g.traversal_path >= a.traversal_path AND g.traversal_path < a.traversal_path || ':'`;
  const active = sql`m.user_id = ${userId} AND m.source_type = 'Namespace' AND (m.expires_at IS NULL OR m.expires_at > ${day}) AND (l.expires_at IS NULL OR l.expires_at > ${day})`;
  const inTree = sql`d.traversal_path >= ${nsPath} AND d.traversal_path < ${nsPath} || ':'`;
  return sql<number>`(EXISTS (SELECT 1 FROM ${mine} JOIN project_group_links l ON l.group_id = g.id JOIN projects p ON p.id = l.project_id JOIN namespaces d ON d.id = p.namespace_id WHERE ${active} AND ${inTree})
    OR EXISTS (SELECT 1 FROM ${mine} JOIN group_group_links l ON l.shared_with_group_id = g.id JOIN namespaces d ON d.id = l.shared_group_id WHERE ${active} AND ${inTree}))`;
}

