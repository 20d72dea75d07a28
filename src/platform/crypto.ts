/** Digests, random tokens and password hashes with WebCrypto and node:crypto (Workers' nodejs_compat), so Workers and Node share one implementation. */
import * as nodeCrypto from 'node:crypto';

const { createHash } = nodeCrypto;
/** Node's one-shot `crypto.hash` (22+): no Hash object per call. Absent on workerd, which falls back to createHash. */
const oneShotHash = (nodeCrypto as { hash?: (algorithm: string, data: string, encoding: 'base64') => string }).hash;

const enc = new TextEncoder();

export function toHex(buf: ArrayBuffer | Uint8Array): string {
  const bytes = buf instanceof Uint8Array ? buf : new Uint8Array(buf);
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

export function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

export function fromBase64(s: string): Uint8Array | null {
  try {
    const bin = atob(s);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

export async function sha256(data: string | Uint8Array): Promise<Uint8Array> {
  const input = typeof data === 'string' ? enc.encode(data) : data;
  return new Uint8Array(await crypto.subtle.digest('SHA-256', input as BufferSource));
}

/**
 * Token digest as GitLab stores it (`token_digest`): SHA-256 of the value plus an instance salt
 * (GitLab uses a truncated db_key_base; we use the configured TOKEN_PEPPER). Base64, like GitLab.
 */
export async function tokenDigest(value: string, pepper: string): Promise<string> {
  // node:crypto (nodejs_compat on Workers) hashes in place; WebCrypto's digest is a thread-pool job
  // on Node that cost more than the rest of a cached caller's authentication (issue 13 profile).
  // The one-shot form was a tenth of a cached runner poll's CPU on Node with createHash (issue 14 profile).
  return oneShotHash ? oneShotHash('sha256', value + pepper, 'base64') : createHash('sha256').update(value + pepper).digest('base64');
}

const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** `length` URL-safe characters (`[A-Za-z0-9_-]`), the alphabet of GitLab's classic token format. */
export function randomToken(length = 20): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let s = '';
  for (const b of bytes) s += URL_SAFE[b & 63];
  return s;
}

export function randomHex(bytes = 16): string {
  return toHex(crypto.getRandomValues(new Uint8Array(bytes)));
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const pool = new Uint8Array(4096);
let poolAt = pool.length;

/**
 * Random hex for identifiers that are not secrets (request ids), drawn from a pooled buffer: one
 * `getRandomValues` call per request was ~3 % of a cached caller's `GET /user` on Node. Secrets
 * (tokens, cookies) use randomHex.
 */
export function randomIdHex(bytes: number): string {
  if (poolAt + bytes > pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  let s = '';
  for (let i = poolAt; i < poolAt + bytes; i++) s += HEX[pool[i]];
  poolAt += bytes;
  return s;
}

/** Constant-time comparison of two strings of possibly different length. */
export function safeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/**
 * Password hash: `pbkdf2_sha256$<iterations>$<salt b64>$<hash b64>`. The iteration count travels
 * with the hash so it can be raised later; Workers caps PBKDF2 at 100,000 iterations.
 */
export async function hashPassword(password: string, iterations: number): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await pbkdf2(password, salt, iterations);
  return `pbkdf2_sha256$${iterations}$${toBase64(salt)}$${toBase64(hash)}`;
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  if (!stored) return false;
  const [scheme, iter, saltB64, hashB64] = stored.split('$');
  if (scheme !== 'pbkdf2_sha256') return false;
  const salt = fromBase64(saltB64);
  if (!salt) return false;
  const hash = await pbkdf2(password, salt, Number(iter));
  return safeEqual(toBase64(hash), hashB64);
}

async function pbkdf2(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', enc.encode(password), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: salt as BufferSource, iterations }, key, 256);
  return new Uint8Array(bits);
}
