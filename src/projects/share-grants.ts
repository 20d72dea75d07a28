/**
 * Keeping `share_grants` (src/db/schema/group-links.ts) equal to what the links give: each function
 * returns the statements that rewrite one slice of it, for the batch of the write that changes the
 * slice, so access is never computed from half-applied state.
 *
 * What a link gives (GitLab ProjectGroupLink, GroupGroupLink, Members; project_authorizations):
 * every member of the invited group, direct or inherited from one of its ancestors, gets
 * min(their level, the link's `group_access`) in the shared project, or in the shared group and
 * everything below it, until the earlier of the two expiry dates. Minimal-access members get nothing.
 */
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { shareGrants } from '../db/schema';

/** Which rows: one link's (its id, or a sub-select of it when the link is written in the same batch), some users', or the links inviting groups of a subtree. */
type Slice = { link: { kind: 'project' | 'group'; id: number | SQL } } | { userIds: number[] } | { invitedSubtree: string };

/** Ids of a traversal path column ('/1/5/9/') for `IN (SELECT value FROM ...)`. */
const idsOf = (path: SQL) => sql`json_each('[' || replace(trim(${path}, '/'), '/', ',') || ']')`;
const earlier = sql`CASE WHEN l.expires_at IS NULL THEN m.expires_at WHEN m.expires_at IS NULL THEN l.expires_at ELSE min(l.expires_at, m.expires_at) END`;
const invitedMembers = sql`JOIN members m ON m.source_type = 'Namespace' AND m.source_id IN (SELECT value FROM ${idsOf(sql`g.traversal_path`)}) AND m.access_level >= 10`;

/** `WHERE` of the grant rows to compute for a slice (over `l` the link, `g` the invited group, `m` the membership). */
function sliceWhere(kind: 'project' | 'group', slice: Slice): SQL {
  if ('link' in slice) return slice.link.kind === kind ? sql`l.id = (${slice.link.id})` : sql`0`;
  if ('userIds' in slice) return sql`m.user_id IN (SELECT value FROM json_each(${JSON.stringify(slice.userIds)}))`;
  return sql`g.traversal_path >= ${slice.invitedSubtree} AND g.traversal_path < ${slice.invitedSubtree + ':'}`;
}

/** Link ids whose invited group is in a subtree (by traversal path), for the delete of that slice. */
const linksInvitingFrom = (table: 'project_group_links' | 'group_group_links', path: string) =>
  sql`SELECT l.id FROM ${sql.raw(table)} l JOIN namespaces g ON g.id = ${sql.raw(table === 'project_group_links' ? 'l.group_id' : 'l.shared_with_group_id')}
    WHERE g.traversal_path >= ${path} AND g.traversal_path < ${path + ':'}`;

function deleteSlice(db: Db, slice: Slice) {
  if ('link' in slice) return db.delete(shareGrants).where(and(eq(shareGrants.linkKind, slice.link.kind), sql`${shareGrants.linkId} = (${slice.link.id})`));
  if ('userIds' in slice) return db.delete(shareGrants).where(inArray(shareGrants.userId, slice.userIds));
  const p = slice.invitedSubtree;
  return db
    .delete(shareGrants)
    .where(
      sql`(${shareGrants.linkKind} = 'project' AND ${shareGrants.linkId} IN (${linksInvitingFrom('project_group_links', p)}))
        OR (${shareGrants.linkKind} = 'group' AND ${shareGrants.linkId} IN (${linksInvitingFrom('group_group_links', p)}))`,
    );
}

/**
 * The statements that recompute a slice: drop its rows, then insert them again from the links and
 * memberships as the batch has left them (run them after the batch's own writes).
 */
export function refreshShareGrants(db: Db, slice: Slice): BatchItem<'sqlite'>[] {
  if ('userIds' in slice && !slice.userIds.length) return [];
  // Columns in the table's order (link_kind, link_id, user_id, source_type, source_id, access_level, expires_at).
  const rows = (kind: 'project' | 'group') => {
    const link = kind === 'project' ? sql`project_group_links l ON l.group_id = g.id` : sql`group_group_links l ON l.shared_with_group_id = g.id`;
    const select = kind === 'project' ? sql`'project', l.id, m.user_id, 'Project', l.project_id` : sql`'group', l.id, m.user_id, 'Namespace', l.shared_group_id`;
    const from =
      'userIds' in slice
        ? // From the users' group memberships down to the groups below them and their links (CROSS JOIN keeps
          // SQLite on that order: a membership change must not scan every link of the instance).
          sql`members m CROSS JOIN namespaces a ON a.id = m.source_id CROSS JOIN namespaces g ON g.traversal_path >= a.traversal_path AND g.traversal_path < a.traversal_path || ':'
            CROSS JOIN ${link} WHERE m.source_type = 'Namespace' AND m.access_level >= 10 AND ${sliceWhere(kind, slice)}`
        : sql`${sql.raw(kind === 'project' ? 'project_group_links l JOIN namespaces g ON g.id = l.group_id' : 'group_group_links l JOIN namespaces g ON g.id = l.shared_with_group_id')} ${invitedMembers} WHERE ${sliceWhere(kind, slice)}`;
    return db.insert(shareGrants).select(sql`SELECT ${select}, min(m.access_level, l.group_access), ${earlier} FROM ${from}`);
  };
  return [deleteSlice(db, slice), rows('project'), rows('group')];
}

/** Grants of links that are gone (a deleted link, project or group): by link ids, before the links themselves are deleted. */
export const dropGrantsOfLinks = (db: Db, kind: 'project' | 'group', linkIds: SQL) =>
  db.delete(shareGrants).where(and(eq(shareGrants.linkKind, kind), sql`${shareGrants.linkId} IN (${linkIds})`));
