/**
 * The push hooks' reads (repository/push.ts pushReads) for the batch that finds a merge request,
 * when what the request does is a push: a merge pushes to its target branch, a rebase to its source
 * branch. The branch is named by SQL over the merge request found in that same batch, so the
 * hooks cost no round trip of their own (issue 13's write budget).
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { commitAt } from '../repository/history-reads';
import { pushReads, type PushPrefetch } from '../repository/push';
import type { CommitRow } from '../repository/repository-store';

const branchOf = (mrId: SQL, which: 'target' | 'source') =>
  which === 'target' ? sql`(SELECT pmr.target_branch FROM merge_requests pmr WHERE pmr.id = ${mrId})` : sql`(SELECT pmr.source_branch FROM merge_requests pmr WHERE pmr.id = ${mrId})`;

/** Reads for a push to the merge request's `which` branch, in a `bothReads` shape. */
export function mergeRequestPushReads(db: Db, mrId: SQL, projectId: SQL, which: 'target' | 'source') {
  const hooks = pushReads(db, projectId, branchOf(mrId, which));
  return { list: hooks.list, unflatten: (results: readonly unknown[]): PushPrefetch => hooks.take(results) };
}

/**
 * `mergeRequestPushReads` for a merge, with the source head's commit row: a fast-forward writes no
 * commit, and the hooks take the pushed head from it. (No forks here: the source branch is in the project.)
 */
export function mergePushReads(db: Db, mrId: SQL, projectId: SQL) {
  const hooks = mergeRequestPushReads(db, mrId, projectId, 'target');
  const sourceHead = sql`(SELECT rb.commit_sha FROM repo_branches rb WHERE rb.project_id = ${projectId} AND rb.name = ${branchOf(mrId, 'source')})`;
  return {
    list: [...hooks.list, commitAt(db, projectId, sourceHead)] as BatchItem<'sqlite'>[],
    unflatten: (results: readonly unknown[]) => ({
      prefetched: hooks.unflatten(results.slice(0, hooks.list.length)),
      sourceCommit: ((results[hooks.list.length] as CommitRow[])[0] ?? null) as CommitRow | null,
    }),
  };
}
