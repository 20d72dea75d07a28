/**
 * Reads a git bundle (v2 or v3, as `git bundle create` and GitLab's exporter write them): the refs
 * of its header and every object of its pack, deltas resolved (OFS_DELTA and REF_DELTA against
 * objects of the same pack), each with its id computed as git does. A bundle with prerequisites
 * (an incomplete history) or a pack whose checksum does not match is refused.
 */
import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';

export type GitObjectType = 'commit' | 'tree' | 'blob' | 'tag';
export interface GitObject {
  type: GitObjectType;
  body: Uint8Array;
}
export interface Bundle {
  refs: { sha: string; name: string }[];
  objects: Map<string, GitObject>;
}

const TYPES: Record<number, GitObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const decoder = new TextDecoder();

export class BundleError extends Error {}

export const objectId = (type: GitObjectType, body: Uint8Array) => createHash('sha1').update(`${type} ${body.byteLength}\0`).update(body).digest('hex');

/** Limits a hostile bundle cannot exceed: objects in the pack, bytes of one inflated object. */
export interface BundleLimits {
  maxObjects?: number;
  maxObjectBytes?: number;
}

export function readBundle(bytes: Uint8Array, limits: BundleLimits = {}): Bundle {
  const { refs, packAt } = readHeader(bytes);
  return { refs, objects: readPack(bytes.subarray(packAt), limits) };
}

function readHeader(bytes: Uint8Array): { refs: Bundle['refs']; packAt: number } {
  let at = 0;
  const line = () => {
    const end = bytes.indexOf(10, at);
    if (end < 0) throw new BundleError('Truncated bundle header');
    const text = decoder.decode(bytes.subarray(at, end));
    at = end + 1;
    return text;
  };
  const signature = line();
  if (signature !== '# v2 git bundle' && signature !== '# v3 git bundle') throw new BundleError('Not a git bundle');
  const refs: Bundle['refs'] = [];
  for (;;) {
    const l = line();
    if (l === '') break;
    if (l.startsWith('@')) continue; // v3 capabilities (object-format=sha1 is the only one supported)
    if (l.startsWith('-')) throw new BundleError('The bundle has prerequisites: it does not hold a complete history');
    const m = /^([0-9a-f]{40}) (\S.*)$/.exec(l);
    if (!m) throw new BundleError('Malformed bundle reference');
    refs.push({ sha: m[1], name: m[2] });
  }
  return { refs, packAt: at };
}

function readPack(pack: Uint8Array, limits: BundleLimits): Map<string, GitObject> {
  if (pack.byteLength < 32 || decoder.decode(pack.subarray(0, 4)) !== 'PACK') throw new BundleError('Not a pack');
  const view = new DataView(pack.buffer, pack.byteOffset, pack.byteLength);
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3) throw new BundleError(`Unsupported pack version ${version}`);
  const count = view.getUint32(8);
  if (count > (limits.maxObjects ?? 10_000_000)) throw new BundleError('Too many objects in the pack');
  const end = pack.byteLength - 20;
  const digest = createHash('sha1').update(pack.subarray(0, end)).digest('hex');
  if (digest !== Buffer.from(pack.subarray(end)).toString('hex')) throw new BundleError('Pack checksum mismatch');
  const maxBytes = limits.maxObjectBytes ?? 1024 * 1024 * 1024;

  const byOffset = new Map<number, GitObject>();
  const byId = new Map<string, GitObject>();
  const pending: { offset: number; base: number | string; delta: Uint8Array }[] = [];
  let at = 12;
  for (let i = 0; i < count; i++) {
    const offset = at;
    if (at >= end) throw new BundleError('Truncated pack');
    let byte = pack[at++];
    const type = (byte >> 4) & 7;
    let size = byte & 15;
    let shift = 4;
    while (byte & 0x80) {
      byte = pack[at++];
      size += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    }
    if (size > maxBytes) throw new BundleError('An object of the pack is too large');
    let base: number | string | undefined;
    if (type === 6) {
      byte = pack[at++];
      let rel = byte & 0x7f;
      while (byte & 0x80) {
        byte = pack[at++];
        rel = (rel + 1) * 128 + (byte & 0x7f);
      }
      base = offset - rel;
    } else if (type === 7) {
      base = Buffer.from(pack.subarray(at, at + 20)).toString('hex');
      at += 20;
    } else if (!TYPES[type]) throw new BundleError(`Unknown object type ${type}`);
    const { buffer, engine } = inflateSync(pack.subarray(at, end), { info: true, maxOutputLength: size + 1 }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
    if (buffer.byteLength !== size) throw new BundleError('Object size mismatch');
    at += engine.bytesWritten;
    const body = new Uint8Array(buffer);
    if (base === undefined) {
      const obj = { type: TYPES[type], body };
      byOffset.set(offset, obj);
      byId.set(objectId(obj.type, body), obj);
    } else pending.push({ offset, base, delta: body });
  }
  // Deltas may point at deltas: resolve in passes until none is left (or none can be).
  while (pending.length) {
    let progressed = false;
    for (let i = pending.length - 1; i >= 0; i--) {
      const p = pending[i];
      const base = typeof p.base === 'number' ? byOffset.get(p.base) : byId.get(p.base);
      if (!base) continue;
      const obj = { type: base.type, body: applyDelta(base.body, p.delta, maxBytes) };
      byOffset.set(p.offset, obj);
      byId.set(objectId(obj.type, obj.body), obj);
      pending.splice(i, 1);
      progressed = true;
    }
    if (!progressed) throw new BundleError('A delta of the pack has no base in it');
  }
  return byId;
}

/** git's delta format: source and target sizes, then copy (offset/size from the base) and insert instructions. */
function applyDelta(base: Uint8Array, delta: Uint8Array, maxBytes: number): Uint8Array {
  let at = 0;
  const varint = () => {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = delta[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  if (varint() !== base.byteLength) throw new BundleError('Delta base size mismatch');
  const size = varint();
  if (size > maxBytes) throw new BundleError('An object of the pack is too large');
  const out = new Uint8Array(size);
  let w = 0;
  while (at < delta.byteLength) {
    const op = delta[at++];
    if (op & 0x80) {
      let offset = 0;
      let length = 0;
      for (let i = 0; i < 4; i++) if (op & (1 << i)) offset += delta[at++] * 2 ** (8 * i);
      for (let i = 0; i < 3; i++) if (op & (0x10 << i)) length += delta[at++] * 2 ** (8 * i);
      if (length === 0) length = 0x10000;
      if (offset + length > base.byteLength || w + length > size) throw new BundleError('Delta copy out of range');
      out.set(base.subarray(offset, offset + length), w);
      w += length;
    } else if (op) {
      if (w + op > size || at + op > delta.byteLength) throw new BundleError('Delta insert out of range');
      out.set(delta.subarray(at, at + op), w);
      w += op;
      at += op;
    } else throw new BundleError('Invalid delta instruction');
  }
  if (w !== size) throw new BundleError('Delta result size mismatch');
  return out;
}
