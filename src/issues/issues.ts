/**
 * Issue lookup and the issue abilities every issue endpoint asks (GitLab IssuePolicy:
 * read_issue, read_confidential_issues, update_issue / admin_issue).
 */
import { eq, type Placeholder, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import type { Db } from '../db/client';
import { issueAssignees, issues } from '../db/schema';
import { ACCESS, featureAvailable } from '../projects/abilities';
import { recordNotFound } from '../platform/errors';
import { findReadableProjectWith } from '../projects/projects';
import { projectIdRefOf, type ProjectRef } from '../projects/project-queries';
import { cachedQueries } from '../db/prepared';

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

/** The issue's id as SQL for statements in the lookup's own batch (matches nothing when the issue is missing). */
export const issueIdSql = (projectId: SQL, iid: number | Placeholder) =>
  sql`SELECT id FROM issues WHERE project_id = ${projectId} AND iid = ${typeof iid !== 'number' || Number.isSafeInteger(iid) ? iid : -1}`;

/**
 * An issue reference for statements built once (src/db/prepared.ts cachedQuery): the project's
 * reference shape names the statement; `issueIdRefOf` is the issue id over the placeholders that
 * `issueRefValues` fills (`iid`, and the project's `pid`, or `ns` and `path`).
 */
export interface IssueRef {
  project: ProjectRef;
  /** -1 when the iid cannot match. */
  iid: number;
}
export const issueIdRefOf = (ref: IssueRef): SQL => issueIdSql(projectIdRefOf(ref.project.shape), sql.placeholder('iid'));
export const issueRefValues = (ref: IssueRef): Record<string, unknown> => ({ ...ref.project.values, iid: ref.iid });

type Slot = BatchItem<'sqlite'> | undefined;
type SlotResult<T> = T extends PromiseLike<infer U> ? U : undefined;
type SlotResults<Q extends readonly unknown[]> = { -readonly [K in keyof Q]: SlotResult<Q[K]> };

/**
 * `find_project_issue`: the project must be readable (404 Project Not Found), its issues feature
 * available to the caller, and the issue readable; a missing or hidden issue is `find_by!`'s
 * 404 `{"message":"404 Not found"}` (reference §5.4). One round trip: the project, the caller's
 * level, the issue, its assignees and the route's own `reads` (over the issue's id and the
 * project's id as SQL; `undefined` slots are skipped) go in one batch. The reads are thrown away
 * with the 404 when the caller may not see the issue.
 */
export async function findReadableIssueWith<const Q extends readonly Slot[]>(
  c: Context<AppEnv>,
  caller: Caller,
  projectId: string,
  iid: number,
  reads: (issueId: SQL, projectId: SQL, ref: IssueRef) => Q,
) {
  const db = c.var.db;
  let extra: Q | undefined;
  const pr = await findReadableProjectWith(c, caller, projectId, (pid, project) => {
    const issueId = issueIdSql(pid, iid);
    const ref: IssueRef = { project, iid: Number.isSafeInteger(iid) ? iid : -1 };
    extra = reads(issueId, pid, ref);
    // The issue and its assignees, built once per project reference shape (prepared.ts).
    const [issueRow, assignees] = cachedQueries(
      db,
      `issue-lookup:${project.shape}`,
      (d) => {
        const id = issueIdSql(projectIdRefOf(project.shape), sql.placeholder('iid'));
        return [
          d.select().from(issues).where(sql`${issues.id} IN (${id})`).limit(1),
          d.select({ userId: issueAssignees.userId }).from(issueAssignees).where(sql`${issueAssignees.issueId} IN (${id})`).orderBy(issueAssignees.position),
        ] as const;
      },
      issueRefValues(ref),
    );
    return [issueRow, assignees, ...(extra.filter((q) => q !== undefined) as BatchItem<'sqlite'>[])] as const;
  });
  if (!featureAvailable(pr.project, 'issues', { level: pr.level, isAdmin: caller.isAdmin })) throw recordNotFound();
  const [issueRows, assigneeRows, ...rest] = pr.reads as unknown as [IssueRow[], { userId: number }[], ...unknown[]];
  const issue = Number.isSafeInteger(iid) ? issueRows[0] : undefined;
  if (!issue) throw recordNotFound();
  const assigneeIds = assigneeRows.map((r) => r.userId);
  if (issue.confidential && !canReadConfidentialIssue(caller, pr.level, issue, assigneeIds)) throw recordNotFound();
  let k = 0;
  const results = extra!.map((q) => (q === undefined ? undefined : rest[k++])) as unknown as SlotResults<Q>;
  return { project: pr.project, namespace: pr.namespace, level: pr.level, issue, assigneeIds, reads: results };
}

/** findReadableIssueWith without reads of the route's own. */
export async function findReadableIssue(c: Context<AppEnv>, caller: Caller, projectId: string, iid: number) {
  const { reads: _, ...found } = await findReadableIssueWith(c, caller, projectId, iid, () => [] as const);
  return found;
}
