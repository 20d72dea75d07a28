/** Filesystem BlobStore for Node: one file per key under a root folder, written atomically (temp file + rename). */
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { BlobStore } from './blobs';

export function fsBlobs(root: string): BlobStore {
  const base = resolve(root);
  const pathOf = (key: string) => {
    const p = resolve(base, key);
    if (!p.startsWith(base + '/')) throw new Error(`Blob key escapes the store: ${key}`);
    return p;
  };
  return {
    async put(key, body, contentType) {
      const p = pathOf(key);
      await mkdir(dirname(p), { recursive: true });
      const data = body instanceof ReadableStream ? new Uint8Array(await new Response(body).arrayBuffer()) : typeof body === 'string' ? body : new Uint8Array(body as ArrayBuffer);
      const tmp = `${p}.${process.pid}.${Date.now()}.tmp`;
      await writeFile(tmp, data);
      await rename(tmp, p);
      if (contentType) await writeFile(`${p}.meta`, JSON.stringify({ contentType }));
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
        return { body: Readable.toWeb(createReadStream(p)) as ReadableStream, size: st.size, contentType };
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

export const blobPath = (root: string, key: string) => join(root, key);
