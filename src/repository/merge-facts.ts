/**
 * What merging a head into a target head means, as merge requests show it on every read: the merge
 * base, whether the merge would conflict, how many files the head changed since the base. All are
 * functions of the two shas, so they are kept per isolate (sha-cache.ts): a warm read costs no
 * storage at all, and a cold one reads what is missing for every pair at once, in one batch (the
 * merge bases, and the manifests of the heads and of the bases, a base's manifest found through its
 * merge base sub-select so it needs no second round trip).
 */
import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { type mergeRequests, repoCommitFiles } from '../db/schema';
import { diffManifests } from './diffs';
import { cachedMergeBase, mergeBaseQuery, rememberMergeBase } from './history';
import { mergeManifests } from './merge';
import { cachedManifest, type Manifest, rememberManifest } from './repository-store';
import { factCache } from './sha-cache';

export interface MergePair {
  projectId: number;
  targetHead: string;
  head: string;
}

export interface MergeFacts {
  base: string | null;
  /** The head has commits the target lacks (the merge base is not the head itself). */
  hasCommits: boolean;
  /** Both sides changed one path differently since the merge base (only when the target moved). */
  conflict: boolean;
  /** Files changed from the merge base to the head (0 without commits). */
  changes: number;
}

const key = (p: MergePair) => `merge-facts:${p.projectId}:${p.targetHead}:${p.head}`;

/** The facts from the merge base and the three manifests (also for a push's own batch, whose head is not stored yet: merge-requests/refresh.ts). */
export function factsOf(base: string | null, p: MergePair, b: Manifest, t: Manifest, s: Manifest): MergeFacts {
  const hasCommits = base !== p.head;
  if (!hasCommits) return { base, hasCommits, conflict: false, changes: 0 };
  // A target that moved since the merge base can conflict: the same path changed differently on both sides.
  return { base, hasCommits, conflict: base !== p.targetHead && mergeManifests(b, t, s) === null, changes: diffManifests(b, s).length };
}

/**
 * The facts stored on a merge request row by the last push to its source branch
 * (merge-requests/refresh.ts), when they were computed for these two heads: no storage, warm or cold
 * isolate. Null when a head moved since (the target's, usually): then `mergeFacts`.
 */
export function storedMergeFacts(m: typeof mergeRequests.$inferSelect, targetHead: string, head: string): MergeFacts | null {
  if (m.mergeFactsFor !== `${targetHead}:${head}` || m.mergeBaseSha == null) return null;
  const hasCommits = m.mergeBaseSha !== head;
  return { base: m.mergeBaseSha, hasCommits, conflict: hasCommits && Boolean(m.mergeConflict), changes: hasCommits ? (m.changedFilesCount ?? 0) : 0 };
}

type FileRow = typeof repoCommitFiles.$inferSelect;

/** The facts of each pair, in order. */
export async function mergeFacts(db: Db, pairs: MergePair[]): Promise<MergeFacts[]> {
  const cache = factCache<MergeFacts>(db);
  const out = pairs.map((p) => cache.get(key(p)));
  const missing = pairs.flatMap((p, i) => (out[i] ? [] : [{ p, i }]));
  if (missing.length) {
    const queries: BatchItem<'sqlite'>[] = [];
    const slots = new Map<string, number>();
    const want = (slot: string, q: () => BatchItem<'sqlite'>) => {
      if (!slots.has(slot)) slots.set(slot, queries.push(q()) - 1);
    };
    const files = (projectId: number, sha: string) => {
      if (!cachedManifest(db, projectId, sha)) want(`files:${projectId}:${sha}`, () => db.select().from(repoCommitFiles).where(and(eq(repoCommitFiles.projectId, projectId), eq(repoCommitFiles.commitSha, sha))));
    };
    for (const { p } of missing) {
      files(p.projectId, p.targetHead);
      files(p.projectId, p.head);
      const base = cachedMergeBase(db, p.projectId, p.targetHead, p.head);
      if (base) files(p.projectId, base);
      else {
        want(`base:${key(p)}`, () => mergeBaseQuery(db, p.projectId, p.targetHead, p.head));
        const sub = mergeBaseQuery(db, p.projectId, p.targetHead, p.head);
        want(`base-files:${key(p)}`, () => db.select().from(repoCommitFiles).where(and(eq(repoCommitFiles.projectId, p.projectId), sql`${repoCommitFiles.commitSha} = (${sub})`)));
      }
    }
    const results = (queries.length === 1 ? [await queries[0]] : queries.length ? await db.batch(queries as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]) : []) as unknown[];
    const result = <T>(slot: string) => (slots.has(slot) ? (results[slots.get(slot)!] as T) : undefined);
    const manifest = (projectId: number, sha: string | null, rows?: FileRow[]): Manifest => {
      if (!sha) return new Map();
      const known = cachedManifest(db, projectId, sha);
      if (known) return known;
      return rememberManifest(db, projectId, sha, rows ?? result<FileRow[]>(`files:${projectId}:${sha}`) ?? []);
    };
    for (const { p, i } of missing) {
      const read = result<{ sha: string }[]>(`base:${key(p)}`);
      const base = read ? rememberMergeBase(db, p.projectId, p.targetHead, p.head, read[0]?.sha ?? null) : (cachedMergeBase(db, p.projectId, p.targetHead, p.head) ?? null);
      const b = manifest(p.projectId, base, result<FileRow[]>(`base-files:${key(p)}`));
      const facts = factsOf(base, p, b, manifest(p.projectId, p.targetHead), manifest(p.projectId, p.head));
      out[i] = facts;
      // No merge base yet may mean a commit not stored yet: read again next time.
      if (base) cache.set(key(p), facts);
    }
  }
  return out as MergeFacts[];
}
