/**
 * Issue 13: what another isolate does reaches this one's cached callers and settings within
 * ISOLATE_CACHE_TTL_MS. Two apps over one database file stand for two Workers isolates (each app has
 * its own Db, so its own caches); the caches' clock is moved instead of sleeping.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';
import { ISOLATE_CACHE_TTL_MS, setCacheClock, TtlCache } from '../../src/platform/isolate-cache';

type App = Awaited<ReturnType<typeof createNodeApp>>;

function caller(app: App) {
  return async (path: string, init: { method?: string; token?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = {};
    if (init.token) headers['PRIVATE-TOKEN'] = init.token;
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await app.app.fetch(
      new Request(`http://localhost/api/v4${path}`, { method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'), headers, body: init.body !== undefined ? JSON.stringify(init.body) : undefined }),
    );
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, roundTrips: Number(res.headers.get('x-storage-round-trips')) };
  };
}

let here: ReturnType<typeof caller>;
let elsewhere: ReturnType<typeof caller>;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-ttl-'));
  const options = { databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000', REPORT_ROUND_TRIPS: 'true' } };
  here = caller(await createNodeApp(options));
  elsewhere = caller(await createNodeApp(options));
});

let now = Date.now();
const advance = (ms: number) => {
  now += ms;
};
afterEach(() => setCacheClock(null));

async function newUser(admin = false) {
  const username = `u${Math.random().toString(36).slice(2, 10)}`;
  const res = await elsewhere('/users', { token: DEV_ROOT_TOKEN, body: { username, email: `${username}@example.com`, name: username, password: 'Secret-pass-123', skip_confirmation: true, admin } });
  expect(res.status).toBe(201);
  const tok = await elsewhere(`/users/${res.body.id}/personal_access_tokens`, { token: DEV_ROOT_TOKEN, body: { name: 't', scopes: ['api', 'admin_mode'] } });
  return { id: res.body.id as number, token: tok.body.token as string, tokenId: tok.body.id as number };
}

/** Caches `token` here, lets `change` happen elsewhere, then checks the answer just before and at the TTL. */
async function seenAfterTtl(token: string, change: () => Promise<void>, request: () => Promise<{ status: number; body: unknown }>) {
  now = Date.now();
  setCacheClock(() => now);
  expect((await here('/user', { token })).status).toBe(200);
  const cachedAt = now;
  await change();
  advance(ISOLATE_CACHE_TTL_MS - 1);
  const before = await request();
  now = cachedAt + ISOLATE_CACHE_TTL_MS;
  const after = await request();
  return { before, after };
}

