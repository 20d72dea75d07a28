/**
 * Repository reads as unexecuted statements for the batch that finds the project (issue 13: a
 * repository GET costs one round trip after authentication, two when a commit's file list is not in
 * this isolate's cache yet). A ref is resolved inside the statement (`refSha`), so the file, the
 * last commit of a path or a page of history hang off the project's lookup instead of waiting for
 * the ref's answer. `projectId` is SQL: the id, or a sub-select by path (findReadableProjectWith).
 */
import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { repoCommitFiles, repoCommits } from '../db/schema';
import { ancestry } from './history';

/**
 * The commit a ref names, as an SQL value (NULL when it names nothing), as `resolveRef` resolves it:
 * a branch first, then a tag, else a full or abbreviated (4+ hex) commit id that
 * names exactly one commit (an ambiguous abbreviation names nothing, as in git). Without a ref, the
 * project's default branch.
 */
export function refSha(projectId: SQL, ref: string | undefined): SQL {
  const name = ref ?? sql`(SELECT dp.default_branch FROM projects dp WHERE dp.id = ${projectId})`;
  const branch = sql`(SELECT rb.commit_sha FROM repo_branches rb WHERE rb.project_id = ${projectId} AND rb.name = ${name})`;
  if (ref === undefined) return branch;
  // Then a tag (refs/tags), dereferenced to its commit.
  const tag = sql`(SELECT rt.commit_sha FROM repo_tags rt WHERE rt.project_id = ${projectId} AND rt.name = ${ref})`;
  const hex = ref.toLowerCase();
  if (!/^[0-9a-f]{4,40}$/.test(hex)) return sql`COALESCE(${branch}, ${tag})`;
  const match = hex.length === 40 ? sql`rc.sha = ${hex}` : sql`rc.sha LIKE ${`${hex}%`}`;
  return sql`COALESCE(${branch}, ${tag}, (SELECT CASE WHEN count(*) = 1 THEN min(rc.sha) END FROM repo_commits rc WHERE rc.project_id = ${projectId} AND ${match}))`;
}

/** The head of a branch as an SQL value (NULL when there is no such branch); a branch only, never a commit id. */
export const branchSha = (projectId: SQL, name: string) => sql`(SELECT rb.commit_sha FROM repo_branches rb WHERE rb.project_id = ${projectId} AND rb.name = ${name})`;

/** The commit row a ref names (none when it names nothing, or names a commit not stored). */
export const commitAtRef = (db: Db, projectId: SQL, ref: string | undefined) => commitAt(db, projectId, refSha(projectId, ref));

/** The commit row of an SQL sha value (none when it is NULL or not stored). */
export const commitAt = (db: Db, projectId: SQL, sha: SQL) =>
  db
    .select()
    .from(repoCommits)
    .where(sql`${repoCommits.projectId} = ${projectId} AND ${repoCommits.sha} = ${sha}`)
    .limit(1);

/** One file of the commit a ref names. */
export const fileAtRef = (db: Db, projectId: SQL, ref: string | undefined, path: string) =>
  db
    .select({ blobSha: repoCommitFiles.blobSha, mode: repoCommitFiles.mode, size: repoCommitFiles.size })
    .from(repoCommitFiles)
    .where(and(sql`${repoCommitFiles.projectId} = ${projectId}`, sql`${repoCommitFiles.commitSha} = ${refSha(projectId, ref)}`, eq(repoCommitFiles.path, path)))
    .limit(1);

/** The rows of a commit's file list, the commit named by SQL (for a batch; `rememberManifest` takes them). */
export const manifestRows = (db: Db, projectId: SQL | number, sha: SQL | string) =>
  db
    .select()
    .from(repoCommitFiles)
    .where(and(sql`${repoCommitFiles.projectId} = ${projectId}`, sql`${repoCommitFiles.commitSha} = ${sha}`));

/**
 * `lastCommitForPath` from the commit a ref names: the newest commit in its history whose blob or
 * mode of `path` differs from every parent's (git's history simplification, see history.ts).
 */
export const lastCommitForPathAtRef = (db: Db, projectId: SQL, ref: string | undefined, path: string) => lastCommitForPathAt(db, projectId, refSha(projectId, ref), path);

/** The same from a commit given as an SQL value (a branch head read in the same statement). */
export function lastCommitForPathAt(db: Db, projectId: SQL, head: SQL, path: string) {
  const walk = sql`(WITH RECURSIVE ${ancestry('h', projectId, head)}
    SELECT c.sha AS sha FROM repo_commits c
    LEFT JOIN repo_commit_files f ON f.project_id = c.project_id AND f.commit_sha = c.sha AND f.path = ${path}
    WHERE c.project_id = ${projectId} AND c.sha IN (SELECT sha FROM h)
      AND NOT (f.blob_sha IS NULL AND NOT EXISTS (SELECT 1 FROM repo_commit_parents p0 WHERE p0.project_id = c.project_id AND p0.sha = c.sha))
      AND NOT EXISTS (SELECT 1 FROM repo_commit_parents p
        LEFT JOIN repo_commit_files pf ON pf.project_id = p.project_id AND pf.commit_sha = p.parent_sha AND pf.path = ${path}
        WHERE p.project_id = c.project_id AND p.sha = c.sha AND pf.blob_sha IS f.blob_sha AND pf.mode IS f.mode)
    ORDER BY c.committed_at DESC, c.generation DESC LIMIT 1) AS last_commit`;
  return db.select({ sha: sql<string>`last_commit.sha` }).from(walk);
}

