/**
 * The merge requests of an issue (Issues::ReferencedMergeRequestsService, lib/api/issues.rb
 * `closed_by`), limited to what the caller may read.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { mergeRequestMentionedIssues, mergeRequests, mergeRequestsClosingIssues, namespaces, projects } from '../db/schema';
import type { AppEnv, Caller } from '../platform/context';
import { mergeRequestVisibleSql } from '../projects/abilities';
import type { MergeRequestRow } from './merge-request-entity';

/** D1 binds at most 100 parameters per statement. */
const CHUNK = 90;

/**
 * Merge requests the caller may read among `ids`, sorted as Gitlab::IssuableSorter does: those of
 * `projectId` first by iid, then the others by their full reference.
 */
async function readableMergeRequests(c: Context<AppEnv>, caller: Caller, ids: number[], projectId: number): Promise<MergeRequestRow[]> {
  const db = c.var.db;
  const out: { mr: MergeRequestRow; ref: string }[] = [];
  const visible = mergeRequestVisibleSql(caller);
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await db
      .select({ mr: mergeRequests, path: sql<string>`${namespaces.fullPath} || '/' || ${projects.path}` })
      .from(mergeRequests)
      .innerJoin(projects, eq(projects.id, mergeRequests.projectId))
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(and(inArray(mergeRequests.id, ids.slice(i, i + CHUNK)), visible))
      .all();
    for (const r of rows) out.push({ mr: r.mr, ref: r.path });
  }
  return out
    .sort((a, b) => {
      const pa = a.mr.projectId === projectId ? 0 : 1;
      const pb = b.mr.projectId === projectId ? 0 : 1;
      if (pa !== pb) return pa - pb;
      if (a.ref !== b.ref) return a.ref < b.ref ? -1 : 1;
      return a.mr.iid - b.mr.iid;
    })
    .map((x) => x.mr);
}

/** related_merge_requests: every merge request whose description mentions or closes the issue. */
export async function relatedMergeRequestsForIssue(c: Context<AppEnv>, caller: Caller, issueId: number, projectId: number): Promise<MergeRequestRow[]> {
  const db = c.var.db;
  const [closing, mentioned] = await Promise.all([
    db.select({ id: mergeRequestsClosingIssues.mergeRequestId }).from(mergeRequestsClosingIssues).where(eq(mergeRequestsClosingIssues.issueId, issueId)).all(),
    db.select({ id: mergeRequestMentionedIssues.mergeRequestId }).from(mergeRequestMentionedIssues).where(eq(mergeRequestMentionedIssues.issueId, issueId)).all(),
  ]);
  return readableMergeRequests(c, caller, [...new Set([...closing, ...mentioned].map((r) => r.id))], projectId);
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
