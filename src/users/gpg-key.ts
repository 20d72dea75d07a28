/**
 * ASCII-armored OpenPGP public keys (RFC 4880 §6 armor, §4.2 packet headers, §5.5.2 v4 key
 * packets, §12.2 fingerprints). Only what GitLab keeps of a GPG key is extracted: the primary
 * key's v4 fingerprint and key id (app/models/gpg_key.rb stores `fingerprint` and `primary_keyid`).
 */
import { createHash } from 'node:crypto';
import { fromBase64 } from '../platform/crypto';

export const GPG_KEY_PREFIX = '-----BEGIN PGP PUBLIC KEY BLOCK-----';
export const GPG_KEY_SUFFIX = '-----END PGP PUBLIC KEY BLOCK-----';

/** GpgKey `validates :key, format:` message (app/models/gpg_key.rb, 12.x+). */
export const GPG_KEY_FORMAT_MESSAGE = `is invalid. A valid public GPG key begins with '${GPG_KEY_PREFIX}' and ends with '${GPG_KEY_SUFFIX}'`;

export interface GpgPublicKey {
  /** 40 upper-case hex digits. */
  fingerprint: string;
  /** The low 64 bits of the fingerprint, 16 upper-case hex digits. */
  keyId: string;
  algorithm: number;
  createdAt: number;
}

/** GpgKey format: exactly one armored block, nothing before or after (`\A PREFIX ((?!PREFIX)(?!SUFFIX).)+ SUFFIX \Z`). */
export function hasGpgKeyFormat(key: string): boolean {
  if (!key.startsWith(GPG_KEY_PREFIX) || !key.endsWith(GPG_KEY_SUFFIX)) return false;
  const inner = key.slice(GPG_KEY_PREFIX.length, key.length - GPG_KEY_SUFFIX.length);
  return inner.length > 0 && !inner.includes(GPG_KEY_PREFIX) && !inner.includes(GPG_KEY_SUFFIX);
}

/** CRC-24 of RFC 4880 §6.1. */
export function crc24(data: Uint8Array): number {
  let crc = 0xb704ce;
  for (const byte of data) {
    crc ^= byte << 16;
    for (let i = 0; i < 8; i++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1864cfb;
    }
  }
  return crc & 0xffffff;
}

/** Decodes the armor: optional headers, base64 body, optional `=XXXX` checksum (verified when present). */
export function dearmor(text: string): Uint8Array | null {
  const lines = text.trim().split(/\r?\n/).map((l) => l.trimEnd());
  if (lines[0] !== GPG_KEY_PREFIX || lines[lines.length - 1] !== GPG_KEY_SUFFIX) return null;
  let i = 1;
  // Armor headers ("Version: ...", "Comment: ...") end at the first blank line.
  if (lines[i] !== '' && /^[^\s:]+: /.test(lines[i] ?? '')) {
    while (i < lines.length - 1 && lines[i] !== '') {
      if (!/^[^\s:]+: /.test(lines[i])) return null;
      i++;
    }
  }
  const body: string[] = [];
  let checksum: string | null = null;
  for (; i < lines.length - 1; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    if (line.startsWith('=') && line.length === 5) {
      checksum = line.slice(1);
      if (lines.slice(i + 1, -1).some((l) => l.trim() !== '')) return null;
      break;
    }
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(line)) return null;
    body.push(line);
  }
  const b64 = body.join('');
  if (!b64 || b64.length % 4 !== 0) return null;
  const data = fromBase64(b64);
  if (!data || data.length === 0) return null;
  if (checksum !== null) {
    const crc = fromBase64(checksum);
    if (!crc || crc.length !== 3) return null;
    if (((crc[0] << 16) | (crc[1] << 8) | crc[2]) !== crc24(data)) return null;
  }
  return data;
}

interface Packet {
  tag: number;
  body: Uint8Array;
}

