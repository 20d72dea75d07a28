/**
 * The import's repository step (Gitlab::ImportExport::RepoRestorer): `project.bundle`, when the
 * archive has one, written into the new project's empty repository by bundle-import.ts. Its rows are
 * written ON CONFLICT DO NOTHING and its blobs by content key, so a job that dies half-way and runs
 * again writes nothing twice; a large history goes on in the next message from the stored commit
 * position (a Worker invocation may store only so many blobs), and the step is marked done in the
 * progress only once all of it is written. A bundle the repository model cannot hold (a submodule, a broken pack) fails this relation
 * only: it is recorded in `failed_relations` as `repository` and the rest of the project imports.
 */
import type { BlobStore } from '../platform/blobs';
import { importBundleStep } from './bundle-import';
import { BundleError, readBundle } from './bundle-read';
import { ImportError } from './import-archive';
import type { TarMember } from '../platform/tar-read';
import type { Db } from '../db/client';

const MB = 1024 * 1024;
/** Objects and inflated bytes one bundle may hold: a pack bomb stops here, not in memory. */
const BUNDLE_LIMITS = { maxObjects: 500_000, maxObjectBytes: 100 * MB };

/**
 * Writes project.bundle (when the archive has one) into project `projectId`, from commit position
 * `step.from` and at most about `step.maxPuts` blobs; answers where the next message goes on, or
 * once done its HEAD branch, or why the bundle could not be held. `maxDecompressedMb` bounds the bundle read (0: 1 GB).
 */
export async function importRepository(
  db: Db,
  blobs: BlobStore,
  projectId: number,
  archive: AsyncIterable<TarMember>,
  maxDecompressedMb: number,
  step: { from: number; maxPuts: number },
): Promise<{ refused?: string; head?: string; next?: number }> {
  for await (const m of archive) {
    if (m.type !== 'file' || m.name !== 'project.bundle') continue;
    try {
      const bytes = await memberBytes(m.body, (maxDecompressedMb > 0 ? maxDecompressedMb : 1024) * MB);
      const done = await importBundleStep(db, blobs, projectId, readBundle(bytes, BUNDLE_LIMITS), step);
      return done.next !== null ? { next: done.next } : { head: done.head ?? undefined };
    } catch (err) {
      if (!(err instanceof BundleError)) throw err;
      // Fixed texts of bundle-read/bundle-import only (short ids at most), never file contents.
      return { refused: err.message };
    }
  }
  return {};
}

async function memberBytes(body: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let n = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    n += chunk.byteLength;
    if (n > max) throw new ImportError('project.bundle is too large');
    parts.push(chunk);
  }
  const all = new Uint8Array(n);
  let off = 0;
  for (const p of parts) all.set(p, (off += p.byteLength) - p.byteLength);
  return all;
}
