import { describe, expect, it } from 'vitest';
import { checkSshKey, keyRestrictionErrors, orSentence, parseSshPublicKey, publishableKey, withTakenErrors } from '../../src/users/ssh-key';
import { freshSshBlob, freshSshKey, SSH_KEYS } from '../fixtures/keys';

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const none = {};

describe('parseSshPublicKey on keys made by ssh-keygen', () => {
  for (const [name, fx] of Object.entries(SSH_KEYS)) {
    it(`${name}: type, bits and both fingerprints match ssh-keygen -l`, () => {
      const k = parseSshPublicKey(fx.key)!;
      expect(k).not.toBeNull();
      expect(k.type).toBe(fx.type);
      expect(k.bits).toBe(fx.bits);
      expect(k.fingerprintMd5).toBe(fx.md5);
      expect(k.fingerprintSha256).toBe(fx.sha256);
      expect(k.text).toBe(fx.key);
      expect(k.comment).toBe(fx.key.split(' ').slice(2).join(' '));
    });
  }

  it('strips authorized_keys options, including quoted ones with spaces', () => {
    const fx = SSH_KEYS.ed25519256;
    const k = parseSshPublicKey(`no-pty,command="echo ssh-rsa hi",from="10.0.0.1" ${fx.key}`)!;
    expect(k.text).toBe(fx.key);
    expect(k.fingerprintSha256).toBe(fx.sha256);
    expect(parseSshPublicKey(`restrict ${SSH_KEYS.rsa2048.key}`)!.bits).toBe(2048);
  });

  it('accepts a key without comment and joins a blob broken over lines', () => {
    const [alg, blob] = SSH_KEYS.rsa4096.key.split(' ');
    expect(parseSshPublicKey(`${alg} ${blob}`)!.comment).toBeNull();
    const broken = `${alg} ${blob.slice(0, 100)}\n${blob.slice(100, 300)}\n${blob.slice(300)} me@host`;
    const k = parseSshPublicKey(broken)!;
    expect(k.fingerprintMd5).toBe(SSH_KEYS.rsa4096.md5);
    expect(k.comment).toBe('me@host');
  });

  it('reads RSA bits from the modulus, not the blob size', () => {
    for (const bits of [1023, 2047, 2048, 3000]) {
      const { blob } = freshSshBlob('rsa', bits);
      expect(parseSshPublicKey(`ssh-rsa ${b64(blob)}`)!.bits).toBe(bits);
    }
    expect(parseSshPublicKey(freshSshKey('dsa', 2048).key)!.bits).toBe(2048);
  });

  it('computes fingerprints of generated keys of every type', () => {
    for (const [type, bits] of [['rsa', 2048], ['dsa', 1024], ['ecdsa', 384], ['ed25519', 256], ['ecdsa_sk', 256], ['ed25519_sk', 256]] as const) {
      const fx = freshSshKey(type, bits);
      const k = parseSshPublicKey(fx.key)!;
      expect(k.type).toBe(type);
      expect(k.bits).toBe(bits);
      expect(k.fingerprintSha256).toBe(fx.sha256);
      expect(k.fingerprintMd5).toBe(fx.md5);
    }
  });
});

