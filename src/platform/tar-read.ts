/**
 * A streaming reader of gzip-compressed tar archives (GitLab's export format): members come one at a
 * time with their body as a stream, so an archive is never held in memory. It is the only gate a
 * stranger's archive passes through, so it refuses what GitLab's extraction guard removes or aborts
 * on (file_importer.rb, command_line_util.rb): names with `..` or a leading `/`, symbolic and hard
 * links, devices and fifos; and it counts decompressed bytes while streaming against
 * `max_decompressed_archive_size` (decompressed_archive_size_validator.rb), so a gzip bomb stops
 * at the limit instead of filling a disk.
 */

export type TarMemberType = 'file' | 'directory';

export interface TarMember {
  /** The member's path with any leading `./` removed (`tree/project.json`). */
  name: string;
  type: TarMemberType;
  size: number;
  /** The member's bytes; skipped by the reader when the caller does not read them. */
  body: ReadableStream<Uint8Array>;
}

export interface TarLimits {
  /** Decompressed bytes of the whole archive; 0 = unlimited (GitLab's `0` setting). */
  maxDecompressedBytes?: number;
  /** Bytes of any one member; 0 = unlimited. */
  maxMemberBytes?: number;
}

/** A refused archive; `message` is fit for `import_error` (never archive content). */
export class ArchiveError extends Error {}

const BLOCK = 512;

/** Pulls exact byte counts from a stream of chunks, counting what it has taken in. */
class ByteSource {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  private total = 0;
  private done = false;
  constructor(
    private reader: ReadableStreamDefaultReader<Uint8Array>,
    private maxTotal: number,
  ) {}

  /** Reads are serialised: a member's body and the reader's own skipping never read at once. */
  private filling: Promise<boolean> | null = null;

  private async fill(): Promise<boolean> {
    while (this.filling) await this.filling;
    this.filling = this.fillOnce();
    try {
      return await this.filling;
    } finally {
      this.filling = null;
    }
  }

  private async fillOnce(): Promise<boolean> {
    if (this.done) return false;
    const { value, done } = await this.reader.read();
    if (done) {
      this.done = true;
      return false;
    }
    this.total += value.byteLength;
    // Checked while streaming, chunk by chunk: a bomb stops here, never after it has been inflated.
    if (this.maxTotal > 0 && this.total > this.maxTotal) {
      await this.reader.cancel().catch(() => {});
      throw new ArchiveError('Decompressed archive size validation failed.');
    }
    if (value.byteLength) {
      this.chunks.push(value);
      this.buffered += value.byteLength;
    }
    return true;
  }

  /** Up to `n` bytes (fewer only at the end of input), as one chunk without copying when possible. */
  async take(n: number): Promise<Uint8Array> {
    while (this.buffered === 0) if (!(await this.fill())) return new Uint8Array(0);
    const head = this.chunks[0];
    if (head.byteLength <= n) {
      this.chunks.shift();
      this.buffered -= head.byteLength;
      return head;
    }
    this.chunks[0] = head.subarray(n);
    this.buffered -= n;
    return head.subarray(0, n);
  }

  /** Exactly `n` bytes, or null when the input ends first. */
  async exact(n: number): Promise<Uint8Array | null> {
    while (this.buffered < n) if (!(await this.fill())) return null;
    const out = new Uint8Array(n);
    let off = 0;
    while (off < n) {
      const part = await this.take(n - off);
      out.set(part, off);
      off += part.byteLength;
    }
    return out;
  }

  async skip(n: number): Promise<void> {
    let left = n;
    while (left > 0) {
      const part = await this.take(left);
      if (!part.byteLength) throw new ArchiveError('Unexpected end of archive');
      left -= part.byteLength;
    }
  }

  cancel() {
    return this.reader.cancel().catch(() => {});
  }
}

const decoder = new TextDecoder();
const cString = (b: Uint8Array) => {
  const end = b.indexOf(0);
  return decoder.decode(end < 0 ? b : b.subarray(0, end));
};
function octal(b: Uint8Array): number {
  // GNU base-256 sizes (high bit set) mean a member over 8 GB: refused as oversized anyway.
  if (b[0] & 0x80) return Number.MAX_SAFE_INTEGER;
  const s = cString(b).trim();
  if (s === '') return 0;
  if (!/^[0-7]+$/.test(s)) throw new ArchiveError('Invalid tar header');
  return parseInt(s, 8);
}
function checksumOk(h: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i];
  return sum === octal(h.subarray(148, 156));
}
/** Pax extended header records (`<len> key=value\n`); only `path` and `size` matter here. */
function paxRecords(b: Uint8Array): Record<string, string> {
  const text = decoder.decode(b);
  const out: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const sp = text.indexOf(' ', i);
    if (sp < 0) break;
    const len = parseInt(text.slice(i, sp), 10);
    if (!(len > 0)) break;
    const rec = text.slice(sp + 1, i + len - 1);
    const eq = rec.indexOf('=');
    if (eq > 0) out[rec.slice(0, eq)] = rec.slice(eq + 1);
    i += len;
  }
  return out;
}

/** `./a/b` -> `a/b`; refuses absolute names and any `..` segment. */
export function safeMemberName(raw: string): string {
  if (raw.startsWith('/') || /^[a-zA-Z]:/.test(raw) || raw.includes('\\')) throw new ArchiveError(`Archive member has an absolute or invalid path`);
  const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) throw new ArchiveError(`Archive member path contains '..'`);
  return parts.join('/');
}

const padded = (n: number) => Math.ceil(n / BLOCK) * BLOCK;
/** Metadata members (pax, GNU long names) are read whole, so they are bounded. */
const META_MAX = 64 * 1024;

