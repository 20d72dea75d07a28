/**
 * A push to a branch and what it means beyond the repository. Commits written through the API and
 * a rebase are pushes; domains above the repository contribute statements for the push's own
 * batch (GitLab's PostReceive -> MergeRequests::RefreshService), so the branch move and its
 * consequences land together or not at all.
 */
import type { BatchItem } from 'drizzle-orm/batch';
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
}

/** What a push also writes, from the domains above (src/app.ts registers them). */
export const pushHooks = hookList<(c: Context<AppEnv>, push: Push) => Promise<BatchItem<'sqlite'>[]>>();

/** Statements for the push's batch. Call after the push is built (its commits and files are known) and before its batch runs. */
export async function pushStatements(c: Context<AppEnv>, push: Push): Promise<BatchItem<'sqlite'>[]> {
  if (!push.commits.length) return [];
  const out: BatchItem<'sqlite'>[] = [];
  for (const hook of pushHooks.all()) out.push(...(await hook(c, push)));
  return out;
}
