/**
 * Writing commits through the API (Files::MultiService, Gitaly's UserCommitFiles): the actions
 * applied to the parent's files, the objects hashed as git would, and one batch that stores the
 * commit and moves its branch only if it still points where the caller saw it.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { projects, repoBranches, repoBranchUpdates, repoCommitFiles, repoCommitParents, repoCommits } from '../db/schema';
import { decoder, diffManifests, isBinary, lineStats } from './diffs';
import { blobId, commitId, treeId } from './git-objects';
import { lastCommitForPath } from './history';
import { inJson, writeThenRead } from '../db/batch-reads';
import { manifestCache } from './sha-cache';
import { blobKey, type CommitRow, type Manifest, manifestOf, readBlob } from './repository-store';

export type CommitAction =
  | { action: 'create' | 'update'; file_path: string; content?: string; encoding?: 'text' | 'base64'; last_commit_id?: string; execute_filemode?: boolean }
  | { action: 'move'; file_path: string; previous_path: string; content?: string; encoding?: 'text' | 'base64'; last_commit_id?: string }
  | { action: 'delete'; file_path: string; last_commit_id?: string }
  | { action: 'chmod'; file_path: string; execute_filemode: boolean };

/** A refusal of Files::MultiService / Gitaly, answered as 400 with this message. */
export class CommitError extends Error {}

/** Gitlab::Git.check_ref_format (git check-ref-format --branch). */
export { isValidBranchName } from '../platform/git-ref';

/** A repository path as Gitaly accepts it: relative, no empty, "." or ".." segments. */
function checkPath(path: string) {
  if (!path || path.startsWith('/') || path.endsWith('/') || path.includes('\0') || path.split('/').some((s) => s === '' || s === '.' || s === '..'))
    throw new CommitError(path.split('/').includes('..') ? 'Path cannot include directory traversal' : `invalid path: '${path}'`);
}

function contentOf(a: { content?: string; encoding?: 'text' | 'base64' }): Uint8Array {
  const content = a.content ?? '';
  if (a.encoding === 'base64') {
    const clean = content.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) throw new CommitError('Invalid base64');
    return Uint8Array.from(atob(clean), (ch) => ch.charCodeAt(0));
  }
  return new TextEncoder().encode(content);
}

export interface NewCommit {
  projectId: number;
  branch: string;
  /** The commit the new one starts from (null: a root commit). */
  parent: string | null;
  /** Further parents (a merge commit's second parent). */
  extraParents?: string[];
  /** The branch head the write expects (null: the branch must not exist yet). */
  expectedHead: string | null;
  message: string;
  author: { name: string; email: string };
  committer: { name: string; email: string };
  userId: number | null;
  /** File changes applied to the parent's files; `files` replaces them all (a merge result). */
  actions?: CommitAction[];
  files?: Manifest;
  at?: number;
  /** The author's date when it differs from the commit's (a rebased commit keeps its author date). */
  authoredAt?: number;
  /** The parent when it is not stored yet (a chain built in one batch): its files and generation. */
  pendingParent?: { files: Manifest; generation: number };
  /**
   * What the caller read of the (stored) parent in its own batch: its files and the last commit of
   * each path an action names with `last_commit_id`.
   */
  parentRead?: { files: Manifest; lastCommits: ReadonlyMap<string, string | null> };
  /**
   * The parents' generations, when the caller knows them: the commit's existence is not read then
   * (the object inserts tolerate an existing commit: same contents, parents and timestamps). 'stored':
   * the insert computes it from the parents' rows, stored before or earlier in the same batch (a
   * merge commit over its squash commit); the returned row's generation is 0 then.
   */
  generations?: number[] | 'stored';
}

export interface WrittenCommit {
  commit: CommitRow;
  statements: BatchItem<'sqlite'>[];
  /** Blob contents to store before the batch (content-addressed: a stored blob without rows is harmless). */
  blobs: Map<string, Uint8Array>;
  /** The files of the new commit. */
  files: Manifest;
}

