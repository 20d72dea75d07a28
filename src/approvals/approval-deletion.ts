/** Approval rows that go with deleted merge requests, projects, users and groups (cascade.ts). */
import { inArray } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import {
  approvalMergeRequestRules,
  approvalMergeRequestRulesGroups,
  approvalMergeRequestRulesUsers,
  approvalProjectRules,
  approvalProjectRulesGroups,
  approvalProjectRulesProtectedBranches,
  approvalProjectRulesUsers,
  approvals,
  mergeRequests,
  projectApprovalSettings,
} from '../db/schema';

/** Rows of approvals removed with merge requests (`mrIds`: a sub-select or list), for content deletion. */
export function approvalDeletionForMergeRequests(db: Db, mrIds: unknown): BatchItem<'sqlite'>[] {
  const ruleIds = db.select({ id: approvalMergeRequestRules.id }).from(approvalMergeRequestRules).where(inArray(approvalMergeRequestRules.mergeRequestId, mrIds as never));
  return [
    db.delete(approvalMergeRequestRulesUsers).where(inArray(approvalMergeRequestRulesUsers.ruleId, ruleIds)),
    db.delete(approvalMergeRequestRulesGroups).where(inArray(approvalMergeRequestRulesGroups.ruleId, ruleIds)),
    db.delete(approvalMergeRequestRules).where(inArray(approvalMergeRequestRules.mergeRequestId, mrIds as never)),
    db.delete(approvals).where(inArray(approvals.mergeRequestId, mrIds as never)),
  ];
}

/** Rows removed with projects (`projectIds`: a sub-select or list): their settings, project rules and the approvals of their merge requests. */
export function approvalDeletionForProjects(db: Db, projectIds: unknown): BatchItem<'sqlite'>[] {
  const ruleIds = db.select({ id: approvalProjectRules.id }).from(approvalProjectRules).where(inArray(approvalProjectRules.projectId, projectIds as never));
  const mrIds = db.select({ id: mergeRequests.id }).from(mergeRequests).where(inArray(mergeRequests.projectId, projectIds as never));
  return [
    ...approvalDeletionForMergeRequests(db, mrIds),
    db.delete(approvalProjectRulesUsers).where(inArray(approvalProjectRulesUsers.ruleId, ruleIds)),
    db.delete(approvalProjectRulesGroups).where(inArray(approvalProjectRulesGroups.ruleId, ruleIds)),
    db.delete(approvalProjectRulesProtectedBranches).where(inArray(approvalProjectRulesProtectedBranches.ruleId, ruleIds)),
    db.delete(approvalProjectRules).where(inArray(approvalProjectRules.projectId, projectIds as never)),
    db.delete(projectApprovalSettings).where(inArray(projectApprovalSettings.projectId, projectIds as never)),
  ];
}

/** Rows naming deleted users: their approvals and their places on approval rules (`userIds`: a sub-select or list). */
export function approvalUserDeletionStatements(db: Db, userIds: unknown): BatchItem<'sqlite'>[] {
  return [
    db.delete(approvals).where(inArray(approvals.userId, userIds as never)),
    db.delete(approvalProjectRulesUsers).where(inArray(approvalProjectRulesUsers.userId, userIds as never)),
    db.delete(approvalMergeRequestRulesUsers).where(inArray(approvalMergeRequestRulesUsers.userId, userIds as never)),
  ];
}

/** Rows naming deleted groups on approval rules (`groupIds`: a sub-select or list). */
export function approvalGroupDeletionStatements(db: Db, groupIds: unknown): BatchItem<'sqlite'>[] {
  return [
    db.delete(approvalProjectRulesGroups).where(inArray(approvalProjectRulesGroups.groupId, groupIds as never)),
    db.delete(approvalMergeRequestRulesGroups).where(inArray(approvalMergeRequestRulesGroups.groupId, groupIds as never)),
  ];
}
