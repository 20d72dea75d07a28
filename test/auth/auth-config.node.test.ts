/**
 * Authentication behaviour that needs a differently configured server (impersonation disabled, a
 * tiny OAuth TTL), state no API can produce (accounts pending approval, internal users, old
 * last_used_at), or a route kind no resource has yet (job-token routes).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { z } from 'zod';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import type { AppEnv, UserRow } from '../../src/platform/context';
import { users } from '../../src/db/schema';
import { memoryRateLimiter } from '../../src/platform/rate-limiter';
import { Router } from '../../src/platform/router';
import { authenticate, setJobTokenResolver } from '../../src/auth/authenticate';
import { onError } from '../../src/platform/error-handler';
import { createNodeApp } from '../../src/node-app';

type Env = Record<string, string>;

async function server(env: Env = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-auth-'));
  const created = await createNodeApp({
    databaseUrl: `file:${join(dir, 'db.sqlite')}`,
    blobRoot: join(dir, 'blobs'),
    migrationsFolder: 'drizzle',
    env: { PASSWORD_HASH_ITERATIONS: '1000', ...env },
  });
  const call = async (path: string, init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (init.token) headers['PRIVATE-TOKEN'] = init.token;
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await created.app.fetch(
      new Request(`http://localhost${path.startsWith('/api/') || path.startsWith('/oauth') ? path : `/api/v4${path}`}`, {
        method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
        headers,
        body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      }),
    );
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };
  const newUser = async () => {
    const username = `u${Math.random().toString(36).slice(2, 10)}`;
    const password = 'Secret-pass-123';
    const res = await call('/users', { token: DEV_ROOT_TOKEN, body: { username, email: `${username}@example.com`, name: username, password, skip_confirmation: true } });
    expect(res.status).toBe(201);
    const tok = await call(`/users/${res.body.id}/personal_access_tokens`, { token: DEV_ROOT_TOKEN, body: { name: 't', scopes: ['api'] } });
    return { id: res.body.id as number, username, password, token: tok.body.token as string, tokenId: tok.body.id as number };
  };
  return { ...created, call, newUser };
}

describe('IMPERSONATION_ENABLED=false', () => {
  it('refuses impersonation tokens with the rack-oauth2 401 while personal tokens keep working', async () => {
    const s = await server({ IMPERSONATION_ENABLED: 'false' });
    const u = await s.newUser();
    const imp = await s.call(`/users/${u.id}/impersonation_tokens`, { token: DEV_ROOT_TOKEN, body: { name: 'i', scopes: ['api'] } });
    expect(imp.status).toBe(201);
    const res = await s.call('/user', { token: imp.body.token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_token', error_description: 'Token is an impersonation token but impersonation was disabled.' });
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="Token is an impersonation token but impersonation was disabled."',
    );
    expect((await s.call('/user', { token: u.token })).status).toBe(200);
  });

  it('is on by default', async () => {
    const s = await server();
    const u = await s.newUser();
    const imp = await s.call(`/users/${u.id}/impersonation_tokens`, { token: DEV_ROOT_TOKEN, body: { name: 'i', scopes: ['api'] } });
    expect((await s.call('/user', { token: imp.body.token })).status).toBe(200);
  });
});

describe('OAUTH_TOKEN_TTL_SECONDS', () => {
  it('sets expires_in; an expired OAuth token is 401 "Token is expired", token/info says so, and refresh still works', async () => {
    const s = await server({ OAUTH_TOKEN_TTL_SECONDS: '1' });
    const u = await s.newUser();
    const grant = await s.call('/oauth/token', { body: { grant_type: 'password', username: u.username, password: u.password } });
    expect(grant.status).toBe(200);
    expect(grant.body.expires_in).toBe(1);
    expect((await s.call('/api/v4/user', { headers: { Authorization: `Bearer ${grant.body.access_token}` } })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    const res = await s.call('/api/v4/user', { headers: { Authorization: `Bearer ${grant.body.access_token}` } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_token', error_description: 'Token is expired. You can either do re-authorization or token refresh.' });
    expect(res.headers.get('www-authenticate')).toContain('error_description="Token is expired. You can either do re-authorization or token refresh."');
    const info = await s.call(`/oauth/token/info?access_token=${grant.body.access_token}`);
    expect(info.status).toBe(401);
    expect(info.body).toEqual({ error: 'invalid_token', error_description: 'The access token expired' });
    const refreshed = await s.call('/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: grant.body.refresh_token } });
    expect(refreshed.status).toBe(200);
    expect((await s.call('/api/v4/user', { headers: { Authorization: `Bearer ${refreshed.body.access_token}` } })).status).toBe(200);
  });
});

describe('max_personal_access_token_lifetime (Ultimate)', () => {
  const addDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

  async function withLifetime(plan: string) {
    const s = await server({ INSTANCE_PLAN: plan });
    // On a plan without the feature the setting is silently dropped, like GitLab's license filter.
    const put = await s.call('/application/settings', { method: 'PUT', token: DEV_ROOT_TOKEN, body: { max_personal_access_token_lifetime: 30 } });
    expect(put.status).toBe(200);
    return s;
  }

  it('shortens the maximum and the default expiry on Ultimate', async () => {
    const s = await withLifetime('ultimate');
    const u = await s.newUser();
    expect((await s.call(`/personal_access_tokens/${u.tokenId}`, { token: u.token })).body.expires_at).toBe(addDays(30));
    const late = await s.call(`/users/${u.id}/personal_access_tokens`, { token: DEV_ROOT_TOKEN, body: { name: 'x', scopes: ['api'], expires_at: addDays(60) } });
    expect(late.status).toBe(422);
    expect(late.body).toEqual({ message: `Expires at must be before ${addDays(30)}` });
  });

  it('is ignored on the free plan', async () => {
    const s = await withLifetime('free');
    const u = await s.newUser();
    expect((await s.call(`/personal_access_tokens/${u.tokenId}`, { token: u.token })).body.expires_at).toBe(addDays(365));
    const ok = await s.call(`/users/${u.id}/personal_access_tokens`, { token: DEV_ROOT_TOKEN, body: { name: 'x', scopes: ['api'], expires_at: addDays(60) } });
    expect(ok.status).toBe(201);
  });
});

describe('account states', () => {
  it('pending approval (no API reaches it: there is no sign-up) and internal users get their own 403 reasons', async () => {
    const s = await server();
    const pending = await s.newUser();
    await s.db.update(users).set({ state: 'blocked_pending_approval' }).where(eq(users.id, pending.id)).run();
    const res = await s.call('/user', { token: pending.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden - Your account is pending approval from your administrator and hence blocked.' });
    // The ghost user is an internal user that exists once any user has been soft-deleted.
    const gone = await s.newUser();
    expect((await s.call(`/users/${gone.id}`, { method: 'DELETE', token: DEV_ROOT_TOKEN })).status).toBe(204);
    const [ghost] = (await s.call('/users?username=ghost', { token: DEV_ROOT_TOKEN })).body;
    const ghostToken = await s.call(`/users/${ghost.id}/personal_access_tokens`, { token: DEV_ROOT_TOKEN, body: { name: 'g', scopes: ['api'] } });
    expect((await s.call('/user', { token: ghostToken.body.token })).body).toEqual({ message: '403 Forbidden - This action cannot be performed by internal users' });
  });
});

describe('last_used_at', () => {
  afterEach(() => vi.useRealTimers());

  it('is rewritten once it is older than 10 minutes, not before', async () => {
    const s = await server();
    const u = await s.newUser();
    // The server runs in this process: moving the clock moves its clock, storage stays real.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const lastUsed = async () => (await s.call(`/personal_access_tokens/${u.tokenId}`, { token: DEV_ROOT_TOKEN })).body.last_used_at as string | null;
    await s.call('/user', { token: u.token });
    const first = await lastUsed();
    expect(first).not.toBeNull();
    vi.advanceTimersByTime(9 * 60_000);
    await s.call('/user', { token: u.token });
    expect(await lastUsed()).toBe(first);
    vi.advanceTimersByTime(2 * 60_000);
    await s.call('/user', { token: u.token });
    const third = await lastUsed();
    expect(Date.parse(third!) - Date.parse(first!)).toBeGreaterThanOrEqual(11 * 60_000);
  });
});

describe('HTTP Basic personal access tokens', () => {
  it('are accepted as the password only on routes that allow them; an unknown one is anonymous there', async () => {
    const { s, get } = await jobAppFactory();
    const u = await s.newUser();
    const basic = (secret: string) => ({ Authorization: `Basic ${btoa(`${u.username}:${secret}`)}` });
    expect(await get('/basic-probe', basic(u.token))).toEqual({ status: 200, body: { user: u.id, kind: 'personal_access_token' } });
    expect(await get('/no-job-probe', basic(u.token))).toEqual({ status: 200, body: { user: null } });
    expect(await get('/basic-probe', basic('glpat-unknown'))).toEqual({ status: 200, body: { user: null, kind: null } });
  });
});

/** What the probe routes answer: who called, and how. */
const PROBE = { 200: z.object({ user: z.number().nullable(), kind: z.string().nullable().optional() }) };

