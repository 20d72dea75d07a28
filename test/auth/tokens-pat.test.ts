import { describe, expect, it } from 'vitest';
import { api, createToken, createUser, rootToken, unique } from '../support';

const today = () => new Date().toISOString().slice(0, 10);
const addDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

/** Creates a token through the admin route and returns the whole 201 body (value included). */
async function mint(userId: number, extra: Record<string, unknown> = {}) {
  const res = await api(`/users/${userId}/personal_access_tokens`, { token: rootToken, body: { name: unique('tok'), scopes: ['api'], ...extra } });
  expect(res.status).toBe(201);
  return res.body as { id: number; token: string; name: string; [k: string]: unknown };
}

const ENTITY_KEYS = ['id', 'name', 'revoked', 'created_at', 'description', 'scopes', 'user_id', 'last_used_at', 'active', 'expires_at'];

describe('POST /users/:user_id/personal_access_tokens (administrators)', () => {
  it('answers 201 with PersonalAccessTokenWithToken in GitLab order, the value prefixed glpat-', async () => {
    const u = await createUser();
    const res = await api(`/users/${u.id}/personal_access_tokens`, {
      token: rootToken,
      body: { name: 'ci', description: 'for ci', scopes: ['api', 'read_user'], expires_at: addDays(30) },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual([...ENTITY_KEYS, 'token']);
    expect(res.body).toMatchObject({ name: 'ci', description: 'for ci', revoked: false, scopes: ['api', 'read_user'], user_id: u.id, last_used_at: null, active: true, expires_at: addDays(30) });
    expect(res.body.token).toMatch(/^glpat-[A-Za-z0-9_-]{20}$/);
    expect(res.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const me = await api('/user', { token: res.body.token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(u.id);
  });

  it('defaults expires_at to the longest lifetime (365 days) when expiry is required', async () => {
    const u = await createUser();
    const t = await mint(u.id);
    expect(t.expires_at).toBe(addDays(365));
  });

  it('answers Grape 400 for an unknown scope and 422 with the model sentence for a too-late date; nothing is created', async () => {
    const u = await createUser();
    const bad = await api(`/users/${u.id}/personal_access_tokens`, { token: rootToken, body: { name: 'x', scopes: ['api', 'nope'] } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'scopes does not have a valid value' });
    const late = await api(`/users/${u.id}/personal_access_tokens`, { token: rootToken, body: { name: 'x', scopes: ['api'], expires_at: addDays(400) } });
    expect(late.status).toBe(422);
    expect(late.body).toEqual({ message: `Expires at must be before ${addDays(365)}` });
    const blank = await api(`/users/${u.id}/personal_access_tokens`, { token: rootToken, body: { name: ' ', scopes: ['api'], expires_at: addDays(400) } });
    expect(blank.status).toBe(422);
    expect(blank.body).toEqual({ message: `Name can't be blank and Expires at must be before ${addDays(365)}` });
    const list = await api(`/personal_access_tokens?user_id=${u.id}`, { token: rootToken });
    expect(list.body.map((t: any) => t.name)).not.toContain('x');
  });

  it('is administrator-only, checked before parameters: 403 even with missing params, 404 for an unknown user', async () => {
    const u = await createUser();
    const res = await api(`/users/${u.id}/personal_access_tokens`, { token: u.token, body: {} });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden' });
    expect((await api(`/users/${u.id}/personal_access_tokens`, { body: {} })).status).toBe(401);
    const missing = await api('/users/99999999/personal_access_tokens', { token: rootToken, body: { name: 'x', scopes: ['api'] } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 User Not Found' });
  });

  it('uses the personal_access_token_prefix application setting for new values', async () => {
    // The prefix is instance-global; this test only reads the default.
    const u = await createUser();
    const t = await mint(u.id);
    expect(t.token.startsWith('glpat-')).toBe(true);
  });
});

describe('POST /user/personal_access_tokens', () => {
  it('lets a user mint a k8s_proxy token for themselves, expiring tomorrow by default', async () => {
    const u = await createUser();
    const res = await api('/user/personal_access_tokens', { token: u.token, body: { name: 'agent', scopes: ['k8s_proxy'] } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'agent', scopes: ['k8s_proxy'], user_id: u.id, expires_at: addDays(1), active: true });
    expect(res.body.token).toMatch(/^glpat-/);
    const got = await api(`/personal_access_tokens/${res.body.id}`, { token: u.token });
    expect(got.status).toBe(200);
    expect(got.body.scopes).toEqual(['k8s_proxy']);
  });

  it('refuses any other scope (Grape values) and anonymous callers', async () => {
    const u = await createUser();
    const res = await api('/user/personal_access_tokens', { token: u.token, body: { name: 'x', scopes: ['api'] } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'scopes does not have a valid value' });
    expect((await api('/user/personal_access_tokens', { body: { name: 'x', scopes: ['k8s_proxy'] } })).status).toBe(401);
  });
});

describe('token values never leak', () => {
  it('lists and gets tokens without any token value or digest anywhere in the body', async () => {
    const u = await createUser();
    const a = await mint(u.id);
    const b = await mint(u.id, { scopes: ['read_api'] });
    const values = [u.token, a.token, b.token];
    const bodies = [
      await api('/personal_access_tokens', { token: u.token }),
      await api(`/personal_access_tokens?user_id=${u.id}`, { token: rootToken }),
      await api(`/personal_access_tokens/${a.id}`, { token: u.token }),
      await api('/personal_access_tokens/self', { token: a.token }),
      await api(`/users/${u.id}/impersonation_tokens`, { token: rootToken }),
    ];
    for (const res of bodies) {
      expect(res.status).toBe(200);
      for (const v of values) expect(res.text).not.toContain(v);
      expect(res.text).not.toContain('"token"');
      expect(res.text).not.toMatch(/digest/i);
    }
    const list = bodies[0].body as any[];
    expect(list.length).toBe(3);
    for (const t of list) expect(Object.keys(t)).toEqual(ENTITY_KEYS);
  });
});

describe('GET /personal_access_tokens', () => {
  it("lists a non-administrator's own tokens, oldest first, without impersonation tokens", async () => {
    const u = await createUser();
    const other = await createUser();
    const a = await mint(u.id);
    const imp = await api(`/users/${u.id}/impersonation_tokens`, { token: rootToken, body: { name: 'imp', scopes: ['api'] } });
    expect(imp.status).toBe(201);
    const res = await api('/personal_access_tokens', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('2');
    const ids = res.body.map((t: any) => t.id);
    expect(ids).toContain(a.id);
    expect(ids).not.toContain(imp.body.id);
    expect(ids).toEqual([...ids].sort((x: number, y: number) => x - y));
    expect(res.body.every((t: any) => t.user_id === u.id)).toBe(true);
    // Another user's id is 401 for a non-administrator; their own id is fine.
    const others = await api(`/personal_access_tokens?user_id=${other.id}`, { token: u.token });
    expect(others.status).toBe(401);
    expect(others.body).toEqual({ message: '401 Unauthorized' });
    expect((await api(`/personal_access_tokens?user_id=${u.id}`, { token: u.token })).status).toBe(200);
  });

  it('lets an administrator filter by user_id (impersonation tokens included) and 404s an unknown user', async () => {
    const u = await createUser();
    const a = await mint(u.id);
    const imp = await api(`/users/${u.id}/impersonation_tokens`, { token: rootToken, body: { name: 'imp', scopes: ['api'] } });
    const res = await api(`/personal_access_tokens?user_id=${u.id}`, { token: rootToken });
    expect(res.status).toBe(200);
    expect(res.body.map((t: any) => t.id)).toEqual([expect.any(Number), a.id, imp.body.id]);
    const missing = await api('/personal_access_tokens?user_id=99999999', { token: rootToken });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Not Found' });
    // An explicitly blank user_id is a 404 too (personal_access_tokens_helpers.rb `params.key?(:user_id)`).
    const blank = await api('/personal_access_tokens?user_id=', { token: rootToken });
    expect(blank.status).toBe(404);
    expect(blank.body).toEqual({ message: '404 Not Found' });
    const all = await api('/personal_access_tokens?per_page=100', { token: rootToken });
    expect(all.status).toBe(200);
    expect(all.body.some((t: any) => t.user_id !== 1)).toBe(true);
  });

  it('filters by revoked, state, search, expires_before/after, created_* and last_used_*', async () => {
    const u = await createUser();
    const live = await mint(u.id, { name: `alpha-${unique('n')}` });
    const revoked = await mint(u.id, { name: 'beta-token' });
    expect((await api(`/personal_access_tokens/${revoked.id}`, { method: 'DELETE', token: u.token })).status).toBe(204);
    const expired = await mint(u.id, { name: 'gamma', expires_at: '2020-01-01' });
    const q = (qs: string) => api(`/personal_access_tokens?user_id=${u.id}&${qs}`, { token: rootToken }).then((r) => {
      expect(r.status).toBe(200);
      return r.body.map((t: any) => t.id) as number[];
    });
    expect(await q('revoked=true')).toEqual([revoked.id]);
    expect(await q('revoked=false')).not.toContain(revoked.id);
    expect(await q('state=inactive')).toEqual([revoked.id, expired.id]);
    const active = await q('state=active');
    expect(active).toContain(live.id);
    expect(active).not.toContain(expired.id);
    expect(await q('search=ALPHA')).toEqual([live.id]);
    expect(await q('search=gamma')).toEqual([expired.id]);
    expect(await q('expires_before=2021-01-01')).toEqual([expired.id]);
    expect(await q(`expires_after=${today()}`)).not.toContain(expired.id);
    expect(await q('created_before=2000-01-01')).toEqual([]);
    expect((await q(`created_after=${today()}`)).length).toBe(4);
    // The user's own token has been used by createUser's checks? Use it now, then filter on last use.
    expect((await api('/user', { token: u.token })).status).toBe(200);
    const used = await q(`last_used_after=${today()}`);
    expect(used.length).toBeGreaterThanOrEqual(1);
    expect(used).not.toContain(expired.id);
    expect(await q('last_used_before=2000-01-01')).toEqual([]);
    const bad = await api('/personal_access_tokens?revoked=asdf', { token: rootToken });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'revoked is invalid' });
    const badState = await api('/personal_access_tokens?state=asdf', { token: rootToken });
    expect(badState.body).toEqual({ error: 'state does not have a valid value' });
    const badDate = await api('/personal_access_tokens?created_before=asdf', { token: rootToken });
    expect(badDate.body).toEqual({ error: 'created_before is invalid' });
  });

  it('sorts by a simple_sorts key and paginates', async () => {
    const u = await createUser();
    await mint(u.id, { name: 'bbb' });
    await mint(u.id, { name: 'aaa' });
    const res = await api(`/personal_access_tokens?user_id=${u.id}&sort=name_asc&per_page=2`, { token: rootToken });
    expect(res.status).toBe(200);
    expect(res.body.map((t: any) => t.name)).toEqual(['aaa', 'bbb']);
    expect(res.headers.get('x-total')).toBe('3');
    expect(res.headers.get('x-next-page')).toBe('2');
  });

  it('is 401 without credentials', async () => {
    const res = await api('/personal_access_tokens');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: '401 Unauthorized' });
  });
});

describe('GET /personal_access_tokens/:id and /self', () => {
  it("returns the owner's token; another user's or a missing one is 401 for non-administrators, 404 for administrators", async () => {
    const u = await createUser();
    const other = await createUser();
    const t = await mint(u.id, { name: 'mine' });
    const own = await api(`/personal_access_tokens/${t.id}`, { token: u.token });
    expect(own.status).toBe(200);
    expect(Object.keys(own.body)).toEqual(ENTITY_KEYS);
    expect(own.body).toMatchObject({ id: t.id, name: 'mine', user_id: u.id });
    // personal_access_tokens.rb: "Only admins should be informed if the token doesn't exist".
    const foreign = await api(`/personal_access_tokens/${t.id}`, { token: other.token });
    expect(foreign.status).toBe(401);
    expect(foreign.body).toEqual({ message: '401 Unauthorized' });
    expect((await api('/personal_access_tokens/99999999', { token: other.token })).status).toBe(401);
    expect((await api(`/personal_access_tokens/${t.id}`, { token: rootToken })).status).toBe(200);
    const missing = await api('/personal_access_tokens/99999999', { token: rootToken });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Not Found' });
  });

  it('self describes the token of the request, whatever its scope, and records its last use once per 10 minutes', async () => {
    const u = await createUser();
    const t = await mint(u.id, { scopes: ['read_repository'] });
    const first = await api('/personal_access_tokens/self', { token: t.token });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: t.id, scopes: ['read_repository'], user_id: u.id });
    expect(first.body.last_used_at).not.toBeNull();
    expect(Date.now() - Date.parse(first.body.last_used_at)).toBeLessThan(60_000);
    await new Promise((r) => setTimeout(r, 20));
    const second = await api('/personal_access_tokens/self', { token: t.token });
    expect(second.body.last_used_at).toBe(first.body.last_used_at);
    // A read_repository token reaches nothing else.
    const other = await api(`/personal_access_tokens/${t.id}`, { token: t.token });
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ error: 'insufficient_scope', error_description: 'The request requires higher privileges than provided by the access token.', scope: 'api read_api' });
  });

  it('self needs a personal access token: an OAuth token gets 400', async () => {
    const u = await createUser();
    const grant = await api('/oauth/token', { body: { grant_type: 'password', username: u.username, password: u.password } });
    expect(grant.status).toBe(200);
    const res = await api('/api/v4/personal_access_tokens/self', { headers: { Authorization: `Bearer ${grant.body.access_token}` } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: '400 Bad request - This endpoint requires token type to be a personal access token' });
  });
});

