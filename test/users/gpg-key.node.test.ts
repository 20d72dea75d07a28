import { describe, expect, it } from 'vitest';
import { crc24, dearmor, hasGpgKeyFormat, parseGpgPublicKey, readPacket } from '../../src/users/gpg-key';
import { armor, freshGpgKey, GPG_ED25519_KEY, GPG_ED25519_KEY_FINGERPRINT, GPG_RSA_KEY, GPG_RSA_KEY_FINGERPRINT } from '../fixtures/keys';

describe('parseGpgPublicKey on keys made by gpg --batch --gen-key', () => {
  it('RSA 2048 (old-format packet header, two-octet length): fingerprint and key id as gpg reports them', () => {
    const k = parseGpgPublicKey(GPG_RSA_KEY)!;
    expect(k.fingerprint).toBe(GPG_RSA_KEY_FINGERPRINT);
    expect(k.keyId).toBe('333BFBDDB9501182');
    expect(k.algorithm).toBe(1);
  });

  it('Ed25519 primary key with a cv25519 subkey: the primary key counts', () => {
    const k = parseGpgPublicKey(GPG_ED25519_KEY)!;
    expect(k.fingerprint).toBe(GPG_ED25519_KEY_FINGERPRINT);
    expect(k.keyId).toBe('813F8F15C801E3E1');
    expect(k.algorithm).toBe(22);
  });

  it('hand-built v4 packets in new and old header formats', () => {
    const fresh = freshGpgKey();
    expect(parseGpgPublicKey(fresh.key)!.fingerprint).toBe(fresh.fingerprint);
    const old = freshGpgKey({ oldFormat: true });
    expect(parseGpgPublicKey(old.key)!.keyId).toBe(old.keyId);
  });

  it('accepts armor headers and a block without checksum line', () => {
    const fresh = freshGpgKey();
    const withHeaders = fresh.key.replace('-----\n\n', '-----\nVersion: GnuPG v2\nComment: test\n\n');
    expect(parseGpgPublicKey(withHeaders)!.fingerprint).toBe(fresh.fingerprint);
    expect(parseGpgPublicKey(armor(fresh.data, { crc: null }))!.fingerprint).toBe(fresh.fingerprint);
  });
});

describe('parseGpgPublicKey on garbage', () => {
  it('refuses a wrong CRC-24', () => {
    const fresh = freshGpgKey();
    expect(parseGpgPublicKey(armor(fresh.data, { crc: crc24(fresh.data) ^ 1 }))).toBeNull();
  });

  it('refuses a version 3 or truncated key packet', () => {
    const fresh = freshGpgKey();
    const v3 = Uint8Array.from(fresh.data);
    v3[2] = 3;
    expect(parseGpgPublicKey(armor(v3))).toBeNull();
    expect(parseGpgPublicKey(armor(fresh.data.subarray(0, 20)))).toBeNull();
  });

  it('refuses a block whose first packet is not a public key (e.g. a signature or a secret key)', () => {
    const fresh = freshGpgKey();
    const secret = Uint8Array.from(fresh.data);
    secret[0] = 0xc5; // tag 5, secret key
    expect(parseGpgPublicKey(armor(secret))).toBeNull();
  });

  it('refuses non-armored text and broken base64', () => {
    expect(parseGpgPublicKey('hello')).toBeNull();
    expect(parseGpgPublicKey('-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n!!!!\n-----END PGP PUBLIC KEY BLOCK-----')).toBeNull();
    expect(dearmor('-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n-----END PGP PUBLIC KEY BLOCK-----')).toBeNull();
  });
});

describe('armor format and packets', () => {
  it('CRC-24 of RFC 4880 (init 0xB704CE)', () => {
    expect(crc24(new Uint8Array())).toBe(0xb704ce);
    expect(crc24(new TextEncoder().encode('123456789'))).toBe(0x21cf02);
  });

  it('GpgKey format: exactly one block with both markers', () => {
    expect(hasGpgKeyFormat(GPG_RSA_KEY)).toBe(true);
    expect(hasGpgKeyFormat(`${GPG_RSA_KEY}\n${GPG_ED25519_KEY}`)).toBe(false);
    expect(hasGpgKeyFormat(GPG_RSA_KEY.replace('-----END PGP PUBLIC KEY BLOCK-----', ''))).toBe(false);
    expect(hasGpgKeyFormat('ssh-rsa AAAA')).toBe(false);
  });

  it('reads new-format five-octet lengths and old-format indeterminate lengths', () => {
    const five = readPacket(Uint8Array.of(0xc6, 0xff, 0, 0, 0, 2, 9, 9))!;
    expect(five).toMatchObject({ tag: 6 });
    expect(Array.from(five.body)).toEqual([9, 9]);
    const indeterminate = readPacket(Uint8Array.of(0x9b, 1, 2, 3))!;
    expect(indeterminate.tag).toBe(6);
    expect(Array.from(indeterminate.body)).toEqual([1, 2, 3]);
    expect(readPacket(Uint8Array.of(0xc6, 0xe1, 1))).toBeNull(); // partial length
    expect(readPacket(Uint8Array.of(0x46, 1, 1))).toBeNull(); // bit 7 clear
  });
});
