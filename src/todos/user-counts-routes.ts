/** GET /user_counts (GitLab lib/api/user_counts.rb). */
import { and, count, eq } from 'drizzle-orm';
import type { UserRow } from '../platform/context';
import type { Db } from '../db/client';
import { issueAssignees, issues, todos } from '../db/schema';
import { unauthorized } from '../platform/errors';
import type { Router } from '../platform/router';
import { userMergeRequestCounts } from '../merge-requests/merge-requests';
import { UserCountsSchema } from './todo-entity';

export function mountUserCounts(r: Router) {
  r.route({ method: 'GET', path: '/user_counts', summary: 'Counts of the current user (assigned issues and merge requests, review requests, to-dos)', tags: ['users'], responses: { 200: UserCountsSchema } }, async ({ c, caller }) => {
    // user_counts.rb: `unauthorized! unless current_user`.
    if (!caller.user) throw unauthorized();
    const db = c.var.db;
    const user = caller.user;
    // User#assigned_open_merge_requests_count and #review_requested_open_merge_requests_count.
    const [mergeRequestCounts, assignedIssues, todos] = await Promise.all([userMergeRequestCounts(db, user.id), assignedOpenIssuesCount(db, user), todosPendingCount(db, user)]);
    const assignedMergeRequests = mergeRequestCounts.assigned;
    const reviewRequested = mergeRequestCounts.reviewRequested;
    return c.json({
      merge_requests: assignedMergeRequests, // deprecated copy of assigned_merge_requests
      assigned_issues: assignedIssues,
      assigned_merge_requests: assignedMergeRequests,
      review_requested_merge_requests: reviewRequested,
      todos,
    });
  });
}

/** User#assigned_open_issues_count: open issues the user is assigned to (IssuesFinder with assignee_id, state opened). */
async function assignedOpenIssuesCount(db: Db, user: UserRow): Promise<number> {
  const row = await db
    .select({ n: count() })
    .from(issueAssignees)
    .innerJoin(issues, eq(issues.id, issueAssignees.issueId))
    .where(and(eq(issueAssignees.userId, user.id), eq(issues.state, 'opened')))
    .get();
  return row?.n ?? 0;
}

/** User#todos_pending_count: the user's pending to-dos. */
async function todosPendingCount(db: Db, user: UserRow): Promise<number> {
  const row = await db.select({ n: count() }).from(todos).where(and(eq(todos.userId, user.id), eq(todos.state, 'pending'))).get();
  return row?.n ?? 0;
}
