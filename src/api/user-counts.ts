/** GET /user_counts (GitLab lib/api/user_counts.rb). */
import { and, count, eq } from 'drizzle-orm';
import type { UserRow } from '../context';
import type { Db } from '../db/client';
import { issueAssignees, issues, todos } from '../db/schema';
import { unauthorized } from '../lib/errors';
import type { Router } from '../lib/router';

export function mountUserCounts(r: Router) {
  r.route({ method: 'GET', path: '/user_counts', summary: 'Counts of the current user (assigned issues and merge requests, review requests, to-dos)', tags: ['users'] }, async ({ c, caller }) => {
    // user_counts.rb: `unauthorized! unless current_user`.
    if (!caller.user) throw unauthorized();
    const db = c.var.db;
    const user = caller.user;
    const [assignedMergeRequests, assignedIssues, reviewRequested, todos] = await Promise.all([
      assignedOpenMergeRequestsCount(db, user),
      assignedOpenIssuesCount(db, user),
      reviewRequestedOpenMergeRequestsCount(db, user),
      todosPendingCount(db, user),
    ]);
    return c.json({
      merge_requests: assignedMergeRequests, // deprecated copy of assigned_merge_requests
      assigned_issues: assignedIssues,
      assigned_merge_requests: assignedMergeRequests,
      review_requested_merge_requests: reviewRequested,
      todos,
    });
  });
}

// Merge requests do not exist in this service yet (issue #4): their counters answer 0 until that table lands.

/** User#assigned_open_merge_requests_count: will count open merge_requests joined to merge_request_assignees for the user. */
async function assignedOpenMergeRequestsCount(_db: Db, _user: UserRow): Promise<number> {
  return 0;
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

/** User#review_requested_open_merge_requests_count: will count open merge_requests joined to merge_request_reviewers for the user. */
async function reviewRequestedOpenMergeRequestsCount(_db: Db, _user: UserRow): Promise<number> {
  return 0;
}

/** User#todos_pending_count: the user's pending to-dos. */
async function todosPendingCount(db: Db, user: UserRow): Promise<number> {
  const row = await db.select({ n: count() }).from(todos).where(and(eq(todos.userId, user.id), eq(todos.state, 'pending'))).get();
  return row?.n ?? 0;
}
