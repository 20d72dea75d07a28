/**
 * Merging for merge requests: the three-way merge of file manifests, conflicts, merge and squash
 * commits, fast-forwards, and the branch writes that go with them, as statements of one batch.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import type { Db } from '../db/client';
import { repoBranches, repoBranchUpdates, repoCommitFiles, repoCommitParents, repoCommits } from '../db/schema';
import { buildCommit, collect } from './commit-writer';
import { mergeBase } from './history';
import { blobKey, type CommitRow, type FileEntry, type Manifest, manifestOf, manifestsOf } from './repository-store';

/**
 * The files of a three-way merge at file level: the target's files plus every change the source
 * made since the merge base. Null when both sides changed one path differently (a conflict).
 */
export function mergeManifests(base: Manifest, target: Manifest, source: Manifest): Manifest | null {
  const out: Manifest = new Map(target);
  const same = (a?: FileEntry, b?: FileEntry) => (a?.blobSha ?? null) === (b?.blobSha ?? null) && (a?.mode ?? null) === (b?.mode ?? null);
  const paths = new Set([...base.keys(), ...source.keys()]);
  for (const path of paths) {
    const b = base.get(path);
    const s = source.get(path);
    if (same(b, s)) continue; // the source did not touch it
    const t = target.get(path);
    if (!same(b, t) && !same(t, s)) return null; // both sides changed it, differently
    if (s) out.set(path, s);
    else out.delete(path);
  }
  // A file on one side where the other made a directory of the same name.
  const keys = [...out.keys()];
  if (keys.some((k) => keys.some((o) => o.startsWith(`${k}/`)))) return null;
  return out;
}

/** Whether merging `sourceHead` into `targetHead` would conflict (MergeRequest#cannot_be_merged?). */
export async function mergeConflicts(db: Db, projectId: number, targetHead: string, sourceHead: string): Promise<boolean> {
  const base = await mergeBase(db, projectId, targetHead, sourceHead);
  const [b, t, s] = await Promise.all([manifestOf(db, projectId, base), manifestOf(db, projectId, targetHead), manifestOf(db, projectId, sourceHead)]);
  return mergeManifests(b, t, s) === null;
}

export interface MergeInput {
  projectId: number;
  targetBranch: string;
  /** The target head the merge was decided against; the branch must still point there. */
  targetHead: string;
  sourceHead: string;
  message: string;
  /** Squash the source's commits into one commit (its message `squashMessage`) before merging. */
  squash?: boolean;
  squashMessage?: string;
  /** 'merge' (a merge commit, GitLab's default), 'ff' (fast-forward only), 'rebase_merge' treated as 'merge'. */
  method?: 'merge' | 'ff' | 'rebase_merge';
  user: { id: number; name: string; email: string };
  at?: number;
  /** The merge base when the caller knows it (a function of the two heads: the merge request's live state). */
  mergeBase?: string | null;
}

export type MergeOutcome =
  | {
      ok: true;
      mergeCommitSha: string | null;
      squashCommitSha: string | null;
      statements: BatchItem<'sqlite'>[];
      blobs: Map<string, Uint8Array>;
      newHead: string;
      /** The commits the merge writes, oldest first (none for a plain fast-forward), and the files at the new head: the push it is (repository/push.ts). */
      commits: CommitRow[];
      files: Manifest;
    }
  | { ok: false; reason: 'conflict' | 'not_fast_forward' };

/**
 * Builds (does not run) the merge of a source head into a target branch: optionally a squash
 * commit (parent: the merge base), then a merge commit with the target head and the source head
 * (or the squash commit) as parents, or a fast-forward. The statements move the target branch only
 * if it still points at `targetHead`; run them with `runMerge` together with the merge request's own
 * updates, so the branch and the merge request change in one batch.
 */
