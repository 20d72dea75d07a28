/**
 * The reads a Branch entity needs, as unexecuted statements for the batch that finds the project
 * (issue 13: a branch page costs one round trip after authentication, whatever its size): the
 * branches with their head commits, their count, the project's protection rules with their levels,
 * and which of the page's heads the default branch contains (one ancestry walk for the page instead
 * of one per branch). `projectId` is SQL: the id, or a sub-select by path.
 */
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { repoBranches, repoCommits } from '../db/schema';
import { aliasedColumns } from '../db/aliased-columns';
import { projectProtectedBranchReads } from './protected-branches';

export interface BranchFilter {
  /** BranchesFinder: `^prefix`, `suffix$`, else a case-insensitive substring. */
  search?: string;
  /** One branch by exact name. */
  name?: string;
}

/**
 * BranchesFinder's search as SQL: `^prefix`, `suffix$`, else a substring, ASCII case-insensitive as
 * LIKE is; compared with substr/instr because D1 refuses LIKE patterns over 50 bytes.
 */
export function nameMatches(search: string): SQL {
  const name = sql`lower(${repoBranches.name})`;
  const term = search.startsWith('^') ? search.slice(1) : search.endsWith('$') ? search.slice(0, -1) : search;
  // A bare `^` or `$` matched every name as a LIKE pattern.
  if (!term) return sql`1 = 1`;
  if (search.startsWith('^')) return sql`substr(${name}, 1, length(lower(${search.slice(1)}))) = lower(${search.slice(1)})`;
  if (search.endsWith('$')) return sql`substr(${name}, -length(lower(${search.slice(0, -1)}))) = lower(${search.slice(0, -1)})`;
  return sql`instr(${name}, lower(${search})) > 0`;
}

function branchWhere(projectId: SQL, f: BranchFilter): SQL {
  const conds = [sql`${repoBranches.projectId} = ${projectId}`];
  if (f.name !== undefined) conds.push(eq(repoBranches.name, f.name));
  if (f.search) conds.push(nameMatches(f.search));
  return and(...conds)!;
}

/** Commit columns named apart from the branch's (D1 batches key rows by column name). */
const COMMIT = aliasedColumns(repoCommits, 'c_');

/** A page of branches in name order (`limit` -1: all), each with its head commit. */
export function branchPage(db: Db, projectId: SQL, f: BranchFilter, limit: number, offset: number) {
  return db
    .select({ branch: repoBranches, commit: COMMIT })
    .from(repoBranches)
    .innerJoin(repoCommits, and(eq(repoCommits.projectId, repoBranches.projectId), eq(repoCommits.sha, repoBranches.commitSha)))
    .where(branchWhere(projectId, f))
    .orderBy(asc(repoBranches.name))
    .limit(limit)
    .offset(offset);
}

/** How many branches match, counting at most `limit`. */
export const branchCount = (db: Db, projectId: SQL, f: BranchFilter, limit: number) =>
  db.select({ n: sql<number>`count(*)` }).from(db.select({ one: sql`1` }).from(repoBranches).where(branchWhere(projectId, f)).limit(limit).as('x'));

/**
 * The default branch's head, and those heads of the page (same filter, limit and offset) that are
 * in its history (Repository#merged_to_root_ref? asks `ancestor?`): the default head's ancestry is
 * walked once, parent edge by parent edge (CROSS JOIN keeps the edge lookup indexed, see history.ts).
 */
export function defaultBranchReads(db: Db, projectId: SQL, f: BranchFilter, limit: number, offset: number) {
  const defaultName = sql`(SELECT dp.default_branch FROM projects dp WHERE dp.id = ${projectId})`;
  const pageShas = db.select({ sha: repoBranches.commitSha }).from(repoBranches).where(branchWhere(projectId, f)).orderBy(asc(repoBranches.name)).limit(limit).offset(offset);
  const walk = sql`(WITH RECURSIVE h(sha) AS (
      SELECT db.commit_sha FROM repo_branches db WHERE db.project_id = ${projectId} AND db.name = ${defaultName}
      UNION SELECT p.parent_sha FROM h CROSS JOIN repo_commit_parents p ON p.project_id = ${projectId} AND p.sha = h.sha)
    SELECT sha FROM h WHERE sha IN (${pageShas})) AS merged`;
  return [
    db.select({ name: repoBranches.name, sha: repoBranches.commitSha }).from(repoBranches).where(and(sql`${repoBranches.projectId} = ${projectId}`, sql`${repoBranches.name} = ${defaultName}`)).limit(1),
    db.select({ sha: sql<string>`merged.sha` }).from(walk),
  ] as const;
}

/** Everything a page of Branch entities needs, in one batch with the project's lookup. */
export function branchEntityReads(db: Db, projectId: SQL, f: BranchFilter, limit: number, offset: number) {
  return [branchPage(db, projectId, f, limit, offset), ...projectProtectedBranchReads(db, projectId), ...defaultBranchReads(db, projectId, f, limit, offset)] as const;
}
