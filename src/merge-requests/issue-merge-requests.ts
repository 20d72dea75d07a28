/**
 * The merge requests of an issue (Issues::ReferencedMergeRequestsService, lib/api/issues.rb
 * `closed_by`), limited to what the caller may read.
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import { mergeRequests, mergeRequestsClosingIssues, namespaces, projects } from '../db/schema';
import type { AppEnv, Caller } from '../platform/context';
import { mergeRequestVisibleSql } from '../projects/abilities';
import type { MergeRequestRow } from './merge-request-entity';

/**
 * related_merge_requests: every merge request whose description mentions or closes the issue
 * (`issueId` may be a sub-select), that the caller may read, unsorted (sortRelated), unexecuted: for
 * the batch that finds the issue.
 */
export function relatedMergeRequestsRead(db: Db, caller: Caller, issueId: SQL) {
  return db
    .select({ mr: mergeRequests, path: sql<string>`${namespaces.fullPath} || '/' || ${projects.path}`.as('project_full_path') })
    .from(mergeRequests)
    .innerJoin(projects, eq(projects.id, mergeRequests.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(and(sql`${mergeRequests.id} IN ${relatedMergeRequestIds(issueId)}`, mergeRequestVisibleSql(caller)));
}

/** The ids of the merge requests that close or mention the issue, readable or not: a parenthesised sub-select. */
export const relatedMergeRequestIds = (issueId: SQL) =>
  sql`(SELECT x.merge_request_id FROM merge_requests_closing_issues x WHERE x.issue_id IN (${issueId})
    UNION SELECT x.merge_request_id FROM merge_request_mentioned_issues x WHERE x.issue_id IN (${issueId}))`;

/** Gitlab::IssuableSorter: those of `projectId` first by iid, then the others by their full reference. */
export function sortRelated(rows: { mr: MergeRequestRow; path: string }[], projectId: number): MergeRequestRow[] {
  return [...rows]
    .sort((a, b) => {
      const pa = a.mr.projectId === projectId ? 0 : 1;
      const pb = b.mr.projectId === projectId ? 0 : 1;
      if (pa !== pb) return pa - pb;
      if (a.path !== b.path) return a.path < b.path ? -1 : 1;
      return a.mr.iid - b.mr.iid;
    })
    .map((x) => x.mr);
}

/**
 * closed_by (lib/api/issues.rb): MergeRequestsClosingIssues for the issue, through
 * MergeRequestsFinder scoped to the issue's project and the caller, in the finder's default order
 * (id descending); merged ones included.
 */
export async function closedByMergeRequests(c: Context<AppEnv>, caller: Caller, issue: { id: number; projectId: number }): Promise<MergeRequestRow[]> {
  const rows = await c.var.db
    .select({ mr: mergeRequests })
    .from(mergeRequestsClosingIssues)
    .innerJoin(mergeRequests, eq(mergeRequests.id, mergeRequestsClosingIssues.mergeRequestId))
    .innerJoin(projects, eq(projects.id, mergeRequests.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(and(eq(mergeRequestsClosingIssues.issueId, issue.id), eq(mergeRequests.projectId, issue.projectId), mergeRequestVisibleSql(caller)))
    .orderBy(sql`${mergeRequests.id} DESC`)
    .all();
  return rows.map((r) => r.mr);
}
