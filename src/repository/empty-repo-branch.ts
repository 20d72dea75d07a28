/**
 * Branches::CreateService#create_default_branch (`create_default_branch_if_empty`): a branch asked
 * for in an empty repository first gets an empty `README.md` committed on the default branch, a
 * push like any other (its hooks run, the default branch is protected as the first push protects
 * it). Here the commit, the new branch and their consequences are one batch, and a refused request
 * (a bad ref, a name taken by the default branch) writes nothing.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import { repoBranches } from '../db/schema';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { forbidden } from '../platform/errors';
import { withReadMemo } from '../platform/read-memo';
import { settingsOf } from '../settings/settings';
import { buildCommit, type WrittenCommit } from './commit-writer';
import { canPushToBranch, defaultBranchProtectionStatements, primeProtectedBranches, type AccessLevelRow, type ProtectedBranchRow } from './protected-branches';
import { type PushPrefetch, pushReads, pushStatements } from './push';
import { apiMessage } from './repository-support';

/** Project#default_branch_or_main, as SQL for the first batch (the project's default branch, else `main`). */
const defaultBranchSql = (projectId: SQL) => sql`COALESCE((SELECT dp.default_branch FROM projects dp WHERE dp.id = ${projectId}), 'main')`;

/** Reads for the branch create's first batch: whether the repository is empty, and what a push to the default branch's hooks read. */
export function emptyRepoReads(db: Db, projectId: SQL) {
  const hooks = pushReads(db, projectId, defaultBranchSql(projectId));
  return { list: [db.select({ one: sql`1` }).from(repoBranches).where(sql`${repoBranches.projectId} = ${projectId}`).limit(1), ...hooks.list], take: (results: readonly unknown[]) => ({ empty: (results[0] as unknown[]).length === 0, prefetched: hooks.take(results.slice(1)) }) };
}

interface EmptyRepoBranch {
  project: { id: number; defaultBranch: string | null; archived: boolean };
  level: number;
  branch: string;
  ref: string;
  protection: { rows: ProtectedBranchRow[]; levels: AccessLevelRow[] };
  prefetched: PushPrefetch;
}

/**
 * The README commit on the default branch and the statements that store it with its push's
 * consequences and, when another branch is asked for, that branch at the same commit.
 */
export async function readmeCommit(c: Context<AppEnv>, caller: Caller, user: UserRow, e: EmptyRepoBranch): Promise<{ written: WrittenCommit; extra: BatchItem<'sqlite'>[]; defaultBranch: string }> {
  const db = c.var.db;
  const pid = e.project.id;
  const defaultBranch = e.project.defaultBranch ?? 'main';
  // The README is a push to the default branch: the caller must be allowed to make the first push.
  const allowed = await withReadMemo(c, async () => {
    primeProtectedBranches(c, e.protection.rows, e.protection.levels, [{ projectId: pid, name: defaultBranch }]);
    return canPushToBranch(c, caller, e.level, pid, defaultBranch, { emptyRepo: true, archived: e.project.archived });
  });
  if (!allowed) throw forbidden('You are not allowed to push into this branch');
  // After the README, the default branch exists: a branch of its name is taken, and the ref must name it.
  if (e.branch === defaultBranch) throw apiMessage(400, 'Branch already exists');
  if (e.ref !== defaultBranch) throw apiMessage(400, `Invalid reference name: ${e.ref}`);
  const written = await buildCommit(c, {
    projectId: pid,
    branch: defaultBranch,
    parent: null,
    expectedHead: null,
    message: 'Add README.md',
    author: { name: user.name, email: user.email },
    committer: { name: user.name, email: user.email },
    userId: user.id,
    actions: [{ action: 'create', file_path: 'README.md', content: '' }],
    generations: [],
  });
  const at = written.commit.committedAt;
  const settings = (await settingsOf(c)) as Record<string, unknown>;
  const hooks = await pushStatements(c, { projectId: pid, branch: defaultBranch, oldSha: null, commits: [written.commit], manifest: written.files, from: null, user, at: Date.now(), blobs: written.blobs }, e.prefetched);
  return {
    written,
    defaultBranch,
    extra: [
      ...defaultBranchProtectionStatements(db, e.project, defaultBranch, settings, { now: at }),
      ...hooks,
      db.insert(repoBranches).values({ projectId: pid, name: e.branch, commitSha: written.commit.sha, createdAt: at, updatedAt: at }),
    ],
  };
}
