import { describe, expect, it } from 'vitest';
import { api, createUser, fetchApi, rootToken } from '../support';

const INVALID_GRANT = {
  error: 'invalid_grant',
  error_description:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
};

const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

describe('POST /oauth/token grant_type=password', () => {
  it('issues a Bearer token (form body) in Doorkeeper shape with the default api scope', async () => {
    const u = await createUser();
    const before = Math.floor(Date.now() / 1000);
    const res = await api('/oauth/token', { form: { grant_type: 'password', username: u.username, password: u.password } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope', 'created_at']);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 7200, scope: 'api' });
    expect(res.body.access_token).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.refresh_token).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.access_token).not.toBe(res.body.refresh_token);
    expect(res.body.created_at).toBeGreaterThanOrEqual(before - 1);
    expect(res.body.created_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1);
    expect(res.headers.get('cache-control')).toContain('no-store');
    const me = await api('/api/v4/user', bearer(res.body.access_token));
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(u.id);
  });

  it('accepts JSON, an email as username, and a requested scope list', async () => {
    const u = await createUser();
    const res = await api('/oauth/token', { body: { grant_type: 'password', username: u.email, password: u.password, scope: 'read_user read_api' } });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('read_user read_api');
    const info = await api('/oauth/token/info', bearer(res.body.access_token));
    expect(info.body.scope).toEqual(['read_user', 'read_api']);
    // read_api cannot write.
    const write = await api('/api/v4/user/personal_access_tokens', { ...bearer(res.body.access_token), body: { name: 'x', scopes: ['k8s_proxy'] } });
    expect(write.status).toBe(403);
  });

  it('answers invalid_grant (400) for a wrong password, an unknown user, a blocked user or missing credentials', async () => {
    const u = await createUser();
    const blocked = await createUser();
    await api(`/users/${blocked.id}/block`, { method: 'POST', token: rootToken });
    for (const form of [
      { grant_type: 'password', username: u.username, password: 'wrong-password' },
      { grant_type: 'password', username: 'no-such-user-xyz', password: u.password },
      { grant_type: 'password', username: blocked.username, password: blocked.password },
      { grant_type: 'password', username: u.username },
    ]) {
      const res = await api('/oauth/token', { form: form as Record<string, string> });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(INVALID_GRANT);
      expect(res.headers.get('www-authenticate')).toBe(`Bearer realm="Doorkeeper", error="invalid_grant", error_description="${INVALID_GRANT.error_description}"`);
    }
  });

  it('answers invalid_request, unsupported_grant_type, invalid_scope and invalid_client with their statuses', async () => {
    const u = await createUser();
    const missing = await api('/oauth/token', { form: { username: u.username, password: u.password } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'invalid_request', error_description: 'Missing required parameter: grant_type.' });
    const unsupported = await api('/oauth/token', { form: { grant_type: 'client_credentials' } });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body).toEqual({ error: 'unsupported_grant_type', error_description: 'The authorization grant type is not supported by the authorization server.' });
    const scope = await api('/oauth/token', { form: { grant_type: 'password', username: u.username, password: u.password, scope: 'api make_coffee' } });
    expect(scope.status).toBe(400);
    expect(scope.body).toEqual({ error: 'invalid_scope', error_description: 'The requested scope is invalid, unknown, or malformed.' });
    const client = await api('/oauth/token', { form: { grant_type: 'password', username: u.username, password: u.password, client_id: 'nope', client_secret: 'nope' } });
    expect(client.status).toBe(401);
    expect(client.body).toEqual({
      error: 'invalid_client',
      error_description: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
    });
  });

  it('refuses a password an administrator has just set (it must be changed first)', async () => {
    const u = await createUser();
    const newPassword = `Pw-${Date.now()}-new-long`;
    await api(`/users/${u.id}`, { method: 'PUT', token: rootToken, body: { password: newPassword } });
    const res = await api('/oauth/token', { form: { grant_type: 'password', username: u.username, password: newPassword } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(INVALID_GRANT);
  });
});

describe('POST /oauth/token grant_type=refresh_token', () => {
  it('rotates the refresh token and revokes the previous access token; the old refresh token is single-use', async () => {
    const u = await createUser();
    const first = (await api('/oauth/token', { form: { grant_type: 'password', username: u.username, password: u.password, scope: 'api read_user' } })).body;
    const res = await api('/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: first.refresh_token } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 7200, scope: 'api read_user' });
    expect(res.body.access_token).not.toBe(first.access_token);
    expect(res.body.refresh_token).not.toBe(first.refresh_token);
    const old = await api('/api/v4/user', bearer(first.access_token));
    expect(old.status).toBe(401);
    expect(old.body).toEqual({ error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' });
    expect((await api('/api/v4/user', bearer(res.body.access_token))).status).toBe(200);
    const reuse = await api('/oauth/token', { form: { grant_type: 'refresh_token', refresh_token: first.refresh_token } });
    expect(reuse.status).toBe(400);
    expect(reuse.body).toEqual(INVALID_GRANT);
  });

  it('may narrow the scope but not widen it; a missing or unknown refresh token is refused', async () => {
    const u = await createUser();
    const first = (await api('/oauth/token', { form: { grant_type: 'password', username: u.username, password: u.password, scope: 'api read_user' } })).body;
    const wider = await api('/oauth/token', { form: { grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'api sudo' } });
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe('invalid_scope');
    const narrower = await api('/oauth/token', { form: { grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'read_user' } });
    expect(narrower.status).toBe(200);
    expect(narrower.body.scope).toBe('read_user');
    const missing = await api('/oauth/token', { form: { grant_type: 'refresh_token' } });
    expect(missing.body).toEqual({ error: 'invalid_request', error_description: 'Missing required parameter: refresh_token.' });
    expect((await api('/oauth/token', { form: { grant_type: 'refresh_token', refresh_token: 'f'.repeat(64) } })).body).toEqual(INVALID_GRANT);
  });
});

describe('GET /oauth/token/info', () => {
  it('describes the token (Doorkeeper shape with GitLab aliases)', async () => {
    const u = await createUser();
    const t = (await api('/oauth/token', { form: { grant_type: 'password', username: u.username, password: u.password } })).body;
    const res = await api(`/oauth/token/info?access_token=${t.access_token}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['resource_owner_id', 'scope', 'expires_in', 'application', 'created_at', 'scopes', 'expires_in_seconds']);
    expect(res.body).toMatchObject({ resource_owner_id: u.id, scope: ['api'], scopes: ['api'], application: { uid: null }, created_at: t.created_at });
    expect(res.body.expires_in).toBeGreaterThan(7100);
    expect(res.body.expires_in).toBeLessThanOrEqual(7200);
    expect(res.body.expires_in_seconds).toBe(res.body.expires_in);
    expect(res.text).not.toContain(t.access_token);
  });

  it('answers 401 invalid_token for an unknown, a revoked or a personal token', async () => {
    const u = await createUser();
    const unknown = await api('/oauth/token/info', bearer('nope'));
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ error: 'invalid_token', error_description: 'The access token is invalid' });
    expect(unknown.headers.get('www-authenticate')).toContain('realm="Doorkeeper"');
    expect((await api('/oauth/token/info', bearer(u.token))).body).toEqual({ error: 'invalid_token', error_description: 'The access token is invalid' });
    const t = (await api('/oauth/token', { form: { grant_type: 'password', username: u.username, password: u.password } })).body;
    await api('/oauth/revoke', { form: { token: t.access_token } });
    expect((await api('/oauth/token/info', bearer(t.access_token))).body).toEqual({ error: 'invalid_token', error_description: 'The access token was revoked' });
  });
});

describe('POST /oauth/revoke', () => {
  it('revokes by access token or by refresh token, answers 200 {} even for unknown tokens', async () => {
    const u = await createUser();
    const a = (await api('/oauth/token', { form: { grant_type: 'password', username: u.username, password: u.password } })).body;
    const res = await api('/oauth/revoke', { form: { token: a.access_token } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await api('/api/v4/user', bearer(a.access_token))).status).toBe(401);
    expect((await api('/oauth/token', { form: { grant_type: 'refresh_token', refresh_token: a.refresh_token } })).body).toEqual(INVALID_GRANT);

    const b = (await api('/oauth/token', { form: { grant_type: 'password', username: u.username, password: u.password } })).body;
    expect((await api('/oauth/revoke', { body: { token: b.refresh_token } })).status).toBe(200);
    expect((await api('/api/v4/user', bearer(b.access_token))).status).toBe(401);

    const unknown = await api('/oauth/revoke', { form: { token: 'nope' } });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({});
  });

  it('lives outside /api/v4', async () => {
    const res = await fetchApi('/api/v4/oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"grant_type":"password"}' });
    expect(res.status).toBe(404);
  });
});
