import { describe, expect, it } from 'vitest';
import { api, createToken, createUser, fetchApi, rootToken, unique } from '../support';

const UNAUTHORIZED = { message: '401 Unauthorized' };
const REALM = 'Bearer realm="Protected by OAuth 2.0", error="invalid_token"';

async function oauthToken(username: string, password: string, scope?: string) {
  const res = await api('/oauth/token', { form: { grant_type: 'password', username, password, ...(scope ? { scope } : {}) } });
  expect(res.status).toBe(200);
  return res.body.access_token as string;
}

describe('where credentials are read', () => {
  it('accepts a personal token as private_token (query, form, JSON), PRIVATE-TOKEN, Bearer and access_token', async () => {
    const u = await createUser();
    const t = u.token;
    const check = async (res: Response) => {
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).username).toBe(u.username);
    };
    await check(await fetchApi(`/api/v4/user?private_token=${t}`));
    await check(await fetchApi('/api/v4/user', { headers: { 'PRIVATE-TOKEN': t } }));
    await check(await fetchApi('/api/v4/user', { headers: { Authorization: `Bearer ${t}` } }));
    // Not an OAuth token: the value falls through to the personal token lookup (auth_finders.rb).
    await check(await fetchApi(`/api/v4/user?access_token=${t}`));
    // The body counts too: a write authenticated by private_token in a form and in a JSON body.
    const form = await fetchApi('/api/v4/user/personal_access_tokens', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `private_token=${t}&name=f&scopes[]=k8s_proxy`,
    });
    expect(form.status).toBe(201);
    const json = await fetchApi('/api/v4/user/personal_access_tokens', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ private_token: t, name: 'j', scopes: ['k8s_proxy'] }),
    });
    expect(json.status).toBe(201);
  });

  it('accepts an OAuth token as Bearer, access_token and bearer_token', async () => {
    const u = await createUser();
    const token = await oauthToken(u.username, u.password);
    for (const res of [
      await fetchApi('/api/v4/user', { headers: { Authorization: `Bearer ${token}` } }),
      await fetchApi(`/api/v4/user?access_token=${token}`),
      await fetchApi(`/api/v4/user?bearer_token=${token}`),
    ]) {
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).id).toBe(u.id);
    }
  });

  it('answers 401 {"message":"401 Unauthorized"} for an unknown token in every position, even on public routes', async () => {
    for (const res of [
      await api('/user', { token: 'glpat-doesnotexist000000' }),
      await api('/user?private_token=nope'),
      await api('/user?access_token=nope'),
      await api('/user', { headers: { Authorization: 'Bearer nope' } }),
      await api('/users?username=root', { token: 'nope' }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHORIZED);
    }
    const anon = await api('/user');
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual(UNAUTHORIZED);
  });
});

describe('token validity', () => {
  it('an expired personal token is 401 invalid_token with WWW-Authenticate', async () => {
    const u = await createUser();
    const t = await createToken(u.id, ['api'], { expires_at: '2020-01-01' });
    const res = await api('/user', { token: t });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_token', error_description: 'Token is expired. You can either do re-authorization or token refresh.' });
    expect(res.headers.get('www-authenticate')).toBe(`${REALM}, error_description="Token is expired. You can either do re-authorization or token refresh."`);
  });

  it('a revoked personal token is 401 with the revoked description and header', async () => {
    const u = await createUser();
    const t = await createToken(u.id, ['api']);
    const self = await api('/personal_access_tokens/self', { token: t });
    expect((await api(`/personal_access_tokens/${self.body.id}`, { method: 'DELETE', token: u.token })).status).toBe(204);
    const res = await api('/user', { token: t });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' });
    expect(res.headers.get('www-authenticate')).toBe(`${REALM}, error_description="Token was revoked. You have to re-authorize from the user."`);
  });
});

