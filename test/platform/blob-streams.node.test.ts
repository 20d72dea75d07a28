/** A stream put into the filesystem BlobStore is written chunk by chunk; a stream that fails leaves nothing. */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fsBlobs } from '../../src/platform/fs-blobs';
import { chunks } from './stream-chunks';


describe('fsBlobs streams', () => {
  it('stores a stream of unknown length with its content type', async () => {
    const root = mkdtempSync(join(tmpdir(), 'wfapi-blobs-'));
    const store = fsBlobs(root);
    await store.put('exports/1/a.tar.gz', chunks(40, 64 * 1024), 'application/gzip');
    const got = await store.get('exports/1/a.tar.gz');
    const bytes = new Uint8Array(await new Response(got!.body).arrayBuffer());
    expect([got!.size, got!.contentType, bytes[0], bytes[64 * 1024], bytes[bytes.length - 1]]).toEqual([40 * 64 * 1024, 'application/gzip', 0, 1, 39]);
    expect(readdirSync(join(root, '.tmp'))).toEqual([]);
  });

  it('rejects when the stream errors, and leaves no file and no temporary file', async () => {
    const root = mkdtempSync(join(tmpdir(), 'wfapi-blobs-'));
    const store = fsBlobs(root);
    await expect(store.put('exports/1/b.tar.gz', chunks(10, 1024, 5))).rejects.toThrow('writer failed');
    expect(await store.get('exports/1/b.tar.gz')).toBeNull();
    expect(readdirSync(join(root, '.tmp'))).toEqual([]);
  });
});
