/** The filesystem BlobStore of the Node runtime: concurrent writers, atomic files and the start-up sweep. */
import { mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fsBlobs, PROCESS_TAG, sweepTempFiles } from '../../src/platform/fs-blobs';

const newRoot = () => mkdtempSync(join(tmpdir(), 'wfapi-blobs-'));
const text = async (store: ReturnType<typeof fsBlobs>, key: string) => {
  const got = await store.get(key);
  return got && { body: await new Response(got.body).text(), size: got.size, contentType: got.contentType };
};

describe('fsBlobs', () => {
  it('stores one content-addressed key from 50 concurrent writers without an error or a leftover temporary file', async () => {
    const root = newRoot();
    const store = fsBlobs(root);
    const bytes = new TextEncoder().encode('same content\n'.repeat(1000));
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => store.put('repository/1/ab/cdef', bytes)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(await text(store, 'repository/1/ab/cdef')).toEqual({ body: 'same content\n'.repeat(1000), size: bytes.byteLength, contentType: undefined });
    expect(readdirSync(join(root, '.tmp'))).toEqual([]);
  });

  it('replaces a key with new bytes, and keeps its content type beside it until a put without one', async () => {
    const store = fsBlobs(newRoot());
    await store.put('uploads/a.png', 'first', 'image/png');
    await store.put('uploads/a.png', 'first', 'image/png');
    expect(await text(store, 'uploads/a.png')).toEqual({ body: 'first', size: 5, contentType: 'image/png' });
    await store.put('uploads/a.png', new TextEncoder().encode('second!').buffer, 'image/gif');
    expect(await text(store, 'uploads/a.png')).toEqual({ body: 'second!', size: 7, contentType: 'image/gif' });
    await store.put('uploads/a.png', 'third');
    expect(await text(store, 'uploads/a.png')).toEqual({ body: 'third', size: 5, contentType: undefined });
    await store.delete('uploads/a.png');
    expect(await store.get('uploads/a.png')).toBeNull();
  });

  it('reads small blobs without a 64 KB buffer each, and every blob byte for byte', async () => {
    const store = fsBlobs(newRoot());
    const big = new Uint8Array(200_000).map((_, i) => i % 251);
    await store.put('b/empty', '');
    await store.put('b/big', big);
    for (let k = 0; k < 400; k++) await store.put(`b/small/${k}`, `${k}`.padEnd(700, 'x'));
    const bytes = async (key: string) => Buffer.from(await new Response((await store.get(key))!.body).arrayBuffer());
    expect((await bytes('b/empty')).byteLength).toBe(0);
    expect((await bytes('b/big')).equals(Buffer.from(big))).toBe(true);
    // A read stream's default chunk is 64 KB, allocated for every read however small the file
    // (then copied to its size): 400 reads of a git object left 25 MB to the garbage collector.
    const before = process.memoryUsage().arrayBuffers;
    let grown = 0;
    for (let k = 0; k < 400; k++) {
      expect((await bytes(`b/small/${k}`)).toString()).toBe(`${k}`.padEnd(700, 'x'));
      grown = Math.max(grown, process.memoryUsage().arrayBuffers - before);
    }
    expect(grown).toBeLessThan(4 * 1024 * 1024);
  });

  it('refuses keys outside the store or inside its temporary folder', async () => {
    const store = fsBlobs(newRoot());
    await expect(store.put('../escape', 'x')).rejects.toThrow(/escapes the store/);
    await expect(store.put('.tmp/x', 'x')).rejects.toThrow(/escapes the store/);
    await expect(store.put('.tmp', 'x')).rejects.toThrow(/escapes the store/);
  });
});

describe('sweepTempFiles', () => {
  it('removes what a crashed process left in .tmp before this start, and nothing else', async () => {
    const root = newRoot();
    const store = fsBlobs(root);
    await store.put('repository/1/aa', 'kept');
    const tmp = join(root, '.tmp');
    mkdirSync(tmp, { recursive: true });
    // Left by a process killed between write and rename, an hour ago.
    const old = new Date(Date.now() - 3600_000);
    for (const name of ['deadbeef.1', 'deadbeef.2']) {
      writeFileSync(join(tmp, name), 'half a blob');
      utimesSync(join(tmp, name), old, old);
    }
    // Written by another live process on the same root after this one started.
    writeFileSync(join(tmp, 'cafebabe.3'), 'in flight');
    // A blob whose own name ends in .tmp is a blob, not a temporary file.
    await store.put('uploads/report.tmp', 'a user file');
    utimesSync(join(root, 'uploads/report.tmp'), old, old);

    expect(await sweepTempFiles(root, Date.now() - 60_000)).toBe(2);
    expect(readdirSync(tmp)).toEqual(['cafebabe.3']);
    expect(await text(store, 'repository/1/aa')).toMatchObject({ body: 'kept' });
    expect(await text(store, 'uploads/report.tmp')).toMatchObject({ body: 'a user file' });
  });

  it('leaves the temporary files of this process alone, and accepts a root that does not exist yet', async () => {
    const root = newRoot();
    mkdirSync(join(root, '.tmp'));
    const ours = `${PROCESS_TAG}.in-flight`;
    writeFileSync(join(root, '.tmp', ours), 'being written');
    const old = new Date(Date.now() - 3600_000);
    utimesSync(join(root, '.tmp', ours), old, old);
    expect(await sweepTempFiles(root, Date.now())).toBe(0);
    expect(readdirSync(join(root, '.tmp'))).toEqual([ours]);
    expect(await sweepTempFiles(join(root, 'missing'))).toBe(0);
  });
});
