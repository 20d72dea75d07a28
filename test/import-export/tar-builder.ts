/**
 * Test-only tar writer: builds archives member by member, including the hostile ones the importer
 * must refuse (links, devices, `..` names, lying sizes). Gzip through CompressionStream, so the same
 * builder runs in workerd and on Node.
 */
export interface BuildMember {
  name: string;
  body?: string | Uint8Array;
  /** '0' file (default), '5' directory, '1' hard link, '2' symlink, '3' char device, '6' fifo. */
  type?: string;
  linkname?: string;
  /** Size written in the header when it should differ from the body's (a lying header). */
  size?: number;
}

const enc = new TextEncoder();

function header(m: BuildMember, size: number): Uint8Array {
  const h = new Uint8Array(512);
  const put = (s: string, off: number, len: number) => h.set(enc.encode(s).subarray(0, len), off);
  const oct = (n: number, off: number, len: number) => put(n.toString(8).padStart(len - 1, '0') + '\0', off, len);
  put(m.name, 0, 100);
  oct(0o644, 100, 8);
  oct(0, 108, 8);
  oct(0, 116, 8);
  oct(size, 124, 12);
  oct(1577836800, 136, 12);
  h.fill(32, 148, 156);
  put(m.type ?? '0', 156, 1);
  if (m.linkname) put(m.linkname, 157, 100);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  let sum = 0;
  for (const b of h) sum += b;
  put(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8);
  return h;
}

/** An uncompressed tar of `members` (a GNU long-name record is added for names over 100 bytes). */
export function tar(members: BuildMember[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const m of members) {
    const body = typeof m.body === 'string' ? enc.encode(m.body) : (m.body ?? new Uint8Array(0));
    if (enc.encode(m.name).byteLength > 100) {
      const ln = enc.encode(m.name + '\0');
      parts.push(header({ name: '././@LongLink', type: 'L' }, ln.byteLength), ln, new Uint8Array((512 - (ln.byteLength % 512)) % 512));
    }
    parts.push(header(m, m.size ?? body.byteLength), body, new Uint8Array((512 - (body.byteLength % 512)) % 512));
  }
  parts.push(new Uint8Array(1024));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.byteLength;
  }
  return out;
}

export async function gzip(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export const tarGz = (members: BuildMember[]) => gzip(tar(members));

export const streamOf = (data: Uint8Array) => new Blob([data as Uint8Array<ArrayBuffer>]).stream() as ReadableStream<Uint8Array>;

/** A GitLab-shaped export tree (`./VERSION`, `./tree/project.json`, ndjson relations). */
export function exportTree(opts: { version?: string; project?: unknown; relations?: Record<string, unknown[] | string> } = {}): BuildMember[] {
  const members: BuildMember[] = [{ name: './', type: '5' }, { name: './VERSION', body: `${opts.version ?? '0.2.4'}\n` }, { name: './tree/', type: '5' }];
  members.push({ name: './tree/project.json', body: JSON.stringify(opts.project ?? { description: 'Imported', visibility_level: 0 }) });
  for (const [rel, rows] of Object.entries(opts.relations ?? {}))
    members.push({ name: `./tree/project/${rel}.ndjson`, body: typeof rows === 'string' ? rows : rows.map((r) => JSON.stringify(r)).join('\n') + '\n' });
  return members;
}
