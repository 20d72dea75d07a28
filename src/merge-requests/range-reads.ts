/**
 * The commits and changed files of a range base..head, as a merge request's commits, diffs, changes
 * and versions show them. Both are functions of the two shas (../shared/DESIGN.md "Cache what never
 * changes"), so they come from the isolate's sha caches (repository/sha-cache.ts) when warm, and
 * whatever is missing is read in ONE batch: the range's commit rows in one statement and the two
 * manifests. What may not be stored yet is not kept (repository-store.ts rememberManifest: an empty
 * manifest; here a range whose head commit is missing), so a cold or early read stays correct.
 */
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import type { repoCommitFiles } from '../db/schema';
import { diffManifests, type FileChange } from '../repository/diffs';
import { commitsBetweenRows, newestFirst } from '../repository/history';
import { manifestRows } from '../repository/history-reads';
import { cachedManifest, type CommitRow, type Manifest, rememberManifest } from '../repository/repository-store';
import { manifestCache } from '../repository/sha-cache';

export interface RangeWant {
  commits?: boolean;
  changes?: boolean;
}

export interface Range {
  /** Newest first (`git log base..head`). Shared with the cache: do not mutate. */
  commits: CommitRow[];
  changes: FileChange[];
}

type FileRow = typeof repoCommitFiles.$inferSelect;

const commitsKey = (projectId: number, base: string | null, head: string) => `range-commits:${projectId}:${base}:${head}`;

/** The range's commits and/or changed files: from the caches, else one round trip for all that is missing. */
export async function loadRange(db: Db, projectId: number, base: string | null, head: string, want: RangeWant): Promise<Range> {
  // A range's commits are rows, like a manifest's files: kept among the (fewer) manifests.
  const commitCache = manifestCache<CommitRow[]>(db);
  const knownCommits = want.commits ? commitCache.get(commitsKey(projectId, base, head)) : [];
  const knownBase: Manifest | undefined = !want.changes || !base ? new Map() : cachedManifest(db, projectId, base);
  const knownHead: Manifest | undefined = want.changes ? cachedManifest(db, projectId, head) : new Map();
  const queries: BatchItem<'sqlite'>[] = [];
  const slot = (q: BatchItem<'sqlite'> | undefined) => (q ? queries.push(q) - 1 : -1);
  const at = {
    commits: slot(knownCommits ? undefined : commitsBetweenRows(db, projectId, base, head)),
    base: slot(knownBase || !base ? undefined : manifestRows(db, projectId, base)),
    head: slot(knownHead ? undefined : manifestRows(db, projectId, head)),
  };
  const results = (queries.length === 0 ? [] : queries.length === 1 ? [await queries[0]] : await db.batch(queries as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as unknown[];
  let commits = knownCommits;
  if (!commits) {
    commits = (results[at.commits] as CommitRow[]).sort(newestFirst);
    // A head not stored yet (a push in flight) reads as an empty range: read it again next time.
    if (commits.some((r) => r.sha === head)) commitCache.set(commitsKey(projectId, base, head), commits);
  }
  const manifest = (known: Manifest | undefined, i: number, sha: string | null) => known ?? (sha ? rememberManifest(db, projectId, sha, results[i] as FileRow[]) : new Map());
  const changes = want.changes ? diffManifests(manifest(knownBase, at.base, base), manifest(knownHead, at.head, head)) : [];
  return { commits, changes };
}
