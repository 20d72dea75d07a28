/**
 * Repositories written through the API only (no git transport), for commits, branches, files,
 * compare and merge requests.
 *
 * Contract for other areas (merge requests, approvals):
 * - `branchHead(db, projectId, name)` -> sha | null; `findBranch`, `listBranchNames`.
 * - `resolveRef(db, projectId, ref)` -> CommitRow | null: a branch name, else a full or abbreviated sha.
 * - `commitsBetween(db, projectId, baseSha | null, headSha)` -> CommitRow[] reachable from head and not
 *   from base, newest first (`git log base..head`).
 * - `mergeBase(db, projectId, a, b)` -> sha | null (the common ancestor of highest generation).
 * - `changedFiles(db, projectId, fromSha | null, toSha)` -> FileChange[] (paths, blobs, modes, renames).
 * - `diffsBetween(c, projectId, fromSha | null, toSha)` -> GitLab Diff entities (unified diffs).
 * - `writeCommit(c, {...})` -> the statements and commit of a new commit on a branch (one db.batch,
 *   compare-and-swap on the branch head), used by the commits API and by merges (two parents).
 * Shas are real git object ids (services/git-objects.ts); blob contents are in the blob store at
 * `repositories/<project id>/<blob id>`.
 */
import { and, asc, eq, inArray, like, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { structuredPatch } from 'diff';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import type { Db } from '../db/client';
import { projects, repoBranches, repoBranchUpdates, repoCommitFiles, repoCommitParents, repoCommits } from '../db/schema';
import { memo, primeMemo } from '../platform/read-memo';
import { blobId, commitId, type ManifestEntry, treeId } from './git-objects';

export type CommitRow = typeof repoCommits.$inferSelect;
export type BranchRow = typeof repoBranches.$inferSelect;

export interface FileEntry extends ManifestEntry {
  size: number;
}
export type Manifest = Map<string, FileEntry>;

export const blobKey = (projectId: number, sha: string) => `repositories/${projectId}/${sha}`;

export async function findBranch(db: Db, projectId: number, name: string): Promise<BranchRow | undefined> {
  return db.select().from(repoBranches).where(and(eq(repoBranches.projectId, projectId), eq(repoBranches.name, name))).get();
}

export async function branchHead(db: Db, projectId: number, name: string): Promise<string | null> {
  return (await findBranch(db, projectId, name))?.commitSha ?? null;
}

/**
 * Reads shared by many merge requests of one page (lib/read-memo.ts): the same branch head, merge
 * base or manifest is read once while a memo is open, as usual otherwise.
 */
export const memoBranchHead = (c: Context<AppEnv>, projectId: number, name: string) => memo(c, `head:${projectId}:${name}`, () => branchHead(c.var.db, projectId, name));
export const memoManifest = (c: Context<AppEnv>, projectId: number, sha: string | null) => memo(c, `manifest:${projectId}:${sha}`, () => manifestOf(c.var.db, projectId, sha));
export const memoMergeBase = (c: Context<AppEnv>, projectId: number, a: string, b: string) => memo(c, `merge-base:${projectId}:${a}:${b}`, () => mergeBase(c.var.db, projectId, a, b));

/** Seeds the branch-head memo for many branches with one query (a missing branch is remembered as null). */
export async function primeBranchHeads(c: Context<AppEnv>, refs: { projectId: number; name: string }[]): Promise<void> {
  const byProject = new Map<number, Set<string>>();
  for (const r of refs) (byProject.get(r.projectId) ?? byProject.set(r.projectId, new Set()).get(r.projectId)!).add(r.name);
  const entries: [string, unknown][] = [];
  for (const [projectId, names] of byProject) {
    const list = [...names];
    for (let i = 0; i < list.length; i += 90) {
      const part = list.slice(i, i + 90);
      const rows = await c.var.db
        .select({ name: repoBranches.name, sha: repoBranches.commitSha })
        .from(repoBranches)
        .where(and(eq(repoBranches.projectId, projectId), inArray(repoBranches.name, part)))
        .all();
      const found = new Map(rows.map((r) => [r.name, r.sha]));
      for (const n of part) entries.push([`head:${projectId}:${n}`, found.get(n) ?? null]);
    }
  }
  primeMemo(c, entries);
}

export async function hasCommits(db: Db, projectId: number): Promise<boolean> {
  return (await db.select({ one: sql`1` }).from(repoBranches).where(eq(repoBranches.projectId, projectId)).limit(1).get()) != null;
}

export async function findCommit(db: Db, projectId: number, sha: string): Promise<CommitRow | undefined> {
  return db.select().from(repoCommits).where(and(eq(repoCommits.projectId, projectId), eq(repoCommits.sha, sha))).get();
}

/** A branch name first (as git resolves refs/heads), else a full or abbreviated (4+ hex) commit id. */
export async function resolveRef(db: Db, projectId: number, ref: string): Promise<CommitRow | null> {
  const branch = await findBranch(db, projectId, ref);
  if (branch) return (await findCommit(db, projectId, branch.commitSha)) ?? null;
  const hex = ref.toLowerCase();
  if (!/^[0-9a-f]{4,40}$/.test(hex)) return null;
  if (hex.length === 40) return (await findCommit(db, projectId, hex)) ?? null;
  const rows = await db
    .select()
    .from(repoCommits)
    .where(and(eq(repoCommits.projectId, projectId), like(repoCommits.sha, `${hex}%`)))
    .limit(2)
    .all();
  // An ambiguous abbreviation names nothing, as in git.
  return rows.length === 1 ? rows[0] : null;
}

export async function manifestOf(db: Db, projectId: number, sha: string | null): Promise<Manifest> {
  const out: Manifest = new Map();
  if (!sha) return out;
  const rows = await db.select().from(repoCommitFiles).where(and(eq(repoCommitFiles.projectId, projectId), eq(repoCommitFiles.commitSha, sha))).all();
  for (const r of rows) out.set(r.path, { blobSha: r.blobSha, mode: r.mode, size: r.size });
  return out;
}

export async function fileAt(db: Db, projectId: number, sha: string, path: string): Promise<FileEntry | null> {
  const r = await db
    .select()
    .from(repoCommitFiles)
    .where(and(eq(repoCommitFiles.projectId, projectId), eq(repoCommitFiles.commitSha, sha), eq(repoCommitFiles.path, path)))
    .get();
  return r ? { blobSha: r.blobSha, mode: r.mode, size: r.size } : null;
}

export async function readBlob(c: Context<AppEnv>, projectId: number, sha: string): Promise<Uint8Array | null> {
  const obj = await c.var.blobs.get(blobKey(projectId, sha));
  if (!obj) return null;
  return new Uint8Array(await new Response(obj.body).arrayBuffer());
}

/**
 * The ancestry of `sha` (itself included) as a recursive CTE over parent edges. CROSS JOIN fixes the
 * join order (SQLite never reorders it): each queued commit looks up its own parent edges by
 * (project_id, sha). Left to the planner without statistics, the edges were the outer loop, every
 * step scanned all of the project's edges and a walk cost edges x depth (1.2 ms instead of 0.05 ms
 * for a merge base in a 500-commit project; test/node/repository-plans.test.ts).
 */
const ancestry = (name: string, projectId: number, sha: string) =>
  sql`${sql.raw(name)}(sha) AS (SELECT ${sha} UNION SELECT p.parent_sha FROM ${sql.raw(name)} CROSS JOIN repo_commit_parents p ON p.project_id = ${projectId} AND p.sha = ${sql.raw(name)}.sha)`;

async function commitsByShas(db: Db, projectId: number, shas: string[]): Promise<CommitRow[]> {
  const out: CommitRow[] = [];
  for (let i = 0; i < shas.length; i += 90) out.push(...(await db.select().from(repoCommits).where(and(eq(repoCommits.projectId, projectId), inArray(repoCommits.sha, shas.slice(i, i + 90)))).all()));
  return out;
}

/** Reverse chronological, a child before its parent within the same second (git log's default order). */
export const newestFirst = (a: CommitRow, b: CommitRow) => b.committedAt - a.committedAt || b.generation - a.generation || (a.sha < b.sha ? -1 : 1);

// Raw reads use db.all: drizzle's libsql `get` of raw SQL throws on an empty result (normalizeRow(undefined)).

/** `git log base..head`: commits reachable from head and not from base, newest first. */
export async function commitsBetween(db: Db, projectId: number, base: string | null, head: string): Promise<CommitRow[]> {
  const rows = base
    ? await db.all<{ sha: string }>(sql`WITH RECURSIVE ${ancestry('h', projectId, head)}, ${ancestry('b', projectId, base)} SELECT sha FROM h EXCEPT SELECT sha FROM b`)
    : await db.all<{ sha: string }>(sql`WITH RECURSIVE ${ancestry('h', projectId, head)} SELECT sha FROM h`);
  return (await commitsByShas(db, projectId, rows.map((r) => r.sha))).sort(newestFirst);
}

export async function isAncestor(db: Db, projectId: number, ancestor: string, of: string): Promise<boolean> {
  const rows = await db.all<{ one: number }>(sql`WITH RECURSIVE ${ancestry('h', projectId, of)} SELECT 1 AS one FROM h WHERE sha = ${ancestor} LIMIT 1`);
  return rows.length > 0;
}

/** The best common ancestor: of all common ancestors, the one of highest generation. */
export async function mergeBase(db: Db, projectId: number, a: string, b: string): Promise<string | null> {
  const [row] = await db.all<{ sha: string }>(sql`WITH RECURSIVE ${ancestry('x', projectId, a)}, ${ancestry('y', projectId, b)}
    SELECT c.sha AS sha FROM repo_commits c WHERE c.project_id = ${projectId} AND c.sha IN (SELECT sha FROM x INTERSECT SELECT sha FROM y)
    ORDER BY c.generation DESC, c.committed_at DESC LIMIT 1`);
  return row?.sha ?? null;
}

/**
 * The newest commit in head's history that changed `path` (`git log -1 -- path`): its blob or mode
 * differs from every parent's, so a merge commit that took the file unchanged from one side does not
 * count (git's history simplification), the commit on that side does.
 */
export async function lastCommitForPath(db: Db, projectId: number, head: string, path: string): Promise<string | null> {
  const [row] = await db.all<{ sha: string }>(sql`WITH RECURSIVE ${ancestry('h', projectId, head)}
    SELECT c.sha AS sha FROM repo_commits c
    LEFT JOIN repo_commit_files f ON f.project_id = c.project_id AND f.commit_sha = c.sha AND f.path = ${path}
    WHERE c.project_id = ${projectId} AND c.sha IN (SELECT sha FROM h)
      AND NOT (f.blob_sha IS NULL AND NOT EXISTS (SELECT 1 FROM repo_commit_parents p0 WHERE p0.project_id = c.project_id AND p0.sha = c.sha))
      AND NOT EXISTS (SELECT 1 FROM repo_commit_parents p
        LEFT JOIN repo_commit_files pf ON pf.project_id = p.project_id AND pf.commit_sha = p.parent_sha AND pf.path = ${path}
        WHERE p.project_id = c.project_id AND p.sha = c.sha AND pf.blob_sha IS f.blob_sha AND pf.mode IS f.mode)
    ORDER BY c.committed_at DESC, c.generation DESC LIMIT 1`);
  return row?.sha ?? null;
}

export interface FileChange {
  oldPath: string;
  newPath: string;
  oldBlob: string | null;
  newBlob: string | null;
  aMode: string;
  bMode: string;
  newFile: boolean;
  deletedFile: boolean;
  renamedFile: boolean;
}

/** Files that differ between two commits (from null: everything is new); an identical blob deleted and added is a rename. */
export async function changedFiles(db: Db, projectId: number, from: string | null, to: string): Promise<FileChange[]> {
  const [a, b] = await Promise.all([manifestOf(db, projectId, from), manifestOf(db, projectId, to)]);
  return diffManifests(a, b);
}

export function diffManifests(a: Manifest, b: Manifest): FileChange[] {
  const out: FileChange[] = [];
  const added: string[] = [];
  const deleted: string[] = [];
  for (const [path, e] of b) {
    const old = a.get(path);
    if (!old) added.push(path);
    else if (old.blobSha !== e.blobSha || old.mode !== e.mode)
      out.push({ oldPath: path, newPath: path, oldBlob: old.blobSha, newBlob: e.blobSha, aMode: old.mode, bMode: e.mode, newFile: false, deletedFile: false, renamedFile: false });
  }
  for (const path of a.keys()) if (!b.has(path)) deleted.push(path);
  const deletedByBlob = new Map<string, string[]>();
  for (const p of deleted) deletedByBlob.set(a.get(p)!.blobSha, [...(deletedByBlob.get(a.get(p)!.blobSha) ?? []), p]);
  const renamedFrom = new Set<string>();
  for (const path of added) {
    const e = b.get(path)!;
    const from = deletedByBlob.get(e.blobSha)?.find((p) => !renamedFrom.has(p));
    if (from) {
      renamedFrom.add(from);
      out.push({ oldPath: from, newPath: path, oldBlob: e.blobSha, newBlob: e.blobSha, aMode: a.get(from)!.mode, bMode: e.mode, newFile: false, deletedFile: false, renamedFile: true });
    } else out.push({ oldPath: path, newPath: path, oldBlob: null, newBlob: e.blobSha, aMode: '0', bMode: e.mode, newFile: true, deletedFile: false, renamedFile: false });
  }
  for (const path of deleted) {
    if (renamedFrom.has(path)) continue;
    const e = a.get(path)!;
    out.push({ oldPath: path, newPath: path, oldBlob: e.blobSha, newBlob: null, aMode: e.mode, bMode: '0', newFile: false, deletedFile: true, renamedFile: false });
  }
  return out.sort((x, y) => (x.newPath < y.newPath ? -1 : x.newPath > y.newPath ? 1 : 0));
}

const decoder = new TextDecoder();
const isBinary = (bytes: Uint8Array) => bytes.subarray(0, 8000).includes(0);

/** git's unified diff body without the file header: hunks with 3 lines of context ("@@ -a,b +c,d @@"). */
export function unifiedDiff(oldText: string, newText: string): string {
  const patch = structuredPatch('a', 'b', oldText, newText, '', '', { context: 3 });
  const range = (start: number, lines: number) => (lines === 0 ? `${start - 1},0` : lines === 1 ? `${start}` : `${start},${lines}`);
  return patch.hunks.map((h) => `@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@\n${h.lines.join('\n')}\n`).join('');
}

/** Lines added and removed between two texts (CommitStats). */
export function lineStats(oldText: string, newText: string): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const h of structuredPatch('a', 'b', oldText, newText, '', '', { context: 0 }).hunks)
    for (const l of h.lines) {
      if (l.startsWith('+')) additions++;
      else if (l.startsWith('-')) deletions++;
    }
  return { additions, deletions };
}

