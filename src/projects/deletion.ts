/**
 * What goes with a deleted project or group: issues and everything hanging off them, labels,
 * milestones, epics, iid counters. Statements take sub-selects of the doomed ids, so a project with
 * any number of issues is removed in one db.batch of a fixed number of statements.
 */
import { and, eq, inArray, or, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client';
import {
  awardEmoji,
  epics,
  internalIds,
  issueAssignees,
  issueMetricImages,
  issues,
  labelLinks,
  labelPriorities,
  labels,
  milestones,
  notes,
  subscriptions,
  timelogs,
  todos,
  userAgentDetails,
  approvalMergeRequestRulesGroups,
  approvalProjectRules,
  approvalProjectRulesGroups,
  approvalProjectRulesProtectedBranches,
  approvalProjectRulesUsers,
  mergeRequestMentionedIssues,
  mergeRequests,
  mergeRequestsClosingIssues,
  projectApprovalSettings,
} from '../db/schema';
import { approvalDeletionForMergeRequests } from '../approvals/rules';
import { mergeRequestContentDeletion } from '../merge-requests/merge-requests';
import { protectedBranchDeletionStatements, protectedBranchGroupDeletionStatements } from '../repository/protected-branches';
import { repositoryBlobKeys, repositoryDeletionStatements } from '../repository/repository';

type IdSelect = SQL | ReturnType<Db['select']> | { getSQL(): SQL };
const within = (col: SQLiteColumn, ids: IdSelect) => inArray(col, ids as never);

/** Rows of issues selected by `issueIds` (a sub-select of issue ids). */
export function issueContentDeletion(db: Db, issueIds: IdSelect): BatchItem<'sqlite'>[] {
  const noteIds = db.select({ id: notes.id }).from(notes).where(and(eq(notes.noteableType, 'Issue'), within(notes.noteableId, issueIds)));
  return [
    db.delete(awardEmoji).where(and(eq(awardEmoji.awardableType, 'Note'), within(awardEmoji.awardableId, noteIds))),
    db.delete(awardEmoji).where(and(eq(awardEmoji.awardableType, 'Issue'), within(awardEmoji.awardableId, issueIds))),
    db.delete(notes).where(and(eq(notes.noteableType, 'Issue'), within(notes.noteableId, issueIds))),
    db.delete(issueAssignees).where(within(issueAssignees.issueId, issueIds)),
    db.delete(labelLinks).where(and(eq(labelLinks.targetType, 'Issue'), within(labelLinks.targetId, issueIds))),
    db.delete(todos).where(and(eq(todos.targetType, 'Issue'), within(todos.targetId, issueIds))),
    db.delete(subscriptions).where(and(eq(subscriptions.subscribableType, 'Issue'), within(subscriptions.subscribableId, issueIds))),
    db.delete(timelogs).where(within(timelogs.issueId, issueIds)),
    db.delete(userAgentDetails).where(and(eq(userAgentDetails.subjectType, 'Issue'), within(userAgentDetails.subjectId, issueIds))),
    db.delete(issueMetricImages).where(within(issueMetricImages.issueId, issueIds)),
    db.delete(mergeRequestsClosingIssues).where(within(mergeRequestsClosingIssues.issueId, issueIds)),
    db.delete(mergeRequestMentionedIssues).where(within(mergeRequestMentionedIssues.issueId, issueIds)),
    db.delete(issues).where(within(issues.id, issueIds)),
  ];
}

/** A set of projects' issues, labels, milestones and counters (`projectIds`: a sub-select or literal list). */
export function projectContentDeletion(db: Db, projectIds: IdSelect): BatchItem<'sqlite'>[] {
  const issueIds = db.select({ id: issues.id }).from(issues).where(within(issues.projectId, projectIds));
  const labelIds = db.select({ id: labels.id }).from(labels).where(within(labels.projectId, projectIds));
  const mergeRequestIds = db.select({ id: mergeRequests.id }).from(mergeRequests).where(within(mergeRequests.projectId, projectIds));
  const approvalRuleIds = db.select({ id: approvalProjectRules.id }).from(approvalProjectRules).where(within(approvalProjectRules.projectId, projectIds));
  return [
    // Merge requests before issues: their closing links name issues; approvals before merge requests.
    ...approvalDeletionForMergeRequests(db, mergeRequestIds),
    ...mergeRequestContentDeletion(db, mergeRequestIds),
    db.delete(approvalProjectRulesUsers).where(within(approvalProjectRulesUsers.ruleId, approvalRuleIds)),
    db.delete(approvalProjectRulesGroups).where(within(approvalProjectRulesGroups.ruleId, approvalRuleIds)),
    db.delete(approvalProjectRulesProtectedBranches).where(within(approvalProjectRulesProtectedBranches.ruleId, approvalRuleIds)),
    db.delete(approvalProjectRules).where(within(approvalProjectRules.projectId, projectIds)),
    db.delete(projectApprovalSettings).where(within(projectApprovalSettings.projectId, projectIds)),
    ...protectedBranchDeletionStatements(db, projectIds),
    ...repositoryDeletionStatements(db, projectIds as never),
    ...issueContentDeletion(db, issueIds),
    db.delete(labelLinks).where(within(labelLinks.labelId, labelIds)),
    db.delete(subscriptions).where(and(eq(subscriptions.subscribableType, 'Label'), within(subscriptions.subscribableId, labelIds))),
    db.delete(labelPriorities).where(within(labelPriorities.projectId, projectIds)),
    db.delete(labels).where(within(labels.projectId, projectIds)),
    db.delete(milestones).where(within(milestones.projectId, projectIds)),
    db.delete(todos).where(within(todos.projectId, projectIds)),
    db.delete(internalIds).where(and(or(eq(internalIds.usage, 'issues'), eq(internalIds.usage, 'milestones'), eq(internalIds.usage, 'merge_requests')), within(internalIds.scopeId, projectIds))),
  ];
}

/** Group-owned labels, milestones and epics of a set of groups. */
export function groupContentDeletion(db: Db, groupIds: IdSelect): BatchItem<'sqlite'>[] {
  const labelIds = db.select({ id: labels.id }).from(labels).where(within(labels.groupId, groupIds));
  const epicIds = db.select({ id: epics.id }).from(epics).where(within(epics.groupId, groupIds));
  return [
    // Rules and protected-branch entries that name the deleted groups (GitLab's foreign keys cascade them).
    db.delete(approvalProjectRulesGroups).where(within(approvalProjectRulesGroups.groupId, groupIds)),
    db.delete(approvalMergeRequestRulesGroups).where(within(approvalMergeRequestRulesGroups.groupId, groupIds)),
    ...protectedBranchGroupDeletionStatements(db, groupIds),
    db.delete(labelLinks).where(within(labelLinks.labelId, labelIds)),
    db.delete(labelPriorities).where(within(labelPriorities.labelId, labelIds)),
    db.delete(labels).where(within(labels.groupId, groupIds)),
    db.delete(milestones).where(within(milestones.groupId, groupIds)),
    db.delete(notes).where(and(eq(notes.noteableType, 'Epic'), within(notes.noteableId, epicIds))),
    db.delete(awardEmoji).where(and(eq(awardEmoji.awardableType, 'Epic'), within(awardEmoji.awardableId, epicIds))),
    db.delete(labelLinks).where(and(eq(labelLinks.targetType, 'Epic'), within(labelLinks.targetId, epicIds))),
    db.update(issues).set({ epicId: null }).where(within(issues.epicId, epicIds)),
    db.delete(epics).where(within(epics.groupId, groupIds)),
    db.delete(todos).where(within(todos.groupId, groupIds)),
    db.delete(internalIds).where(and(or(eq(internalIds.usage, 'group_milestones'), eq(internalIds.usage, 'epics')), within(internalIds.scopeId, groupIds))),
  ];
}

/**
 * The blob-store keys of files that belong to rows the statements above delete (incident metric
 * images and repository contents). Read them before the deleting batch and remove the files after it: a failure
 * between the two leaves an orphaned file, never a row pointing at a missing one.
 */
export async function projectBlobKeys(db: Db, projectIds: IdSelect): Promise<string[]> {
  const rows = await db
    .select({ key: issueMetricImages.blobKey })
    .from(issueMetricImages)
    .innerJoin(issues, eq(issues.id, issueMetricImages.issueId))
    .where(within(issues.projectId, projectIds))
    .all();
  return [...rows.map((r) => r.key), ...(await repositoryBlobKeys(db, projectIds as never))];
}

/** Best effort: a file that cannot be removed now stays orphaned (its rows are already gone). */
export async function deleteBlobs(blobs: { delete(key: string): Promise<void> }, keys: string[]): Promise<void> {
  await Promise.all(keys.map((k) => blobs.delete(k).catch(() => undefined)));
}
