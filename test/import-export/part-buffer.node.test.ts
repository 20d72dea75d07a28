/**
 * An export part's bytes (src/import-export/part-buffer.ts): lines encoded one by one into a
 * reused buffer are exactly the UTF-8 of the lines joined, across growth and after a reset.
 */
import { describe, expect, it } from 'vitest';
import { PartBuffer } from '../../src/import-export/part-buffer';

const utf8 = (s: string) => Buffer.from(new TextEncoder().encode(s));

describe('PartBuffer', () => {
  it('holds the UTF-8 of the appended lines, multi-byte characters and lone surrogates included, as it grows past its first megabyte', () => {
    const lines = Array.from({ length: 5000 }, (_, k) => `${JSON.stringify({ id: k, title: `issue ${k} ünïcödé 漢字 🎉`, body: 'x'.repeat(k % 700), odd: k % 97 ? '' : '\ud800' })}\n`);
    const b = new PartBuffer();
    for (const l of lines) b.append(l);
    const joined = lines.join('');
    expect(b.view().byteLength).toBeGreaterThan(1024 * 1024);
    expect(Buffer.from(b.view()).equals(utf8(joined))).toBe(true);
  });

  it('starts over after a reset, with none of the last part', () => {
    const b = new PartBuffer();
    b.append('first part, which is longer\n');
    b.reset();
    expect(b.view().byteLength).toBe(0);
    b.append('é\n');
    expect(Buffer.from(b.view()).equals(utf8('é\n'))).toBe(true);
  });

  it('gives its memory back on release and can be used again', () => {
    const b = new PartBuffer();
    b.append('x'.repeat(3_000_000));
    const before = process.memoryUsage().arrayBuffers;
    b.release();
    expect(b.view().byteLength).toBe(0);
    // Node 22 moves the bytes out (ArrayBuffer.prototype.transfer): the 9 MB go now, not at a collection.
    expect(before - process.memoryUsage().arrayBuffers).toBeGreaterThan(8_000_000);
    b.append('again 🎉\n');
    expect(Buffer.from(b.view()).equals(utf8('again 🎉\n'))).toBe(true);
  });
});
