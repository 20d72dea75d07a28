/**
 * Deleting projects, groups and users' namespaces (Projects::DestroyService, Groups::DestroyService,
 * Users::DestroyService): every domain's rows through platform/cascade.ts, then the memberships,
 * projects and namespaces themselves, which this domain owns.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { groupCustomAttributes, groupGroupLinks, members, namespaces, projectCustomAttributes, projectGroupLinks, projects, shareGrants } from '../db/schema';
import { type Cascade, cascade, type CascadeResult, combined, within } from '../platform/cascade';
import { type NamespaceRow, subtreeOf } from './abilities';
import { groupTreeProjectIds } from './groups';
import { dropGrantsOfLinks } from './share-grants';

/** A group with its whole subtree: their projects first, then the groups. */
export function groupDeletion(db: Db, group: Pick<NamespaceRow, 'traversalPath'>): CascadeResult {
  const inProjects = cascade(db, 'project', groupTreeProjectIds(db, group));
  const inGroups = cascade(db, 'group', db.select({ id: namespaces.id }).from(namespaces).where(subtreeOf(group.traversalPath!)));
  return combined(inProjects, inGroups);
}

export const projectsCascade: Cascade = {
  project: (db, ids) => ({
    statements: [
      db.delete(members).where(and(eq(members.sourceType, 'Project'), within(members.sourceId, ids))),
      db.delete(projectCustomAttributes).where(within(projectCustomAttributes.projectId, ids)),
      // The project's shares end with the access they gave.
      db.delete(shareGrants).where(and(eq(shareGrants.sourceType, 'Project'), within(shareGrants.sourceId, ids))),
      db.delete(projectGroupLinks).where(within(projectGroupLinks.projectId, ids)),
      db.delete(projects).where(within(projects.id, ids)),
    ],
  }),
  group: (db, ids) => ({
    statements: [
      db.delete(members).where(and(eq(members.sourceType, 'Namespace'), within(members.sourceId, ids))),
      db.delete(groupCustomAttributes).where(within(groupCustomAttributes.groupId, ids)),
      // Shares with a deleted group end, and so do a deleted group's own shares (GroupGroupLink, ProjectGroupLink: dependent destroy),
      // with the access they gave (grants by link, taken before the links go).
      dropGrantsOfLinks(db, 'project', sql`SELECT l.id FROM project_group_links l WHERE l.group_id IN (${ids})`),
      dropGrantsOfLinks(db, 'group', sql`SELECT l.id FROM group_group_links l WHERE l.shared_group_id IN (${ids}) OR l.shared_with_group_id IN (${ids})`),
      db.delete(projectGroupLinks).where(within(projectGroupLinks.groupId, ids)),
      db.delete(groupGroupLinks).where(within(groupGroupLinks.sharedGroupId, ids)),
      db.delete(groupGroupLinks).where(within(groupGroupLinks.sharedWithGroupId, ids)),
      db.delete(namespaces).where(within(namespaces.id, ids)),
    ],
  }),
  // The personal namespace goes with its projects and the user's memberships end; with
  // hard_delete, the groups the user alone owns go too, each with its subtree (their traversal paths
  // are literals: the memberships that made them solely owned are gone by then).
  user: (db, ids, opts) => {
    const personalNs = db.select({ id: namespaces.id }).from(namespaces).where(and(eq(namespaces.kind, 'User'), within(namespaces.ownerId, ids)));
    const personal = cascade(db, 'project', db.select({ id: projects.id }).from(projects).where(inArray(projects.namespaceId, personalNs)));
    const own: CascadeResult = {
      statements: [db.delete(members).where(within(members.userId, ids)), db.delete(shareGrants).where(within(shareGrants.userId, ids)), db.delete(namespaces).where(and(eq(namespaces.kind, 'User'), within(namespaces.ownerId, ids)))],
      blobReads: [],
    };
    return combined(personal, own, ...(opts.soleOwnedGroups ?? []).map((g) => groupDeletion(db, g)));
  },
};