describe('DELETE /personal_access_tokens/:id and /self', () => {
  it("revokes the owner's token (204) and the token stops working with the revoked body", async () => {
    const u = await createUser();
    const t = await mint(u.id);
    const res = await api(`/personal_access_tokens/${t.id}`, { method: 'DELETE', token: u.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const after = await api(`/personal_access_tokens/${t.id}`, { token: u.token });
    expect(after.body).toMatchObject({ revoked: true, active: false });
    const use = await api('/user', { token: t.token });
    expect(use.status).toBe(401);
    expect(use.body).toEqual({ error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' });
    // Revoking again is still a success.
    expect((await api(`/personal_access_tokens/${t.id}`, { method: 'DELETE', token: u.token })).status).toBe(204);
  });

  it("answers 400 for another user's token or the user's impersonation token, 404 Not found for a missing one; administrators revoke any", async () => {
    const u = await createUser();
    const other = await createUser();
    const t = await mint(u.id);
    const foreign = await api(`/personal_access_tokens/${t.id}`, { method: 'DELETE', token: other.token });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({ message: '400 Bad request' });
    expect((await api(`/personal_access_tokens/${t.id}`, { token: u.token })).body.revoked).toBe(false);
    const imp = await api(`/users/${u.id}/impersonation_tokens`, { token: rootToken, body: { name: 'imp', scopes: ['api'] } });
    expect((await api(`/personal_access_tokens/${imp.body.id}`, { method: 'DELETE', token: u.token })).status).toBe(400);
    const missing = await api('/personal_access_tokens/99999999', { method: 'DELETE', token: u.token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Not found' });
    expect((await api(`/personal_access_tokens/${t.id}`, { method: 'DELETE', token: rootToken })).status).toBe(204);
    expect((await api(`/personal_access_tokens/${t.id}`, { token: u.token })).body.revoked).toBe(true);
  });

  it('self revokes the token used for the request', async () => {
    const u = await createUser();
    const t = await mint(u.id, { scopes: ['read_user'] });
    const res = await api('/personal_access_tokens/self', { method: 'DELETE', token: t.token });
    expect(res.status).toBe(204);
    expect((await api('/user', { token: t.token })).status).toBe(401);
    expect((await api(`/personal_access_tokens/${t.id}`, { token: u.token })).body.revoked).toBe(true);
  });

  it('a read_api token cannot revoke (403 insufficient_scope) and nothing changes', async () => {
    const u = await createUser();
    const ro = await mint(u.id, { scopes: ['read_api'] });
    const t = await mint(u.id);
    const res = await api(`/personal_access_tokens/${t.id}`, { method: 'DELETE', token: ro.token });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('insufficient_scope');
    expect((await api(`/personal_access_tokens/${t.id}`, { token: u.token })).body.revoked).toBe(false);
  });
});

describe('POST /personal_access_tokens/:id/rotate and /self/rotate', () => {
  it('revokes the old token and answers 200 with a new value that expires in a week by default', async () => {
    const u = await createUser();
    const t = await mint(u.id, { name: 'rot', description: 'd', scopes: ['api', 'read_user'] });
    const res = await api(`/personal_access_tokens/${t.id}/rotate`, { method: 'POST', token: u.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual([...ENTITY_KEYS, 'token']);
    expect(res.body).toMatchObject({ name: 'rot', description: 'd', scopes: ['api', 'read_user'], user_id: u.id, revoked: false, active: true, expires_at: addDays(7) });
    expect(res.body.id).not.toBe(t.id);
    expect(res.body.token).not.toBe(t.token);
    expect((await api('/user', { token: t.token })).status).toBe(401);
    expect((await api('/user', { token: res.body.token })).status).toBe(200);
    expect((await api(`/personal_access_tokens/${t.id}`, { token: u.token })).body.revoked).toBe(true);
  });

  it('takes expires_at, refuses an already revoked token (400), and hides other users tokens (401; admins 404)', async () => {
    const u = await createUser();
    const other = await createUser();
    const t = await mint(u.id);
    const res = await api(`/personal_access_tokens/${t.id}/rotate`, { method: 'POST', token: rootToken, body: { expires_at: addDays(30) } });
    expect(res.status).toBe(200);
    expect(res.body.expires_at).toBe(addDays(30));
    const again = await api(`/personal_access_tokens/${t.id}/rotate`, { method: 'POST', token: u.token });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: '400 Bad request - Token already revoked' });
    const foreign = await api(`/personal_access_tokens/${res.body.id}/rotate`, { method: 'POST', token: other.token });
    expect(foreign.status).toBe(401);
    expect((await api('/personal_access_tokens/99999999/rotate', { method: 'POST', token: rootToken })).status).toBe(404);
    const late = await api(`/personal_access_tokens/${res.body.id}/rotate`, { method: 'POST', token: u.token, body: { expires_at: addDays(400) } });
    expect(late.status).toBe(400);
    expect(late.body).toEqual({ message: `400 Bad request - Expires at must be before ${addDays(365)}` });
    expect((await api(`/personal_access_tokens/${res.body.id}`, { token: u.token })).body.revoked).toBe(false);
  });

  it('self/rotate rotates the token of the request', async () => {
    const u = await createUser();
    const t = await mint(u.id);
    const res = await api('/personal_access_tokens/self/rotate', { method: 'POST', token: t.token });
    expect(res.status).toBe(200);
    expect((await api('/personal_access_tokens/self', { token: res.body.token })).body.id).toBe(res.body.id);
    expect((await api('/user', { token: t.token })).status).toBe(401);
  });

  it('replaying a rotated-away token on a rotation endpoint revokes the whole family', async () => {
    const u = await createUser();
    const a = await mint(u.id);
    const b = (await api('/personal_access_tokens/self/rotate', { method: 'POST', token: a.token })).body;
    const c = (await api('/personal_access_tokens/self/rotate', { method: 'POST', token: b.token })).body;
    expect((await api('/user', { token: c.token })).status).toBe(200);
    // Using the old token elsewhere is only a 401: the family lives on (auth_finders.rb revokes on rotation paths).
    expect((await api('/user', { token: a.token })).status).toBe(401);
    expect((await api('/user', { token: c.token })).status).toBe(200);
    const replay = await api('/personal_access_tokens/self/rotate', { method: 'POST', token: a.token });
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' });
    const use = await api('/user', { token: c.token });
    expect(use.status).toBe(401);
    expect(use.body.error_description).toBe('Token was revoked. You have to re-authorize from the user.');
    expect((await api(`/personal_access_tokens/${c.id}`, { token: rootToken })).body.revoked).toBe(true);
  });

  it('self/rotate with an OAuth token is 405', async () => {
    const u = await createUser();
    const grant = await api('/oauth/token', { body: { grant_type: 'password', username: u.username, password: u.password } });
    const res = await api('/api/v4/personal_access_tokens/self/rotate', { method: 'POST', headers: { Authorization: `Bearer ${grant.body.access_token}` } });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ message: '405 Method Not Allowed' });
  });
});

describe('a token created through createToken (support)', () => {
  it('works for the API right away', async () => {
    const u = await createUser();
    const value = await createToken(u.id, ['read_api']);
    expect((await api('/user', { token: value })).status).toBe(200);
  });
});