describe('changes made in another isolate', () => {
  it(`a revoked token keeps working here until its entry is ${ISOLATE_CACHE_TTL_MS / 1000} s old, then is refused`, async () => {
    const u = await newUser();
    const { before, after } = await seenAfterTtl(
      u.token,
      async () => expect((await elsewhere(`/personal_access_tokens/${u.tokenId}`, { method: 'DELETE', token: DEV_ROOT_TOKEN })).status).toBe(204),
      () => here('/user', { token: u.token }),
    );
    expect(before.status).toBe(200);
    expect(after).toMatchObject({ status: 401, body: { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' } });
  });

  it('a rotated token: the old one until the TTL, the new one at once', async () => {
    const u = await newUser();
    let successor = '';
    const { before, after } = await seenAfterTtl(
      u.token,
      async () => {
        const rotated = await elsewhere('/personal_access_tokens/self/rotate', { method: 'POST', token: u.token });
        expect(rotated.status).toBe(200);
        successor = rotated.body.token;
        // Not cached here yet: found in storage at once.
        expect((await here('/user', { token: successor })).status).toBe(200);
      },
      () => here('/user', { token: u.token }),
    );
    expect(before.status).toBe(200);
    expect(after.status).toBe(401);
  });

  it('a blocked user until the TTL, then 403', async () => {
    const u = await newUser();
    const { before, after } = await seenAfterTtl(
      u.token,
      async () => expect((await elsewhere(`/users/${u.id}/block`, { method: 'POST', token: DEV_ROOT_TOKEN })).status).toBe(201),
      () => here('/user', { token: u.token }),
    );
    expect(before.status).toBe(200);
    expect(after).toMatchObject({ status: 403, body: { message: '403 Forbidden - Your account has been blocked.' } });
  });

  it('a demoted administrator until the TTL, then a regular user', async () => {
    const a = await newUser(true);
    const { before, after } = await seenAfterTtl(
      a.token,
      async () => expect((await elsewhere(`/users/${a.id}`, { method: 'PUT', token: DEV_ROOT_TOKEN, body: { admin: false } })).status).toBe(200),
      () => here('/application/settings', { token: a.token }),
    );
    expect(before.status).toBe(200);
    expect(after.status).toBe(403);
  });

  it('a settings change until the TTL, then the new value', async () => {
    const u = await newUser();
    // default_projects_limit is what POST /users gives a new user's projects_limit.
    const projectsLimit = async () => {
      const username = `u${Math.random().toString(36).slice(2, 10)}`;
      const res = await here('/users', { token: DEV_ROOT_TOKEN, body: { username, email: `${username}@example.com`, name: username, password: 'Secret-pass-123', skip_confirmation: true } });
      return { status: res.status, body: res.body.projects_limit };
    };
    const { before, after } = await seenAfterTtl(
      u.token,
      async () => {
        expect((await projectsLimit()).body).toBe(100000);
        expect((await elsewhere('/application/settings', { method: 'PUT', token: DEV_ROOT_TOKEN, body: { default_projects_limit: 7 } })).status).toBe(200);
      },
      projectsLimit,
    );
    expect(before.body).toBe(100000);
    expect(after.body).toBe(7);
  });
});

describe('GET /user after the entry expired', () => {
  it('costs 2 round trips (token, user and settings in one batch; the extras) when last_used_at is not due', async () => {
    const u = await newUser();
    now = Date.now();
    setCacheClock(() => now);
    expect((await here('/user', { token: u.token })).roundTrips).toBe(3);
    expect((await here('/user', { token: u.token })).roundTrips).toBe(1);
    advance(ISOLATE_CACHE_TTL_MS);
    const expired = await here('/user', { token: u.token });
    expect([expired.status, expired.roundTrips]).toEqual([200, 2]);
  });
});

describe('the settings cache', () => {
  it('is refreshed by every caller lookup, so a cached caller never reads the settings alone', async () => {
    const u = await newUser();
    now = Date.now();
    setCacheClock(() => now);
    // An anonymous request caches the settings (the rate limits read them), then the caller is looked up 5 s later.
    expect((await here('/users?username=root')).status).toBe(200);
    advance(5_000);
    expect((await here('/user', { token: u.token })).roundTrips).toBeLessThanOrEqual(3);
    // 12 s after the settings were first read, 7 s after the lookup: nothing to read but the extras.
    advance(7_000);
    expect((await here('/user', { token: u.token })).roundTrips).toBe(1);
  });
});

describe('TtlCache', () => {
  it('keeps at most maxEntries, dropping the least recently used', () => {
    setCacheClock(() => 0);
    const cache = new TtlCache<number>(1000, 2);
    cache.setIfCurrent(cache.generation, 'a', 1);
    cache.setIfCurrent(cache.generation, 'b', 2);
    expect(cache.get('a')).toBe(1);
    cache.setIfCurrent(cache.generation, 'c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.size]).toEqual([1, undefined, 3, 2]);
  });

  it('does not store what was read before an invalidation that happened meanwhile', () => {
    setCacheClock(() => 0);
    const cache = new TtlCache<string>(1000, 10);
    const generation = cache.generation;
    cache.invalidate((v) => v === 'x');
    cache.setIfCurrent(generation, 'k', 'stale');
    expect(cache.get('k')).toBeUndefined();
    cache.setIfCurrent(cache.generation, 'k', 'fresh');
    expect(cache.get('k')).toBe('fresh');
  });
});

describe('an aging caller under concurrent requests', () => {
  it('is refreshed by one of them: the refresh statements are sent once', async () => {
    const { totals } = await import('../../src/db/round-trips');
    const u = await newUser();
    now = Date.now();
    setCacheClock(() => now);
    expect((await here('/user', { token: u.token })).status).toBe(200);
    let before = totals.statements;
    expect((await here('/user', { token: u.token })).roundTrips).toBe(1);
    const perRequest = totals.statements - before;
    advance(ISOLATE_CACHE_TTL_MS / 2 + 1);
    before = totals.statements;
    const answers = await Promise.all([here('/user', { token: u.token }), here('/user', { token: u.token }), here('/user', { token: u.token })]);
    expect(answers.map((a) => [a.status, a.roundTrips])).toEqual([
      [200, 1],
      [200, 1],
      [200, 1],
    ]);
    // The token, its user and the settings check, once: the request carrying the refresh sends its
    // settings check with it (settings/settings.ts settingsPrefetch) instead of the one every request sends.
    expect(totals.statements - before).toBe(3 * perRequest + 2);
  });
});