export async function buildMerge(c: Context<AppEnv>, m: MergeInput): Promise<MergeOutcome> {
  const db = c.var.db;
  const at = m.at ?? Date.now();
  const base = m.mergeBase !== undefined ? m.mergeBase : await mergeBase(db, m.projectId, m.targetHead, m.sourceHead);
  const sig = { name: m.user.name, email: m.user.email };
  // The three file lists in one round trip at most (none when this isolate has them).
  const [b, t, s] = await manifestsOf(db, m.projectId, [base, m.targetHead, m.sourceHead]);
  const statements: BatchItem<'sqlite'>[] = [];
  const blobs = new Map<string, Uint8Array>();
  let mergedSource = m.sourceHead;
  let squashCommitSha: string | null = null;
  const commits: CommitRow[] = [];
  if (m.squash && m.sourceHead !== base) {
    // The squash commit is not on any branch: write it without moving a ref.
    // Generations are computed by the inserts from the stored parents (no read here).
    const squash = await buildCommit(c, { projectId: m.projectId, branch: m.targetBranch, parent: base, expectedHead: m.targetHead, message: m.squashMessage ?? m.message, author: sig, committer: sig, userId: m.user.id, files: s, at, generations: 'stored' });
    squashCommitSha = squash.commit.sha;
    mergedSource = squash.commit.sha;
    commits.push(squash.commit);
    statements.push(...squash.statements.filter(isObjectInsert));
    for (const [k, v] of squash.blobs) blobs.set(k, v);
  }
  if (base === m.targetHead) {
    // The target has not moved since the source branched off: a fast-forward for 'ff', else still a merge commit (GitLab's merge method).
    if (m.method === 'ff') {
      const ff = await fastForward(db, m.projectId, m.targetBranch, m.targetHead, mergedSource, m.user.id, at);
      return { ok: true, mergeCommitSha: null, squashCommitSha, statements: [...statements, ...ff], blobs, newHead: mergedSource, commits, files: s };
    }
  } else if (m.method === 'ff') return { ok: false, reason: 'not_fast_forward' };
  const files = mergeManifests(b, t, s);
  if (!files) return { ok: false, reason: 'conflict' };
  const merge = await buildCommit(c, { projectId: m.projectId, branch: m.targetBranch, parent: m.targetHead, extraParents: [mergedSource], expectedHead: m.targetHead, message: m.message, author: sig, committer: sig, userId: m.user.id, files, at, generations: 'stored' });
  for (const [k, v] of merge.blobs) blobs.set(k, v);
  return { ok: true, mergeCommitSha: merge.commit.sha, squashCommitSha, statements: [...statements, ...merge.statements], blobs, newHead: merge.commit.sha, commits: [...commits, merge.commit], files: merge.files };
}

/** Statements that only add objects (commit rows, parents, files), not ref moves. */
export function isObjectInsert(st: BatchItem<'sqlite'>): boolean {
  const table = (st as unknown as { config?: { table?: unknown } }).config?.table;
  return table === repoCommits || table === repoCommitParents || table === repoCommitFiles;
}

/** Moves a branch from `from` to `to` (any commit: a fast-forward or a rewrite) only if it still points at `from`. */
export async function fastForward(db: Db, projectId: number, branch: string, from: string, to: string, userId: number, at: number): Promise<BatchItem<'sqlite'>[]> {
  const guard = sql`(SELECT ${to} WHERE EXISTS (SELECT 1 FROM ${repoBranches} WHERE ${repoBranches.projectId} = ${projectId} AND ${repoBranches.name} = ${branch} AND ${repoBranches.commitSha} = ${from}))`;
  return [
    db.insert(repoBranchUpdates).values({ projectId, branch, oldSha: from, newSha: guard as unknown as string, userId, createdAt: at }),
    db.update(repoBranches).set({ commitSha: to, updatedAt: at }).where(and(eq(repoBranches.projectId, projectId), eq(repoBranches.name, branch))),
  ];
}

/**
 * Stores a merge's blobs and runs its statements plus `extra` in one batch, then `reads` (in the same
 * batch, seeing the merge), whose results come back. False when the target branch moved meanwhile.
 */
export async function runMerge(c: Context<AppEnv>, m: Extract<MergeOutcome, { ok: true }>, projectId: number, extra: BatchItem<'sqlite'>[] = [], reads: BatchItem<'sqlite'>[] = []): Promise<false | unknown[]> {
  await Promise.all([...m.blobs].map(([sha, bytes]) => c.var.blobs.put(blobKey(projectId, sha), bytes)));
  try {
    const writes = [...m.statements, ...extra];
    const results = (await c.var.db.batch([...writes, ...reads] as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as unknown as unknown[];
    return results.slice(writes.length);
  } catch (err) {
    if (/NOT NULL constraint failed: repo_branch_updates\.new_sha/i.test(collect(err))) return false;
    throw err;
  }
}

/** Deletes a branch only while it points at `expectedHead` (null: whatever it points at); the statement for a batch. */
export function deleteBranchStatement(db: Db, projectId: number, branch: string, expectedHead: string | null) {
  return db
    .delete(repoBranches)
    .where(and(eq(repoBranches.projectId, projectId), eq(repoBranches.name, branch), expectedHead ? eq(repoBranches.commitSha, expectedHead) : undefined));
}
