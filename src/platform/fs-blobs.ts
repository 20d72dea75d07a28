/**
 * Filesystem BlobStore for Node: one file per key under a root folder.
 *
 * Every file (the blob and its `.meta` content type) is written to a temporary file with a name no
 * other writer can choose (a random UUID), flushed to disk, then renamed over the target, so a
 * reader sees the old bytes or the new ones, never a torn file. Many requests store the same
 * content-addressed key at once (twenty commits of one file to twenty branches): each writes its
 * own temporary file and the renames replace identical bytes, and a writer that finds the bytes
 * already there writes nothing. Temporary files live in one folder, `<root>/.tmp` (a key may not
 * start with it), on the same filesystem so that the rename is atomic. One is only left behind by a
 * crash between write and rename; `sweepTempFiles` removes those at start without walking the store.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { BlobStore } from './blobs';

const TMP_DIR = '.tmp';
/** Tells this process's temporary files from those of earlier (crashed) processes. */
export const PROCESS_TAG = randomUUID().slice(0, 8);
const PROCESS_STARTED_AT = Date.now();
/** A read stream's default chunk size. */
const READ_CHUNK = 64 * 1024;

export function fsBlobs(root: string): BlobStore {
  const base = resolve(root);
  const tmpDir = join(base, TMP_DIR);
  const pathOf = (key: string) => {
    const p = resolve(base, key);
    if (!p.startsWith(base + '/') || p === tmpDir || p.startsWith(tmpDir + '/')) throw new Error(`Blob key escapes the store: ${key}`);
    return p;
  };
  const write = async (path: string, data: Uint8Array) => {
    await mkdir(tmpDir, { recursive: true });
    await writeAtomically(tmpDir, path, data);
  };
  return {
    async put(key, body, contentType) {
      const p = pathOf(key);
      await mkdir(dirname(p), { recursive: true });
      // The content type first: once the bytes are visible, so is their type.
      if (contentType) await write(`${p}.meta`, new TextEncoder().encode(JSON.stringify({ contentType })));
      else await rm(`${p}.meta`, { force: true });
      // A stream (an export archive) goes to its temporary file chunk by chunk, never whole in memory.
      if (body instanceof ReadableStream) {
        await mkdir(tmpDir, { recursive: true });
        return writeAtomically(tmpDir, p, body);
      }
      const data = typeof body === 'string' ? new TextEncoder().encode(body) : body instanceof Uint8Array ? body : new Uint8Array(body);
      // Same bytes already stored (a content-addressed key written before): nothing to do.
      if (await holds(p, data)) return;
      await write(p, data);
    },
    async get(key) {
      const p = pathOf(key);
      try {
        const st = await stat(p);
        let contentType: string | undefined;
        try {
          contentType = JSON.parse(await readFile(`${p}.meta`, 'utf8')).contentType;
        } catch {
          contentType = undefined;
        }
        // Chunks no larger than the file: a read stream allocates its whole 64 KB chunk for each
        // read, so a small blob (a git object) cost 64 KB until the garbage collector came (issue 15:
        // the export's bundle read some 13 MB that way for 200 blobs of under 1 KB).
        const highWaterMark = Math.max(1, Math.min(st.size, READ_CHUNK));
        return { body: Readable.toWeb(createReadStream(p, { highWaterMark })) as ReadableStream, size: st.size, contentType };
      } catch {
        return null;
      }
    },
    async delete(key) {
      const p = pathOf(key);
      await rm(p, { force: true });
      await rm(`${p}.meta`, { force: true });
    },
  };
}

/** True when `path` exists with exactly `data` (the size is compared first, so a mismatch rarely reads the file). */
async function holds(path: string, data: Uint8Array): Promise<boolean> {
  try {
    if ((await stat(path)).size !== data.byteLength) return false;
    return Buffer.from(data).equals(await readFile(path));
  } catch {
    return false;
  }
}

/**
 * Temporary file, fsync, rename, fsync of the folder: the file is durable once this resolves (the
 * database commit that refers to it comes after, with `synchronous = FULL`). A temporary file
 * swept meanwhile by another process starting on the same root is written again once.
 */
async function writeAtomically(tmpDir: string, path: string, data: Uint8Array | ReadableStream<Uint8Array>, retry = true): Promise<void> {
  const tmp = join(tmpDir, `${PROCESS_TAG}.${randomUUID()}`);
  const fh = await open(tmp, 'wx');
  try {
    if (data instanceof Uint8Array) await fh.writeFile(data);
    else for await (const chunk of data as unknown as AsyncIterable<Uint8Array>) await fh.write(chunk);
    await fh.sync();
  } catch (err) {
    // A stream that failed half-way leaves nothing behind.
    await fh.close();
    await rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  try {
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    // A stream is spent: only bytes can be written again.
    if (retry && data instanceof Uint8Array && (err as NodeJS.ErrnoException).code === 'ENOENT') return writeAtomically(tmpDir, path, data, false);
    // A platform that refuses to rename over an existing file: fine if the same bytes are there.
    if (data instanceof Uint8Array && (await holds(path, data))) return;
    throw err;
  }
  await syncDir(dirname(path));
}

async function syncDir(dir: string) {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } catch {
    // Some filesystems cannot fsync a directory; the rename is still atomic.
  } finally {
    await fh.close();
  }
}

/**
 * Removes the temporary files a crashed process left in `<root>/.tmp` (a crash between write and rename).
 * Only files of other processes last modified before `before` (this process's start) go: a file of
 * this process, or a write another live process on the same root started later, is left alone.
 * Returns the number removed.
 */
export async function sweepTempFiles(root: string, before = PROCESS_STARTED_AT): Promise<number> {
  const dir = join(resolve(root), TMP_DIR);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  let removed = 0;
  for (const name of names) {
    if (name.startsWith(`${PROCESS_TAG}.`)) continue;
    const path = join(dir, name);
    try {
      const st = await stat(path);
      if (!st.isFile() || st.mtimeMs >= before) continue;
      await rm(path, { force: true });
      removed++;
    } catch {
      // Renamed or removed meanwhile.
    }
  }
  return removed;
}

export const blobPath = (root: string, key: string) => join(root, key);
