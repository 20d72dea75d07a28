/**
 * The web upload after an export (WebUploadStrategy): the archive is PUT or POSTed with
 * `Content-Type: application/gzip` through the outbound guard, which refuses local addresses until
 * `allow_local_requests_from_web_hooks_and_services` is set.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageSql } from '#harness';
import { uploadArchive } from '../../src/import-export/export-upload';
import { api, createUser, rootToken, unique, type TestUser } from '../support';
import { chunks as chunkStream } from '../platform/stream-chunks';
import { download, waitForExport } from './export-support';

interface Received {
  method: string;
  url: string;
  contentType: string | undefined;
  contentLength: string | undefined;
  /** Chunks the sender had produced when the first bytes arrived (the streaming test's source counts them). */
  pulledAtFirstByte: number;
  body: Buffer;
}
const received: Received[] = [];
const server = createServer((req: IncomingMessage, res) => {
  const chunks: Buffer[] = [];
  let pulledAtFirstByte = -1;
  req.on('data', (c: Buffer) => {
    if (pulledAtFirstByte < 0) pulledAtFirstByte = pulled;
    chunks.push(c);
  });
  req.on('end', () => {
    received.push({ method: req.method ?? '', url: req.url ?? '', contentType: req.headers['content-type'], contentLength: req.headers['content-length'], pulledAtFirstByte, body: Buffer.concat(chunks) });
    // `/flaky` (and `/flaky-stream`) fail their first call with a 503 (the upload is tried again), `/refuse` always answers 403.
    const flakyFirst = (req.url === '/flaky' || req.url === '/flaky-stream') && received.filter((r) => r.url === req.url).length === 1;
    res.statusCode = req.url?.includes('refuse') ? 403 : flakyFirst ? 503 : 200;
    res.end(res.statusCode === 200 ? 'ok' : 'no');
  });
});
let base = '';
let pulled = 0;
let owner: TestUser;

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  owner = await createUser();
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const errorOf = async (projectId: number) => ((await storageSql(`SELECT error FROM project_export_jobs WHERE project_id = ${projectId} ORDER BY id DESC LIMIT 1`)) as { error: string | null }[])[0]?.error;

describe('POST /projects/:id/export with upload', () => {
  it('refuses a local address by default, then PUTs and POSTs the archive once local requests are allowed', async () => {
    const p = (await api('/projects', { token: owner.token, body: { name: unique('up') } })).body;
    expect((await api(`/projects/${p.id}/export`, { token: owner.token, body: { upload: { url: `${base}/put-here?sig=secret` } } })).status).toBe(202);
    await waitForExport(p.id, owner.token);
    expect(received).toEqual([]);
    const blocked = await errorOf(p.id);
    expect(blocked).toBe('Error uploading the project. Code 0: URL is blocked: Requests to localhost are not allowed');

    const put = await api('/application/settings', { method: 'PUT', token: rootToken, body: { allow_local_requests_from_web_hooks_and_services: true } });
    expect(put.status).toBe(200);
    try {
      expect((await api(`/projects/${p.id}/export`, { token: owner.token, body: { upload: { url: `${base}/put-here` } } })).status).toBe(202);
      await waitForExport(p.id, owner.token);
      expect(received.map((r) => [r.method, r.url, r.contentType, r.contentLength])).toEqual([['PUT', '/put-here', 'application/gzip', String(received[0].body.byteLength)]]);
      expect(await errorOf(p.id)).toBeNull();
      // The bytes sent are the archive that stays downloadable.
      const res = await download(p.id, owner.token);
      expect(Buffer.from(await res.arrayBuffer()).equals(received[0].body)).toBe(true);

      expect((await api(`/projects/${p.id}/export`, { token: owner.token, body: { upload: { url: `${base}/refuse`, http_method: 'POST' } } })).status).toBe(202);
      await waitForExport(p.id, owner.token);
      expect(received[1]).toMatchObject({ method: 'POST', url: '/refuse', contentType: 'application/gzip' });
      expect(await errorOf(p.id)).toBe('Error uploading the project. Code 403: Forbidden');
      // A 403 is final: one request. A 503 is tried again, and the second try lands.
      expect(received.filter((r) => r.url === '/refuse')).toHaveLength(1);
      expect((await api(`/projects/${p.id}/export`, { token: owner.token, body: { upload: { url: `${base}/flaky` } } })).status).toBe(202);
      await waitForExport(p.id, owner.token);
      expect(received.filter((r) => r.url === '/flaky').map((r) => r.method)).toEqual(['PUT', 'PUT']);
      expect(await errorOf(p.id)).toBeNull();
    } finally {
      await api('/application/settings', { method: 'PUT', token: rootToken, body: { allow_local_requests_from_web_hooks_and_services: false } });
    }
  });
});

describe('uploadArchive', () => {
  it('streams the stored archive with its Content-Length: the first bytes arrive before the rest is read', async () => {
    const n = 400;
    const size = 64 * 1024;
    // The archive as the blob store hands it: a stream, counted as the sender pulls it.
    const open = async () =>
      chunkStream(n, size).pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ transform: (c, ctrl) => (pulled++, ctrl.enqueue(c)) }));
    pulled = 0;
    const error = await uploadArchive(`${base}/streamed`, 'PUT', { size: n * size, open }, { allow_local_requests_from_web_hooks_and_services: true });
    expect(error).toBeNull();
    const got = received.find((r) => r.url === '/streamed')!;
    expect([got.method, got.contentType, got.contentLength]).toEqual(['PUT', 'application/gzip', String(n * size)]);
    expect([got.body.byteLength, got.body[0], got.body[size], got.body[n * size - 1]]).toEqual([n * size, 0, 1, (n - 1) % 256]);
    // Read whole first, all 400 chunks (25 MB) would be pulled before a byte was sent.
    expect(got.pulledAtFirstByte).toBeGreaterThanOrEqual(0);
    expect(got.pulledAtFirstByte).toBeLessThan(n / 2);
  });

  it('opens the archive anew for a second attempt after a 5xx', async () => {
    let opened = 0;
    const open = async () => (opened++, chunkStream(4, 1024));
    expect(await uploadArchive(`${base}/flaky-stream`, 'POST', { size: 4096, open }, { allow_local_requests_from_web_hooks_and_services: true }, 1)).toBeNull();
    expect(opened).toBe(2);
    expect(received.filter((r) => r.url === '/flaky-stream').map((r) => [r.method, r.body.byteLength, r.contentLength])).toEqual([['POST', 4096, '4096'], ['POST', 4096, '4096']]);
  });
});
