import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const addDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
const ENTITY_KEYS = ['id', 'name', 'revoked', 'created_at', 'description', 'scopes', 'user_id', 'last_used_at', 'active', 'expires_at'];

async function impersonate(userId: number, body: Record<string, unknown> = {}) {
  const res = await api(`/users/${userId}/impersonation_tokens`, { token: rootToken, body: { name: unique('imp'), scopes: ['api'], ...body } });
  expect(res.status).toBe(201);
  return res.body;
}

describe('POST /users/:user_id/impersonation_tokens', () => {
  it('answers 201 with ImpersonationTokenWithToken (token before impersonation) and the token acts as the user', async () => {
    const u = await createUser();
    const res = await api(`/users/${u.id}/impersonation_tokens`, {
      token: rootToken,
      form: { name: 'support', description: 'ticket 42', expires_at: addDays(10), 'scopes[]': ['api', 'read_user'] },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual([...ENTITY_KEYS, 'token', 'impersonation']);
    expect(res.body).toMatchObject({ name: 'support', description: 'ticket 42', scopes: ['api', 'read_user'], user_id: u.id, active: true, revoked: false, expires_at: addDays(10), impersonation: true });
    expect(res.body.token).toMatch(/^glpat-[A-Za-z0-9_-]{20}$/);
    const me = await api('/user', { token: res.body.token });
    expect(me.status).toBe(200);
    expect(me.body.username).toBe(u.username);
  });

  it('defaults expires_at to the maximum lifetime and reports model errors as a 400 hash', async () => {
    const u = await createUser();
    const t = await impersonate(u.id);
    expect(t.expires_at).toBe(addDays(365));
    const noScopes = await api(`/users/${u.id}/impersonation_tokens`, { token: rootToken, body: { name: 'x' } });
    expect(noScopes.status).toBe(400);
    expect(noScopes.body).toEqual({ message: { scopes: ["can't be blank"] } });
    const badScope = await api(`/users/${u.id}/impersonation_tokens`, { token: rootToken, body: { name: 'x', scopes: ['nope'], expires_at: addDays(500) } });
    expect(badScope.status).toBe(400);
    expect(badScope.body).toEqual({ message: { scopes: ['can only contain available scopes'], expires_at: [`must be before ${addDays(365)}`] } });
    const missing = await api(`/users/${u.id}/impersonation_tokens`, { token: rootToken, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'name is missing' });
    const list = await api(`/users/${u.id}/impersonation_tokens`, { token: rootToken });
    expect(list.body.map((x: any) => x.id)).toEqual([t.id]);
  });

  it('is for administrators only (checked before params and the user), 404 User Not Found otherwise', async () => {
    const u = await createUser();
    const res = await api(`/users/${u.id}/impersonation_tokens`, { token: u.token, body: {} });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden' });
    expect((await api('/users/99999999/impersonation_tokens', { token: u.token, body: { name: 'x' } })).status).toBe(403);
    expect((await api(`/users/${u.id}/impersonation_tokens`, { body: { name: 'x' } })).status).toBe(401);
    const missing = await api('/users/99999999/impersonation_tokens', { token: rootToken, body: { name: 'x', scopes: ['api'] } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 User Not Found' });
  });
});

describe('GET /users/:user_id/impersonation_tokens', () => {
  it('lists only impersonation tokens, filtered by state all|active|inactive', async () => {
    const u = await createUser();
    const a = await impersonate(u.id);
    const b = await impersonate(u.id);
    expect((await api(`/users/${u.id}/impersonation_tokens/${b.id}`, { method: 'DELETE', token: rootToken })).status).toBe(204);
    const all = await api(`/users/${u.id}/impersonation_tokens`, { token: rootToken });
    expect(all.status).toBe(200);
    expect(all.headers.get('x-total')).toBe('2');
    expect(all.body.map((t: any) => t.id)).toEqual([a.id, b.id]);
    expect(Object.keys(all.body[0])).toEqual([...ENTITY_KEYS, 'impersonation']);
    expect(all.text).not.toContain(a.token);
    expect((await api(`/users/${u.id}/impersonation_tokens?state=active`, { token: rootToken })).body.map((t: any) => t.id)).toEqual([a.id]);
    const inactive = await api(`/users/${u.id}/impersonation_tokens?state=inactive`, { token: rootToken });
    expect(inactive.body.map((t: any) => t.id)).toEqual([b.id]);
    expect(inactive.body[0]).toMatchObject({ active: false, revoked: true, impersonation: true });
    const bad = await api(`/users/${u.id}/impersonation_tokens?state=x`, { token: rootToken });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'state does not have a valid value' });
    expect((await api(`/users/${u.id}/impersonation_tokens`, { token: u.token })).status).toBe(403);
  });
});

describe('GET and DELETE /users/:user_id/impersonation_tokens/:impersonation_token_id', () => {
  it('gets one token; a personal token or another user id is 404 Impersonation Token Not Found', async () => {
    const u = await createUser();
    const other = await createUser();
    const t = await impersonate(u.id);
    const got = await api(`/users/${u.id}/impersonation_tokens/${t.id}`, { token: rootToken });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: t.id, impersonation: true, user_id: u.id });
    expect(got.body).not.toHaveProperty('token');
    const wrongUser = await api(`/users/${other.id}/impersonation_tokens/${t.id}`, { token: rootToken });
    expect(wrongUser.status).toBe(404);
    expect(wrongUser.body).toEqual({ message: '404 Impersonation Token Not Found' });
    const pat = await api('/personal_access_tokens', { token: u.token });
    const personal = await api(`/users/${u.id}/impersonation_tokens/${pat.body[0].id}`, { token: rootToken });
    expect(personal.status).toBe(404);
    expect((await api(`/users/99999999/impersonation_tokens/${t.id}`, { token: rootToken })).body).toEqual({ message: '404 User Not Found' });
  });

  it('revokes (204) and the token then fails with the revoked body; If-Unmodified-Since in the past is 412', async () => {
    const u = await createUser();
    const t = await impersonate(u.id);
    const stale = await api(`/users/${u.id}/impersonation_tokens/${t.id}`, { method: 'DELETE', token: rootToken, headers: { 'If-Unmodified-Since': 'Wed, 01 Jan 2020 00:00:00 GMT' } });
    expect(stale.status).toBe(412);
    expect((await api('/user', { token: t.token })).status).toBe(200);
    const res = await api(`/users/${u.id}/impersonation_tokens/${t.id}`, { method: 'DELETE', token: rootToken });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const use = await api('/user', { token: t.token });
    expect(use.status).toBe(401);
    expect(use.body).toEqual({ error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' });
    expect((await api(`/users/${u.id}/impersonation_tokens/${t.id}`, { token: rootToken })).body.revoked).toBe(true);
  });
});
