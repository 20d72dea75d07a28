/**
 * What goes with a deleted user, group, project, issue or merge request.
 *
 * GitLab leans on foreign keys and `dependent: :destroy`. Here one schema holds every table, but
 * each domain owns its tables and sits at its own height: a project is deleted by the projects
 * domain, yet its merge requests, approval rules and repository belong to domains above it. So the
 * domain that owns a table contributes the statements that remove its rows when their owner goes,
 * and the app registers every contribution (src/app.ts, highest domain first, so rows that point
 * at others are removed before the rows they point at). A deletion collects all contributions
 * into its own single db.batch: nothing is ever half-deleted, and the whole deletion is one storage
 * round trip (issue 13): the doomed rows are named by sub-selects, never read first, and the reads
 * of the blob-store keys of their files lead the same batch (they see the rows the batch then deletes).
 */
import { inArray, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client';

export type Owner = 'user' | 'group' | 'project' | 'issue' | 'mergeRequest';

/** The doomed ids: a sub-select (`db.select({ id }).from(...)`) or a literal list (sql`(${id})`). */
export type IdSelect = SQL | { getSQL(): SQL };

export interface CascadeOptions {
  /**
   * DELETE /users/:id?hard_delete=true: the groups the user alone owns go too, each with its subtree
   * (Users::DestroyService). The caller reads them (it refuses a soft delete when there are any).
   */
  soleOwnedGroups?: readonly { traversalPath: string | null }[];
  /**
   * A soft-deleted user's contributions go to this ghost user (Users::MigrateRecordsToGhostUserService):
   * each domain re-attributes the columns of its own tables. Without it (hard_delete, a rejected
   * user) the contributions are removed with the user, as `dependent: :destroy` does.
   */
  ghostId?: number | SQL;
}

/** A read of blob-store keys for the head of the deleting batch, and how its rows name the keys. */
export interface BlobRead {
  query: BatchItem<'sqlite'>;
  keys: (rows: never[]) => string[];
}

export interface CascadeResult {
  /** Statements for the deleting batch, in the order they must run. */
  statements: BatchItem<'sqlite'>[];
  /** Reads of the blob-store keys of files that belong to the deleted rows: they lead the batch, the files go after it. */
  blobReads: BlobRead[];
}

/** One domain's share of a deletion: statements only, no storage access (it is built before the one batch). */
export type CascadePart = (db: Db, ids: IdSelect, opts: CascadeOptions) => Partial<CascadeResult>;

export type Cascade = Partial<Record<Owner, CascadePart>>;

const registered: Cascade[] = [];

/** Registers a domain's contribution; the app calls it once per domain, highest domain first. */
export function registerCascade(part: Cascade): void {
  if (!registered.includes(part)) registered.push(part);
}

/** Everything the registered domains remove with the owners `ids`, in registration order. */
export function cascade(db: Db, owner: Owner, ids: IdSelect, opts: CascadeOptions = {}): CascadeResult {
  const out: CascadeResult = { statements: [], blobReads: [] };
  for (const part of registered) {
    const fn = part[owner];
    if (!fn) continue;
    const r = fn(db, ids, opts);
    if (r.statements) out.statements.push(...r.statements);
    if (r.blobReads) out.blobReads.push(...r.blobReads);
  }
  return out;
}

/** Deletions one after the other, as one. */
export const combined = (...parts: CascadeResult[]): CascadeResult => ({ statements: parts.flatMap((p) => p.statements), blobReads: parts.flatMap((p) => p.blobReads) });

/**
 * Runs a deletion in ONE batch: its blob reads first, then `before` (e.g. the ghost user it hands
 * contributions to), then its statements; then removes the files (best effort). One round trip.
 */
export async function runDeletion(db: Db, blobs: { delete(key: string): Promise<void> }, deletion: CascadeResult, before: BatchItem<'sqlite'>[] = []): Promise<void> {
  const reads = deletion.blobReads.map((r) => r.query);
  const results = (await db.batch(asBatch([...reads, ...before, ...deletion.statements]))) as unknown as unknown[];
  await deleteBlobs(blobs, deletion.blobReads.flatMap((r, i) => r.keys(results[i] as never[])));
}

/** `col IN (ids)` for a sub-select or a literal list. */
export const within = (col: SQLiteColumn, ids: IdSelect | ReturnType<Db['select']>) => inArray(col, ids as never);

/** Best effort, after the batch: a file that cannot be removed now stays orphaned (its rows are already gone). */
export async function deleteBlobs(blobs: { delete(key: string): Promise<void> }, keys: string[]): Promise<void> {
  await Promise.all(keys.map((k) => blobs.delete(k).catch(() => undefined)));
}

/** A non-empty batch for `db.batch` (D1 and Drizzle type it as a tuple). */
export const asBatch = (statements: BatchItem<'sqlite'>[]) => statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]];
