/**
 * What goes with a deleted user, group, project, issue or merge request.
 *
 * GitLab leans on foreign keys and `dependent: :destroy`. Here one schema holds every table, but
 * each domain owns its tables and sits at its own height: a project is deleted by the projects
 * domain, yet its merge requests, approval rules and repository belong to domains above it. So the
 * domain that owns a table contributes the statements that remove its rows when their owner goes,
 * and the app registers every contribution (src/app.ts, highest domain first, so rows that point
 * at others are removed before the rows they point at). A deletion collects all contributions
 * into its own single db.batch: nothing is ever half-deleted.
 */
import { inArray, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client';

export type Owner = 'user' | 'group' | 'project' | 'issue' | 'mergeRequest';

/** The doomed ids: a sub-select (`db.select({ id }).from(...)`) or a literal list (sql`(${id})`). */
export type IdSelect = SQL | { getSQL(): SQL };

export interface CascadeOptions {
  /** DELETE /users/:id?hard_delete=true: groups the user alone owns go too (Users::DestroyService). */
  hardDelete?: boolean;
  /**
   * A soft-deleted user's contributions go to this ghost user (Users::MigrateRecordsToGhostUserService):
   * each domain re-attributes the columns of its own tables. Without it (hard_delete, a rejected
   * user) the contributions are removed with the user, as `dependent: :destroy` does.
   */
  ghostId?: number;
}

export interface CascadeResult {
  /** Statements for the deleting batch, in the order they must run. */
  statements: BatchItem<'sqlite'>[];
  /** Blob-store keys of files that belong to the deleted rows: read before the batch, removed after it. */
  blobKeys: string[];
}

/** One domain's share of a deletion. May read (blob keys, owned groups) and may refuse by throwing an ApiError. */
export type CascadePart = (db: Db, ids: IdSelect, opts: CascadeOptions) => Partial<CascadeResult> | Promise<Partial<CascadeResult>>;

export type Cascade = Partial<Record<Owner, CascadePart>>;

const registered: Cascade[] = [];

/** Registers a domain's contribution; the app calls it once per domain, highest domain first. */
export function registerCascade(part: Cascade): void {
  if (!registered.includes(part)) registered.push(part);
}

/** Everything the registered domains remove with the owners `ids`, in registration order. */
export async function cascade(db: Db, owner: Owner, ids: IdSelect, opts: CascadeOptions = {}): Promise<CascadeResult> {
  const out: CascadeResult = { statements: [], blobKeys: [] };
  for (const part of registered) {
    const fn = part[owner];
    if (!fn) continue;
    const r = await fn(db, ids, opts);
    if (r.statements) out.statements.push(...r.statements);
    if (r.blobKeys) out.blobKeys.push(...r.blobKeys);
  }
  return out;
}

/** `col IN (ids)` for a sub-select or a literal list. */
export const within = (col: SQLiteColumn, ids: IdSelect | ReturnType<Db['select']>) => inArray(col, ids as never);

/** Best effort, after the batch: a file that cannot be removed now stays orphaned (its rows are already gone). */
export async function deleteBlobs(blobs: { delete(key: string): Promise<void> }, keys: string[]): Promise<void> {
  await Promise.all(keys.map((k) => blobs.delete(k).catch(() => undefined)));
}

/** A non-empty batch for `db.batch` (D1 and Drizzle type it as a tuple). */
export const asBatch = (statements: BatchItem<'sqlite'>[]) => statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]];
