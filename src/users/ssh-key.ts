/**
 * OpenSSH public keys, as GitLab reads them (lib/gitlab/ssh_public_key.rb, app/models/key.rb,
 * app/validators/ssh_key_validator.rb; reference B §1.6). The blob is decoded for real: its SSH
 * wire structure must hold together and its type string must match the algorithm in front of it.
 */
import { createHash } from 'node:crypto';
import { fromBase64 } from '../platform/crypto';

/** Key technologies in GitLab's order (`Gitlab::SSHPublicKey::TECHNOLOGIES`); the order of the "Must be ..." sentence. */
export const SSH_KEY_TYPES = ['rsa', 'dsa', 'ecdsa', 'ed25519', 'ecdsa_sk', 'ed25519_sk'] as const;
export type SshKeyType = (typeof SSH_KEY_TYPES)[number];

const ALGORITHMS: Record<string, SshKeyType> = {
  'ssh-rsa': 'rsa',
  'ssh-dss': 'dsa',
  'ecdsa-sha2-nistp256': 'ecdsa',
  'ecdsa-sha2-nistp384': 'ecdsa',
  'ecdsa-sha2-nistp521': 'ecdsa',
  'ssh-ed25519': 'ed25519',
  'sk-ecdsa-sha2-nistp256@openssh.com': 'ecdsa_sk',
  'sk-ssh-ed25519@openssh.com': 'ed25519_sk',
};

export const SUPPORTED_ALGORITHMS = Object.keys(ALGORITHMS);

export interface SshPublicKey {
  algorithm: string;
  type: SshKeyType;
  bits: number;
  /** Base64 of the blob, as it appeared in the key line. */
  blob64: string;
  comment: string | null;
  /** `algorithm blob [comment]`: the key without authorized_keys options. */
  text: string;
  /** MD5 of the blob, colon-separated lowercase hex (`fingerprint`). */
  fingerprintMd5: string;
  /** Unpadded base64 SHA-256 of the blob, without the `SHA256:` prefix (`fingerprint_sha256`). */
  fingerprintSha256: string;
}

