/**
 * Deleting projects, groups and users' namespaces (Projects::DestroyService, Groups::DestroyService,
 * Users::DestroyService): every domain's rows through platform/cascade.ts, then the memberships,
 * projects and namespaces themselves, which this domain owns.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client';
import { groupCustomAttributes, members, namespaces, projectCustomAttributes, projects } from '../db/schema';
import { type Cascade, cascade, type CascadeResult, combined, within } from '../platform/cascade';
import { type NamespaceRow, subtreeOf } from './abilities';
import { groupTreeProjectIds } from './groups';

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
      db.delete(projects).where(within(projects.id, ids)),
    ],
  }),
  group: (db, ids) => ({
    statements: [
      db.delete(members).where(and(eq(members.sourceType, 'Namespace'), within(members.sourceId, ids))),
      db.delete(groupCustomAttributes).where(within(groupCustomAttributes.groupId, ids)),
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
      statements: [db.delete(members).where(within(members.userId, ids)), db.delete(namespaces).where(and(eq(namespaces.kind, 'User'), within(namespaces.ownerId, ids)))],
      blobReads: [],
    };
    return combined(personal, own, ...(opts.soleOwnedGroups ?? []).map((g) => groupDeletion(db, g)));
  },
};
