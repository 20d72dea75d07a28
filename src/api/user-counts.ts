/** GET /user_counts (GitLab lib/api/user_counts.rb). */
import type { UserRow } from '../context';
import type { Db } from '../db/client';
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

// Issues, merge requests and to-dos do not exist in this service yet: each counter answers 0 until its table lands.

/** User#assigned_open_merge_requests_count: will count open merge_requests joined to merge_request_assignees for the user. */
async function assignedOpenMergeRequestsCount(_db: Db, _user: UserRow): Promise<number> {
  return 0;
}

/** User#assigned_open_issues_count: will count opened issues joined to issue_assignees for the user. */
async function assignedOpenIssuesCount(_db: Db, _user: UserRow): Promise<number> {
  return 0;
}

/** User#review_requested_open_merge_requests_count: will count open merge_requests joined to merge_request_reviewers for the user. */
async function reviewRequestedOpenMergeRequestsCount(_db: Db, _user: UserRow): Promise<number> {
  return 0;
}

/** User#todos_pending_count: will count todos of the user in state 'pending'. */
async function todosPendingCount(_db: Db, _user: UserRow): Promise<number> {
  return 0;
}
