/**
 * Deleting projects, groups and users' namespaces (Projects::DestroyService, Groups::DestroyService,
 * Users::DestroyService): every domain's rows through platform/cascade.ts, then the memberships,
 * projects and namespaces themselves, which this domain owns.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { members, namespaces, projects } from '../db/schema';
import { type Cascade, cascade, type CascadeResult, type IdSelect, within } from '../platform/cascade';
import { soleOwnedGroupIds } from '../users/users';
import { type NamespaceRow, subtreeOf } from './abilities';
import { groupTreeProjectIds } from './groups';

/** A group with its whole subtree: their projects first, then the groups. */
export async function groupDeletion(db: Db, group: NamespaceRow): Promise<CascadeResult> {
  const inProjects = await cascade(db, 'project', groupTreeProjectIds(db, group));
  const inGroups = await cascade(db, 'group', db.select({ id: namespaces.id }).from(namespaces).where(subtreeOf(group.traversalPath!)));
  return { statements: [...inProjects.statements, ...inGroups.statements], blobKeys: [...inProjects.blobKeys, ...inGroups.blobKeys] };
}

export const projectsCascade: Cascade = {
  project: (db, ids) => ({
    statements: [db.delete(members).where(and(eq(members.sourceType, 'Project'), within(members.sourceId, ids))), db.delete(projects).where(within(projects.id, ids))],
  }),
  group: (db, ids) => ({
    statements: [db.delete(members).where(and(eq(members.sourceType, 'Namespace'), within(members.sourceId, ids))), db.delete(namespaces).where(within(namespaces.id, ids))],
  }),
  // The personal namespace goes with its projects and the user's memberships end; with
  // hard_delete, the groups the user alone owns go too, each with its subtree.
  user: async (db, ids, opts) => {
    const personalNs = db.select({ id: namespaces.id }).from(namespaces).where(and(eq(namespaces.kind, 'User'), within(namespaces.ownerId, ids)));
    const personal = await cascade(db, 'project', db.select({ id: projects.id }).from(projects).where(inArray(projects.namespaceId, personalNs)));
    const statements: BatchItem<'sqlite'>[] = [
      ...personal.statements,
      db.delete(members).where(within(members.userId, ids)),
      db.delete(namespaces).where(and(eq(namespaces.kind, 'User'), within(namespaces.ownerId, ids))),
    ];
    const blobKeys = [...personal.blobKeys];
    if (opts.hardDelete) {
      for (const group of await soleOwnedGroups(db, ids)) {
        const r = await groupDeletion(db, group);
        statements.push(...r.statements);
        blobKeys.push(...r.blobKeys);
      }
    }
    return { statements, blobKeys };
  },
};

async function soleOwnedGroups(db: Db, userIds: IdSelect): Promise<NamespaceRow[]> {
  const ids = await soleOwnedGroupIds(db, userIds);
  return ids.length ? db.select().from(namespaces).where(inArray(namespaces.id, ids.slice(0, 90))).all() : [];
}