/**
 * The members of a gzip-compressed tar stream. Each member's body must be read (or abandoned)
 * before asking for the next; an unread remainder is skipped. Throws ArchiveError on a refused
 * member or a malformed archive.
 */
export async function* readTarGz(input: ReadableStream<Uint8Array>, limits: TarLimits = {}): AsyncGenerator<TarMember> {
  const gunzipped = input.pipeThrough(new DecompressionStream('gzip') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>);
  yield* readTar(gunzipped, limits);
}

/** The members of an uncompressed tar stream (see readTarGz). */
export async function* readTar(input: ReadableStream<Uint8Array>, limits: TarLimits = {}): AsyncGenerator<TarMember> {
  const src = new ByteSource(input.getReader(), limits.maxDecompressedBytes ?? 0);
  const maxMember = limits.maxMemberBytes ?? 0;
  let longName: string | undefined;
  let pax: Record<string, string> = {};
  try {
    for (;;) {
      let header: Uint8Array | null;
      try {
        header = await src.exact(BLOCK);
      } catch (err) {
        if (err instanceof ArchiveError) throw err;
        throw new ArchiveError('Unable to decompress the archive');
      }
      if (!header || header.every((b) => b === 0)) return;
      if (!checksumOk(header)) throw new ArchiveError('Invalid tar header');
      const flag = String.fromCharCode(header[156] || 48);
      let size = octal(header.subarray(124, 136));
      if (pax.size !== undefined && /^\d+$/.test(pax.size)) size = Number(pax.size);
      const prefix = header[257] === 0x75 /* 'u'star */ ? cString(header.subarray(345, 500)) : '';
      const rawName = longName ?? pax.path ?? (prefix ? `${prefix}/${cString(header.subarray(0, 100))}` : cString(header.subarray(0, 100)));
      if (flag === 'L' || flag === 'x' || flag === 'g') {
        if (size > META_MAX) throw new ArchiveError('Archive member header too large');
        const data = await src.exact(padded(size));
        if (!data) throw new ArchiveError('Unexpected end of archive');
        if (flag === 'L') longName = cString(data.subarray(0, size));
        else if (flag === 'x') pax = paxRecords(data.subarray(0, size));
        continue;
      }
      longName = undefined;
      pax = {};
      const name = safeMemberName(rawName);
      if (flag === '1') throw new ArchiveError('Archive contains a hard link');
      if (flag === '2') throw new ArchiveError('Archive contains a symbolic link');
      if (flag === '3' || flag === '4' || flag === '6') throw new ArchiveError('Archive contains a device or fifo');
      if (flag === '5') {
        await src.skip(padded(size));
        if (name) yield { name, type: 'directory', size: 0, body: new ReadableStream({ start: (c) => c.close() }) };
        continue;
      }
      if (flag !== '0' && flag !== '7') throw new ArchiveError('Archive contains an unsupported member type');
      if (maxMember > 0 && size > maxMember) throw new ArchiveError('Archive member exceeds the size limit');
      let left = size;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (left <= 0) return controller.close();
          const part = await src.take(left);
          if (!part.byteLength) return controller.error(new ArchiveError('Unexpected end of archive'));
          left -= part.byteLength;
          controller.enqueue(part);
          if (left <= 0) controller.close();
        },
        // Pulled only when the caller reads: never ahead of it, in parallel with the reader's skipping.
      }, { highWaterMark: 0 });
      yield { name, type: 'file', size, body };
      // Whatever the caller left unread, then the padding to the next header.
      if (left > 0) await src.skip(left);
      left = 0;
      await src.skip(padded(size) - size);
    }
  } finally {
    await src.cancel();
  }
}

/** A member's body as text, refusing more than `max` bytes. */
export async function memberText(body: ReadableStream<Uint8Array>, max: number): Promise<string> {
  const parts: Uint8Array[] = [];
  let n = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    n += chunk.byteLength;
    if (n > max) throw new ArchiveError('Archive member exceeds the size limit');
    parts.push(chunk);
  }
  const all = new Uint8Array(n);
  let off = 0;
  for (const p of parts) all.set(p, (off += p.byteLength) - p.byteLength);
  return new TextDecoder().decode(all);
}

/**
 * The lines of a member (ndjson), numbered from 0 as GitLab's `line_number`; a line over `maxLine`
 * bytes is yielded as `tooLong` and skipped, never buffered whole.
 */
export async function* memberLines(body: ReadableStream<Uint8Array>, maxLine: number): AsyncGenerator<{ line: string; number: number; tooLong?: boolean }> {
  const dec = new TextDecoder();
  let buf = '';
  let number = 0;
  let overflow = false;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    const text = dec.decode(chunk, { stream: true });
    // Only the new text is searched for line ends: a long line costs linear time, not quadratic.
    let nl = text.indexOf('\n');
    if (nl < 0) {
      if (!overflow) buf += text;
      if (buf.length > maxLine) {
        overflow = true;
        buf = '';
      }
      continue;
    }
    let start = 0;
    while (nl >= 0) {
      const line = overflow ? '' : buf + text.slice(start, nl);
      if (overflow || line.length > maxLine) yield { line: '', number, tooLong: true };
      else if (line.trim()) yield { line, number };
      overflow = false;
      buf = '';
      number++;
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    buf = text.slice(start);
    if (buf.length > maxLine) {
      overflow = true;
      buf = '';
    }
  }
  buf += dec.decode();
  if (overflow || buf.length > maxLine) yield { line: '', number, tooLong: true };
  else if (buf.trim()) yield { line: buf, number };
}