/** Reads SSH wire-format fields (RFC 4251 §5): uint32 length-prefixed strings and mpints. */
class WireReader {
  private pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  string(): Uint8Array {
    if (this.pos + 4 > this.buf.length) throw new Error('truncated length');
    const len = ((this.buf[this.pos] << 24) >>> 0) + (this.buf[this.pos + 1] << 16) + (this.buf[this.pos + 2] << 8) + this.buf[this.pos + 3];
    this.pos += 4;
    if (this.pos + len > this.buf.length) throw new Error('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  text(): string {
    return new TextDecoder().decode(this.string());
  }

  /** A positive mpint; returns its bit length. */
  mpintBits(): number {
    const v = this.string();
    if (v.length === 0 || v[0] & 0x80) throw new Error('non-positive mpint');
    let i = 0;
    while (i < v.length && v[i] === 0) i++;
    if (i === v.length) throw new Error('zero mpint');
    return (v.length - i - 1) * 8 + (32 - Math.clz32(v[i]));
  }

  end(): void {
    if (this.pos !== this.buf.length) throw new Error('trailing bytes');
  }
}

const EC_POINT_LENGTH: Record<string, number> = { nistp256: 65, nistp384: 97, nistp521: 133 };

/** Bit size of the key in the blob, after checking the blob's structure against `algorithm`. */
function blobBits(algorithm: string, blob: Uint8Array): number {
  const r = new WireReader(blob);
  if (r.text() !== algorithm) throw new Error('type mismatch');
  let bits: number;
  switch (algorithm) {
    case 'ssh-rsa': {
      r.mpintBits(); // public exponent
      bits = r.mpintBits(); // modulus
      break;
    }
    case 'ssh-dss': {
      bits = r.mpintBits(); // p
      r.mpintBits(); // q
      r.mpintBits(); // g
      r.mpintBits(); // y
      break;
    }
    case 'ecdsa-sha2-nistp256':
    case 'ecdsa-sha2-nistp384':
    case 'ecdsa-sha2-nistp521':
    case 'sk-ecdsa-sha2-nistp256@openssh.com': {
      const curve = algorithm.startsWith('sk-') ? 'nistp256' : algorithm.slice('ecdsa-sha2-'.length);
      if (r.text() !== curve) throw new Error('curve mismatch');
      const q = r.string();
      // Uncompressed point: 0x04 || X || Y.
      if (q.length !== EC_POINT_LENGTH[curve] || q[0] !== 0x04) throw new Error('bad point');
      if (algorithm.startsWith('sk-')) r.string(); // application
      bits = Number(curve.slice('nistp'.length));
      break;
    }
    case 'ssh-ed25519':
    case 'sk-ssh-ed25519@openssh.com': {
      if (r.string().length !== 32) throw new Error('bad ed25519 key');
      if (algorithm.startsWith('sk-')) r.string(); // application
      bits = 256;
      break;
    }
    default:
      throw new Error('unsupported');
  }
  r.end();
  return bits;
}

const MAX_PARSE_LENGTH = 20_000;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function decodeBlob(b64: string): Uint8Array | null {
  if (!BASE64.test(b64) || b64.length % 4 !== 0) return null;
  return fromBase64(b64);
}

/** First whitespace-separated token, honouring double quotes (authorized_keys options like `command="a b"`). */
function firstToken(s: string): string {
  const m = /^(?:[^\s"]|"(?:[^"\\]|\\.)*")+/.exec(s);
  return m ? m[0] : '';
}

/**
 * Parses one public key line. Authorized_keys options before the algorithm are stripped; a blob
 * pasted with line breaks inside is joined back (GitLab `SSHPublicKey.sanitize`). Returns null for
 * anything that is not a well-formed key of a supported type.
 */
export function parseSshPublicKey(input: string): SshPublicKey | null {
  let s = input.trim();
  // Far beyond any real key (the model allows 5000 characters): not worth decoding.
  if (!s || s.length > MAX_PARSE_LENGTH) return null;
  const first = firstToken(s);
  if (!(first in ALGORITHMS)) {
    // authorized_keys options come first, as one token without unquoted spaces.
    s = s.slice(first.length).trim();
  }
  const parts = s.split(/\s+/);
  const algorithm = parts[0];
  const type = ALGORITHMS[algorithm];
  if (!type || parts.length < 2) return null;
  for (let n = 1; n < parts.length; n++) {
    // Only base64 pieces can belong to a blob broken over lines; the comment starts at the first other one.
    if (n > 1 && !/^[A-Za-z0-9+/=]+$/.test(parts[n])) break;
    const blob64 = parts.slice(1, n + 1).join('');
    const blob = decodeBlob(blob64);
    if (!blob) continue;
    let bits: number;
    try {
      bits = blobBits(algorithm, blob);
    } catch {
      continue;
    }
    const comment = parts.length > n + 1 ? parts.slice(n + 1).join(' ') : null;
    return {
      algorithm,
      type,
      bits,
      blob64,
      comment,
      text: comment ? `${algorithm} ${blob64} ${comment}` : `${algorithm} ${blob64}`,
      fingerprintMd5: createHash('md5').update(blob).digest('hex').replace(/(..)(?!$)/g, '$1:'),
      fingerprintSha256: createHash('sha256').update(blob).digest('base64').replace(/=+$/, ''),
    };
  }
  return null;
}

/**
 * `Key#publishable_key`: algorithm and blob, the comment replaced by `<owner name> (<host>)` so
 * that stored comments (often e-mail addresses) never leak.
 */
export function publishableKey(key: string, ownerName: string, host: string): string {
  return [...key.split(/\s+/).slice(0, 2), `${ownerName} (${host})`].join(' ');
}

/** `ApplicationSetting::FORBIDDEN_KEY_VALUE`. */
export const FORBIDDEN_KEY_VALUE = -1;

export type KeyRestrictions = Partial<Record<`${SshKeyType}_key_restriction`, unknown>>;

/** `ApplicationSetting#key_restriction_for`: an unknown type (unparseable key) counts as forbidden. */
export function keyRestrictionFor(settings: KeyRestrictions, type: SshKeyType | null): number {
  if (!type) return FORBIDDEN_KEY_VALUE;
  const v = Number(settings[`${type}_key_restriction`] ?? 0);
  return Number.isFinite(v) ? v : 0;
}

/** Rails `to_sentence(two_words_connector: ' or ', last_word_connector: ', or ')`. */
export function orSentence(items: string[]): string {
  if (items.length <= 1) return items.join('');
  if (items.length === 2) return `${items[0]} or ${items[1]}`;
  return `${items.slice(0, -1).join(', ')}, or ${items[items.length - 1]}`;
}

/** SshKeyValidator: the restriction messages for `key`, or none. */
export function keyRestrictionErrors(settings: KeyRestrictions, parsed: SshPublicKey | null): string[] {
  const restriction = keyRestrictionFor(settings, parsed?.type ?? null);
  if (restriction === FORBIDDEN_KEY_VALUE) {
    const allowed = SSH_KEY_TYPES.filter((t) => keyRestrictionFor(settings, t) !== FORBIDDEN_KEY_VALUE).map((t) => t.toUpperCase());
    return [`type is forbidden. Must be ${orSentence(allowed)}`];
  }
  if (parsed && parsed.bits < restriction) return [`must be at least ${restriction} bits`];
  return [];
}

export interface SshKeyInput {
  title: string;
  key: string;
  expiresAt: number | null;
  /**
   * `max_ssh_key_lifetime` in days when the EE expiration policy applies (ultimate and the setting
   * set); ee/app/models/ee/key.rb then requires an expiry within that many days.
   */
  maxLifetimeDays?: number | null;
}

export interface SshKeyCheck {
  /** Attribute → messages, in the order ActiveRecord adds them; empty when valid. */
  errors: Record<string, string[]>;
  parsed: SshPublicKey | null;
  /** What is stored: the key without options, or the trimmed input when unparseable. */
  storedKey: string;
}

const push = (errors: Record<string, string[]>, attr: string, msg: string) => {
  (errors[attr] ??= []).push(msg);
};

/**
 * Key model validations in GitLab's order (app/models/key.rb): title presence/length; key
 * presence, SshKeyValidator, length, format; fingerprint presence; expiration (create only).
 * Uniqueness is the database's job (unique index) and is merged in by the caller.
 *
 * The fingerprint attribute is reported as `fingerprint`: spec document 2 (POST /user/keys) shows
 * the error body as `{message: {fingerprint: [..], key: [..]}}`, which is GitLab's shape up to
 * 15.0; 15.x+ renamed it `fingerprint_sha256`. The spec wins where it is explicit.
 */
export function checkSshKey(input: SshKeyInput, settings: KeyRestrictions, now = Date.now()): SshKeyCheck {
  const errors: Record<string, string[]> = {};
  const title = input.title.trim();
  if (!title) push(errors, 'title', "can't be blank");
  else if (input.title.length > 255) push(errors, 'title', 'is too long (maximum is 255 characters)');

  const raw = input.key.trim();
  const parsed = raw ? parseSshPublicKey(raw) : null;
  const storedKey = parsed ? parsed.text : raw;
  if (!raw) push(errors, 'key', "can't be blank");
  for (const msg of keyRestrictionErrors(settings, parsed)) push(errors, 'key', msg);
  if (storedKey.length > 5000) push(errors, 'key', 'is too long (maximum is 5000 characters)');
  if (!SUPPORTED_ALGORITHMS.some((a) => storedKey.startsWith(a))) push(errors, 'key', 'is invalid');
  if (!parsed) push(errors, 'fingerprint', 'cannot be generated');
  // Expirable#expired?: expires_at in the past (or now).
  if (input.expiresAt != null && input.expiresAt <= now) push(errors, 'key', 'has expired');
  if (input.maxLifetimeDays) {
    if (input.expiresAt == null) {
      push(errors, 'key', 'has no expiration date but an expiration date is required for SSH keys on this instance. Contact the instance administrator.');
    } else if (input.expiresAt > now + input.maxLifetimeDays * 86_400_000) {
      push(errors, 'key', 'has an invalid expiration date. Set a shorter lifetime for the key or contact the instance administrator.');
    }
  }
  return { errors, parsed, storedKey };
}

/** Adds the uniqueness failure in the spec's shape (`fingerprint` then `key`). */
export function withTakenErrors(errors: Record<string, string[]>): Record<string, string[]> {
  const merged: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(errors)) {
    if (k === 'key' || k === 'fingerprint') continue;
    merged[k] = v;
  }
  merged.fingerprint = [...(errors.fingerprint ?? []), 'has already been taken'];
  merged.key = [...(errors.key ?? []), 'has already been taken'];
  return merged;
}
