/**
 * POST /projects/import streams its file part into the blob store (src/platform/multipart-stream.ts,
 * import-routes.ts archiveSink): the multipart reader across every chunk split, and the upload's
 * limits as bytes arrive, in both runtimes.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, fetchApi, rootToken, unique } from '../support';
import { MultipartError, multipartBoundary, multipartParts } from '../../src/platform/multipart-stream';
import { exportTree, tarGz } from './tar-builder';
import { waitForImport } from './import-support';

const enc = new TextEncoder();

/** `body` as a stream of `size`-byte chunks. */
function split(body: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= body.byteLength) return c.close();
      c.enqueue(body.slice(at, (at += size)));
    },
  });
}

/** A multipart body as undici/workerd serialise a FormData. */
async function formBytes(form: FormData): Promise<{ bytes: Uint8Array; type: string }> {
  const req = new Request('http://x/', { method: 'POST', body: form });
  return { bytes: new Uint8Array(await req.arrayBuffer()), type: req.headers.get('content-type')! };
}

async function parts(body: ReadableStream<Uint8Array>, boundary: string) {
  const out: { field: string; filename?: string; text: string; size: number }[] = [];
  for await (const p of multipartParts(body, boundary)) {
    const bytes = new Uint8Array(await new Response(p.body).arrayBuffer());
    out.push({ field: p.field, filename: p.filename, text: p.filename === undefined ? new TextDecoder().decode(bytes) : '', size: bytes.byteLength });
  }
  return out;
}

describe('multipartParts', () => {
  it('reads fields and a file part the same whatever the chunk sizes, a delimiter split across chunks included', async () => {
    // File bytes that hold CR, LF and dashes: only the whole delimiter ends a part.
    const file = new Uint8Array(20_000).map((_, i) => [13, 10, 45, 45, 65][i % 5]);
    const form = new FormData();
    form.append('path', 'p-1');
    form.append('file', new Blob([file]), 'export.tar.gz');
    form.append('override_params[description]', 'after the file');
    const { bytes, type } = await formBytes(form);
    const boundary = multipartBoundary(type)!;
    for (const size of [3, 7, 64, 4096, bytes.byteLength]) {
      expect(await parts(split(bytes, size), boundary)).toEqual([
        { field: 'path', filename: undefined, text: 'p-1', size: 3 },
        { field: 'file', filename: 'export.tar.gz', text: '', size: 20_000 },
        { field: 'override_params[description]', filename: undefined, text: 'after the file', size: 14 },
      ]);
    }
  });

  it('skips what a caller leaves unread, and refuses a body that ends before its closing delimiter', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(10_000)]), 'a.gz');
    form.append('path', 'x');
    const { bytes, type } = await formBytes(form);
    const boundary = multipartBoundary(type)!;
    const fields: string[] = [];
    for await (const p of multipartParts(split(bytes, 100), boundary)) fields.push(p.field);
    expect(fields).toEqual(['file', 'path']);
    await expect(parts(split(bytes.slice(0, bytes.byteLength - 10), 100), boundary)).rejects.toBeInstanceOf(MultipartError);
    await expect(parts(split(enc.encode('no delimiter at all'), 4), boundary)).rejects.toBeInstanceOf(MultipartError);
  });
});

describe('POST /projects/import upload', () => {
  it('imports an archive sent before the other fields', async () => {
    const user = await createUser();
    const path = unique('up');
    const form = new FormData();
    form.append('file', new Blob([(await tarGz(exportTree({ relations: { labels: [{ title: 'streamed', color: '#ff0000' }] } }))) as Uint8Array<ArrayBuffer>]), 'export.tar.gz');
    form.append('path', path);
    form.append('name', 'Streamed upload');
    const res = await api('/projects/import', { token: user.token, multipart: form });
    expect([res.status, res.body.path, res.body.name]).toEqual([201, path, 'Streamed upload']);
    expect((await waitForImport(user.token, res.body.id)).body.import_status).toBe('finished');
    expect((await api(`/projects/${res.body.id}/labels`, { token: user.token })).body.map((l: { name: string }) => l.name)).toEqual(['streamed']);
  });

  it('stops an upload over max_import_size at the limit with 413 (no Content-Length), and creates no project', async () => {
    const user = await createUser();
    const path = unique('big');
    try {
      expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { max_import_size: 1 } })).status).toBe(200);
      const form = new FormData();
      form.append('path', path);
      form.append('file', new Blob([new Uint8Array(1024 * 1024 + 1)]), 'export.tar.gz');
      const { bytes, type } = await formBytes(form);
      // A chunked body: only the bytes as they arrive tell its size.
      const res = await fetchApi('/api/v4/projects/import', { method: 'POST', headers: { 'PRIVATE-TOKEN': user.token, 'Content-Type': type }, body: split(bytes, 64 * 1024), duplex: 'half' } as RequestInit);
      expect([res.status, await res.json()]).toEqual([413, { message: '413 Request Entity Too Large' }]);
      const mine = await api('/projects?owned=true', { token: user.token });
      expect(mine.body.map((p: { path: string }) => p.path)).not.toContain(path);
      // Exactly the limit is accepted.
      const ok = new FormData();
      ok.append('path', path);
      ok.append('file', new Blob([new Uint8Array(1024 * 1024)]), 'export.tar.gz');
      expect((await api('/projects/import', { token: user.token, multipart: ok })).status).toBe(201);
    } finally {
      await api('/application/settings', { method: 'PUT', token: rootToken, body: { max_import_size: 0 } });
    }
  });
});