/** Entities::Diff for each change (GitLab field order). Binary files get an empty diff. */
export async function diffsBetween(c: Context<AppEnv>, projectId: number, from: string | null, to: string) {
  const changes = await changedFiles(c.var.db, projectId, from, to);
  return Promise.all(changes.map((ch) => diffEntity(c, projectId, ch)));
}

export async function diffEntity(c: Context<AppEnv>, projectId: number, ch: FileChange) {
  const [oldBytes, newBytes] = await Promise.all([
    ch.oldBlob && ch.oldBlob !== ch.newBlob ? readBlob(c, projectId, ch.oldBlob) : Promise.resolve(null),
    ch.newBlob && ch.oldBlob !== ch.newBlob ? readBlob(c, projectId, ch.newBlob) : Promise.resolve(null),
  ]);
  const binary = (oldBytes && isBinary(oldBytes)) || (newBytes && isBinary(newBytes));
  const diff = binary || ch.oldBlob === ch.newBlob ? '' : unifiedDiff(oldBytes ? decoder.decode(oldBytes) : '', newBytes ? decoder.decode(newBytes) : '');
  return {
    diff,
    collapsed: false,
    too_large: false,
    new_path: ch.newPath,
    old_path: ch.oldPath,
    a_mode: ch.aMode,
    b_mode: ch.bMode,
    new_file: ch.newFile,
    renamed_file: ch.renamedFile,
    deleted_file: ch.deletedFile,
    generated_file: false,
  };
}

