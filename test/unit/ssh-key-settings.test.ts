/**
 * Key restriction settings end to end on a Node server of its own: the stored application settings
 * row (what PUT /application/settings writes) reaches POST /user/keys and POST /users/:id/keys
 * through `c.var.settings()`. Also the restricted public visibility level for the public key lists.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/config';
import { createNodeApp } from '../../src/node-app';
import { freshSshKey, SSH_KEYS } from '../fixtures/keys';

let call: (path: string, init?: { method?: string; body?: unknown; token?: string | null }) => Promise<{ status: number; body: any }>;
let setSettings: (data: Record<string, unknown>) => Promise<void>;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-keyset-'));
  const { app, db } = await createNodeApp({
    databaseUrl: `file:${join(dir, 'db.sqlite')}`,
    blobRoot: join(dir, 'blobs'),
    migrationsFolder: 'drizzle',
    env: { PASSWORD_HASH_ITERATIONS: '1000' },
  });
  call = async (path, init = {}) => {
    const token = init.token === undefined ? DEV_ROOT_TOKEN : init.token;
    const res = await app.fetch(
      new Request(`http://localhost/api/v4${path}`, {
        method: init.method ?? (init.body ? 'POST' : 'GET'),
        headers: { ...(token ? { 'PRIVATE-TOKEN': token } : {}), 'Content-Type': 'application/json' },
        body: init.body ? JSON.stringify(init.body) : undefined,
      }),
    );
    return { status: res.status, body: await res.json().catch(() => null) };
  };
  setSettings = async (data) => {
    const now = Date.now();
    await db.run(sql`INSERT INTO application_settings (id, data, created_at, updated_at) VALUES (1, ${JSON.stringify(data)}, ${now}, ${now})
      ON CONFLICT(id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`);
  };
});

let n = 0;
async function newUser() {
  n++;
  const res = await call('/users', { body: { email: `ks${n}@example.com`, name: `Key Settings ${n}`, username: `ks${n}`, password: 'secret-pass-123', skip_confirmation: true } });
  const tok = await call(`/users/${res.body.id}/personal_access_tokens`, { body: { name: 't', scopes: ['api'] } });
  return { id: res.body.id as number, token: tok.body.token as string };
}

describe('key restriction settings', () => {
  it('a minimum size refuses smaller keys and accepts larger ones', async () => {
    await setSettings({ rsa_key_restriction: 3072 });
    const u = await newUser();
    const small = await call('/user/keys', { token: u.token, body: { title: 't', key: SSH_KEYS.rsa2048.key } });
    expect(small).toEqual({ status: 400, body: { message: { key: ['must be at least 3072 bits'] } } });
    expect((await call('/user/keys', { token: u.token, body: { title: 't', key: SSH_KEYS.rsa4096.key } })).status).toBe(201);
    expect((await call('/user/keys', { token: u.token })).body).toHaveLength(1);
  });

  it('-1 forbids a type, listing the allowed ones; the admin route is restricted too', async () => {
    await setSettings({ dsa_key_restriction: -1, ed25519_sk_key_restriction: -1 });
    const u = await newUser();
    const res = await call(`/users/${u.id}/keys`, { body: { title: 't', key: SSH_KEYS.dsa1024.key } });
    expect(res).toEqual({ status: 400, body: { message: { key: ['type is forbidden. Must be RSA, ECDSA, ED25519, or ECDSA_SK'] } } });
    const sk = await call('/user/keys', { token: u.token, body: { title: 't', key: freshSshKey('ed25519_sk').key } });
    expect(sk.body.message.key).toEqual(['type is forbidden. Must be RSA, ECDSA, ED25519, or ECDSA_SK']);
    expect((await call('/user/keys', { token: u.token, body: { title: 't', key: freshSshKey('ecdsa_sk').key } })).status).toBe(201);
  });

  it('ECDSA restrictions compare the curve size', async () => {
    await setSettings({ ecdsa_key_restriction: 384 });
    const u = await newUser();
    expect((await call('/user/keys', { token: u.token, body: { title: 't', key: SSH_KEYS.ecdsa256.key } })).body).toEqual({ message: { key: ['must be at least 384 bits'] } });
    expect((await call('/user/keys', { token: u.token, body: { title: 't', key: SSH_KEYS.ecdsa521.key } })).status).toBe(201);
  });

  it('max_ssh_key_lifetime (ultimate) requires an expiry date within the lifetime', async () => {
    await setSettings({ max_ssh_key_lifetime: 10 });
    const u = await newUser();
    const none = await call('/user/keys', { token: u.token, body: { title: 't', key: freshSshKey().key } });
    expect(none).toEqual({ status: 400, body: { message: { key: ['has no expiration date but an expiration date is required for SSH keys on this instance. Contact the instance administrator.'] } } });
    const far = new Date(Date.now() + 20 * 86_400_000).toISOString();
    expect((await call('/user/keys', { token: u.token, body: { title: 't', key: freshSshKey().key, expires_at: far } })).body.message.key).toEqual([
      'has an invalid expiration date. Set a shorter lifetime for the key or contact the instance administrator.',
    ]);
    const near = new Date(Date.now() + 5 * 86_400_000).toISOString();
    expect((await call('/user/keys', { token: u.token, body: { title: 't', key: freshSshKey().key, expires_at: near } })).status).toBe(201);
    await setSettings({});
  });

  it('restricted public visibility hides the public key lists from anonymous callers only', async () => {
    await setSettings({ restricted_visibility_levels: ['public'] });
    const u = await newUser();
    expect((await call('/user/keys', { token: u.token, body: { title: 't', key: freshSshKey().key } })).status).toBe(201);
    expect(await call(`/users/${u.id}/keys`, { token: null })).toEqual({ status: 404, body: { message: '404 User Not Found' } });
    expect((await call(`/users/${u.id}/keys`, { token: u.token })).body).toHaveLength(1);
    await setSettings({});
    expect((await call(`/users/${u.id}/keys`, { token: null })).body).toHaveLength(1);
  });
});
