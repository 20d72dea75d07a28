import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

// Changes instance settings (limits and throttles): lives in its own file and restores them.
// Test files do not share a database (each has its own D1 / libSQL file), so nothing leaks out.
const TOUCHED = [
  'users_api_limit_status',
  'users_get_by_id_limit',
  'users_get_by_id_limit_allowlist',
  'throttle_authenticated_api_enabled',
  'throttle_authenticated_api_requests_per_period',
  'throttle_authenticated_api_period_in_seconds',
  'throttle_unauthenticated_api_enabled',
  'throttle_unauthenticated_api_requests_per_period',
  'throttle_unauthenticated_api_period_in_seconds',
  'rate_limiting_response_text',
  'throttle_protected_paths_enabled',
  'throttle_protected_paths_requests_per_period',
  'throttle_protected_paths_period_in_seconds',
  'throttle_authenticated_files_api_enabled',
  'throttle_authenticated_files_api_requests_per_period',
  'throttle_authenticated_files_api_period_in_seconds',
  'throttle_unauthenticated_deprecated_api_enabled',
  'throttle_unauthenticated_deprecated_api_requests_per_period',
  'throttle_unauthenticated_deprecated_api_period_in_seconds',
] as const;

const TOO_MANY = { message: { error: 'This endpoint has been requested too many times. Try again later.' } };

let original: Record<string, any>;
let a: TestUser;
let b: TestUser;
let admin2: TestUser;

const put = (body: Record<string, unknown>, token = rootToken) => api('/application/settings', { method: 'PUT', token, body });

/** Fixed windows: start a sequence well inside one, so "first passes, second is limited" holds. */
async function freshWindow(periodSeconds: number, needMs = 4000) {
  const periodMs = periodSeconds * 1000;
  const left = periodMs - (Date.now() % periodMs);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 50));
}

beforeAll(async () => {
  original = (await api('/application/settings', { token: rootToken })).body;
  [a, b, admin2] = await Promise.all([createUser(), createUser(), createUser({ admin: true })]);
});

afterAll(async () => {
  const body: Record<string, unknown> = {};
  for (const k of TOUCHED) body[k] = original[k];
  // A second administrator restores, in case root's own requests are being throttled.
  const res = await put(body, admin2.token);
  expect(res.status).toBe(200);
});

describe('application limits (check_rate_limit!)', () => {
  it('user_status: threshold 1 lets the first call through and answers 429 to the second, per user and per IP', async () => {
    expect((await put({ users_api_limit_status: 1 })).body.users_api_limit_status).toBe(1);
    await freshWindow(60);
    const path = `/users/${b.id}/status`;
    expect((await api(path, { token: a.token })).status).toBe(200);
    const second = await api(path, { token: a.token });
    expect(second.status).toBe(429);
    expect(second.body).toEqual(TOO_MANY);
    expect(second.headers.get('retry-after')).toBe('60');
    expect(second.headers.get('content-type')).toMatch(/^application\/json/);
    // Another user has a count of their own.
    expect((await api(path, { token: b.token })).status).toBe(200);
    // Anonymous callers are counted per client address.
    const ip1 = `203.0.113.${Math.floor(Math.random() * 200) + 1}`;
    expect((await api(path, { headers: { 'X-Forwarded-For': `${ip1}, 10.0.0.1` } })).status).toBe(200);
    const anon2 = await api(path, { headers: { 'X-Forwarded-For': ip1 } });
    expect(anon2.status).toBe(429);
    expect(anon2.body).toEqual(TOO_MANY);
    expect((await api(path, { headers: { 'X-Forwarded-For': `198.51.100.${Math.floor(Math.random() * 200) + 1}` } })).status).toBe(200);
    // CF-Connecting-IP names the client before X-Forwarded-For does.
    expect((await api(path, { headers: { 'CF-Connecting-IP': `192.0.2.${Math.floor(Math.random() * 200) + 1}`, 'X-Forwarded-For': ip1 } })).status).toBe(200);

    // Threshold 0 disables the limit.
    expect((await put({ users_api_limit_status: 0 })).body.users_api_limit_status).toBe(0);
    expect((await api(path, { token: a.token })).status).toBe(200);
    expect((await api(path, { token: a.token })).status).toBe(200);
  });

  it('users_get_by_id: per user over 10 minutes, administrators and allowlisted usernames exempt', async () => {
    expect((await put({ users_get_by_id_limit: 1 })).body.users_get_by_id_limit).toBe(1);
    await freshWindow(600);
    const c = await createUser();
    expect((await api(`/users/${b.id}`, { token: c.token })).status).toBe(200);
    const second = await api(`/users/${b.id}`, { token: c.token });
    expect(second.status).toBe(429);
    expect(second.body).toEqual(TOO_MANY);
    expect(second.headers.get('retry-after')).toBe('600');
    for (let n = 0; n < 3; n++) expect((await api(`/users/${b.id}`, { token: rootToken })).status).toBe(200);

    const allow = await put({ users_get_by_id_limit_allowlist: [c.username.toUpperCase()] });
    expect(allow.body.users_get_by_id_limit_allowlist).toEqual([c.username.toUpperCase()]);
    expect((await api(`/users/${b.id}`, { token: c.token })).status).toBe(200);
    expect((await put({ users_get_by_id_limit_allowlist: [] })).status).toBe(200);
    expect((await api(`/users/${b.id}`, { token: c.token })).status).toBe(429);
  });
});