describe('scopes', () => {
  const INSUFFICIENT = 'The request requires higher privileges than provided by the access token.';

  it('read_api works for GET only; writes get 403 insufficient_scope "api read_api" without WWW-Authenticate', async () => {
    const u = await createUser();
    const t = await createToken(u.id, ['read_api']);
    expect((await api('/user', { token: t })).status).toBe(200);
    expect((await api('/personal_access_tokens', { token: t })).status).toBe(200);
    const write = await api('/user/personal_access_tokens', { token: t, body: { name: 'x', scopes: ['k8s_proxy'] } });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({ error: 'insufficient_scope', error_description: INSUFFICIENT, scope: 'api read_api' });
    expect(write.headers.get('www-authenticate')).toBeNull();
    expect((await api('/personal_access_tokens', { token: u.token })).body.length).toBe(2);
  });

  it('read_user counts only where the route lists it, and the scope string lists route scopes first', async () => {
    const u = await createUser();
    const t = await createToken(u.id, ['read_user']);
    expect((await api('/user', { token: t })).status).toBe(200);
    const tokens = await api('/personal_access_tokens', { token: t });
    expect(tokens.status).toBe(403);
    expect(tokens.body).toEqual({ error: 'insufficient_scope', error_description: INSUFFICIENT, scope: 'api read_api' });
    const repo = await createToken(u.id, ['read_repository']);
    const me = await api('/user', { token: repo });
    expect(me.status).toBe(403);
    expect(me.body).toEqual({ error: 'insufficient_scope', error_description: INSUFFICIENT, scope: 'read_user api read_api' });
  });

  it('OAuth tokens are held to their scopes too', async () => {
    const u = await createUser();
    const token = await oauthToken(u.username, u.password, 'read_user');
    expect((await api('/api/v4/user', { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    const res = await api('/api/v4/personal_access_tokens', { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(403);
    expect(res.body.scope).toBe('api read_api');
  });
});

describe('accounts that may not use the API', () => {
  it('blocked and banned users get 403 "Your account has been blocked."; unblocking restores access', async () => {
    const u = await createUser();
    expect((await api(`/users/${u.id}/block`, { method: 'POST', token: rootToken })).status).toBe(201);
    const res = await api('/user', { token: u.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden - Your account has been blocked.' });
    expect((await api(`/users/${u.id}/unblock`, { method: 'POST', token: rootToken })).status).toBe(201);
    expect((await api('/user', { token: u.token })).status).toBe(200);

    const b = await createUser();
    expect((await api(`/users/${b.id}/ban`, { method: 'POST', token: rootToken })).status).toBe(201);
    expect((await api('/user', { token: b.token })).body).toEqual({ message: '403 Forbidden - Your account has been blocked.' });
  });

  it('deactivated users get 403 with the reactivation hint naming the instance URL', async () => {
    const u = await createUser();
    expect((await api(`/users/${u.id}/deactivate`, { method: 'POST', token: rootToken })).status).toBe(201);
    const res = await api('/user', { token: u.token });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(
      /^403 Forbidden - Your account has been deactivated by your administrator\. Please log back in from a web browser to reactivate your account at https?:\/\/\S+$/,
    );
  });

  it('a password set by an administrator has expired: 403 until the user changes it', async () => {
    const u = await createUser();
    expect((await api(`/users/${u.id}`, { method: 'PUT', token: rootToken, body: { password: `Pw-${unique('n')}-long` } })).status).toBe(200);
    const res = await api('/user', { token: u.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden - Your password expired. Please access GitLab from a web browser to update your password.' });
  });

  it('the account check comes before the scope check', async () => {
    const u = await createUser();
    const t = await createToken(u.id, ['read_repository']);
    await api(`/users/${u.id}/block`, { method: 'POST', token: rootToken });
    expect((await api('/user', { token: t })).body).toEqual({ message: '403 Forbidden - Your account has been blocked.' });
  });
});

describe('sudo', () => {
  it('acts as the user named by id or case-insensitive username, from the param or the Sudo header (param wins)', async () => {
    const a = await createUser();
    const b = await createUser();
    expect((await api(`/user?sudo=${a.id}`, { token: rootToken })).body.username).toBe(a.username);
    expect((await api(`/user?sudo=${a.username.toUpperCase()}`, { token: rootToken })).body.id).toBe(a.id);
    expect((await api('/user', { token: rootToken, headers: { Sudo: b.username } })).body.id).toBe(b.id);
    expect((await api(`/user?sudo=${a.id}`, { token: rootToken, headers: { Sudo: String(b.id) } })).body.id).toBe(a.id);
    // Writes run as the target: the new token belongs to a.
    const created = await api(`/user/personal_access_tokens?sudo=${a.id}`, { token: rootToken, body: { name: 's', scopes: ['k8s_proxy'] } });
    expect(created.status).toBe(201);
    expect(created.body.user_id).toBe(a.id);
  });

  it('answers every error body in GitLab order', async () => {
    const u = await createUser();
    const admin = await createUser({ admin: true, scopes: ['api'] });
    const nonAdmin = await api(`/user?sudo=${admin.id}`, { token: u.token });
    expect(nonAdmin.status).toBe(403);
    expect(nonAdmin.body).toEqual({ message: '403 Forbidden - Must be admin to use sudo' });
    const noScope = await api(`/user?sudo=${u.id}`, { token: admin.token });
    expect(noScope.status).toBe(403);
    expect(noScope.body).toEqual({ error: 'insufficient_scope', error_description: 'The request requires higher privileges than provided by the access token.', scope: 'sudo' });
    const missing = await api('/user?sudo=no-such-user-xyz', { token: rootToken });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: "404 User with ID or username 'no-such-user-xyz' Not Found" });
    const missingId = await api('/user', { token: rootToken, headers: { Sudo: '99999999' } });
    expect(missingId.body).toEqual({ message: "404 User with ID or username '99999999' Not Found" });
    const anon = await api(`/user?sudo=${u.id}`);
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual(UNAUTHORIZED);
  });

  it("skips the endpoint's scope check: a token with only sudo can act as another user", async () => {
    const u = await createUser();
    const sudoOnly = await createToken(1, ['sudo']);
    expect((await api('/user', { token: sudoOnly })).status).toBe(403);
    const res = await api(`/user?sudo=${u.id}`, { token: sudoOnly });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(u.id);
  });

  it('works with an OAuth token holding the sudo scope', async () => {
    const admin = await createUser({ admin: true });
    const u = await createUser();
    const token = await oauthToken(admin.username, admin.password, 'api sudo');
    const res = await api(`/api/v4/user?sudo=${u.id}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(u.id);
  });
});

describe('impersonation tokens in the guard', () => {
  it('act as their user and are refused sudo unless the user is an administrator', async () => {
    const u = await createUser();
    const other = await createUser();
    const imp = await api(`/users/${u.id}/impersonation_tokens`, { token: rootToken, body: { name: 'i', scopes: ['api', 'sudo'] } });
    expect(imp.status).toBe(201);
    expect((await api('/user', { token: imp.body.token })).body.id).toBe(u.id);
    expect((await api(`/user?sudo=${other.id}`, { token: imp.body.token })).body).toEqual({ message: '403 Forbidden - Must be admin to use sudo' });
  });
});

describe('malformed credentials', () => {
  it('never produce a 500', async () => {
    const cases: [string, RequestInit][] = [
      ['/api/v4/user', { headers: { Cookie: '_service_session=%E0%A4%A' } }],
      ['/api/v4/user', { headers: { Authorization: 'Bearer' } }],
      ['/api/v4/user', { headers: { Authorization: 'Basic !!!' } }],
      ['/api/v4/user?private_token[]=a&private_token[]=b', {}],
      ['/api/v4/user?sudo=99999999999999999999999', { headers: { 'PRIVATE-TOKEN': rootToken } }],
      ['/api/v4/user?sudo[]=1', { headers: { 'PRIVATE-TOKEN': rootToken } }],
      [`/api/v4/user?private_token=${'x'.repeat(4000)}`, {}],
      ['/oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Basic %%%' }, body: '{"grant_type":"password","username":"a","password":"b","client_id":"x"}' }],
      ['/oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '[1,2]' }],
      ['/oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"grant_type":"password","username":{"a":1},"password":["x"],"scope":5}' }],
      ['/oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"grant_type":"refresh_token","refresh_token":{"x":1}}' }],
      ['/oauth/token/info?access_token[]=x', {}],
      ['/oauth/revoke', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"token":["x"]}' }],
      ['/users/sign_in', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"user":"x"}', redirect: 'manual' }],
      ['/users/sign_in', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"user":{"login":["a"],"password":{"b":1}}}', redirect: 'manual' }],
      ['/users/sign_out', { method: 'DELETE', headers: { Cookie: '_service_session=nope' }, redirect: 'manual' }],
    ];
    for (const [path, init] of cases) {
      const res = await fetchApi(path, init);
      expect(res.status, `${init.method ?? 'GET'} ${path.slice(0, 60)}`).toBeLessThan(500);
    }
  });
});