/** The first packet of `data`, old or new header format (RFC 4880 §4.2); partial lengths are refused. */
export function readPacket(data: Uint8Array): Packet | null {
  if (data.length < 2) return null;
  const h = data[0];
  if (!(h & 0x80)) return null;
  let tag: number;
  let len: number;
  let pos: number;
  if (h & 0x40) {
    tag = h & 0x3f;
    const o1 = data[1];
    if (o1 < 192) {
      len = o1;
      pos = 2;
    } else if (o1 < 224) {
      if (data.length < 3) return null;
      len = ((o1 - 192) << 8) + data[2] + 192;
      pos = 3;
    } else if (o1 === 255) {
      if (data.length < 6) return null;
      len = ((data[2] << 24) >>> 0) + (data[3] << 16) + (data[4] << 8) + data[5];
      pos = 6;
    } else {
      return null; // partial body lengths are not allowed for key packets
    }
  } else {
    tag = (h >> 2) & 0x0f;
    const lt = h & 3;
    if (lt === 0) {
      len = data[1];
      pos = 2;
    } else if (lt === 1) {
      if (data.length < 3) return null;
      len = (data[1] << 8) | data[2];
      pos = 3;
    } else if (lt === 2) {
      if (data.length < 5) return null;
      len = ((data[1] << 24) >>> 0) + (data[2] << 16) + (data[3] << 8) + data[4];
      pos = 5;
    } else {
      len = data.length - 1;
      pos = 1;
    }
  }
  if (pos + len > data.length) return null;
  return { tag, body: data.subarray(pos, pos + len) };
}

/** Checks the algorithm-specific key material of a v4 key body (after the 6-byte prefix). */
function keyMaterialFits(algorithm: number, body: Uint8Array): boolean {
  let pos = 6;
  const mpi = () => {
    if (pos + 2 > body.length) throw new Error('truncated');
    const bits = (body[pos] << 8) | body[pos + 1];
    pos += 2 + Math.ceil(bits / 8);
    if (bits === 0 || pos > body.length) throw new Error('truncated');
  };
  const oid = () => {
    if (pos >= body.length) throw new Error('truncated');
    const n = body[pos];
    if (n === 0 || n === 0xff) throw new Error('bad oid');
    pos += 1 + n;
    if (pos > body.length) throw new Error('truncated');
  };
  try {
    switch (algorithm) {
      case 1: case 2: case 3: mpi(); mpi(); break; // RSA: n, e
      case 16: mpi(); mpi(); mpi(); break; // Elgamal: p, g, y
      case 17: mpi(); mpi(); mpi(); mpi(); break; // DSA: p, q, g, y
      case 19: case 22: oid(); mpi(); break; // ECDSA, EdDSA: curve, point
      case 18: { // ECDH: curve, point, KDF parameters
        oid(); mpi();
        const n = body[pos];
        if (n === undefined) throw new Error('truncated');
        pos += 1 + n;
        break;
      }
      default:
        return body.length > 6; // other algorithms: nothing known to check
    }
  } catch {
    return false;
  }
  return pos === body.length;
}

/** v4 fingerprint: SHA-1 over 0x99, the two-octet body length and the key packet body (RFC 4880 §12.2). */
export function v4Fingerprint(body: Uint8Array): string {
  const h = createHash('sha1');
  h.update(new Uint8Array([0x99, (body.length >> 8) & 0xff, body.length & 0xff]));
  h.update(body);
  return h.digest('hex').toUpperCase();
}

/** Parses an armored public key block; null when it is not a v4 OpenPGP public key. */
export function parseGpgPublicKey(text: string): GpgPublicKey | null {
  const data = dearmor(text);
  if (!data) return null;
  const packet = readPacket(data);
  if (!packet || packet.tag !== 6) return null;
  const body = packet.body;
  if (body.length < 7 || body[0] !== 4 || body.length > 0xffff) return null;
  const algorithm = body[5];
  if (!keyMaterialFits(algorithm, body)) return null;
  const fingerprint = v4Fingerprint(body);
  return {
    fingerprint,
    keyId: fingerprint.slice(-16),
    algorithm,
    createdAt: (((body[1] << 24) >>> 0) + (body[2] << 16) + (body[3] << 8) + body[4]) * 1000,
  };
}
