/** GET /user_counts (GitLab lib/api/user_counts.rb). */
import { and, count, eq } from 'drizzle-orm';
import { issueAssignees, issues, mergeRequestAssignees, mergeRequestReviewers, mergeRequests, todos } from '../db/schema';
import { unauthorized } from '../platform/errors';
import type { Router } from '../platform/router';
import { batchReads } from '../db/batch-reads';
import { UserCountsSchema } from './todo-entity';

export function mountUserCounts(r: Router) {
  r.route({ method: 'GET', path: '/user_counts', summary: 'Counts of the current user (assigned issues and merge requests, review requests, to-dos)', tags: ['users'], responses: { 200: UserCountsSchema } }, async ({ c, caller }) => {
    // user_counts.rb: `unauthorized! unless current_user`.
    if (!caller.user) throw unauthorized();
    const db = c.var.db;
    const uid = caller.user.id;
    // The four counters in one round trip.
    const [assignedMr, reviewMr, assignedIssues, pending] = await batchReads(db, [
      // User#assigned_open_merge_requests_count and #review_requested_open_merge_requests_count.
      db
        .select({ n: count() })
        .from(mergeRequestAssignees)
        .innerJoin(mergeRequests, eq(mergeRequests.id, mergeRequestAssignees.mergeRequestId))
        .where(and(eq(mergeRequestAssignees.userId, uid), eq(mergeRequests.state, 'opened'))),
      db
        .select({ n: count() })
        .from(mergeRequestReviewers)
        .innerJoin(mergeRequests, eq(mergeRequests.id, mergeRequestReviewers.mergeRequestId))
        .where(and(eq(mergeRequestReviewers.userId, uid), eq(mergeRequests.state, 'opened'))),
      // User#assigned_open_issues_count: open issues the user is assigned to (IssuesFinder with assignee_id, state opened).
      db
        .select({ n: count() })
        .from(issueAssignees)
        .innerJoin(issues, eq(issues.id, issueAssignees.issueId))
        .where(and(eq(issueAssignees.userId, uid), eq(issues.state, 'opened'))),
      // User#todos_pending_count: the user's pending to-dos.
      db.select({ n: count() }).from(todos).where(and(eq(todos.userId, uid), eq(todos.state, 'pending'))),
    ]);
    const n = (rows: { n: number }[]) => Number(rows[0]?.n ?? 0);
    return c.json({
      merge_requests: n(assignedMr), // deprecated copy of assigned_merge_requests
      assigned_issues: n(assignedIssues),
      assigned_merge_requests: n(assignedMr),
      review_requested_merge_requests: n(reviewMr),
      todos: n(pending),
    });
  });
}
