/**
 * Issue 13: the caller is cached per isolate (users/caller-cache.ts). Within one app (one isolate)
 * every write that revokes, rotates or deletes a credential, or changes the user, applies to the
 * very next request; a warm GET /user spends no round trip on authentication.
 * (Writes made in another isolate, seen within the TTL: caller-cache-ttl.node.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, fetchApi, rootToken } from '../support';

const roundTrips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));
const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

describe('GET /user round trips', () => {
  it('costs at most 3 cold, then 1 (the presenter\'s extras) while the caller is cached', async () => {
    const u = await createUser();
    const cold = await api('/user', { token: u.token });
    expect(cold.status).toBe(200);
    // Token, user and settings in one batch; the first last_used_at write; the extras.
    expect(roundTrips(cold)).toBeLessThanOrEqual(3);
    const warm = await api('/user', { token: u.token });
    expect(warm.body.id).toBe(u.id);
    expect(roundTrips(warm)).toBe(1);
    // The same through OAuth, and a personal token sent as Bearer (both lookups went in one batch).
    const oauth = await api('/oauth/token', { form: { grant_type: 'password', username: u.username, password: u.password } });
    expect(oauth.status).toBe(200);
    await api('/user', bearer(oauth.body.access_token));
    const warmOauth = await api('/user', bearer(oauth.body.access_token));
    expect([warmOauth.status, roundTrips(warmOauth)]).toEqual([200, 1]);
    const patAsBearer = await api('/user', bearer(u.token));
    expect([patAsBearer.status, roundTrips(patAsBearer)]).toEqual([200, 1]);
  });
});

describe('invalidation within the isolate', () => {
  it('a token revoked by its owner or by an administrator is refused on the next request', async () => {
    const u = await createUser();
    expect((await api('/user', { token: u.token })).status).toBe(200);
    expect((await api('/personal_access_tokens/self', { method: 'DELETE', token: u.token })).status).toBe(204);
    expect(await api('/user', { token: u.token })).toMatchObject({ status: 401, body: { error: 'invalid_token' } });

    const second = await api(`/users/${u.id}/personal_access_tokens`, { token: rootToken, body: { name: 'two', scopes: ['api'] } });
    expect((await api('/user', { token: second.body.token })).status).toBe(200);
    expect((await api(`/personal_access_tokens/${second.body.id}`, { method: 'DELETE', token: rootToken })).status).toBe(204);
    expect((await api('/user', { token: second.body.token })).status).toBe(401);
  });

  it('a rotated token is refused at once and its successor works', async () => {
    const u = await createUser();
    expect((await api('/user', { token: u.token })).status).toBe(200);
    const rotated = await api('/personal_access_tokens/self/rotate', { method: 'POST', token: u.token });
    expect(rotated.status).toBe(200);
    expect((await api('/user', { token: u.token })).status).toBe(401);
    expect((await api('/user', { token: rotated.body.token })).body.id).toBe(u.id);
  });

  it('a revoked OAuth token is refused on the next request', async () => {
    const u = await createUser();
    const oauth = await api('/oauth/token', { form: { grant_type: 'password', username: u.username, password: u.password } });
    expect((await api('/user', bearer(oauth.body.access_token))).status).toBe(200);
    expect((await api('/oauth/revoke', { form: { token: oauth.body.access_token } })).status).toBe(200);
    expect((await api('/user', bearer(oauth.body.access_token))).status).toBe(401);
  });

  it('a blocked user is refused on the next request, and an unblocked one let in again', async () => {
    const u = await createUser();
    expect((await api('/user', { token: u.token })).status).toBe(200);
    expect((await api(`/users/${u.id}/block`, { method: 'POST', token: rootToken })).status).toBe(201);
    expect(await api('/user', { token: u.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden - Your account has been blocked.' } });
    expect((await api(`/users/${u.id}/unblock`, { method: 'POST', token: rootToken })).status).toBe(201);
    expect((await api('/user', { token: u.token })).status).toBe(200);
  });

  it('an administrator demoted loses administrator powers on the next request; renamed, the next GET /user shows it', async () => {
    const a = await createUser({ admin: true });
    expect((await api('/user', { token: a.token })).body.is_admin).toBe(true);
    expect((await api('/application/settings', { token: a.token })).status).toBe(200);
    expect((await api(`/users/${a.id}`, { method: 'PUT', token: rootToken, body: { admin: false, name: 'Demoted' } })).status).toBe(200);
    const me = await api('/user', { token: a.token });
    expect(me.body).toMatchObject({ name: 'Demoted' });
    expect(me.body.is_admin).toBeUndefined();
    expect((await api('/application/settings', { token: a.token })).status).toBe(403);
  });

  it('a deleted user\'s token is refused on the next request', async () => {
    const u = await createUser();
    expect((await api('/user', { token: u.token })).status).toBe(200);
    expect((await api(`/users/${u.id}?hard_delete=true`, { method: 'DELETE', token: rootToken })).status).toBe(204);
    expect((await api('/user', { token: u.token })).status).toBe(401);
  });

  it('a settings change applies to the next request', async () => {
    const signOutTarget = async () => (await fetchApi('/users/sign_out', { method: 'DELETE', redirect: 'manual' })).headers.get('location');
    expect(await signOutTarget()).toMatch(/\/users\/sign_in$/);
    const put = await api('/application/settings', { method: 'PUT', token: rootToken, body: { after_sign_out_path: 'https://example.com/bye' } });
    expect(put.status).toBe(200);
    try {
      expect(await signOutTarget()).toBe('https://example.com/bye');
    } finally {
      await api('/application/settings', { method: 'PUT', token: rootToken, body: { after_sign_out_path: '' } });
    }
    expect(await signOutTarget()).toMatch(/\/users\/sign_in$/);
  });
});
