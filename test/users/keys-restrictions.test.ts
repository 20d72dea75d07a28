/**
 * Key restriction settings through PUT /application/settings. Settings are instance-global, so this
 * file owns its own database and restores what it changed in afterAll.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken } from '../support';
import { freshSshKey, SSH_KEYS } from '../fixtures/keys';

const CHANGED = ['rsa_key_restriction', 'dsa_key_restriction', 'ecdsa_key_restriction', 'ed25519_key_restriction', 'ecdsa_sk_key_restriction', 'ed25519_sk_key_restriction', 'max_ssh_key_lifetime'] as const;
let original: Record<string, unknown> = {};

const put = (body: Record<string, unknown>) => api('/application/settings', { method: 'PUT', token: rootToken, body });

beforeAll(async () => {
  const res = await api('/application/settings', { token: rootToken });
  expect(res.status).toBe(200);
  original = Object.fromEntries(CHANGED.map((k) => [k, res.body[k]]));
});

afterAll(async () => {
  await put(original);
});

describe('POST /user/keys under key restriction settings', () => {
  it('a minimum RSA size refuses smaller keys, accepts larger ones', async () => {
    expect((await put({ rsa_key_restriction: 3072 })).status).toBe(200);
    const u = await createUser();
    const small = await api('/user/keys', { token: u.token, body: { title: 't', key: SSH_KEYS.rsa2048.key } });
    expect(small.status).toBe(400);
    expect(small.body).toEqual({ message: { key: ['must be at least 3072 bits'] } });
    expect((await api('/user/keys', { token: u.token, body: { title: 't', key: SSH_KEYS.rsa4096.key } })).status).toBe(201);
    expect((await api('/user/keys', { token: u.token })).body).toHaveLength(1);
    expect((await put({ rsa_key_restriction: 0 })).status).toBe(200);
    expect((await api('/user/keys', { token: u.token, body: { title: 't', key: SSH_KEYS.rsa2048.key } })).status).toBe(201);
  });

  it('-1 forbids a type on both the own and the admin route, naming the allowed types', async () => {
    expect((await put({ dsa_key_restriction: -1, ed25519_sk_key_restriction: -1 })).status).toBe(200);
    const u = await createUser();
    const own = await api('/user/keys', { token: u.token, body: { title: 't', key: SSH_KEYS.dsa1024.key } });
    expect(own.body).toEqual({ message: { key: ['type is forbidden. Must be RSA, ECDSA, ED25519, or ECDSA_SK'] } });
    const admin = await api(`/users/${u.id}/keys`, { token: rootToken, body: { title: 't', key: freshSshKey('ed25519_sk').key } });
    expect(admin.status).toBe(400);
    expect(admin.body.message.key).toEqual(['type is forbidden. Must be RSA, ECDSA, ED25519, or ECDSA_SK']);
    expect((await api('/user/keys', { token: u.token })).body).toEqual([]);
    expect((await put({ dsa_key_restriction: 0, ed25519_sk_key_restriction: 0 })).status).toBe(200);
    expect((await api('/user/keys', { token: u.token, body: { title: 't', key: SSH_KEYS.dsa1024.key } })).status).toBe(201);
  });

  it('ECDSA restrictions compare the curve size', async () => {
    expect((await put({ ecdsa_key_restriction: 384 })).status).toBe(200);
    const u = await createUser();
    expect((await api('/user/keys', { token: u.token, body: { title: 't', key: SSH_KEYS.ecdsa256.key } })).body).toEqual({ message: { key: ['must be at least 384 bits'] } });
    expect((await api('/user/keys', { token: u.token, body: { title: 't', key: SSH_KEYS.ecdsa521.key } })).status).toBe(201);
    expect((await put({ ecdsa_key_restriction: 0 })).status).toBe(200);
  });

  it('ED25519 and ECDSA_SK can be forbidden (the message lists the remaining types), and 256 admits them', async () => {
    const u = await createUser();
    try {
      expect((await put({ ed25519_key_restriction: -1, ecdsa_sk_key_restriction: -1 })).status).toBe(200);
      const forbidden = { message: { key: ['type is forbidden. Must be RSA, DSA, ECDSA, or ED25519_SK'] } };
      expect((await api('/user/keys', { token: u.token, body: { title: 't', key: SSH_KEYS.ed25519256.key } })).body).toEqual(forbidden);
      const sk = await api(`/users/${u.id}/keys`, { token: rootToken, body: { title: 't', key: freshSshKey('ecdsa_sk').key } });
      expect(sk.status).toBe(400);
      expect(sk.body).toEqual(forbidden);
      expect((await api('/user/keys', { token: u.token })).body).toEqual([]);
      expect((await put({ ed25519_key_restriction: 256, ecdsa_sk_key_restriction: 256 })).status).toBe(200);
      expect((await api('/user/keys', { token: u.token, body: { title: 't', key: freshSshKey('ed25519').key } })).status).toBe(201);
      expect((await api(`/users/${u.id}/keys`, { token: rootToken, body: { title: 't', key: freshSshKey('ecdsa_sk').key } })).status).toBe(201);
    } finally {
      expect((await put({ ed25519_key_restriction: 0, ecdsa_sk_key_restriction: 0 })).status).toBe(200);
    }
  });

  it('max_ssh_key_lifetime (ultimate) requires an expiry date within the lifetime', async () => {
    expect((await put({ max_ssh_key_lifetime: 10 })).status).toBe(200);
    const u = await createUser();
    const res = await api('/user/keys', { token: u.token, body: { title: 't', key: freshSshKey().key } });
    expect(res.body).toEqual({ message: { key: ['has no expiration date but an expiration date is required for SSH keys on this instance. Contact the instance administrator.'] } });
    const near = new Date(Date.now() + 5 * 86_400_000).toISOString();
    expect((await api('/user/keys', { token: u.token, body: { title: 't', key: freshSshKey().key, expires_at: near } })).status).toBe(201);
    expect((await put({ max_ssh_key_lifetime: null })).status).toBe(200);
    expect((await api('/user/keys', { token: u.token, body: { title: 't', key: freshSshKey().key } })).status).toBe(201);
  });
});
