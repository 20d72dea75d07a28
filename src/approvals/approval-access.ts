/** Who may update and approve a merge request, as approvals sees it (GitLab merge_request_policy.rb with its EE prepend). */
import { and, eq, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { memo } from '../platform/read-memo';
import type { Db } from '../db/client';
import { approvalProjectRulesGroups, approvalProjectRulesProtectedBranches, members, mergeRequestAssignees } from '../db/schema';
import { memoProtectedBranchRows } from '../repository/protected-branches';
import { ACCESS, activeMember, type ProjectRow } from '../projects/abilities';
import { canUpdateMergeRequest as mrCanUpdate } from '../merge-requests/merge-request-access';
import { type MergeRequestRow, refMatches } from './state';

/** Assignee ids of a merge request. */
export async function assigneeIds(db: Db, mrId: number): Promise<number[]> {
  return (await db.select({ id: mergeRequestAssignees.userId }).from(mergeRequestAssignees).where(eq(mergeRequestAssignees.mergeRequestId, mrId)).all()).map((r) => r.id);
}

/** update_merge_request as the merge request module decides it, and nobody on an archived project (ArchivedAbilities). */
export function canUpdateMergeRequest(caller: Caller, project: ProjectRow, level: number, mr: MergeRequestRow, assignees: number[]): boolean {
  if (!caller.user || project.archived) return false;
  return mrCanUpdate(caller, project, level, mr, assignees);
}

/**
 * approve_merge_request (MergeRequestPolicy#can_approve?: update_merge_request and a project member;
 * EE: a Reporter+ member of a group named on an approval rule of the protected branch matching the
 * target branch).
 */
export async function canApproveMergeRequest(c: Context<AppEnv>, caller: Caller, project: ProjectRow, level: number, mr: MergeRequestRow): Promise<boolean> {
  if (!caller.user || project.archived) return false;
  const db = c.var.db;
  // The assignees are read with the approval state (state-reads.ts) when a read memo is open.
  if (level >= ACCESS.GUEST && canUpdateMergeRequest(caller, project, level, mr, await memo(c, `assignees:${mr.id}`, () => assigneeIds(db, mr.id)))) return true;
  // The project's protected branches come with the approval state too (memoProtectedBranchRows).
  const branch = (await memoProtectedBranchRows(c, project.id)).find((b) => refMatches(b.name, mr.targetBranch));
  if (!branch) return false;
  const hit = await db
    .select({ one: sql`1` })
    .from(approvalProjectRulesProtectedBranches)
    .innerJoin(approvalProjectRulesGroups, eq(approvalProjectRulesGroups.ruleId, approvalProjectRulesProtectedBranches.ruleId))
    .innerJoin(
      members,
      and(eq(members.sourceType, 'Namespace'), eq(members.sourceId, approvalProjectRulesGroups.groupId), eq(members.userId, caller.user.id), activeMember()),
    )
    .where(and(eq(approvalProjectRulesProtectedBranches.protectedBranchId, branch.id), sql`${members.accessLevel} >= ${ACCESS.REPORTER}`))
    .limit(1)
    .get();
  return Boolean(hit);
}
