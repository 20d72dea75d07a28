/**
 * What the domains above use of merge requests (approvals, notes, todos import this module): who
 * may read and update them, their live state, the presenter, the automatic merge, the repository
 * adapter, and the /user_counts counters. The code lives in the modules named below; within
 * merge-requests/ import those directly.
 */
import { and, count, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { mergeRequestAssignees, mergeRequestReviewers, mergeRequests } from '../db/schema';

export { canUpdateMergeRequest, findReadableMergeRequest, findReadableMergeRequestWith } from './merge-request-access';
export { liveState } from './live-state';
export { presentMergeRequests } from './merge-request-presenter';
export { mergeRequestPresenterReads } from './merge-request-answer';
export { autoMergeIfReady } from './merge';
export { repo } from './merge-request-repo';

/** /user_counts merge request counters (User#assigned_open_merge_requests_count, review_requested_open_merge_requests_count). */
export async function userMergeRequestCounts(db: Db, userId: number): Promise<{ assigned: number; reviewRequested: number }> {
  const [assigned, review] = await Promise.all([
    db
      .select({ n: count() })
      .from(mergeRequestAssignees)
      .innerJoin(mergeRequests, eq(mergeRequests.id, mergeRequestAssignees.mergeRequestId))
      .where(and(eq(mergeRequestAssignees.userId, userId), eq(mergeRequests.state, 'opened')))
      .get(),
    db
      .select({ n: count() })
      .from(mergeRequestReviewers)
      .innerJoin(mergeRequests, eq(mergeRequests.id, mergeRequestReviewers.mergeRequestId))
      .where(and(eq(mergeRequestReviewers.userId, userId), eq(mergeRequests.state, 'opened')))
      .get(),
  ]);
  return { assigned: assigned?.n ?? 0, reviewRequested: review?.n ?? 0 };
}
