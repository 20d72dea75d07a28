/** Helpers of the export tests: wait for the job through the status API, read the archive back. */
import { expect } from 'vitest';
import { api, fetchApi } from '../support';

/** Polls GET /projects/:id/export until `finished` (the job runs on the Queue or the in-process runner). */
export async function waitForExport(projectId: number, token: string, timeoutMs = 25_000): Promise<Record<string, any>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(`/projects/${projectId}/export`, { token });
    expect(res.status).toBe(200);
    if (res.body.export_status === 'finished') return res.body;
    if (Date.now() > until) throw new Error(`export of ${projectId} still ${res.body.export_status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function download(projectId: number, token: string): Promise<Response> {
  return fetchApi(`/api/v4/projects/${projectId}/export/download`, { headers: { 'PRIVATE-TOKEN': token } });
}

/** The members of a gzip'd tar (regular files and directories), pax `path` records applied. */
export async function untar(gz: ArrayBuffer): Promise<Map<string, Uint8Array>> {
  const bytes = new Uint8Array(await new Response(new Blob([gz]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer());
  const files = new Map<string, Uint8Array>();
  const dec = new TextDecoder();
  const str = (at: number, len: number) => dec.decode(bytes.subarray(at, at + len)).replace(/\0.*$/s, '');
  let at = 0;
  let longName: string | null = null;
  while (at + 512 <= bytes.length) {
    if (bytes.subarray(at, at + 512).every((b) => b === 0)) break;
    const name = str(at, 100);
    const size = parseInt(str(at + 124, 12).trim() || '0', 8);
    const type = str(at + 156, 1);
    // The checksum covers the header with its own field as spaces.
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : bytes[at + i];
    expect(parseInt(str(at + 148, 8).trim(), 8)).toBe(sum);
    const data = bytes.subarray(at + 512, at + 512 + size);
    if (type === 'x') {
      longName = /path=([^\n]*)\n/.exec(dec.decode(data))?.[1] ?? null;
    } else {
      files.set(longName ?? name, type === '5' ? new Uint8Array() : data.slice());
      longName = null;
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

export const ndjson = (files: Map<string, Uint8Array>, relation: string) => {
  const data = files.get(`./tree/project/${relation}.ndjson`);
  if (!data) throw new Error(`no ${relation}.ndjson in the archive`);
  return new TextDecoder()
    .decode(data)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);
};
