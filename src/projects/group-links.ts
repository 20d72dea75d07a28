/**
 * Reads and wire shape of sharing links (GitLab ProjectGroupLink, GroupGroupLink): the
 * `shared_with_groups` of the Project and GroupDetail entities (Entities::SharedGroupWithProject,
 * SharedGroupWithGroup) and Entities::ProjectGroupLink, which `POST /projects/:id/share` answers.
 */
import { asc, eq, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Db } from '../db/client';
import { groupGroupLinks, namespaces, projectGroupLinks } from '../db/schema';
import { date, id, int, obj } from '../platform/response-schemas';

export const ProjectGroupLinkSchema = obj({ id, project_id: id, group_id: id, group_access: int, expires_at: date.nullable() }).meta({ id: 'ProjectGroupLink' });

export const projectGroupLinkEntity = (l: typeof projectGroupLinks.$inferSelect) => ({
  id: l.id,
  project_id: l.projectId,
  group_id: l.groupId,
  group_access: l.groupAccess,
  expires_at: l.expiresAt,
});

export interface SharedWithGroupRow {
  sourceId: number;
  groupId: number;
  groupName: string;
  groupFullPath: string;
  groupAccess: number;
  expiresAt: string | null;
}

/** The groups projects are shared with (`where` over the link's project id), oldest link first. */
export function projectSharedWithRead(db: Db, where: (column: SQLWrapper) => SQL) {
  return db
    .select({
      sourceId: sql<number>`${projectGroupLinks.projectId}`.as('source_id'),
      groupId: projectGroupLinks.groupId,
      groupName: namespaces.name,
      groupFullPath: namespaces.fullPath,
      groupAccess: projectGroupLinks.groupAccess,
      expiresAt: projectGroupLinks.expiresAt,
    })
    .from(projectGroupLinks)
    .innerJoin(namespaces, eq(namespaces.id, projectGroupLinks.groupId))
    .where(where(projectGroupLinks.projectId))
    .orderBy(asc(projectGroupLinks.id));
}

/** The groups a group is shared with (`where` over the shared group's id), oldest link first. */
export function groupSharedWithRead(db: Db, where: (column: SQLWrapper) => SQL) {
  return db
    .select({
      sourceId: sql<number>`${groupGroupLinks.sharedGroupId}`.as('source_id'),
      groupId: groupGroupLinks.sharedWithGroupId,
      groupName: namespaces.name,
      groupFullPath: namespaces.fullPath,
      groupAccess: groupGroupLinks.groupAccess,
      expiresAt: groupGroupLinks.expiresAt,
    })
    .from(groupGroupLinks)
    .innerJoin(namespaces, eq(namespaces.id, groupGroupLinks.sharedWithGroupId))
    .where(where(groupGroupLinks.sharedGroupId))
    .orderBy(asc(groupGroupLinks.id));
}

export const sharedWithGroupEntity = (r: SharedWithGroupRow) => ({
  group_id: r.groupId,
  group_name: r.groupName,
  group_full_path: r.groupFullPath,
  group_access_level: r.groupAccess,
  expires_at: r.expiresAt,
});

/** `shared_with_groups` by source id. */
export function sharedWithGroupsBySource(rows: readonly SharedWithGroupRow[] | undefined) {
  const out = new Map<number, ReturnType<typeof sharedWithGroupEntity>[]>();
  for (const r of rows ?? []) {
    const id = Number(r.sourceId);
    if (!out.has(id)) out.set(id, []);
    out.get(id)!.push(sharedWithGroupEntity(r));
  }
  return out;
}

