/**
 * Commit ancestry: `git log` between two commits, ancestors, merge bases, the last commit that
 * changed a path, and the filtered history of the commits list.
 */
import { and, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import type { Db } from '../db/client';
import { repoCommits } from '../db/schema';
import { memo } from '../platform/read-memo';
import type { CommitRow } from './repository-store';
import { factCache } from './sha-cache';

/**
 * The ancestry of `sha` (itself included) as a recursive CTE over parent edges. CROSS JOIN fixes the
 * join order (SQLite never reorders it): each queued commit looks up its own parent edges by
 * (project_id, sha). Left to the planner without statistics, the edges were the outer loop, every
 * step scanned all of the project's edges and a walk cost edges x depth (1.2 ms instead of 0.05 ms
 * for a merge base in a 500-commit project; test/repository/repository-plans.node.test.ts).
 */
export const ancestry = (name: string, projectId: number | SQL, sha: string | SQL) =>
  sql`${sql.raw(name)}(sha) AS (SELECT ${sha} UNION SELECT p.parent_sha FROM ${sql.raw(name)} CROSS JOIN repo_commit_parents p ON p.project_id = ${projectId} AND p.sha = ${sql.raw(name)}.sha)`;

export async function commitsByShas(db: Db, projectId: number, shas: string[]): Promise<CommitRow[]> {
  const out: CommitRow[] = [];
  for (let i = 0; i < shas.length; i += 90) out.push(...(await db.select().from(repoCommits).where(and(eq(repoCommits.projectId, projectId), inArray(repoCommits.sha, shas.slice(i, i + 90)))).all()));
  return out;
}

/** Reverse chronological, a child before its parent within the same second (git log's default order). */
export const newestFirst = (a: CommitRow, b: CommitRow) => b.committedAt - a.committedAt || b.generation - a.generation || (a.sha < b.sha ? -1 : 1);

// Raw reads use db.all: drizzle's libsql `get` of raw SQL throws on an empty result (normalizeRow(undefined)).

/** `git log base..head` as one statement: the commit rows reachable from head and not from base (any order; for a batch). */
export const commitsBetweenRows = (db: Db, projectId: SQL | number, base: string | SQL | null, head: string | SQL) =>
  db
    .select()
    .from(repoCommits)
    .where(
      and(
        sql`${repoCommits.projectId} = ${projectId}`,
        base === null
          ? sql`${repoCommits.sha} IN (WITH RECURSIVE ${ancestry('h', projectId, head)} SELECT sha FROM h)`
          : sql`${repoCommits.sha} IN (WITH RECURSIVE ${ancestry('h', projectId, head)}, ${ancestry('b', projectId, base)} SELECT sha FROM h EXCEPT SELECT sha FROM b)`,
      ),
    );

/** `git log base..head`: commits reachable from head and not from base, newest first. */
export async function commitsBetween(db: Db, projectId: number, base: string | null, head: string): Promise<CommitRow[]> {
  return (await commitsBetweenRows(db, projectId, base, head)).sort(newestFirst);
}

export async function isAncestor(db: Db, projectId: number, ancestor: string, of: string): Promise<boolean> {
  const rows = await db.all<{ one: number }>(sql`WITH RECURSIVE ${ancestry('h', projectId, of)} SELECT 1 AS one FROM h WHERE sha = ${ancestor} LIMIT 1`);
  return rows.length > 0;
}

/**
 * The merge base as a query builder (one row `{ sha }` or none), to run alone or inside a batch;
 * the ancestries sit in the IN sub-select so the statement is an ordinary select.
 */
export const mergeBaseQuery = (db: Db, projectId: number, a: string, b: string) =>
  db
    .select({ sha: repoCommits.sha })
    .from(repoCommits)
    .where(and(eq(repoCommits.projectId, projectId), sql`${repoCommits.sha} IN (WITH RECURSIVE ${ancestry('x', projectId, a)}, ${ancestry('y', projectId, b)} SELECT sha FROM x INTERSECT SELECT sha FROM y)`))
    .orderBy(desc(repoCommits.generation), desc(repoCommits.committedAt))
    .limit(1);

const mergeBaseKey = (projectId: number, a: string, b: string) => `merge-base:${projectId}:${a}:${b}`;

/** The merge base if this isolate knows it (sha-cache.ts), without reading. */
export const cachedMergeBase = (db: Db, projectId: number, a: string, b: string) => factCache<string>(db).get(mergeBaseKey(projectId, a, b));

/** Keeps a merge base read elsewhere (a batch); none is kept when there is none (a commit may be missing still). */
export function rememberMergeBase(db: Db, projectId: number, a: string, b: string, sha: string | null): string | null {
  if (sha) factCache<string>(db).set(mergeBaseKey(projectId, a, b), sha);
  return sha;
}

/** The best common ancestor: of all common ancestors, the one of highest generation. A function of the two shas: read once per isolate. */
export async function mergeBase(db: Db, projectId: number, a: string, b: string): Promise<string | null> {
  const known = cachedMergeBase(db, projectId, a, b);
  if (known) return known;
  const [row] = await mergeBaseQuery(db, projectId, a, b);
  return rememberMergeBase(db, projectId, a, b, row?.sha ?? null);
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

/** The merge base, read once while a read memo is open (lib/read-memo.ts). */
export const memoMergeBase = (c: Context<AppEnv>, projectId: number, a: string, b: string) => memo(c, `merge-base:${projectId}:${a}:${b}`, () => mergeBase(c.var.db, projectId, a, b));