/** A small app with probe routes (`jobToken: true`, `basicAuthPat: true`, plain) on the real database and configuration. */
async function jobAppFactory() {
  const s = await server();
  const hono = new Hono<AppEnv>();
  hono.use('*', async (c, next) => {
    c.set('db', s.db);
    c.set('config', s.config);
    c.set('jobs', s.jobs);
    c.set('blobs', {} as never);
    c.set('rateLimiter', memoryRateLimiter());
    await next();
  });
  // A module that authenticates ahead of the router (as keys.ts and audit-events.ts do).
  hono.on(['GET'], '/api/v4/job-probe', async (c, next) => {
    await authenticate(c, { jobToken: true });
    await next();
  });
  const r = new Router(hono, '/api/v4', { authenticate, enforceRateLimits: async () => {} });
  r.route({ method: 'GET', path: '/job-probe', summary: 'probe', tags: ['test'], jobToken: true, responses: PROBE }, ({ c, caller }) =>
    c.json({ user: caller.user?.id ?? null, kind: caller.credential?.kind ?? null }),
  );
  r.route({ method: 'GET', path: '/basic-probe', summary: 'probe', tags: ['test'], basicAuthPat: true, responses: PROBE }, ({ c, caller }) =>
    c.json({ user: caller.user?.id ?? null, kind: caller.credential?.kind ?? null }),
  );
  r.route({ method: 'GET', path: '/no-job-probe', summary: 'probe', tags: ['test'], responses: PROBE }, ({ c, caller }) => c.json({ user: caller.user?.id ?? null }));
  hono.onError(onError);
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await hono.fetch(new Request(`http://localhost/api/v4${path}`, { headers }));
    return { status: res.status, body: await res.json() };
  };
  return { s, get };
}

