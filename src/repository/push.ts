/**
 * A push to a branch and what it means beyond the repository. Commits written through the API, a
 * merge request's merge (a push to its target branch) and a rebase are pushes; domains above the repository contribute statements for the push's own
 * batch (GitLab's PostReceive -> MergeRequests::RefreshService), so the branch move and its
 * consequences land together or not at all.
 */
import type { SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import type { Context } from 'hono';
import type { AppEnv, UserRow } from '../platform/context';
import { hookList } from '../platform/extension';
import type { CommitRow, Manifest } from './repository-store';

export interface Push {
  projectId: number;
  branch: string;
  /** The head before the push (null: a new branch). */
  oldSha: string | null;
  /** The commits the push adds, oldest first, the new head last. */
  commits: CommitRow[];
  /** The files at the new head. */
  manifest: Manifest;
  /** A stored commit the pushed commits build on (their merge base with a target is taken from it). */
  from: string | null;
  user: UserRow;
  at: number;
  /** Contents of the blobs the push adds, by blob id: they reach the blob store just before the push's batch. */
  blobs?: ReadonlyMap<string, Uint8Array>;
}

/**
 * What a push also writes, from the domains above (src/app.ts registers them). `read` holds the
 * results of the hook's own `reads`, when the pusher sent them in its first batch (`pushReads`);
 * without it the hook reads for itself.
 */
export type PushHook = ((c: Context<AppEnv>, push: Push, read?: readonly unknown[]) => Promise<BatchItem<'sqlite'>[]>) & {
  /**
   * Reads that need only the pushed project and branch, to travel in the pusher's first batch. The
   * branch is SQL when the pusher learns it in that same batch (a merge request's target branch).
   */
  reads?: (db: Db, projectId: SQL, branch: string | SQL) => readonly BatchItem<'sqlite'>[];
};
export const pushHooks = hookList<PushHook>();

/** What the hooks' `reads` answered, per hook (`pushReads`). */
export type PushPrefetch = ReadonlyMap<PushHook, readonly unknown[]>;

/**
 * The hooks' reads for a push to `branch`, as statements for the pusher's first batch (issue 13: a
 * commit costs its reads, then its write); `take` maps that batch's results for them back to each hook.
 */
export function pushReads(db: Db, projectId: SQL, branch: string | SQL): { list: BatchItem<'sqlite'>[]; take: (results: readonly unknown[]) => PushPrefetch } {
  const parts = pushHooks.all().map((hook) => [hook, hook.reads?.(db, projectId, branch) ?? []] as const);
  return {
    list: parts.flatMap(([, reads]) => reads),
    take(results) {
      const out = new Map<PushHook, readonly unknown[]>();
      let at = 0;
      for (const [hook, reads] of parts) if (reads.length) out.set(hook, results.slice(at, (at += reads.length)));
      return out;
    },
  };
}

/** Statements for the push's batch. Call after the push is built (its commits and files are known) and before its batch runs. */
export async function pushStatements(c: Context<AppEnv>, push: Push, prefetched?: PushPrefetch): Promise<BatchItem<'sqlite'>[]> {
  if (!push.commits.length) return [];
  const out: BatchItem<'sqlite'>[] = [];
  for (const hook of pushHooks.all()) out.push(...(await hook(c, push, prefetched?.get(hook))));
  return out;
}