/**
 * Builds a commit: applies the actions to the parent's files (Files::MultiService's checks), hashes
 * the objects, and returns the statements of one batch that insert it and move the branch only if
 * it still points at `expectedHead` (else the batch fails as a whole).
 */
export async function buildCommit(c: Context<AppEnv>, n: NewCommit): Promise<WrittenCommit> {
  const db = c.var.db;
  const base = n.pendingParent ? new Map(n.pendingParent.files) : n.parentRead ? new Map(n.parentRead.files) : await manifestOf(db, n.projectId, n.parent);
  const files: Manifest = n.files ? new Map(n.files) : new Map(base);
  const blobs = new Map<string, Uint8Array>();
  const texts = new Map<string, Uint8Array>();
  const isDir = (path: string) => [...files.keys()].some((p) => p.startsWith(`${path}/`));
  const fileInPrefix = (path: string) => {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) if (files.has(parts.slice(0, i).join('/'))) return true;
    return false;
  };
  const put = (path: string, bytes: Uint8Array, mode: string) => {
    const sha = blobId(bytes);
    blobs.set(sha, bytes);
    texts.set(path, bytes);
    files.set(path, { blobSha: sha, mode, size: bytes.byteLength });
  };
  const checkLastCommit = async (path: string, lastCommitId: string | undefined) => {
    if (!lastCommitId || !n.parent) return;
    const read = n.parentRead?.lastCommits.get(path);
    const last = read !== undefined ? read : await lastCommitForPath(db, n.projectId, n.parent, path);
    if (last && !last.startsWith(lastCommitId.toLowerCase())) throw new CommitError(`The file has changed since you started editing it: ${path}`);
  };
  for (const a of n.actions ?? []) {
    checkPath(a.file_path);
    switch (a.action) {
      case 'create': {
        if (files.has(a.file_path)) throw new CommitError('A file with this name already exists');
        if (isDir(a.file_path)) throw new CommitError('A directory with this name already exists');
        if (fileInPrefix(a.file_path)) throw new CommitError('A file with this name already exists');
        put(a.file_path, contentOf(a), a.execute_filemode ? '100755' : '100644');
        break;
      }
      case 'update': {
        const old = files.get(a.file_path);
        if (!old) throw new CommitError("A file with this name doesn't exist");
        await checkLastCommit(a.file_path, a.last_commit_id);
        put(a.file_path, contentOf(a), old.mode);
        break;
      }
      case 'delete': {
        if (!files.has(a.file_path)) throw new CommitError("A file with this name doesn't exist");
        await checkLastCommit(a.file_path, a.last_commit_id);
        files.delete(a.file_path);
        break;
      }
      case 'move': {
        checkPath(a.previous_path);
        const old = files.get(a.previous_path);
        if (!old) throw new CommitError("A file with this name doesn't exist");
        if (files.has(a.file_path) || isDir(a.file_path)) throw new CommitError('A file with this name already exists');
        await checkLastCommit(a.previous_path, a.last_commit_id);
        files.delete(a.previous_path);
        // Gitaly: a move without content keeps the file's content.
        if (a.content === undefined) files.set(a.file_path, old);
        else put(a.file_path, contentOf(a), old.mode);
        break;
      }
      case 'chmod': {
        const old = files.get(a.file_path);
        if (!old) throw new CommitError("A file with this name doesn't exist");
        files.set(a.file_path, { ...old, mode: a.execute_filemode ? '100755' : '100644' });
        break;
      }
    }
  }

  // CommitStats: lines added and removed against the first parent.
  let additions = 0;
  let deletions = 0;
  for (const ch of diffManifests(base, files)) {
    if (ch.oldBlob === ch.newBlob) continue;
    const before = ch.oldBlob ? await readBlob(c, n.projectId, ch.oldBlob) : null;
    const after = ch.newBlob ? (texts.get(ch.newPath) ?? (await readBlob(c, n.projectId, ch.newBlob))) : null;
    if ((before && isBinary(before)) || (after && isBinary(after))) continue;
    const s = lineStats(before ? decoder.decode(before) : '', after ? decoder.decode(after) : '');
    additions += s.additions;
    deletions += s.deletions;
  }

  const at = n.at ?? Date.now();
  const parents = [...(n.parent ? [n.parent] : []), ...(n.extraParents ?? [])];
  const tree = treeId(files);
  const authorAt = n.authoredAt ?? at;
  const sha = commitId(tree, parents, { ...n.author, at: authorAt }, { ...n.committer, at }, n.message);
  // One read for the parents' generations and whether this commit exists already (a merge or a
  // commit repeated with the same contents, parents and timestamps).
  // (Unless the caller knows the generations: then the existence is left to the inserts.)
  const prior = n.generations !== undefined;
  const known = prior
    ? []
    : await db
        .select({ sha: repoCommits.sha, generation: repoCommits.generation })
        .from(repoCommits)
        .where(and(eq(repoCommits.projectId, n.projectId), inJson(repoCommits.sha, [...parents, sha])))
        .all();
  const parentRows: { generation: number }[] = known.filter((r) => r.sha !== sha);
  if (n.pendingParent) parentRows.push({ generation: n.pendingParent.generation });
  if (Array.isArray(n.generations)) parentRows.push(...n.generations.map((generation) => ({ generation })));
  const seconds = Math.floor(at / 1000) * 1000;
  const commit: CommitRow = {
    projectId: n.projectId,
    sha,
    treeSha: tree,
    parentShas: parents,
    generation: n.generations === 'stored' ? 0 : 1 + Math.max(0, ...parentRows.map((p) => p.generation)),
    message: n.message,
    authorName: n.author.name,
    authorEmail: n.author.email,
    authoredAt: Math.floor(authorAt / 1000) * 1000,
    committerName: n.committer.name,
    committerEmail: n.committer.email,
    committedAt: seconds,
    userId: n.userId,
    additions,
    deletions,
  };

  const statements: BatchItem<'sqlite'>[] = [];
  // The compare-and-swap guard first: NULL (and the batch fails) unless the branch is where the caller saw it.
  const guard =
    n.expectedHead === null
      ? sql`(SELECT ${sha} WHERE NOT EXISTS (SELECT 1 FROM ${repoBranches} WHERE ${repoBranches.projectId} = ${n.projectId} AND ${repoBranches.name} = ${n.branch}))`
      : sql`(SELECT ${sha} WHERE EXISTS (SELECT 1 FROM ${repoBranches} WHERE ${repoBranches.projectId} = ${n.projectId} AND ${repoBranches.name} = ${n.branch} AND ${repoBranches.commitSha} = ${n.expectedHead}))`;
  statements.push(db.insert(repoBranchUpdates).values({ projectId: n.projectId, branch: n.branch, oldSha: n.expectedHead, newSha: guard as unknown as string, userId: n.userId, createdAt: at }));
  const exists = known.some((r) => r.sha === sha);
  if (!exists) {
    // Unknown whether it exists (`prior`): an existing commit is the same object, so its rows stay as they are.
    const orKeep = <Q extends { onConflictDoNothing(): unknown }>(q: Q) => (prior ? (q.onConflictDoNothing() as Q) : q);
    const generation = sql`1 + coalesce((SELECT max(g.generation) FROM repo_commits g WHERE g.project_id = ${n.projectId} AND g.sha IN (SELECT value FROM json_each(${JSON.stringify(parents)}))), 0)`;
    statements.push(orKeep(db.insert(repoCommits).values(n.generations === 'stored' ? { ...commit, generation: generation as unknown as number } : commit)));
    parents.forEach((p, i) => statements.push(orKeep(db.insert(repoCommitParents).values({ projectId: n.projectId, sha, parentSha: p, position: i }))));
    // Unchanged files are copied from the parent in one statement; changed and new ones inserted.
    const changed = new Set<string>();
    for (const [path, e] of files) {
      const old = base.get(path);
      if (!old || old.blobSha !== e.blobSha || old.mode !== e.mode || n.files) changed.add(path);
    }
    const kept = [...files.keys()].filter((p) => !changed.has(p));
    if (n.parent && kept.length && !n.files) {
      const removedOrChanged = [...base.keys()].filter((p) => !files.has(p) || changed.has(p));
      statements.push(
        orKeep(db.insert(repoCommitFiles).select(
          db
            .select({ projectId: repoCommitFiles.projectId, commitSha: sql<string>`${sha}`.as('commit_sha'), path: repoCommitFiles.path, blobSha: repoCommitFiles.blobSha, mode: repoCommitFiles.mode, size: repoCommitFiles.size })
            .from(repoCommitFiles)
            .where(
              and(
                eq(repoCommitFiles.projectId, n.projectId),
                eq(repoCommitFiles.commitSha, n.parent),
                removedOrChanged.length ? sql`${repoCommitFiles.path} NOT IN (SELECT value FROM json_each(${JSON.stringify(removedOrChanged)}))` : undefined,
              ),
            ),
        )),
      );
    }
    const rows = [...changed].map((path) => ({ projectId: n.projectId, commitSha: sha, path, ...files.get(path)! }));
    for (let i = 0; i < rows.length; i += 15) statements.push(orKeep(db.insert(repoCommitFiles).values(rows.slice(i, i + 15))));
  }
  if (n.expectedHead === null) statements.push(db.insert(repoBranches).values({ projectId: n.projectId, name: n.branch, commitSha: sha, createdAt: at, updatedAt: at }));
  else statements.push(db.update(repoBranches).set({ commitSha: sha, updatedAt: at }).where(and(eq(repoBranches.projectId, n.projectId), eq(repoBranches.name, n.branch))));
  // Project#after_create_default_branch: the first branch of a project without one becomes its default.
  statements.push(db.update(projects).set({ defaultBranch: n.branch }).where(and(eq(projects.id, n.projectId), sql`${projects.defaultBranch} IS NULL`)));
  return { commit, statements, blobs, files };
}