// ---------------------------------------------------------------------------------------------
// Writing commits

export type CommitAction =
  | { action: 'create' | 'update'; file_path: string; content?: string; encoding?: 'text' | 'base64'; last_commit_id?: string; execute_filemode?: boolean }
  | { action: 'move'; file_path: string; previous_path: string; content?: string; encoding?: 'text' | 'base64'; last_commit_id?: string }
  | { action: 'delete'; file_path: string; last_commit_id?: string }
  | { action: 'chmod'; file_path: string; execute_filemode: boolean };

/** A refusal of Files::MultiService / Gitaly, answered as 400 with this message. */
export class CommitError extends Error {}

/** Gitlab::Git.check_ref_format (git check-ref-format --branch). */
export function isValidBranchName(name: string): boolean {
  if (!name || name === '@' || name === 'HEAD') return false;
  if (name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.endsWith('.lock')) return false;
  if (name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  return !name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'));
}

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
  const base = n.pendingParent ? new Map(n.pendingParent.files) : await manifestOf(db, n.projectId, n.parent);
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
    const last = await lastCommitForPath(db, n.projectId, n.parent, path);
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
  const parentRows: { generation: number }[] = parents.length ? await commitsByShas(db, n.projectId, parents) : [];
  if (n.pendingParent) parentRows.push({ generation: n.pendingParent.generation });
  const seconds = Math.floor(at / 1000) * 1000;
  const commit: CommitRow = {
    projectId: n.projectId,
    sha,
    treeSha: tree,
    parentShas: parents,
    generation: 1 + Math.max(0, ...parentRows.map((p) => p.generation)),
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
  const exists = await findCommit(db, n.projectId, sha);
  if (!exists) {
    statements.push(db.insert(repoCommits).values(commit));
    parents.forEach((p, i) => statements.push(db.insert(repoCommitParents).values({ projectId: n.projectId, sha, parentSha: p, position: i })));
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
        db.insert(repoCommitFiles).select(
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
        ),
      );
    }
    const rows = [...changed].map((path) => ({ projectId: n.projectId, commitSha: sha, path, ...files.get(path)! }));
    for (let i = 0; i < rows.length; i += 15) statements.push(db.insert(repoCommitFiles).values(rows.slice(i, i + 15)));
  }
  if (n.expectedHead === null) statements.push(db.insert(repoBranches).values({ projectId: n.projectId, name: n.branch, commitSha: sha, createdAt: at, updatedAt: at }));
  else statements.push(db.update(repoBranches).set({ commitSha: sha, updatedAt: at }).where(and(eq(repoBranches.projectId, n.projectId), eq(repoBranches.name, n.branch))));
  // Project#after_create_default_branch: the first branch of a project without one becomes its default.
  statements.push(db.update(projects).set({ defaultBranch: n.branch }).where(and(eq(projects.id, n.projectId), sql`${projects.defaultBranch} IS NULL`)));
  return { commit, statements, blobs, files };
}

