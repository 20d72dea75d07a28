/**
 * Merge request diff versions (GitLab MergeRequestDiff): a row per version, written in the batch of
 * what makes it (the merge request's creation, a push to its source branch, a new target branch, a
 * reopen: MergeRequest#reload_diff). The commits and files of a version are read from base..head.
 */
import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { mergeRequestDiffs } from '../db/schema';
import type { MergeRequestDiffRow } from './diff-entity';
import { patchIdOf } from '../repository/patch-id';
import { changedFiles, type FileChange } from '../repository/repository';


export interface DiffVersion {
  head: string | null;
  base: string | null;
  start: string | null;
  /** Files changed from base to head. */
  changes: FileChange[];
}

/**
 * MergeRequestDiff#save_diffs: no commits in base..head is `empty` with no real_size; otherwise
 * real_size is the file count as a string (`N+` past `maxFiles`, the setting diff_max_files that
 * Commit.max_diff_options passes, state `overflow`), and the state is `collected` when some file
 * changed (the state machine starts at `empty`). The lines and bytes limits need every patch, which
 * a write does not compute: the readers apply them (repository/diff-limits.ts).
 */
export function versionState(v: DiffVersion, maxFiles: number): { state: string; realSize: string | null } {
  if (!v.head || v.base === v.head) return { state: 'empty', realSize: null };
  const n = v.changes.length;
  if (n > maxFiles) return { state: 'overflow', realSize: `${maxFiles}+` };
  return { state: n > 0 ? 'collected' : 'empty', realSize: String(n) };
}

/** The version as it stands for `head` against the target head `start` (base = their merge base). */
export async function computeVersion(db: Db, projectId: number, head: string | null, start: string | null, base: string | null): Promise<DiffVersion> {
  const changes = head && base !== head ? await changedFiles(db, projectId, base, head) : [];
  return { head, base, start, changes };
}

/** The INSERT of a version; `mergeRequestId` may be a sub-select of a merge request inserted earlier in the same batch. */
export function versionInsert(db: Db, mergeRequestId: number | SQL<number>, v: DiffVersion, at: number, maxFiles: number) {
  const { state, realSize } = versionState(v, maxFiles);
  return db.insert(mergeRequestDiffs).values({
    mergeRequestId: mergeRequestId as number,
    state,
    headCommitSha: v.head,
    baseCommitSha: v.base,
    startCommitSha: v.start,
    realSize,
    patchIdSha: v.changes.length ? patchIdOf(v.changes) : null,
    createdAt: at,
    updatedAt: at,
  });
}

/** SQL: the id of the newest version of a merge request (MergeRequest#merge_request_diff), for statements later in the batch that wrote it. */
export const newestVersionIdSql = (mergeRequestId: number) =>
  sql<number>`(SELECT max(${mergeRequestDiffs.id}) FROM ${mergeRequestDiffs} WHERE ${mergeRequestDiffs.mergeRequestId} = ${mergeRequestId})`;

/** A page of versions, newest first (`mergeRequestId` may be a sub-select), unexecuted: for the batch that finds the merge request. */
export const versionsPage = (db: Db, mergeRequestId: number | SQL, limit: number, offset: number) =>
  db
    .select()
    .from(mergeRequestDiffs)
    .where(eq(mergeRequestDiffs.mergeRequestId, mergeRequestId as number))
    .orderBy(desc(mergeRequestDiffs.id))
    .limit(limit)
    .offset(offset);

/** One version of a merge request (`mergeRequestId` may be a sub-select), unexecuted: for the batch that finds the merge request. */
export const versionQuery = (db: Db, mergeRequestId: number | SQL, id: number) =>
  db
    .select()
    .from(mergeRequestDiffs)
    .where(and(eq(mergeRequestDiffs.mergeRequestId, mergeRequestId as number), eq(mergeRequestDiffs.id, Number.isSafeInteger(id) ? id : -1)))
    .limit(1);

/** MergeRequest#merge_request_diff, the newest version (`mergeRequestId` may be a sub-select), unexecuted. */
export const latestVersionQuery = (db: Db, mergeRequestId: number | SQL) =>
  db
    .select()
    .from(mergeRequestDiffs)
    .where(eq(mergeRequestDiffs.mergeRequestId, mergeRequestId as number))
    .orderBy(desc(mergeRequestDiffs.id))
    .limit(1);

export async function latestVersion(db: Db, mergeRequestId: number): Promise<MergeRequestDiffRow | undefined> {
  return (await latestVersionQuery(db, mergeRequestId))[0];
}
