import { describe, expect, it } from 'vitest';
import { api, createUser, fetchApi, rootToken } from '../support';

/** Redirects are answers here, never followed (workerd's fetch would follow them by default). */
async function post(path: string, init: { form?: Record<string, string>; json?: unknown; headers?: Record<string, string>; method?: string }) {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  let body: string | undefined;
  if (init.form) {
    body = new URLSearchParams(init.form).toString();
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
  } else if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetchApi(path, { method: init.method ?? 'POST', headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

interface Session {
  cookie: string;
  csrf: string;
  setCookie: string;
}

async function signIn(login: string, password: string, as: 'form' | 'json' = 'form'): Promise<Session> {
  const res =
    as === 'form'
      ? await post('/users/sign_in', { form: { 'user[login]': login, 'user[password]': password } })
      : await post('/users/sign_in', { json: { user: { login, password } } });
  expect(res.status).toBe(302);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const m = setCookie.match(/_service_session=([^;]+)/);
  expect(m).not.toBeNull();
  return { cookie: `_service_session=${m![1]}`, csrf: res.headers.get('x-csrf-token') ?? '', setCookie };
}

describe('POST /users/sign_in', () => {
  it('signs in with a form (user[login], user[password]): 302 to / and an HttpOnly, SameSite=Lax session cookie on /', async () => {
    const u = await createUser();
    const res = await post('/users/sign_in', { form: { 'user[login]': u.username, 'user[password]': u.password } });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/^(https?:\/\/[^/]+)?\/$/);
    const setCookie = res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^_service_session=[0-9a-f]{64};/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Path=\//);
    expect(res.headers.get('x-csrf-token')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('accepts JSON and an email as login, and records the sign-in on the user', async () => {
    const u = await createUser();
    const before = await api(`/users/${u.id}`, { token: rootToken });
    expect(before.body.sign_in_count).toBe(0);
    const s = await signIn(u.email.toUpperCase(), u.password, 'json');
    const me = await fetchApi('/api/v4/user', { headers: { Cookie: s.cookie } });
    expect(me.status).toBe(200);
    const after = await api(`/users/${u.id}`, { token: rootToken });
    expect(after.body.sign_in_count).toBe(1);
    expect(after.body.current_sign_in_at).not.toBeNull();
  });

  it('answers 401 with a clear body and no cookie for a wrong password, an unknown login or a blocked user', async () => {
    const u = await createUser();
    const blocked = await createUser();
    await api(`/users/${blocked.id}/block`, { method: 'POST', token: rootToken });
    for (const [login, password] of [
      [u.username, 'wrong-password'],
      ['nobody-here-xyz', u.password],
      [blocked.username, blocked.password],
      [u.username, ''],
    ]) {
      const res = await post('/users/sign_in', { form: { 'user[login]': login, 'user[password]': password } });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Invalid login or password.' });
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  it('reactivates a deactivated user who signs in again', async () => {
    const u = await createUser();
    expect((await api(`/users/${u.id}/deactivate`, { method: 'POST', token: rootToken })).status).toBe(201);
    expect((await api('/user', { token: u.token })).status).toBe(403);
    await signIn(u.username, u.password);
    expect((await api(`/users/${u.id}`, { token: rootToken })).body.state).toBe('active');
    expect((await api('/user', { token: u.token })).status).toBe(200);
  });
});

describe('the session cookie on the API', () => {
  it('authenticates GET /api/v4/user with only the cookie', async () => {
    const u = await createUser();
    const s = await signIn(u.username, u.password);
    const res = await fetchApi('/api/v4/user', { headers: { Cookie: s.cookie } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).username).toBe(u.username);
    expect((await fetchApi('/api/v4/user', { headers: { Cookie: '_service_session=forged' } })).status).toBe(401);
  });

  it('is ignored for writes without the CSRF token and honoured with it (header or authenticity_token)', async () => {
    const u = await createUser();
    const s = await signIn(u.username, u.password);
    const post = (headers: Record<string, string>, extra = '') =>
      fetchApi('/api/v4/user/personal_access_tokens', {
        method: 'POST',
        headers: { Cookie: s.cookie, 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body: `name=web&scopes[]=k8s_proxy${extra}`,
      });
    const without = await post({});
    expect(without.status).toBe(401);
    expect(await without.json()).toEqual({ message: '401 Unauthorized' });
    expect((await post({ 'X-CSRF-Token': 'wrong' })).status).toBe(401);
    const withHeader = await post({ 'X-CSRF-Token': s.csrf });
    expect(withHeader.status).toBe(201);
    expect(((await withHeader.json()) as any).user_id).toBe(u.id);
    expect((await post({}, `&authenticity_token=${encodeURIComponent(s.csrf)}`)).status).toBe(201);
    const list = await api('/personal_access_tokens', { token: u.token });
    expect(list.body.filter((t: any) => t.name === 'web').length).toBe(2);
  });

  it('refuses sudo with a session: 403 Must be authenticated using an OAuth or Personal Access Token', async () => {
    const admin = await createUser({ admin: true });
    const u = await createUser();
    const s = await signIn(admin.username, admin.password);
    const res = await fetchApi(`/api/v4/user?sudo=${u.id}`, { headers: { Cookie: s.cookie } });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ message: '403 Forbidden - Must be authenticated using an OAuth or Personal Access Token to use sudo' });
    // A non-administrator's session hits the admin check first.
    const us = await signIn(u.username, u.password);
    const non = await fetchApi(`/api/v4/user?sudo=${admin.id}`, { headers: { Cookie: us.cookie } });
    expect(await non.json()).toEqual({ message: '403 Forbidden - Must be admin to use sudo' });
  });

  it('stops working for a blocked user (403)', async () => {
    const u = await createUser();
    const s = await signIn(u.username, u.password);
    await api(`/users/${u.id}/block`, { method: 'POST', token: rootToken });
    const res = await fetchApi('/api/v4/user', { headers: { Cookie: s.cookie } });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ message: '403 Forbidden - Your account has been blocked.' });
  });
});

describe('DELETE /users/sign_out', () => {
  it('ends the session: 302 to the sign-in page, the cookie cleared and refused afterwards', async () => {
    const u = await createUser();
    const s = await signIn(u.username, u.password);
    const res = await post('/users/sign_out', { method: 'DELETE', headers: { Cookie: s.cookie, 'X-CSRF-Token': s.csrf } });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/\/users\/sign_in$/);
    expect(res.headers.get('set-cookie')).toMatch(/^_service_session=;/);
    expect((await fetchApi('/api/v4/user', { headers: { Cookie: s.cookie } })).status).toBe(401);
  });

  it('keeps the session when the CSRF token is missing (422)', async () => {
    const u = await createUser();
    const s = await signIn(u.username, u.password);
    const res = await post('/users/sign_out', { method: 'DELETE', headers: { Cookie: s.cookie } });
    expect(res.status).toBe(422);
    expect((await fetchApi('/api/v4/user', { headers: { Cookie: s.cookie } })).status).toBe(200);
  });
});