/** Stores the blobs, then runs the statements (plus `extra`) as one batch. False when the branch moved meanwhile. */
export async function storeCommit(c: Context<AppEnv>, w: WrittenCommit, extra: BatchItem<'sqlite'>[] = []): Promise<boolean> {
  await Promise.all([...w.blobs].map(([sha, bytes]) => c.var.blobs.put(blobKey(w.commit.projectId, sha), bytes)));
  try {
    await c.var.db.batch([...w.statements, ...extra] as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
    return true;
  } catch (err) {
    if (/NOT NULL constraint failed: repo_branch_updates\.new_sha|UNIQUE constraint failed: repo_branches/i.test(collect(err))) return false;
    throw err;
  }
}

function collect(err: unknown, depth = 0): string {
  if (!err || depth > 5) return '';
  const e = err as { message?: string; cause?: unknown };
  return `${e.message ?? String(err)} ${collect(e.cause, depth + 1)}`;
}

/** Branch names of a project, for listing (search is a case-insensitive substring, as Gitaly's). */
export async function listBranches(db: Db, projectId: number, o: { search?: string; limit: number; offset: number }) {
  const conds = [eq(repoBranches.projectId, projectId)];
  if (o.search) {
    const s = o.search;
    // BranchesFinder: ^prefix, suffix$, else a substring; case-insensitive.
    const pattern = s.startsWith('^') ? `${escapeLike(s.slice(1))}%` : s.endsWith('$') ? `%${escapeLike(s.slice(0, -1))}` : `%${escapeLike(s)}%`;
    conds.push(sql`${repoBranches.name} LIKE ${pattern} ESCAPE '\\'`);
  }
  const where = and(...conds);
  const rows = await db.select().from(repoBranches).where(where).orderBy(asc(repoBranches.name)).limit(o.limit).offset(o.offset).all();
  return { rows, where };
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/** Commits of a ref for the commits list: history of `head`, filtered by time and path, newest first. */
export async function history(db: Db, projectId: number, head: string, o: { since?: number; until?: number; path?: string; firstParent?: boolean }): Promise<CommitRow[]> {
  let rows = await commitsBetween(db, projectId, null, head);
  if (o.firstParent) {
    const bySha = new Map(rows.map((r) => [r.sha, r]));
    const chain: CommitRow[] = [];
    let cur = bySha.get(head);
    while (cur) {
      chain.push(cur);
      cur = cur.parentShas[0] ? bySha.get(cur.parentShas[0]) : undefined;
    }
    rows = chain;
  }
  if (o.since !== undefined) rows = rows.filter((r) => r.committedAt >= o.since!);
  if (o.until !== undefined) rows = rows.filter((r) => r.committedAt <= o.until!);
  if (o.path) {
    const path = o.path.replace(/\/+$/, '');
    const touched: CommitRow[] = [];
    for (const r of rows) {
      // git's history simplification: a commit the path is unchanged from in some parent does not count.
      const [mine, ...parents] = await Promise.all([pathState(db, projectId, r.sha, path), ...(r.parentShas.length ? r.parentShas : [null]).map((sha) => pathState(db, projectId, sha, path))]);
      if (parents.every((ps) => ps !== mine)) touched.push(r);
    }
    rows = touched;
  }
  return rows;
}

/** A fingerprint of a file or directory at a commit (blob ids and modes under it). */
async function pathState(db: Db, projectId: number, sha: string | null, path: string): Promise<string> {
  if (!sha) return '';
  const rows = await db
    .select({ path: repoCommitFiles.path, blob: repoCommitFiles.blobSha, mode: repoCommitFiles.mode })
    .from(repoCommitFiles)
    .where(and(eq(repoCommitFiles.projectId, projectId), eq(repoCommitFiles.commitSha, sha), sql`(${repoCommitFiles.path} = ${path} OR (${repoCommitFiles.path} >= ${`${path}/`} AND ${repoCommitFiles.path} < ${`${path}0`}))`))
    .orderBy(asc(repoCommitFiles.path))
    .all();
  return rows.map((r) => `${r.path}:${r.blob}:${r.mode}`).join('|');
}

/** Rows removed with a project (blob files: `repositoryBlobKeys` before the batch). */
export function repositoryDeletionStatements(db: Db, projectIds: SQL | { getSQL(): SQL }): BatchItem<'sqlite'>[] {
  const within = (col: Parameters<typeof inArray>[0]) => inArray(col, projectIds as never);
  return [
    db.delete(repoBranchUpdates).where(within(repoBranchUpdates.projectId)),
    db.delete(repoBranches).where(within(repoBranches.projectId)),
    db.delete(repoCommitFiles).where(within(repoCommitFiles.projectId)),
    db.delete(repoCommitParents).where(within(repoCommitParents.projectId)),
    db.delete(repoCommits).where(within(repoCommits.projectId)),
  ];
}

/** Blob-store keys of the projects' repository contents. */
export async function repositoryBlobKeys(db: Db, projectIds: SQL | { getSQL(): SQL }): Promise<string[]> {
  const rows = await db
    .selectDistinct({ projectId: repoCommitFiles.projectId, blob: repoCommitFiles.blobSha })
    .from(repoCommitFiles)
    .where(inArray(repoCommitFiles.projectId, projectIds as never))
    .all();
  return rows.map((r) => blobKey(r.projectId, r.blob));
}

// ---------------------------------------------------------------------------------------------
// Merging (for merge requests)

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
}

export type MergeOutcome =
  | { ok: true; mergeCommitSha: string | null; squashCommitSha: string | null; statements: BatchItem<'sqlite'>[]; blobs: Map<string, Uint8Array>; newHead: string }
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
  const base = await mergeBase(db, m.projectId, m.targetHead, m.sourceHead);
  const sig = { name: m.user.name, email: m.user.email };
  const [b, t, s] = await Promise.all([manifestOf(db, m.projectId, base), manifestOf(db, m.projectId, m.targetHead), manifestOf(db, m.projectId, m.sourceHead)]);
  const statements: BatchItem<'sqlite'>[] = [];
  const blobs = new Map<string, Uint8Array>();
  let mergedSource = m.sourceHead;
  let squashCommitSha: string | null = null;
  if (m.squash && m.sourceHead !== base) {
    // The squash commit is not on any branch: write it without moving a ref.
    const squash = await buildCommit(c, { projectId: m.projectId, branch: m.targetBranch, parent: base, expectedHead: m.targetHead, message: m.squashMessage ?? m.message, author: sig, committer: sig, userId: m.user.id, files: s, at });
    squashCommitSha = squash.commit.sha;
    mergedSource = squash.commit.sha;
    statements.push(...squash.statements.filter(isObjectInsert));
    for (const [k, v] of squash.blobs) blobs.set(k, v);
  }
  if (base === m.targetHead) {
    // The target has not moved since the source branched off: a fast-forward for 'ff', else still a merge commit (GitLab's merge method).
    if (m.method === 'ff') {
      const ff = await fastForward(db, m.projectId, m.targetBranch, m.targetHead, mergedSource, m.user.id, at);
      return { ok: true, mergeCommitSha: null, squashCommitSha, statements: [...statements, ...ff], blobs, newHead: mergedSource };
    }
  } else if (m.method === 'ff') return { ok: false, reason: 'not_fast_forward' };
  const files = mergeManifests(b, t, s);
  if (!files) return { ok: false, reason: 'conflict' };
  const merge = await buildCommit(c, { projectId: m.projectId, branch: m.targetBranch, parent: m.targetHead, extraParents: [mergedSource], expectedHead: m.targetHead, message: m.message, author: sig, committer: sig, userId: m.user.id, files, at });
  for (const [k, v] of merge.blobs) blobs.set(k, v);
  return { ok: true, mergeCommitSha: merge.commit.sha, squashCommitSha, statements: [...statements, ...merge.statements], blobs, newHead: merge.commit.sha };
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

/** Stores a merge's blobs and runs its statements plus `extra` in one batch. False when the target branch moved meanwhile. */
export async function runMerge(c: Context<AppEnv>, m: Extract<MergeOutcome, { ok: true }>, projectId: number, extra: BatchItem<'sqlite'>[] = []): Promise<boolean> {
  await Promise.all([...m.blobs].map(([sha, bytes]) => c.var.blobs.put(blobKey(projectId, sha), bytes)));
  try {
    await c.var.db.batch([...m.statements, ...extra] as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
    return true;
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