describe('job-token routes', () => {
  afterEach(() => setJobTokenResolver(async () => null));
  const jobApp = jobAppFactory;

  it('answer 401 for any job token while no CI job exists (JOB-TOKEN, job_token, token, Bearer)', async () => {
    const { get } = await jobApp();
    for (const [path, headers] of [
      ['/job-probe', { 'JOB-TOKEN': 'glcbt-nope' }],
      ['/job-probe?job_token=glcbt-nope', {}],
      ['/job-probe?token=glcbt-nope', {}],
      ['/job-probe', { Authorization: 'Bearer glcbt-nope' }],
    ] as const) {
      const res = await get(path, headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: '401 Unauthorized' });
    }
    // Routes without job tokens ignore them: anonymous.
    expect(await get('/no-job-probe', { 'JOB-TOKEN': 'glcbt-nope' })).toEqual({ status: 200, body: { user: null } });
  });

  it('authenticate as the job user once a resolver knows the token; sudo is refused', async () => {
    const { s, get } = await jobApp();
    const u = await s.newUser();
    const row = (await s.db.select().from(users).where(eq(users.id, u.id)).get()) as UserRow;
    setJobTokenResolver(async (_c, token) => (token === 'glcbt-good' ? { jobId: 7, user: row } : null));
    expect(await get('/job-probe', { 'JOB-TOKEN': 'glcbt-good' })).toEqual({ status: 200, body: { user: u.id, kind: 'job_token' } });
    expect(await get('/job-probe', { Authorization: 'Bearer glcbt-good' })).toEqual({ status: 200, body: { user: u.id, kind: 'job_token' } });
    expect((await get('/job-probe', { 'JOB-TOKEN': 'glcbt-bad' })).status).toBe(401);
    // Credentials are resolved once per request, however many times the request is authenticated.
    let lookups = 0;
    setJobTokenResolver(async (_c, token) => {
      lookups++;
      return token === 'glcbt-good' ? { jobId: 7, user: row } : null;
    });
    expect((await get('/job-probe', { 'JOB-TOKEN': 'glcbt-good' })).status).toBe(200);
    expect(lookups).toBe(1);
    const sudo = await get('/job-probe?sudo=1', { 'JOB-TOKEN': 'glcbt-good' });
    expect(sudo.status).toBe(403);
    expect(sudo.body).toEqual({ message: '403 Forbidden - Must be admin to use sudo' });
  });
});