export interface HistoryFilter {
  /** The ref whose history is listed (undefined: the default branch); ignored with `all`. */
  ref?: string;
  /** Every branch's history (`all=true`). */
  all?: boolean;
  /** Follow only first parents (`git log --first-parent`). */
  firstParent?: boolean;
  /** Committed at or after / at or before, in ms. */
  since?: number;
  until?: number;
  /** Only commits that changed this file or directory. */
  path?: string;
}

/** Files at or under `path` (a file, or a directory's contents) of the commit `f` stands for. */
const under = (alias: string, path: string) => sql`(${sql.raw(alias)}.path = ${path} OR (${sql.raw(alias)}.path >= ${`${path}/`} AND ${sql.raw(alias)}.path < ${`${path}0`}))`;

/** No file at or under `path` of commit `a` lacks an identical twin (blob and mode) in commit `b`. */
const containedIn = (a: SQL, b: SQL, path: string) => sql`NOT EXISTS (SELECT 1 FROM repo_commit_files fa WHERE fa.project_id = c.project_id AND fa.commit_sha = ${a} AND ${under('fa', path)}
  AND NOT EXISTS (SELECT 1 FROM repo_commit_files fb WHERE fb.project_id = c.project_id AND fb.commit_sha = ${b} AND fb.path = fa.path AND fb.blob_sha = fa.blob_sha AND fb.mode = fa.mode))`;

/**
 * The condition "commit c changed `path`": what is at or under it differs from every parent's (a
 * commit that took it unchanged from one parent does not count, git's history simplification); a
 * root commit changed it when it has anything there.
 */
function changedPath(path: string): SQL {
  const cSha = sql`c.sha`;
  const pSha = sql`p.parent_sha`;
  return sql`NOT EXISTS (SELECT 1 FROM repo_commit_parents p WHERE p.project_id = c.project_id AND p.sha = c.sha AND ${containedIn(cSha, pSha, path)} AND ${containedIn(pSha, cSha, path)})
    AND (EXISTS (SELECT 1 FROM repo_commit_parents p1 WHERE p1.project_id = c.project_id AND p1.sha = c.sha)
      OR EXISTS (SELECT 1 FROM repo_commit_files f0 WHERE f0.project_id = c.project_id AND f0.commit_sha = c.sha AND ${under('f0', path)}))`;
}

/** The shas a history walks: one ref's ancestry (first parents only if asked), or every branch's. */
function walkedShas(projectId: SQL, f: HistoryFilter): SQL {
  const seed = f.all ? sql`SELECT ab.commit_sha FROM repo_branches ab WHERE ab.project_id = ${projectId}` : sql`SELECT ${refSha(projectId, f.ref)}`;
  const edge = f.firstParent && !f.all ? sql` AND p.position = 0` : sql``;
  return sql`WITH RECURSIVE h(sha) AS (${seed} UNION SELECT p.parent_sha FROM h CROSS JOIN repo_commit_parents p ON p.project_id = ${projectId} AND p.sha = h.sha${edge}) SELECT sha FROM h WHERE sha IS NOT NULL`;
}

function historyWhere(projectId: SQL, f: HistoryFilter): SQL {
  const conds = [sql`c.project_id = ${projectId}`, sql`c.sha IN (${walkedShas(projectId, f)})`];
  if (f.since !== undefined) conds.push(sql`c.committed_at >= ${f.since}`);
  if (f.until !== undefined) conds.push(sql`c.committed_at <= ${f.until}`);
  const path = f.path?.replace(/\/+$/, '');
  if (path) conds.push(changedPath(path));
  return and(...conds)!;
}

/**
 * A page of history, newest first (git log's order: a child before its parent within the same
 * second); `limit` -1 reads it all. Written over the alias `c` so the path condition can correlate.
 */
export function historyPage(db: Db, projectId: SQL, f: HistoryFilter, limit: number, offset: number) {
  const c = sql.raw('c');
  return db
    .select()
    .from(repoCommits)
    .where(sql`${repoCommits.sha} IN (SELECT c.sha FROM repo_commits ${c} WHERE ${historyWhere(projectId, f)}) AND ${repoCommits.projectId} = ${projectId}`)
    .orderBy(desc(repoCommits.committedAt), desc(repoCommits.generation), asc(repoCommits.sha))
    .limit(limit)
    .offset(offset);
}

/** How many commits the history has. */
export const historyCount = (db: Db, projectId: SQL, f: HistoryFilter) => db.select({ n: sql<number>`count(*)` }).from(sql`repo_commits c`).where(historyWhere(projectId, f));
