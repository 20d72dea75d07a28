import { describe, expect, it } from 'vitest';
import { api, createToken, createUser, rootToken } from '../support';
import { armor, freshGpgKey, GPG_ED25519_KEY, GPG_RSA_KEY } from '../fixtures/keys';

const FORMAT = "is invalid. A valid public GPG key begins with '-----BEGIN PGP PUBLIC KEY BLOCK-----' and ends with '-----END PGP PUBLIC KEY BLOCK-----'";

const addGpg = (token: string, key: unknown) => api('/user/gpg_keys', { token, body: { key } });

describe('POST /user/gpg_keys', () => {
  it('creates from a gpg-generated key: 201 {id, key, created_at}, stripped, readable back', async () => {
    const u = await createUser();
    const res = await addGpg(u.token, `\n  ${GPG_RSA_KEY}\n\n`);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'key', 'created_at']);
    expect(res.body.key).toBe(GPG_RSA_KEY);
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((await api(`/user/gpg_keys/${res.body.id}`, { token: u.token })).body).toEqual(res.body);
    const list = await api('/user/gpg_keys', { token: u.token });
    expect(list.body).toEqual([res.body]);
    expect(list.headers.get('x-total')).toBe('1');
    expect((await addGpg(u.token, GPG_ED25519_KEY)).status).toBe(201);
  });

  it('refuses text that is not one armored public key block with the model message', async () => {
    const u = await createUser();
    expect(await addGpg(u.token, 'ssh-rsa AAAA')).toMatchObject({ status: 400, body: { message: { key: [FORMAT] } } });
    const two = await addGpg(u.token, `${freshGpgKey().key}\n${freshGpgKey().key}`);
    expect(two.body).toEqual({ message: { key: [FORMAT] } });
    expect((await addGpg(u.token, '')).body).toEqual({ message: { key: ["can't be blank", FORMAT] } });
    expect((await api('/user/gpg_keys', { token: u.token, body: {} })).body).toEqual({ error: 'key is missing' });
    expect((await api('/user/gpg_keys', { token: u.token })).body).toEqual([]);
  });

  it('an armored block whose key cannot be read (bad CRC, not a v4 key) has no fingerprint', async () => {
    const u = await createUser();
    const fresh = freshGpgKey();
    const badCrc = armor(fresh.data, { crc: 0x123456 });
    expect(await addGpg(u.token, badCrc)).toMatchObject({ status: 400, body: { message: { fingerprint: ["can't be blank"], primary_keyid: ["can't be blank"] } } });
    const v3 = Uint8Array.from(fresh.data);
    v3[2] = 3;
    expect((await addGpg(u.token, armor(v3))).body).toEqual({ message: { fingerprint: ["can't be blank"], primary_keyid: ["can't be blank"] } });
    expect((await api('/user/gpg_keys', { token: u.token })).body).toEqual([]);
  });

  it('the same key text is "key taken"; the same key in other armor is "fingerprint taken"', async () => {
    const a = await createUser();
    const b = await createUser();
    const fresh = freshGpgKey();
    expect((await addGpg(a.token, fresh.key)).status).toBe(201);
    expect(await addGpg(b.token, fresh.key)).toMatchObject({ status: 400, body: { message: { key: ['has already been taken'] } } });
    const rearmored = armor(fresh.data, { crc: null });
    expect((await addGpg(b.token, rearmored)).body).toEqual({ message: { fingerprint: ['has already been taken'], primary_keyid: ['has already been taken'] } });
    expect((await api('/user/gpg_keys', { token: b.token })).body).toEqual([]);
  });

  it('concurrent registrations of one key: one 201, the others 400, never 500', async () => {
    const users = await Promise.all([createUser(), createUser(), createUser()]);
    const fresh = freshGpgKey();
    const results = await Promise.all(users.map((u) => addGpg(u.token, fresh.key)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    for (const r of results.filter((x) => x.status === 400)) expect(r.body).toEqual({ message: { key: ['has already been taken'] } });
  });

  it('needs authentication and a write scope', async () => {
    expect((await addGpg('', freshGpgKey().key)).status).toBe(401);
    expect(await api('/user/gpg_keys', { method: 'POST' })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect((await api('/user/gpg_keys/x/revoke', { method: 'POST' })).status).toBe(401);
    expect((await api('/users/1/gpg_keys', { method: 'POST' })).status).toBe(401);
    expect((await api('/users/1/gpg_keys/x', { method: 'DELETE' })).status).toBe(401);
    const u = await createUser();
    const readOnly = await createToken(u.id, ['read_user']);
    expect((await addGpg(readOnly, freshGpgKey().key)).status).toBe(403);
    expect((await api('/user/gpg_keys', { token: readOnly })).status).toBe(200);
    expect((await api('/user/gpg_keys')).status).toBe(401);
  });
});

describe('GET/DELETE /user/gpg_keys/:key_id and revoke', () => {
  it("another user's key is 404 GPG Key Not Found, even for an administrator", async () => {
    const u = await createUser();
    const k = await addGpg(u.token, freshGpgKey().key);
    const other = await createUser();
    expect(await api(`/user/gpg_keys/${k.body.id}`, { token: other.token })).toMatchObject({ status: 404, body: { message: '404 GPG Key Not Found' } });
    expect(await api(`/user/gpg_keys/${k.body.id}`, { token: rootToken })).toMatchObject({ status: 404, body: { message: '404 GPG Key Not Found' } });
    expect((await api(`/user/gpg_keys/${k.body.id}`, { method: 'DELETE', token: other.token })).status).toBe(404);
    expect((await api(`/user/gpg_keys/${k.body.id}/revoke`, { method: 'POST', token: other.token })).status).toBe(404);
    expect((await api(`/user/gpg_keys/${k.body.id}`, { token: u.token })).status).toBe(200);
  });

  it('DELETE: 412 when stale, then 204 and gone', async () => {
    const u = await createUser();
    const k = await addGpg(u.token, freshGpgKey().key);
    const stale = await api(`/user/gpg_keys/${k.body.id}`, { method: 'DELETE', token: u.token, headers: { 'If-Unmodified-Since': 'Mon, 01 Jan 2001 00:00:00 GMT' } });
    expect(stale.status).toBe(412);
    const del = await api(`/user/gpg_keys/${k.body.id}`, { method: 'DELETE', token: u.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await api(`/user/gpg_keys/${k.body.id}`, { token: u.token })).status).toBe(404);
  });

  it('revoke answers 202 and removes the key', async () => {
    const u = await createUser();
    const k = await addGpg(u.token, freshGpgKey().key);
    const res = await api(`/user/gpg_keys/${k.body.id}/revoke`, { method: 'POST', token: u.token });
    expect(res.status).toBe(202);
    expect(res.body).toBe(202);
    expect((await api('/user/gpg_keys', { token: u.token })).body).toEqual([]);
  });
});

describe('/users/:id/gpg_keys', () => {
  it('lists and reads for anyone (users.rb authenticate_non_get!); 404 for a missing user or key', async () => {
    const u = await createUser();
    const reader = await createUser();
    expect(await api(`/users/${u.id}/gpg_keys`)).toMatchObject({ status: 200, body: [] });
    const k1 = await addGpg(u.token, freshGpgKey().key);
    const k2 = await addGpg(u.token, freshGpgKey({ oldFormat: true }).key);
    const list = await api(`/users/${u.id}/gpg_keys`, { token: reader.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([k1.body, k2.body]);
    expect((await api(`/users/${u.id}/gpg_keys?per_page=1`, { token: reader.token })).headers.get('x-total-pages')).toBe('2');
    expect((await api(`/users/${u.id}/gpg_keys/${k2.body.id}`, { token: reader.token })).body).toEqual(k2.body);
    expect(await api(`/users/${u.id}/gpg_keys/${k2.body.id}`)).toMatchObject({ status: 200, body: k2.body });
    expect(await api(`/users/${u.id}/gpg_keys`)).toMatchObject({ status: 200, body: [k1.body, k2.body] });
    expect(await api('/users/999999999/gpg_keys', { token: reader.token })).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect(await api('/users/999999999/gpg_keys')).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect(await api('/users/999999999/gpg_keys/1')).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect(await api(`/users/${u.id}/gpg_keys/${k2.body.id + 1000000}`)).toMatchObject({ status: 404, body: { message: '404 GPG Key Not Found' } });
    expect(await api(`/users/${reader.id}/gpg_keys/${k1.body.id}`, { token: reader.token })).toMatchObject({ status: 404, body: { message: '404 GPG Key Not Found' } });
  });

  it('administrators add, delete and revoke keys of a user; others get 403, anonymous 401', async () => {
    const u = await createUser();
    const fresh = freshGpgKey();
    expect((await api(`/users/${u.id}/gpg_keys`, { token: u.token, body: { key: fresh.key } })).status).toBe(403);
    expect((await api(`/users/${u.id}/gpg_keys`, { body: { key: fresh.key } })).status).toBe(401);
    expect(await api('/users/999999999/gpg_keys', { token: rootToken, body: { key: fresh.key } })).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    const created = await api(`/users/${u.id}/gpg_keys`, { token: rootToken, body: { key: fresh.key } });
    expect(created.status).toBe(201);
    expect((await api('/user/gpg_keys', { token: u.token })).body).toEqual([created.body]);

    expect((await api(`/users/${u.id}/gpg_keys/${created.body.id}`, { method: 'DELETE', token: u.token })).status).toBe(403);
    expect((await api(`/users/${u.id}/gpg_keys/${created.body.id}/revoke`, { method: 'POST', token: u.token })).status).toBe(403);
    expect((await api(`/users/${u.id}/gpg_keys/${created.body.id}`, { method: 'DELETE', token: rootToken })).status).toBe(204);
    expect((await api('/user/gpg_keys', { token: u.token })).body).toEqual([]);

    const again = await api(`/users/${u.id}/gpg_keys`, { token: rootToken, body: { key: freshGpgKey().key } });
    const revoked = await api(`/users/${u.id}/gpg_keys/${again.body.id}/revoke`, { method: 'POST', token: rootToken });
    expect(revoked.status).toBe(202);
    expect((await api('/user/gpg_keys', { token: u.token })).body).toEqual([]);
    expect(await api(`/users/${u.id}/gpg_keys/${again.body.id}`, { method: 'DELETE', token: rootToken })).toMatchObject({ status: 404, body: { message: '404 GPG Key Not Found' } });
  });
});
