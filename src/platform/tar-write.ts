/**
 * A tar writer (POSIX ustar, as `tar -czf` writes GitLab's export archives): each member is a
 * 512-byte header and its bytes padded to 512; a name over 100 bytes goes in a pax extended header
 * (`path=`), and the archive ends with two zero blocks. Chunks go to `emit` as they are made, so the
 * caller can pipe them through CompressionStream('gzip') without holding the archive.
 */
const BLOCK = 512;
const encoder = new TextEncoder();

export interface TarEntry {
  name: string;
  /** Modification time, milliseconds. */
  mtime: number;
  /** Permission bits (default 0755 for a directory, 0644 for a file). */
  mode?: number;
}

export class TarWriter {
  constructor(private readonly emit: (chunk: Uint8Array) => void | Promise<void>) {}

  async directory(e: TarEntry): Promise<void> {
    const name = e.name.endsWith('/') ? e.name : `${e.name}/`;
    await this.header(name, 0, e.mtime, '5', e.mode ?? 0o755);
  }

  async file(e: TarEntry, data: Uint8Array | string): Promise<void> {
    const bytes = typeof data === 'string' ? encoder.encode(data) : data;
    await this.chunks(e, [bytes]);
  }

  /** A member made of several pieces (the lines of an ndjson file), written one after the other without joining them. */
  async chunks(e: TarEntry, pieces: Uint8Array[]): Promise<void> {
    await this.stream(e, pieces.reduce((n, p) => n + p.byteLength, 0), pieces);
  }

  /**
   * A member whose size is known before its bytes are (the parts of an export relation, read back
   * from the blob store one at a time): the header goes first, then the pieces as they come. Bytes
   * that do not add up to `size` would misalign every later header, so they fail the archive.
   */
  async stream(e: TarEntry, size: number, pieces: Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<void> {
    await this.header(e.name, size, e.mtime, '0', e.mode ?? 0o644);
    let written = 0;
    for await (const p of pieces) {
      if (!p.byteLength) continue;
      written += p.byteLength;
      if (written > size) break;
      await this.emit(p);
    }
    if (written !== size) throw new Error(`Tar member ${e.name}: ${written} bytes where the header says ${size}`);
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (pad) await this.emit(new Uint8Array(pad));
  }

  /** A pax global header (`git archive` records the commit id as `comment=<sha>`). */
  async paxGlobal(records: Record<string, string>, mtime: number): Promise<void> {
    const record = encoder.encode(Object.entries(records).map(([k, v]) => paxRecord(k, v)).join(''));
    await this.emit(headerBlock('pax_global_header', record.byteLength, mtime, 'g', 0o666));
    await this.emit(record);
    const pad = (BLOCK - (record.byteLength % BLOCK)) % BLOCK;
    if (pad) await this.emit(new Uint8Array(pad));
  }

  /** Two zero blocks: the end-of-archive marker. */
  async end(): Promise<void> {
    await this.emit(new Uint8Array(BLOCK * 2));
  }

  private async header(name: string, size: number, mtime: number, type: string, mode: number): Promise<void> {
    const nameBytes = encoder.encode(name);
    if (nameBytes.byteLength > 100) {
      // pax: "<len> path=<name>\n", where <len> counts the whole record including its own digits.
      const record = encoder.encode(paxRecord('path', name));
      await this.emit(headerBlock(`PaxHeaders/${name.slice(-80)}`.slice(0, 100), record.byteLength, mtime, 'x', 0o644));
      await this.emit(record);
      const pad = (BLOCK - (record.byteLength % BLOCK)) % BLOCK;
      if (pad) await this.emit(new Uint8Array(pad));
    }
    await this.emit(headerBlock(name, size, mtime, type, mode));
  }
}

/** "<len> key=value\n", where <len> counts the whole record including its own digits. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let len = encoder.encode(body).byteLength;
  len += String(len + String(len).length).length;
  return `${len}${body}`;
}

function headerBlock(name: string, size: number, mtime: number, type: string, mode: number): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const put = (offset: number, length: number, value: string) => {
    const bytes = encoder.encode(value);
    h.set(bytes.subarray(0, length), offset);
  };
  const octal = (offset: number, length: number, value: number) => put(offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
  // A name that does not fit is cut here; the pax record before this header carries it whole.
  const nameBytes = encoder.encode(name);
  h.set(nameBytes.subarray(0, 100), 0);
  octal(100, 8, mode);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, size);
  octal(136, 12, Math.floor(mtime / 1000));
  put(148, 8, '        ');
  put(156, 1, type);
  put(257, 6, 'ustar\0');
  put(263, 2, '00');
  put(265, 32, 'git');
  put(297, 32, 'git');
  let sum = 0;
  for (const b of h) sum += b;
  put(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return h;
}
