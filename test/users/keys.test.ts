import { describe, expect, it } from 'vitest';
import { api, createToken, createUser, rootToken } from '../support';
import { freshSshKey, SSH_KEYS } from '../fixtures/keys';

const publishable = (key: string, name: string) => `${key.split(' ').slice(0, 2).join(' ')} ${name} (localhost)`;

async function addKey(token: string, body: Record<string, unknown>) {
  return api('/user/keys', { token, body });
}

describe('POST /user/keys', () => {
  it('creates a key: 201, SSHKey entity in GitLab order, publishable key, readable back', async () => {
    const u = await createUser();
    const fx = SSH_KEYS.rsa3072;
    const res = await addKey(u.token, { title: 'laptop', key: fx.key, expires_at: '2099-01-02T03:04:05Z' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'title', 'created_at', 'expires_at', 'key', 'usage_type']);
    expect(res.body).toMatchObject({ title: 'laptop', expires_at: '2099-01-02T03:04:05.000Z', usage_type: 'auth_and_signing', key: publishable(fx.key, u.name) });
    expect(res.body.key).not.toContain('fixture-rsa-3072@example.com');
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const one = await api(`/user/keys/${res.body.id}`, { token: u.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(res.body);
    const list = await api('/user/keys', { token: u.token });
    expect(list.body).toEqual([res.body]);
    expect(list.headers.get('x-total')).toBe('1');
  });

  it('strips authorized_keys options and accepts form bodies and usage_type', async () => {
    const u = await createUser();
    const fx = freshSshKey('ecdsa', 384, 'someone@example.com');
    const res = await api('/user/keys', { token: u.token, form: { title: 't', key: `no-pty,command="ls -l" ${fx.key}`, usage_type: 'signing' } });
    expect(res.status).toBe(201);
    expect(res.body.key).toBe(`${fx.algorithm} ${fx.blob64} ${u.name} (localhost)`);
    expect(res.body.usage_type).toBe('signing');
    expect(res.body.expires_at).toBeNull();
  });

  it('answers Grape 400s for missing params and a bad usage_type / expires_at', async () => {
    const u = await createUser();
    expect((await addKey(u.token, {})).body).toEqual({ error: 'key is missing, title is missing' });
    expect((await addKey(u.token, { key: freshSshKey().key })).body).toEqual({ error: 'title is missing' });
    const bad = await addKey(u.token, { key: freshSshKey().key, title: 't', usage_type: 'both' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'usage_type does not have a valid value' });
    expect((await addKey(u.token, { key: freshSshKey().key, title: 't', expires_at: 'soon' })).body).toEqual({ error: 'expires_at is invalid' });
    expect((await api('/user/keys', { token: u.token })).body).toEqual([]);
  });

  it('answers the model errors of a pasted private key and writes nothing', async () => {
    const u = await createUser();
    const res = await addKey(u.token, { title: 't', key: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: {
        key: ['type is forbidden. Must be RSA, DSA, ECDSA, ED25519, ECDSA_SK, or ED25519_SK', 'is invalid'],
        fingerprint: ['cannot be generated'],
      },
    });
    expect((await api('/user/keys', { token: u.token })).body).toEqual([]);
  });

  it('refuses a truncated blob, a blob of another type, a blank title and a too-long title', async () => {
    const u = await createUser();
    const [alg, blob] = SSH_KEYS.ecdsa384.key.split(' ');
    const truncated = await addKey(u.token, { title: 't', key: `${alg} ${blob.slice(0, 60)}` });
    expect(truncated.body).toEqual({ message: { key: ['type is forbidden. Must be RSA, DSA, ECDSA, ED25519, ECDSA_SK, or ED25519_SK'], fingerprint: ['cannot be generated'] } });
    const wrongType = await addKey(u.token, { title: 't', key: `ssh-ed25519 ${blob}` });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message.fingerprint).toEqual(['cannot be generated']);
    expect((await addKey(u.token, { title: '', key: freshSshKey().key })).body).toEqual({ message: { title: ["can't be blank"] } });
    expect((await addKey(u.token, { title: 'x'.repeat(256), key: freshSshKey().key })).body).toEqual({ message: { title: ['is too long (maximum is 255 characters)'] } });
    expect((await api('/user/keys', { token: u.token })).body).toEqual([]);
  });

  it('refuses an expired key', async () => {
    const u = await createUser();
    const res = await addKey(u.token, { title: 't', key: freshSshKey().key, expires_at: '2020-01-01T00:00:00Z' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { key: ['has expired'] } });
  });

  it('a key already used by anyone answers the spec body {fingerprint, key} and changes nothing', async () => {
    const a = await createUser();
    const b = await createUser();
    const fx = freshSshKey('rsa', 2048);
    expect((await addKey(a.token, { title: 'a', key: fx.key })).status).toBe(201);
    // Same blob, different comment and options: still the same key.
    const dup = await addKey(b.token, { title: 'b', key: `restrict ${fx.algorithm} ${fx.blob64} other@host` });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ message: { fingerprint: ['has already been taken'], key: ['has already been taken'] } });
    expect((await api('/user/keys', { token: b.token })).body).toEqual([]);
    expect((await addKey(a.token, { title: 'again', key: fx.key })).status).toBe(400);
    expect((await api('/user/keys', { token: a.token })).body).toHaveLength(1);
  });

  it('concurrent duplicates: one 201, the rest the same 400, never 500', async () => {
    const users = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
    const fx = freshSshKey('ed25519');
    const results = await Promise.all(users.map((u) => addKey(u.token, { title: 'race', key: fx.key })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 400, 400, 400]);
    for (const r of results.filter((x) => x.status === 400)) {
      expect(r.body).toEqual({ message: { fingerprint: ['has already been taken'], key: ['has already been taken'] } });
    }
    const counts = await Promise.all(users.map(async (u) => (await api('/user/keys', { token: u.token })).body.length));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('needs authentication and a write scope', async () => {
    expect((await addKey('', { title: 't', key: freshSshKey().key })).status).toBe(401);
    // Authentication comes before parameter validation (users.rb `before { authenticate! }`).
    expect(await addKey('', {})).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect((await api('/user/keys/abc', { method: 'DELETE' })).status).toBe(401);
    expect((await api('/users/1/keys', { method: 'POST' })).status).toBe(401);
    expect((await api('/users/1/keys/abc', { method: 'DELETE' })).status).toBe(401);
    const u = await createUser();
    const readOnly = await createToken(u.id, ['read_user']);
    const res = await addKey(readOnly, { title: 't', key: freshSshKey().key });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('insufficient_scope');
    expect((await api('/user/keys', { token: readOnly })).status).toBe(200);
  });
});

describe('GET /user/keys/:key_id', () => {
  it("another user's key is 404 Key Not Found, even for an administrator", async () => {
    const u = await createUser();
    const created = await addKey(u.token, { title: 't', key: freshSshKey().key });
    const other = await createUser();
    expect(await api(`/user/keys/${created.body.id}`, { token: other.token })).toMatchObject({ status: 404, body: { message: '404 Key Not Found' } });
    expect(await api(`/user/keys/${created.body.id}`, { token: rootToken })).toMatchObject({ status: 404, body: { message: '404 Key Not Found' } });
    expect(await api('/user/keys/abc', { token: u.token })).toMatchObject({ status: 404, body: { message: '404 Key Not Found' } });
    expect((await api('/user/keys', {})).status).toBe(401);
  });
});

describe('DELETE /user/keys/:key_id', () => {
  it('deletes: 204 with an empty body, then 404; honours If-Unmodified-Since', async () => {
    const u = await createUser();
    const created = await addKey(u.token, { title: 't', key: freshSshKey().key });
    const stale = await api(`/user/keys/${created.body.id}`, { method: 'DELETE', token: u.token, headers: { 'If-Unmodified-Since': 'Mon, 01 Jan 2001 00:00:00 GMT' } });
    expect(stale.status).toBe(412);
    expect((await api(`/user/keys/${created.body.id}`, { token: u.token })).status).toBe(200);

    const other = await createUser();
    expect((await api(`/user/keys/${created.body.id}`, { method: 'DELETE', token: other.token })).body).toEqual({ message: '404 Key Not Found' });

    const del = await api(`/user/keys/${created.body.id}`, { method: 'DELETE', token: u.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await api(`/user/keys/${created.body.id}`, { token: u.token })).status).toBe(404);
    expect((await api(`/user/keys/${created.body.id}`, { method: 'DELETE', token: u.token })).status).toBe(404);
  });

  it('a deleted key can be registered again', async () => {
    const u = await createUser();
    const fx = freshSshKey();
    const created = await addKey(u.token, { title: 't', key: fx.key });
    await api(`/user/keys/${created.body.id}`, { method: 'DELETE', token: u.token });
    expect((await addKey(u.token, { title: 't2', key: fx.key })).status).toBe(201);
  });
});

describe('GET /users/:id_or_username/keys and /users/:id/keys/:key_id', () => {
  it('lists by id or username for any signed-in user, paginated', async () => {
    const u = await createUser();
    const reader = await createUser();
    const k1 = await addKey(u.token, { title: 'one', key: freshSshKey('ed25519_sk').key });
    const k2 = await addKey(u.token, { title: 'two', key: freshSshKey('ecdsa_sk').key });
    const byId = await api(`/users/${u.id}/keys`, { token: reader.token });
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual([k1.body, k2.body]);
    expect((await api(`/users/${u.username}/keys`, { token: reader.token })).body).toEqual([k1.body, k2.body]);
    const page = await api(`/users/${u.id}/keys?per_page=1&page=2`, { token: reader.token });
    expect(page.body).toEqual([k2.body]);
    expect(page.headers.get('x-total')).toBe('2');
    expect(page.headers.get('x-total-pages')).toBe('2');
  });

  it('is public (users.rb authenticate_non_get!), then 404 User Not Found for a missing user', async () => {
    const u = await createUser();
    const k = await addKey(u.token, { title: 'one', key: freshSshKey().key });
    expect(await api(`/users/${u.id}/keys`)).toMatchObject({ status: 200, body: [k.body] });
    expect(await api(`/users/${u.username}/keys`)).toMatchObject({ status: 200, body: [k.body] });
    expect(await api(`/users/${u.id}/keys/${k.body.id}`)).toMatchObject({ status: 200, body: k.body });
    expect(await api(`/users/${u.id}/keys/${k.body.id + 1000000}`)).toMatchObject({ status: 404, body: { message: '404 Key Not Found' } });
    expect(await api('/users/999999999/keys')).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect(await api('/users/no-such-user-xyz/keys')).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect(await api('/users/999999999/keys/1')).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect(await api('/users/999999999/keys', { token: u.token })).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect(await api('/users/no-such-user-xyz/keys', { token: u.token })).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect(await api('/users/999999999/keys/1', { token: u.token })).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
  });

  it('reads one key of a user; a key of someone else is 404 Key Not Found', async () => {
    const u = await createUser();
    const other = await createUser();
    const k = await addKey(u.token, { title: 'one', key: freshSshKey().key });
    const res = await api(`/users/${u.id}/keys/${k.body.id}`, { token: other.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(k.body);
    expect(await api(`/users/${other.id}/keys/${k.body.id}`, { token: other.token })).toMatchObject({ status: 404, body: { message: '404 Key Not Found' } });
    expect((await api(`/users/${u.id}/keys/abc`, { token: other.token })).body).toEqual({ error: 'key_id is invalid' });
  });
});

describe('POST /users/:id/keys and DELETE /users/:id/keys/:key_id (administrators)', () => {
  it('an administrator adds and deletes a key of another user', async () => {
    const u = await createUser();
    const fx = freshSshKey('dsa');
    const res = await api(`/users/${u.id}/keys`, { token: rootToken, body: { title: 'by admin', key: fx.key } });
    expect(res.status).toBe(201);
    expect(res.body.key).toBe(`${fx.algorithm} ${fx.blob64} ${u.name} (localhost)`);
    expect((await api('/user/keys', { token: u.token })).body).toEqual([res.body]);

    expect(await api(`/users/${u.id}/keys/999999999`, { method: 'DELETE', token: rootToken })).toMatchObject({ status: 404, body: { message: '404 Key Not Found' } });
    const del = await api(`/users/${u.id}/keys/${res.body.id}`, { method: 'DELETE', token: rootToken });
    expect(del.status).toBe(204);
    expect((await api('/user/keys', { token: u.token })).body).toEqual([]);
  });

  it('refuses non-administrators (403) and anonymous callers (401); 404 for a missing user', async () => {
    const u = await createUser();
    const body = { title: 't', key: freshSshKey().key };
    expect(await api(`/users/${u.id}/keys`, { token: u.token, body })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await api(`/users/${u.id}/keys`, { body })).status).toBe(401);
    expect(await api('/users/999999999/keys', { token: rootToken, body })).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect((await api('/user/keys', { token: u.token })).body).toEqual([]);

    const k = await addKey(u.token, body);
    expect((await api(`/users/${u.id}/keys/${k.body.id}`, { method: 'DELETE', token: u.token })).status).toBe(403);
    expect((await api(`/users/${u.id}/keys/${k.body.id}`, { method: 'DELETE' })).status).toBe(401);
    expect((await api('/user/keys', { token: u.token })).body).toHaveLength(1);
  });

  it('validation errors for the admin route are the model body too', async () => {
    const u = await createUser();
    const res = await api(`/users/${u.id}/keys`, { token: rootToken, body: { title: 't', key: 'ssh-rsa nope' } });
    expect(res.status).toBe(400);
    expect(res.body.message.fingerprint).toEqual(['cannot be generated']);
  });
});
