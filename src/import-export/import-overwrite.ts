/**
 * `overwrite=true` (Projects::OverwriteProjectService): the import ran under a temporary path; once
 * it has finished, the project that held the original path is deleted (with everything that goes
 * with a project, platform/cascade.ts) and the new one takes its path and name, in one batch.
 */
import { and, eq, ne, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { projects } from '../db/schema';
import { asBatch, cascade, deleteBlobs } from '../platform/cascade';
import type { BlobStore } from '../platform/blobs';

/** The swap's statements to run with the import's last batch, and the files to remove after it; none without overwrite. */
export async function overwriteSwap(db: Db, projectId: number, override: Record<string, unknown>, finishing: BatchItem<'sqlite'>[], blobs: BlobStore): Promise<void> {
  const path = override.original_path;
  const name = override.original_name;
  if (typeof path !== 'string' || typeof name !== 'string') {
    await db.batch(asBatch(finishing));
    return;
  }
  const [old] = await db
    .select({ id: projects.id })
    .from(projects)
    .where(and(sql`${projects.namespaceId} = (SELECT namespace_id FROM projects WHERE id = ${projectId})`, sql`lower(${projects.path}) = lower(${path})`, ne(projects.id, projectId)))
    .limit(1);
  const deletion = old ? cascade(db, 'project', sql`(${old.id})`) : { statements: [], blobReads: [] };
  const rename = db.update(projects).set({ path, name, updatedAt: Date.now() }).where(eq(projects.id, projectId));
  const results = (await db.batch(asBatch([...deletion.blobReads.map((r) => r.query), ...deletion.statements, rename, ...finishing]))) as unknown as unknown[];
  await deleteBlobs(blobs, deletion.blobReads.flatMap((r, i) => r.keys(results[i] as never[])));
}