/**
 * Stores the blobs, then runs the statements (plus `extra`) as one batch, with `reads` at its end
 * (seeing the commit: the answer's reads, in the same round trip); their results come back. False
 * when the branch moved meanwhile.
 */
export async function storeCommit<const Q extends readonly BatchItem<'sqlite'>[] = []>(c: Context<AppEnv>, w: WrittenCommit, extra: BatchItem<'sqlite'>[] = [], reads?: Q) {
  await Promise.all([...w.blobs].map(([sha, bytes]) => c.var.blobs.put(blobKey(w.commit.projectId, sha), bytes)));
  try {
    const out = await writeThenRead(c.var.db, [...w.statements, ...extra], reads ?? ([] as unknown as Q));
    // The new commit's files are a fact of its sha: the next read of them (a merge request's diff, a merge) needs no query.
    if (w.files.size) manifestCache<Manifest>(c.var.db).set(`${w.commit.projectId}:${w.commit.sha}`, new Map(w.files));
    return out;
  } catch (err) {
    if (/NOT NULL constraint failed: repo_branch_updates\.new_sha|UNIQUE constraint failed: repo_branches/i.test(collect(err))) return false;
    throw err;
  }
}

/** The messages of an error and its causes, to recognise a failed compare-and-swap. */
export function collect(err: unknown, depth = 0): string {
  if (!err || depth > 5) return '';
  const e = err as { message?: string; cause?: unknown };
  return `${e.message ?? String(err)} ${collect(e.cause, depth + 1)}`;
}
