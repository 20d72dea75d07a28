/**
 * Issue lookup and the issue abilities every issue endpoint asks (GitLab IssuePolicy:
 * read_issue, read_confidential_issues, update_issue / admin_issue).
 */
import { and, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import type { Db } from '../db/client';
import { issueAssignees, issues } from '../db/schema';
import { ACCESS, featureAvailable } from '../projects/abilities';
import { recordNotFound } from '../platform/errors';
import { findReadableProject } from '../projects/projects';

export type IssueRow = typeof issues.$inferSelect;

/**
 * read_confidential_issues: administrators, Planner and above in the project (Reporter and above
 * historically; Planner sits between Guest and Reporter), the author, or an assignee.
 */
export function canReadConfidentialIssue(caller: Caller, level: number, issue: Pick<IssueRow, 'authorId'>, assigneeIds: number[]): boolean {
  if (caller.isAdmin || level >= ACCESS.PLANNER) return true;
  const uid = caller.user?.id;
  return uid != null && (issue.authorId === uid || assigneeIds.includes(uid));
}

/** update_issue: Reporter and above (Planner included), administrators, or the author. */
export function canUpdateIssue(caller: Caller, level: number, issue: Pick<IssueRow, 'authorId'>): boolean {
  if (caller.isAdmin || level >= ACCESS.PLANNER) return true;
  return caller.user != null && issue.authorId === caller.user.id;
}

/** admin_issue: changing assignees, labels, milestone, due date, time tracking (Planner and above). */
export const canAdminIssue = (caller: Caller, level: number) => caller.isAdmin || level >= ACCESS.PLANNER;

export const issueAssigneeIds = async (db: Db, issueId: number): Promise<number[]> =>
  (await db.select({ userId: issueAssignees.userId }).from(issueAssignees).where(eq(issueAssignees.issueId, issueId)).orderBy(issueAssignees.position).all()).map((r) => r.userId);

/**
 * `find_project_issue`: the project must be readable (404 Project Not Found), its issues feature
 * available to the caller, and the issue readable; a missing or hidden issue is `find_by!`'s
 * 404 `{"message":"404 Not found"}` (reference §5.4).
 */
export async function findReadableIssue(c: Context<AppEnv>, caller: Caller, projectId: string, iid: number) {
  const pr = await findReadableProject(c, caller, projectId);
  if (!featureAvailable(pr.project, 'issues', { level: pr.level, isAdmin: caller.isAdmin })) throw recordNotFound();
  if (!Number.isSafeInteger(iid)) throw recordNotFound();
  const issue = await c.var.db.select().from(issues).where(and(eq(issues.projectId, pr.project.id), eq(issues.iid, iid))).get();
  if (!issue) throw recordNotFound();
  const assigneeIds = await issueAssigneeIds(c.var.db, issue.id);
  if (issue.confidential && !canReadConfidentialIssue(caller, pr.level, issue, assigneeIds)) throw recordNotFound();
  return { ...pr, issue, assigneeIds };
}
