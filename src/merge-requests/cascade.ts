/** Merge request rows that go with deleted projects, issues, merge requests and users (platform/cascade.ts). */
import { and, eq, inArray, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import {
  awardEmoji,
  internalIds,
  issues,
  labelLinks,
  mergeRequestAssignees,
  mergeRequestDiffs,
  mergeRequestMentionedIssues,
  mergeRequestReviewers,
  mergeRequests,
  mergeRequestsClosingIssues,
  notes,
  resourceLabelEvents,
  resourceMilestoneEvents,
  resourceStateEvents,
  subscriptions,
  todos,
} from '../db/schema';
import { type Cascade, cascade, type IdSelect, within } from '../platform/cascade';

/** A merge request's own rows (Issuable::DestroyService); approvals contribute theirs (approvals/cascade.ts). */
function mergeRequestRows(db: Db, mrIds: IdSelect | ReturnType<Db['select']>): BatchItem<'sqlite'>[] {
  const noteIds = db.select({ id: notes.id }).from(notes).where(and(eq(notes.noteableType, 'MergeRequest'), within(notes.noteableId, mrIds)));
  return [
    db.delete(awardEmoji).where(and(eq(awardEmoji.awardableType, 'Note'), within(awardEmoji.awardableId, noteIds))),
    db.delete(awardEmoji).where(and(eq(awardEmoji.awardableType, 'MergeRequest'), within(awardEmoji.awardableId, mrIds))),
    db.delete(notes).where(and(eq(notes.noteableType, 'MergeRequest'), within(notes.noteableId, mrIds))),
    db.delete(mergeRequestDiffs).where(within(mergeRequestDiffs.mergeRequestId, mrIds)),
    db.delete(mergeRequestAssignees).where(within(mergeRequestAssignees.mergeRequestId, mrIds)),
    db.delete(mergeRequestReviewers).where(within(mergeRequestReviewers.mergeRequestId, mrIds)),
    db.delete(mergeRequestsClosingIssues).where(within(mergeRequestsClosingIssues.mergeRequestId, mrIds)),
    db.delete(mergeRequestMentionedIssues).where(within(mergeRequestMentionedIssues.mergeRequestId, mrIds)),
    db.delete(labelLinks).where(and(eq(labelLinks.targetType, 'MergeRequest'), within(labelLinks.targetId, mrIds))),
    db.delete(todos).where(and(eq(todos.targetType, 'MergeRequest'), within(todos.targetId, mrIds))),
    db.delete(subscriptions).where(and(eq(subscriptions.subscribableType, 'MergeRequest'), within(subscriptions.subscribableId, mrIds))),
    db.delete(resourceLabelEvents).where(within(resourceLabelEvents.mergeRequestId, mrIds)),
    db.delete(resourceMilestoneEvents).where(within(resourceMilestoneEvents.mergeRequestId, mrIds)),
    db.delete(resourceStateEvents).where(within(resourceStateEvents.mergeRequestId, mrIds)),
    db.delete(mergeRequests).where(within(mergeRequests.id, mrIds)),
  ];
}

/** Links from merge requests to deleted issues ("Closes #n", mentions), whichever project the merge request is in. */
const issueLinks = (db: Db, issueIds: IdSelect | ReturnType<Db['select']>): BatchItem<'sqlite'>[] => [
  db.delete(mergeRequestsClosingIssues).where(within(mergeRequestsClosingIssues.issueId, issueIds)),
  db.delete(mergeRequestMentionedIssues).where(within(mergeRequestMentionedIssues.issueId, issueIds)),
];

/**
 * A deleted user's merge requests. Soft delete: author and merge user become the ghost user
 * (Users::MigrateRecordsToGhostUserService migrate_merge_requests); hard delete: the merge requests
 * they authored go (has_many :merge_requests, dependent: :destroy). Either way the user stops being an
 * assignee or reviewer (dependent: :destroy) and merged_by / closed_by are nullified (dependent: :nullify).
 */
function userMergeRequests(db: Db, ids: IdSelect, ghostId: number | SQL | undefined) {
  const statements: BatchItem<'sqlite'>[] = [
    db.delete(mergeRequestAssignees).where(within(mergeRequestAssignees.userId, ids)),
    db.delete(mergeRequestReviewers).where(within(mergeRequestReviewers.userId, ids)),
    db.update(mergeRequests).set({ mergedById: null }).where(within(mergeRequests.mergedById, ids)),
    db.update(mergeRequests).set({ closedById: null }).where(within(mergeRequests.closedById, ids)),
    db.update(mergeRequests).set({ lastEditedById: null }).where(within(mergeRequests.lastEditedById, ids)),
  ];
  if (ghostId !== undefined) {
    statements.push(
      db.update(mergeRequests).set({ authorId: ghostId }).where(within(mergeRequests.authorId, ids)),
      db.update(mergeRequests).set({ mergeUserId: ghostId }).where(within(mergeRequests.mergeUserId, ids)),
    );
    return { statements };
  }
  statements.push(db.update(mergeRequests).set({ mergeUserId: null }).where(within(mergeRequests.mergeUserId, ids)));
  const authored = cascade(db, 'mergeRequest', db.select({ id: mergeRequests.id }).from(mergeRequests).where(within(mergeRequests.authorId, ids)));
  return { statements: [...statements, ...authored.statements], blobReads: authored.blobReads };
}

export const mergeRequestsCascade: Cascade = {
  user: (db, ids, { ghostId }) => userMergeRequests(db, ids, ghostId),
  mergeRequest: (db, ids) => ({ statements: mergeRequestRows(db, ids) }),
  issue: (db, ids) => ({ statements: issueLinks(db, ids) }),
  project: (db, ids) => ({
    statements: [
      ...mergeRequestRows(db, db.select({ id: mergeRequests.id }).from(mergeRequests).where(within(mergeRequests.projectId, ids))),
      ...issueLinks(db, db.select({ id: issues.id }).from(issues).where(within(issues.projectId, ids))),
      db.delete(internalIds).where(and(eq(internalIds.usage, 'merge_requests'), inArray(internalIds.scopeId, ids as never))),
    ],
  }),
};