describe('request throttles (Rack::Attack)', () => {
  it('throttles authenticated API requests per user with text/plain 429 and RateLimit headers', async () => {
    await freshWindow(30, 6000);
    const on = await put({ throttle_authenticated_api_enabled: true, throttle_authenticated_api_requests_per_period: 2, throttle_authenticated_api_period_in_seconds: 30 });
    expect(on.status).toBe(200);
    const c = await createUser();
    expect((await api('/user', { token: c.token })).status).toBe(200);
    expect((await api('/user', { token: c.token })).status).toBe(200);
    const before = Math.floor(Date.now() / 1000);
    const res = await api('/user', { token: c.token });
    expect(res.status).toBe(429);
    expect(res.text).toBe('Retry later\n');
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.headers.get('ratelimit-name')).toBe('throttle_authenticated_api');
    expect(res.headers.get('ratelimit-limit')).toBe('4'); // ceil(2 * 60 / 30)
    expect(res.headers.get('ratelimit-observed')).toBe('3');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    const reset = Number(res.headers.get('ratelimit-reset'));
    expect(reset % 30).toBe(0);
    expect(reset).toBeGreaterThan(before);
    expect(reset).toBeLessThanOrEqual(before + 30);
    expect(res.headers.get('ratelimit-resettime')).toBe(new Date(reset * 1000).toUTCString());
    const retry = Number(res.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(reset - before - 1);
    expect(retry).toBeLessThanOrEqual(reset - before);
    // Another user is not throttled.
    expect((await api('/user', { token: a.token })).status).toBe(200);
    // Turned off (by another administrator: root's own requests count too), the user passes again.
    expect((await put({ throttle_authenticated_api_enabled: false }, admin2.token)).status).toBe(200);
    expect((await api('/user', { token: c.token })).status).toBe(200);
  });

  it('throttles anonymous API requests per client address, with the configured response text', async () => {
    await freshWindow(60);
    const on = await put({ throttle_unauthenticated_api_enabled: true, throttle_unauthenticated_api_requests_per_period: 1, throttle_unauthenticated_api_period_in_seconds: 60, rate_limiting_response_text: 'Slow down' });
    expect(on.status).toBe(200);
    const ip = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
    const path = `/users?username=${a.username}`;
    expect((await api(path, { headers: { 'X-Forwarded-For': ip } })).status).toBe(200);
    const res = await api(path, { headers: { 'X-Forwarded-For': `${ip}, 10.1.1.1` } });
    expect(res.status).toBe(429);
    expect(res.text).toBe('Slow down\n');
    expect(res.headers.get('ratelimit-name')).toBe('throttle_unauthenticated_api');
    expect(res.headers.get('ratelimit-limit')).toBe('1');
    expect(res.headers.get('ratelimit-observed')).toBe('2');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    // Another address, and signed-in users, are not throttled.
    expect((await api(path, { headers: { 'X-Forwarded-For': unique('10.') } })).status).toBe(200);
    expect((await api(path, { token: a.token, headers: { 'X-Forwarded-For': ip } })).status).toBe(200);
    expect((await put({ throttle_unauthenticated_api_enabled: false, rate_limiting_response_text: null })).status).toBe(200);
    expect((await api(path, { headers: { 'X-Forwarded-For': ip } })).status).toBe(200);
  });

  it('counts the files API under its own throttle, and not under the API throttle, when it is enabled', async () => {
    // A fresh administrator turns the throttles off again: one that has not been counted yet.
    const [c, admin3] = await Promise.all([createUser(), createUser({ admin: true })]);
    const p = (await api('/projects', { token: c.token, body: { name: unique('thr'), visibility: 'private' } })).body;
    const commit = { branch: 'main', commit_message: 'a', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] };
    expect((await api(`/projects/${p.id}/repository/commits`, { token: c.token, body: commit })).status).toBe(201);
    const file = `/projects/${p.id}/repository/files/a.txt?ref=main`;
    await freshWindow(60);
    const on = await put({
      throttle_authenticated_api_enabled: true,
      throttle_authenticated_api_requests_per_period: 2,
      throttle_authenticated_api_period_in_seconds: 60,
      throttle_authenticated_files_api_enabled: true,
      throttle_authenticated_files_api_requests_per_period: 1,
      throttle_authenticated_files_api_period_in_seconds: 60,
    });
    expect(on.status).toBe(200);
    expect((await api('/user', { token: c.token })).status).toBe(200);
    expect((await api(file, { token: c.token })).status).toBe(200);
    const res = await api(file, { token: c.token });
    expect(res.status).toBe(429);
    expect(res.headers.get('ratelimit-name')).toBe('throttle_authenticated_files_api');
    // The two files requests did not count under the API throttle: its second request still passes.
    expect((await api('/user', { token: c.token })).status).toBe(200);
    // With the files throttle off, files requests count under the API throttle again.
    expect((await put({ throttle_authenticated_files_api_enabled: false }, admin3.token)).status).toBe(200);
    const general = await api(file, { token: c.token });
    expect(general.status).toBe(429);
    expect(general.headers.get('ratelimit-name')).toBe('throttle_authenticated_api');
    expect((await put({ throttle_authenticated_api_enabled: false }, admin3.token)).status).toBe(200);
    expect((await api(file, { token: c.token })).status).toBe(200);
  });

  it('throttles the deprecated group endpoint (GET /groups/:id with its projects) on its own', async () => {
    const path = unique('thrg');
    const g = (await api('/groups', { token: a.token, body: { name: path, path, visibility: 'public' } })).body;
    await freshWindow(60);
    const on = await put({ throttle_unauthenticated_deprecated_api_enabled: true, throttle_unauthenticated_deprecated_api_requests_per_period: 1, throttle_unauthenticated_deprecated_api_period_in_seconds: 60 });
    expect(on.status).toBe(200);
    const ip = `203.0.113.${Math.floor(Math.random() * 200) + 1}`;
    const get = (q = '') => api(`/groups/${g.id}${q}`, { headers: { 'X-Forwarded-For': ip } });
    expect((await get()).status).toBe(200);
    const res = await get('?with_projects=true');
    expect(res.status).toBe(429);
    expect(res.headers.get('ratelimit-name')).toBe('throttle_unauthenticated_deprecated_api');
    // Without the projects the request is not the deprecated one; signed-in callers are not counted.
    expect((await get('?with_projects=false')).status).toBe(200);
    expect((await api(`/groups/${g.id}`, { token: a.token, headers: { 'X-Forwarded-For': ip } })).status).toBe(200);
    expect((await put({ throttle_unauthenticated_deprecated_api_enabled: false })).status).toBe(200);
    expect((await get()).status).toBe(200);
  });

  it('throttles POSTs to protected paths (sign-in) per client address', async () => {
    await freshWindow(60);
    const on = await put({ throttle_protected_paths_enabled: true, throttle_protected_paths_requests_per_period: 1, throttle_protected_paths_period_in_seconds: 60 });
    expect(on.status).toBe(200);
    const ip = `192.0.2.${Math.floor(Math.random() * 200) + 1}`;
    const signIn = () => api('/users/sign_in', { form: { 'user[login]': a.username, 'user[password]': 'wrong-password' }, headers: { 'CF-Connecting-IP': ip } });
    expect((await signIn()).status).not.toBe(429);
    const res = await signIn();
    expect(res.status).toBe(429);
    expect(res.text).toBe('Retry later\n');
    expect(res.headers.get('ratelimit-name')).toBe('throttle_unauthenticated_protected_paths');
    // Paths that are not protected, and GET requests, are not counted.
    expect((await api(`/users?username=${a.username}`, { headers: { 'CF-Connecting-IP': ip } })).status).toBe(200);
    expect((await put({ throttle_protected_paths_enabled: false })).status).toBe(200);
    expect((await signIn()).status).not.toBe(429);
  });
});
