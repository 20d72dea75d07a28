/** R2 takes a stream of unknown length as a multipart upload (parts of 8 MiB); a failed stream aborts it. */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { r2Blobs } from '../../src/platform/blobs';
import { chunks } from './stream-chunks';


describe('r2Blobs streams', () => {
  const bucket = (env as unknown as { BLOBS: R2Bucket }).BLOBS;

  it('stores a stream of unknown length over several parts, with its content type', async () => {
    const store = r2Blobs(bucket);
    const size = 1024 * 1024;
    await store.put('exports/streams/a', chunks(19, size), 'application/gzip');
    const got = await store.get('exports/streams/a');
    const bytes = new Uint8Array(await new Response(got!.body).arrayBuffer());
    expect([got!.size, got!.contentType, bytes[0], bytes[8 * size], bytes[bytes.length - 1]]).toEqual([19 * size, 'application/gzip', 0, 8, 18]);
    await store.put('exports/streams/empty', chunks(0, 1));
    expect((await store.get('exports/streams/empty'))!.size).toBe(0);
  });

  it('rejects when the stream errors and stores nothing', async () => {
    const store = r2Blobs(bucket);
    await expect(store.put('exports/streams/b', chunks(3, 1024, 2))).rejects.toThrow('writer failed');
    expect(await store.get('exports/streams/b')).toBeNull();
  });
});
