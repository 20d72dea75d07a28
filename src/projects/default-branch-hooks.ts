/**
 * A project's default branch changed what it points at without a push: another branch was made the
 * default (PUT /projects/:id default_branch) or an import wrote the repository. Domains above that
 * keep something about the default branch's contents (the dependency list: dependencies/scanner.ts)
 * contribute statements for the change's own batch; src/app.ts registers them. A push to the
 * default branch goes through repository/push.ts instead.
 */
import type { SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { batchReads } from '../db/batch-reads';
import type { Db } from '../db/client';
import type { BlobStore } from '../platform/blobs';
import { hookList } from '../platform/extension';

/** What a hook works with: a request's storage or a queue job's (an import has no request). */
export interface Storage {
  db: Db;
  blobs: BlobStore;
}

/**
 * A hook's statements for project `projectId`, whose default branch is (now) `branch`. `read` holds
 * the results of the hook's `reads` when the caller sent them in its first batch.
 */
export type DefaultBranchHook = ((s: Storage, projectId: number, read: readonly unknown[]) => Promise<BatchItem<'sqlite'>[]>) & {
  /** What the hook reads: the project and the branch as SQL or a name, to travel in the caller's first batch. */
  reads: (db: Db, projectId: SQL | number, branch: SQL | string) => readonly BatchItem<'sqlite'>[];
};
export const defaultBranchHooks = hookList<DefaultBranchHook>();

/** The hooks' reads for the caller's first batch, and `take` to map that batch's results back per hook. */
export function defaultBranchReads(db: Db, projectId: SQL | number, branch: SQL | string) {
  const parts = defaultBranchHooks.all().map((hook) => [hook, hook.reads(db, projectId, branch)] as const);
  return {
    list: parts.flatMap(([, reads]) => reads) as BatchItem<'sqlite'>[],
    take(results: readonly unknown[]): ReadonlyMap<DefaultBranchHook, readonly unknown[]> {
      const out = new Map<DefaultBranchHook, readonly unknown[]>();
      let at = 0;
      for (const [hook, reads] of parts) out.set(hook, results.slice(at, (at += reads.length)));
      return out;
    },
  };
}

/** Statements for the change's batch; without `prefetched` the hooks' reads cost one round trip here. */
export async function defaultBranchStatements(
  s: Storage,
  projectId: number,
  branch: SQL | string,
  prefetched?: ReadonlyMap<DefaultBranchHook, readonly unknown[]>,
): Promise<BatchItem<'sqlite'>[]> {
  let read = prefetched;
  if (!read) {
    const reads = defaultBranchReads(s.db, projectId, branch);
    read = reads.take((await batchReads(s.db, reads.list)) as readonly unknown[]);
  }
  const out: BatchItem<'sqlite'>[] = [];
  for (const hook of defaultBranchHooks.all()) out.push(...(await hook(s, projectId, read.get(hook) ?? [])));
  return out;
}
