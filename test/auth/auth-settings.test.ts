/**
 * Authentication under non-default application settings (admin mode, token prefix, optional token
 * expiry, password sign-in switches). Settings are instance-global: every change is put back in the
 * afterAll of the block that made it, and the blocks run one after the other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createToken, createUser, fetchApi, rootToken, type TestUser, withSettings } from '../support';

const put = (body: Record<string, unknown>) => api('/application/settings', { method: 'PUT', token: rootToken, body });

describe('admin mode (application setting admin_mode)', () => {
  let original: Record<string, unknown>;
  let admin: TestUser;
  let plainAdminToken: string;
  let user: TestUser;

  beforeAll(async () => {
    admin = await createUser({ admin: true, scopes: ['api', 'sudo', 'admin_mode'] });
    plainAdminToken = await createToken(admin.id, ['api', 'sudo']);
    user = await createUser();
    original = await withSettings({ admin_mode: true });
  });

  afterAll(async () => {
    const res = await api('/application/settings', { method: 'PUT', token: admin.token, body: original });
    expect(res.status).toBe(200);
    expect(res.body.admin_mode).toBe(original.admin_mode);
  });

  it('treats an administrator token without the admin_mode scope as a normal user', async () => {
    const settings = await api('/application/settings', { token: plainAdminToken });
    expect(settings.status).toBe(403);
    expect(settings.body).toEqual({ message: '403 Forbidden' });
    const create = await api(`/users/${user.id}/personal_access_tokens`, { token: plainAdminToken, body: { name: 'x', scopes: ['api'] } });
    expect(create.status).toBe(403);
    const sudo = await api(`/user?sudo=${user.id}`, { token: plainAdminToken });
    expect(sudo.status).toBe(403);
    expect(sudo.body).toEqual({ message: '403 Forbidden - Must be admin to use sudo' });
    // Not an administrator for the token API either: another user's token is hidden (401).
    const theirs = await api('/personal_access_tokens', { token: user.token });
    expect((await api(`/personal_access_tokens/${theirs.body[0].id}`, { token: plainAdminToken })).status).toBe(401);
  });

  it('lets a token with the admin_mode scope act as administrator, sudo included', async () => {
    expect((await api('/application/settings', { token: admin.token })).status).toBe(200);
    const sudo = await api(`/user?sudo=${user.id}`, { token: admin.token });
    expect(sudo.status).toBe(200);
    expect(sudo.body.id).toBe(user.id);
    const create = await api(`/users/${user.id}/personal_access_tokens`, { token: admin.token, body: { name: 'x', scopes: ['api'] } });
    expect(create.status).toBe(201);
  });

  it('guards every administrator route of this area in the four admin-mode cells', async () => {
    const userWithFlag = await createToken(user.id, ['api', 'admin_mode']);
    const routes: [string, string, Record<string, unknown> | undefined, number][] = [
      ['POST', `/users/${user.id}/impersonation_tokens`, { name: 'i', scopes: ['api'] }, 201],
      ['GET', `/users/${user.id}/impersonation_tokens`, undefined, 200],
      ['POST', `/users/${user.id}/personal_access_tokens`, { name: 'p', scopes: ['api'] }, 201],
      ['GET', '/applications', undefined, 200],
    ];
    for (const [method, path, body, ok] of routes) {
      expect((await api(path, { method, token: admin.token, body })).status).toBe(ok);
      expect((await api(path, { method, token: plainAdminToken, body })).status).toBe(403);
      expect((await api(path, { method, token: user.token, body })).status).toBe(403);
      expect((await api(path, { method, token: userWithFlag, body })).status).toBe(403);
    }
  });

  it('does not elevate a web session', async () => {
    const res = await fetchApi('/users/sign_in', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ 'user[login]': admin.username, 'user[password]': admin.password }).toString(),
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    const cookie = res.headers.get('set-cookie')!.split(';')[0];
    const settings = await fetchApi('/api/v4/application/settings', { headers: { Cookie: cookie } });
    expect(settings.status).toBe(403);
    const sudo = await fetchApi(`/api/v4/user?sudo=${user.id}`, { headers: { Cookie: cookie } });
    expect(await sudo.json()).toEqual({ message: '403 Forbidden - Must be admin to use sudo' });
  });
});

describe('personal_access_token_prefix', () => {
  let original: Record<string, unknown>;
  beforeAll(async () => {
    original = await withSettings({ personal_access_token_prefix: 'mytest-' });
  });
  afterAll(async () => {
    expect((await put(original)).status).toBe(200);
  });

  it('prefixes new and rotated token values', async () => {
    const u = await createUser();
    const value = await createToken(u.id, ['api']);
    expect(value).toMatch(/^mytest-[A-Za-z0-9_-]{20}$/);
    expect((await api('/user', { token: value })).status).toBe(200);
    const rotated = await api('/personal_access_tokens/self/rotate', { method: 'POST', token: value });
    expect(rotated.body.token).toMatch(/^mytest-/);
    // Impersonation tokens are personal access tokens too (same prefix).
    const impersonation = await api(`/users/${u.id}/impersonation_tokens`, { token: rootToken, body: { name: 'imp', scopes: ['api'] } });
    expect(impersonation.status).toBe(201);
    expect(impersonation.body.token).toMatch(/^mytest-[A-Za-z0-9_-]{20}$/);
  });
});

describe('require_personal_access_token_expiry=false', () => {
  let original: Record<string, unknown>;
  beforeAll(async () => {
    original = await withSettings({ require_personal_access_token_expiry: false });
  });
  afterAll(async () => {
    expect((await put(original)).status).toBe(200);
  });

  it('creates and rotates tokens without an expiry date', async () => {
    const u = await createUser();
    const res = await api(`/users/${u.id}/personal_access_tokens`, { token: rootToken, body: { name: 'forever', scopes: ['api'] } });
    expect(res.status).toBe(201);
    expect(res.body.expires_at).toBeNull();
    const rotated = await api(`/personal_access_tokens/${res.body.id}/rotate`, { method: 'POST', token: rootToken });
    expect(rotated.status).toBe(200);
    expect(rotated.body.expires_at).toBeNull();
  });
});

describe('password sign-in switches', () => {
  let original: Record<string, unknown>;
  let u: TestUser;
  beforeAll(async () => {
    u = await createUser();
    original = await withSettings({ password_authentication_enabled_for_git: false, password_authentication_enabled_for_web: false });
  });
  afterAll(async () => {
    expect((await put(original)).status).toBe(200);
  });

  it('refuse the OAuth password grant and the web sign-in while tokens keep working', async () => {
    const grant = await api('/oauth/token', { form: { grant_type: 'password', username: u.username, password: u.password } });
    expect(grant.status).toBe(400);
    expect(grant.body.error).toBe('invalid_grant');
    const web = await fetchApi('/users/sign_in', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ 'user[login]': u.username, 'user[password]': u.password }).toString(),
      redirect: 'manual',
    });
    expect(web.status).toBe(401);
    expect(web.headers.get('set-cookie')).toBeNull();
    expect((await api('/user', { token: u.token })).status).toBe(200);
  });
});

describe('session_expire_delay', () => {
  let original: Record<string, unknown>;
  beforeAll(async () => {
    original = await withSettings({ session_expire_delay: 0 });
  });
  afterAll(async () => {
    expect((await put(original)).status).toBe(200);
  });

  it('bounds the life of a web session (0 minutes: the cookie is dead at once)', async () => {
    const u = await createUser();
    const res = await fetchApi('/users/sign_in', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ 'user[login]': u.username, 'user[password]': u.password }).toString(),
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    const cookie = res.headers.get('set-cookie')!.split(';')[0];
    expect((await fetchApi('/api/v4/user', { headers: { Cookie: cookie } })).status).toBe(401);
  });
});

describe('max_personal_access_token_lifetime (Ultimate, the test instance plan)', () => {
  const addDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
  let original: Record<string, unknown>;
  beforeAll(async () => {
    original = await withSettings({ max_personal_access_token_lifetime: 30 });
  });
  afterAll(async () => {
    expect((await put(original)).status).toBe(200);
  });

  it('refuses a later expires_at and shortens the default expiry', async () => {
    const u = await createUser();
    const late = await api(`/users/${u.id}/personal_access_tokens`, { token: rootToken, body: { name: 'late', scopes: ['api'], expires_at: addDays(60) } });
    expect(late.status).toBe(422);
    expect(late.body).toEqual({ message: `Expires at must be before ${addDays(30)}` });
    const inside = await api(`/users/${u.id}/personal_access_tokens`, { token: rootToken, body: { name: 'ok', scopes: ['api'], expires_at: addDays(20) } });
    expect(inside.status).toBe(201);
    const defaulted = await api(`/users/${u.id}/personal_access_tokens`, { token: rootToken, body: { name: 'default', scopes: ['api'] } });
    expect(defaulted.status).toBe(201);
    expect(defaulted.body.expires_at).toBe(addDays(30));
  });
});