describe('parseSshPublicKey on garbage', () => {
  it('refuses a pasted private key', () => {
    const pem = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----';
    expect(parseSshPublicKey(pem)).toBeNull();
  });

  it('refuses a truncated blob', () => {
    const [alg, blob, c] = SSH_KEYS.rsa2048.key.split(' ');
    expect(parseSshPublicKey(`${alg} ${blob.slice(0, blob.length - 40)} ${c}`)).toBeNull();
    const raw = Buffer.from(blob, 'base64');
    expect(parseSshPublicKey(`${alg} ${raw.subarray(0, raw.length - 1).toString('base64')}`)).toBeNull();
  });

  it('refuses a blob whose inner type differs from the prefix', () => {
    const [, blob] = SSH_KEYS.ed25519256.key.split(' ');
    expect(parseSshPublicKey(`ssh-rsa ${blob}`)).toBeNull();
    const [, ecBlob] = SSH_KEYS.ecdsa256.key.split(' ');
    expect(parseSshPublicKey(`ecdsa-sha2-nistp384 ${ecBlob}`)).toBeNull();
  });

  it('gives up quickly on huge input split into many pieces', () => {
    const started = Date.now();
    expect(parseSshPublicKey(`ssh-rsa ${'AAAA '.repeat(200_000)}`)).toBeNull();
    expect(parseSshPublicKey(`ssh-rsa ${'AAAA '.repeat(3_000)}`)).toBeNull();
    expect(Date.now() - started).toBeLessThan(1000);
    const r = checkSshKey({ title: 't', key: `ssh-rsa ${'AAAA '.repeat(200_000)}`, expiresAt: null }, none);
    expect(r.errors.key).toContain('is too long (maximum is 5000 characters)');
  });

  it('refuses trailing bytes, bad base64, unknown algorithms and empty input', () => {
    const { blob } = freshSshBlob('ed25519');
    expect(parseSshPublicKey(`ssh-ed25519 ${b64(Buffer.concat([blob, Buffer.from([0])]))}`)).toBeNull();
    expect(parseSshPublicKey('ssh-ed25519 AAAA!!!!')).toBeNull();
    expect(parseSshPublicKey('ssh-foo AAAAB3NzaC1yc2E=')).toBeNull();
    expect(parseSshPublicKey('ssh-rsa')).toBeNull();
    expect(parseSshPublicKey('   ')).toBeNull();
  });
});

describe('publishableKey', () => {
  it('replaces the comment with "<owner name> (<host>)"', () => {
    const [alg, blob] = SSH_KEYS.ed25519256.key.split(' ');
    expect(publishableKey(SSH_KEYS.ed25519256.key, 'Jane Doe', 'gitlab.example.com')).toBe(`${alg} ${blob} Jane Doe (gitlab.example.com)`);
    expect(publishableKey(`${alg} ${blob}`, 'A', 'h')).toBe(`${alg} ${blob} A (h)`);
  });
});

describe('key restrictions (SshKeyValidator)', () => {
  const rsa1024 = parseSshPublicKey(SSH_KEYS.rsa1024.key);
  const dsa = parseSshPublicKey(SSH_KEYS.dsa1024.key);

  it('0 allows any size, N demands at least N bits', () => {
    expect(keyRestrictionErrors({ rsa_key_restriction: 0 }, rsa1024)).toEqual([]);
    expect(keyRestrictionErrors({ rsa_key_restriction: 2048 }, rsa1024)).toEqual(['must be at least 2048 bits']);
    expect(keyRestrictionErrors({ rsa_key_restriction: 1024 }, rsa1024)).toEqual([]);
  });

  it('-1 forbids the type and lists the allowed ones as a sentence', () => {
    expect(keyRestrictionErrors({ dsa_key_restriction: -1 }, dsa)).toEqual(['type is forbidden. Must be RSA, ECDSA, ED25519, ECDSA_SK, or ED25519_SK']);
    const onlyTwo = { rsa_key_restriction: -1, dsa_key_restriction: 0, ecdsa_key_restriction: 0, ed25519_key_restriction: -1, ecdsa_sk_key_restriction: -1, ed25519_sk_key_restriction: -1 };
    expect(keyRestrictionErrors(onlyTwo, rsa1024)).toEqual(['type is forbidden. Must be DSA or ECDSA']);
  });

  it('an unparseable key counts as a forbidden type', () => {
    expect(keyRestrictionErrors(none, null)).toEqual(['type is forbidden. Must be RSA, DSA, ECDSA, ED25519, ECDSA_SK, or ED25519_SK']);
  });

  it('orSentence follows Rails to_sentence with "or"', () => {
    expect(orSentence([])).toBe('');
    expect(orSentence(['A'])).toBe('A');
    expect(orSentence(['A', 'B'])).toBe('A or B');
    expect(orSentence(['A', 'B', 'C'])).toBe('A, B, or C');
  });
});

