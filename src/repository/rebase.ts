/**
 * Rebasing a branch onto another (Gitaly UserRebaseConfirmable, as MergeRequests::RebaseService
 * asks for it): the branch's own commits, oldest first, are replayed onto the target head with a
 * three-way merge of each commit against its original parent. Merge commits are dropped and commits
 * whose change is already on the target become empty and are dropped, as `git rebase` does. Authors
 * and their dates are kept; the rebasing user is the committer. Nothing is written here: the result
 * is one batch (the new commits and the branch move, guarded on the old head).
 */
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { buildCommit } from './commit-writer';
import { commitsBetween, mergeBase } from './history';
import { fastForward, isObjectInsert, mergeManifests } from './merge';
import { type CommitRow, findCommit, type Manifest, manifestOf } from './repository-store';

export interface RebaseInput {
  projectId: number;
  branch: string;
  sourceHead: string;
  targetHead: string;
  user: { id: number; name: string; email: string };
  at?: number;
}

export type RebaseOutcome =
  | { ok: true; noop: boolean; newHead: string; commits: CommitRow[]; statements: BatchItem<'sqlite'>[]; blobs: Map<string, Uint8Array>; files: Manifest }
  | { ok: false; reason: 'conflict' };

const sameFiles = (a: Manifest, b: Manifest) => a.size === b.size && [...a].every(([p, e]) => b.get(p)?.blobSha === e.blobSha && b.get(p)?.mode === e.mode);

export async function buildRebase(c: Context<AppEnv>, r: RebaseInput): Promise<RebaseOutcome> {
  const db = c.var.db;
  const at = r.at ?? Date.now();
  const base = await mergeBase(db, r.projectId, r.targetHead, r.sourceHead);
  const targetFiles = await manifestOf(db, r.projectId, r.targetHead);
  // Already on top of the target: nothing to rewrite (git rebase says "up to date").
  if (base === r.targetHead) return { ok: true, noop: true, newHead: r.sourceHead, commits: [], statements: [], blobs: new Map(), files: await manifestOf(db, r.projectId, r.sourceHead) };

  const own = (await commitsBetween(db, r.projectId, r.targetHead, r.sourceHead)).filter((k) => k.parentShas.length <= 1).sort((a, b) => a.generation - b.generation || a.committedAt - b.committedAt);
  const targetRow = await findCommit(db, r.projectId, r.targetHead);
  let parent = r.targetHead;
  let parentFiles = targetFiles;
  let generation = targetRow?.generation ?? 1;
  const statements: BatchItem<'sqlite'>[] = [];
  const blobs = new Map<string, Uint8Array>();
  const commits: CommitRow[] = [];
  const committer = { name: r.user.name, email: r.user.email };
  for (const k of own) {
    const [before, after] = await Promise.all([manifestOf(db, r.projectId, k.parentShas[0] ?? null), manifestOf(db, r.projectId, k.sha)]);
    const files = mergeManifests(before, parentFiles, after);
    if (!files) return { ok: false, reason: 'conflict' };
    if (sameFiles(files, parentFiles)) continue;
    const built = await buildCommit(c, {
      projectId: r.projectId,
      branch: r.branch,
      parent,
      expectedHead: r.sourceHead,
      message: k.message,
      author: { name: k.authorName, email: k.authorEmail },
      authoredAt: k.authoredAt,
      committer,
      userId: r.user.id,
      files,
      at,
      pendingParent: commits.length ? { files: parentFiles, generation } : undefined,
    });
    statements.push(...built.statements.filter(isObjectInsert));
    for (const [sha, bytes] of built.blobs) blobs.set(sha, bytes);
    commits.push(built.commit);
    parent = built.commit.sha;
    parentFiles = files;
    generation = built.commit.generation;
  }
  // Every commit was already on the target: the branch becomes the target head.
  statements.push(...(await fastForward(db, r.projectId, r.branch, r.sourceHead, parent, r.user.id, at)));
  return { ok: true, noop: false, newHead: parent, commits, statements, blobs, files: parentFiles };
}
