/**
 * project.bundle is written to the blob store as a stream of pack objects (never built whole in
 * memory) and read back into the archive chunk by chunk: the store receives a stream, no chunk of
 * it is more than one object, and the bytes read back are a bundle `git bundle verify` accepts.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { harnessApp } from '../harness/node';
import type { BlobStore } from '../../src/platform/blobs';
import { bundleMember, writeBundleObjects } from '../../src/import-export/bundle-write';
import { api, createUser, unique } from '../support';

const run = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: cwd } });

describe('project.bundle in the blob store', () => {
  it('is stored as a stream of objects and read back as a bundle git verifies', async () => {
    const owner = await createUser();
    const p = (await api('/projects', { token: owner.token, body: { name: unique('bw') } })).body;
    // Ten commits of 64 KB of random bytes (zlib cannot shrink them): the pack is about ten times bigger than any one object.
    for (let k = 0; k < 10; k++) {
      const content = randomBytes(65536).toString('base64');
      const res = await api(`/projects/${p.id}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: `c${k}`, actions: [{ action: k ? 'update' : 'create', file_path: 'data.bin', content, encoding: 'base64' }] } });
      expect(res.status).toBe(201);
    }
    const { db, blobs } = await harnessApp();
    const puts: { key: string; stream: boolean; chunks: number[] }[] = [];
    const recording: BlobStore = {
      ...blobs,
      put: async (key, body, type) => {
        if (!(body instanceof ReadableStream)) {
          puts.push({ key, stream: false, chunks: [] });
          return blobs.put(key, body, type);
        }
        const seen = { key, stream: true, chunks: [] as number[] };
        puts.push(seen);
        const counted = body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ transform: (c, ctrl) => (seen.chunks.push(c.byteLength), ctrl.enqueue(c)) }));
        return blobs.put(key, counted, type);
      },
      get: (key) => blobs.get(key),
      delete: (key) => blobs.delete(key),
    };
    const key = `exports/${p.id}/test/parts/project.bundle.objects`;
    const objects = await writeBundleObjects(db, recording, p.id, 'main', key);
    expect(objects).not.toBeNull();
    expect(puts.map((x) => [x.key, x.stream])).toEqual([[key, true]]);
    const sizes = puts[0].chunks;
    const total = sizes.reduce((n, s) => n + s, 0);
    expect(total).toBe(objects!.size);
    expect(total).toBeGreaterThan(600_000);
    // Each chunk is an object (or its header), so what is in memory at once is one object.
    expect(Math.max(...sizes)).toBeLessThan(70_000);

    const member = bundleMember(blobs, key, objects!);
    const parts: Uint8Array[] = [];
    for await (const c of member.bytes) parts.push(c);
    const bundle = Buffer.concat(parts);
    expect(bundle.byteLength).toBe(member.size);
    const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
    writeFileSync(join(dir, 'p.bundle'), bundle);
    run('git', ['init', '-q', join(dir, 'empty')], dir);
    expect(run('git', ['bundle', 'verify', join(dir, 'p.bundle')], join(dir, 'empty'))).toMatch(/records a complete history/);
    const head = (await api(`/projects/${p.id}/repository/commits?ref_name=main&per_page=1`, { token: owner.token })).body[0].id;
    expect(run('git', ['bundle', 'list-heads', join(dir, 'p.bundle')], dir)).toContain(`${head} refs/heads/main`);
  });

  it('stores nothing for a repository without branches', async () => {
    const owner = await createUser();
    const p = (await api('/projects', { token: owner.token, body: { name: unique('bw-empty') } })).body;
    const { db, blobs } = await harnessApp();
    expect(await writeBundleObjects(db, blobs, p.id, 'main', `exports/${p.id}/x/parts/project.bundle.objects`)).toBeNull();
    expect(await blobs.get(`exports/${p.id}/x/parts/project.bundle.objects`)).toBeNull();
  });
});
