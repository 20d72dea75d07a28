/**
 * Protected branch reads for one batch with the project's lookup (issue 13): the branches named by
 * a sub-select of their ids, with their access levels and the names of the users and groups those
 * levels describe, so a page or a single branch is presented from one round trip.
 */
import { asc, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { namespaces, protectedBranchAccessLevels, protectedBranches, users } from '../db/schema';
import { type AccessLevelRow, type ProtectedBranchRow, withLevels } from './protected-branches';
import type { ProtectedBranchExtras } from './protected-branch-entity';

/** One protected branch of the project, by exact name, as a sub-select of its id. */
export const branchIdByName = (projectId: SQL, name: string) => sql`(SELECT pb.id FROM protected_branches pb WHERE pb.project_id = ${projectId} AND pb.name = ${name})`;

/** The project's protected branches, a page of them when `page` is given, in id order, as a sub-select of their ids. */
export const branchIdsOf = (projectId: SQL, page?: { limit: number; offset: number }) =>
  page
    ? sql`(SELECT pb.id FROM protected_branches pb WHERE pb.project_id = ${projectId} ORDER BY pb.id LIMIT ${page.limit} OFFSET ${page.offset})`
    : sql`(SELECT pb.id FROM protected_branches pb WHERE pb.project_id = ${projectId})`;

/** The branches `ids` names, their access levels, and the names of their users and groups: four reads for a batch. */
export function protectedBranchesReads(db: Db, ids: SQL) {
  const entries = (column: string) => sql.raw(`(SELECT l.${column} FROM protected_branch_access_levels l WHERE l.protected_branch_id IN `);
  return [
    db.select().from(protectedBranches).where(sql`${protectedBranches.id} IN ${ids}`).orderBy(asc(protectedBranches.id)),
    db.select().from(protectedBranchAccessLevels).where(sql`${protectedBranchAccessLevels.protectedBranchId} IN ${ids}`).orderBy(asc(protectedBranchAccessLevels.id)),
    db.select({ id: users.id, name: users.name }).from(users).where(sql`${users.id} IN ${entries('user_id')}${ids})`),
    db.select({ id: namespaces.id, name: namespaces.name }).from(namespaces).where(sql`${namespaces.id} IN ${entries('group_id')}${ids})`),
  ] as const;
}

/** The results of `protectedBranchesReads`: the branches with their levels, and the names for their presenter. */
export function protectedBranchesFrom([rows, levels, userRows, groupRows]: readonly [ProtectedBranchRow[], AccessLevelRow[], { id: number; name: string }[], { id: number; name: string }[]]) {
  const names: Pick<ProtectedBranchExtras, 'userNames' | 'groupNames'> = {
    userNames: new Map(userRows.map((u) => [u.id, u.name])),
    groupNames: new Map(groupRows.map((g) => [g.id, g.name])),
  };
  return { branches: withLevels(rows, levels), names };
}