describe('checkSshKey (Key model validations in GitLab order)', () => {
  it('accepts a valid key and stores it without options', () => {
    const r = checkSshKey({ title: 't', key: `no-pty ${SSH_KEYS.ecdsa521.key}  `, expiresAt: null }, none);
    expect(r.errors).toEqual({});
    expect(r.storedKey).toBe(SSH_KEYS.ecdsa521.key);
    expect(r.parsed!.bits).toBe(521);
  });

  it('reports a pasted private key like GitLab: restriction, format, fingerprint', () => {
    const r = checkSshKey({ title: 't', key: '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----', expiresAt: null }, { dsa_key_restriction: -1 });
    expect(r.errors).toEqual({
      key: ['type is forbidden. Must be RSA, ECDSA, ED25519, ECDSA_SK, or ED25519_SK', 'is invalid'],
      fingerprint: ['cannot be generated'],
    });
    expect(Object.keys(r.errors)).toEqual(['key', 'fingerprint']);
  });

  it('a truncated key with a valid prefix keeps the format but cannot be fingerprinted', () => {
    const [alg, blob] = SSH_KEYS.rsa2048.key.split(' ');
    const r = checkSshKey({ title: 't', key: `${alg} ${blob.slice(0, 80)}`, expiresAt: null }, none);
    expect(r.errors).toEqual({ key: ['type is forbidden. Must be RSA, DSA, ECDSA, ED25519, ECDSA_SK, or ED25519_SK'], fingerprint: ['cannot be generated'] });
  });

  it('title blank or too long; key too long; expired', () => {
    expect(checkSshKey({ title: '  ', key: SSH_KEYS.rsa2048.key, expiresAt: null }, none).errors).toEqual({ title: ["can't be blank"] });
    expect(checkSshKey({ title: 'x'.repeat(256), key: SSH_KEYS.rsa2048.key, expiresAt: null }, none).errors).toEqual({ title: ['is too long (maximum is 255 characters)'] });
    const long = `${SSH_KEYS.rsa4096.key} ${'c'.repeat(5000)}`;
    expect(checkSshKey({ title: 't', key: long, expiresAt: null }, none).errors).toEqual({ key: ['is too long (maximum is 5000 characters)'] });
    const now = Date.now();
    expect(checkSshKey({ title: 't', key: SSH_KEYS.rsa2048.key, expiresAt: now - 1000 }, none, now).errors).toEqual({ key: ['has expired'] });
    expect(checkSshKey({ title: 't', key: SSH_KEYS.rsa2048.key, expiresAt: now + 60_000 }, none, now).errors).toEqual({});
  });

  it('max_ssh_key_lifetime (EE policy) requires an expiry within the lifetime', () => {
    const now = Date.now();
    const key = SSH_KEYS.rsa2048.key;
    expect(checkSshKey({ title: 't', key, expiresAt: null, maxLifetimeDays: 30 }, none, now).errors).toEqual({
      key: ['has no expiration date but an expiration date is required for SSH keys on this instance. Contact the instance administrator.'],
    });
    expect(checkSshKey({ title: 't', key, expiresAt: now + 31 * 86_400_000, maxLifetimeDays: 30 }, none, now).errors).toEqual({
      key: ['has an invalid expiration date. Set a shorter lifetime for the key or contact the instance administrator.'],
    });
    expect(checkSshKey({ title: 't', key, expiresAt: now + 29 * 86_400_000, maxLifetimeDays: 30 }, none, now).errors).toEqual({});
    expect(checkSshKey({ title: 't', key, expiresAt: null, maxLifetimeDays: null }, none, now).errors).toEqual({});
  });

  it('a blank key is blank, forbidden, invalid and unfingerprintable', () => {
    expect(checkSshKey({ title: 't', key: '', expiresAt: null }, none).errors).toEqual({
      key: ["can't be blank", 'type is forbidden. Must be RSA, DSA, ECDSA, ED25519, ECDSA_SK, or ED25519_SK', 'is invalid'],
      fingerprint: ['cannot be generated'],
    });
  });

  it('withTakenErrors gives the spec shape {fingerprint, key} after other attributes', () => {
    expect(withTakenErrors({})).toEqual({ fingerprint: ['has already been taken'], key: ['has already been taken'] });
    expect(Object.keys(withTakenErrors({ title: ["can't be blank"] }))).toEqual(['title', 'fingerprint', 'key']);
  });
});
