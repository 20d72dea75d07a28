/**
 * The bytes of an export part (export-parts.ts), encoded line by line into one buffer that grows
 * by doubling and is reused for every part a queue message writes.
 *
 * Why not collect the lines and join them: a part of 1,000 issues is 3 MB of text that lives until
 * the part is stored, so every line string (and the joined copy) outlives the young generation's
 * collections and is promoted, and V8 frees promoted garbage only at its next full collection. An
 * export of 10,000 issues promoted some 60 MB that way, most of the export's peak resident memory
 * on Node (issue 15: 275 MB against the 256 MB target). Encoded at once, each line dies young;
 * reused, the buffer is allocated once per message instead of once (and grown again) per part, and
 * where the runtime can move an ArrayBuffer's bytes, growing it and releasing it free the old memory at once.
 */
const encoder = new TextEncoder();
const INITIAL = 1 << 20;
/** ES2024 `ArrayBuffer.prototype.transfer` (Node 21+, workerd): moves the bytes and frees the old memory at once, not at the next collection. */
type Movable = ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };

export class PartBuffer {
  private bytes = new Uint8Array(0);
  private length = 0;

  /** Starts a new part (the bytes of the last one are overwritten: store them before). */
  reset(): void {
    this.length = 0;
  }

  append(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const need = this.length + text.length * 3;
    if (need > this.bytes.byteLength) this.resize(Math.max(need, this.bytes.byteLength * 2, INITIAL));
    this.length += encoder.encodeInto(text, this.bytes.subarray(this.length)).written;
  }

  /** The part so far: a view, valid until the next reset, append or release. */
  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  /** Gives the memory back now (the archive step that follows reads 30 MB of parts on top of it); the buffer may be used again. */
  release(): void {
    this.resize(0);
    this.length = 0;
  }

  private resize(size: number): void {
    const old = this.bytes.buffer as Movable;
    if (old.transfer) {
      this.bytes = new Uint8Array(old.transfer(size));
      return;
    }
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, Math.min(this.length, size)));
    this.bytes = grown;
  }
}
