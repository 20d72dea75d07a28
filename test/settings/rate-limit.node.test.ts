import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { memoryRateLimiter } from '../../src/platform/rate-limiter';
import { ApiError } from '../../src/platform/errors';
import { appLimitThreshold, applicationLimit, checkRateLimit } from '../../src/settings/rate-limits';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNodeApp } from '../../src/node-app';
import { loadSettings, type Settings, writeSettings } from '../../src/settings/settings';

/** A real storage of its own (a fresh instance: no settings row) for what reads the settings. */
async function freshDb() {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-rl-'));
  const app = await createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000' } });
  return app.db;
}

describe('memoryRateLimiter', () => {
  afterEach(() => vi.useRealTimers());

  it('counts per key in fixed windows aligned to the period', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-01-01T00:00:10.000Z'));
    const rl = memoryRateLimiter();
    const end = Date.parse('2026-01-01T00:01:00.000Z');
    expect(await rl.hit('k', 60)).toEqual({ count: 1, resetAt: end });
    expect(await rl.hit('k', 60)).toEqual({ count: 2, resetAt: end });
    expect(await rl.hit('other', 60)).toEqual({ count: 1, resetAt: end });
    vi.setSystemTime(new Date('2026-01-01T00:01:00.000Z'));
    expect(await rl.hit('k', 60)).toEqual({ count: 1, resetAt: end + 60_000 });
  });
});

describe('appLimitThreshold', () => {
  // loadSettings over a database without a row gives the defaults; a stored value is "explicit".
  const settingsWith = async (stored: Record<string, unknown> | null): Promise<Settings> => {
    const db = await freshDb();
    if (stored) await writeSettings(db, stored);
    return loadSettings(db);
  };

  it('prefers a stored setting, then RATE_LIMITS, then the default', async () => {
    const fresh = await settingsWith(null);
    expect(appLimitThreshold(fresh, {}, 'users_get_by_id')).toBe(300);
    expect(appLimitThreshold(fresh, {}, 'user_status')).toBe(240);
    expect(appLimitThreshold(fresh, {}, 'user_followers')).toBe(100);
    expect(appLimitThreshold(fresh, {}, 'user_sign_in')).toBe(5);
    expect(appLimitThreshold(fresh, {}, 'issues_create')).toBe(0);
    expect(appLimitThreshold(fresh, { user_status: 3, username_exists: 7 }, 'user_status')).toBe(3);
    expect(appLimitThreshold(fresh, { username_exists: 7 }, 'username_exists')).toBe(7);
    const stored = await settingsWith({ users_api_limit_status: 0 });
    expect(appLimitThreshold(stored, { user_status: 3 }, 'user_status')).toBe(0);
    expect(appLimitThreshold(fresh, {}, 'no_such_key')).toBe(0);
  });
});

describe('checkRateLimit / applicationLimit (for callers outside the router)', () => {
  let db: Awaited<ReturnType<typeof freshDb>>;
  beforeAll(async () => {
    db = await freshDb();
  });
  const fakeContext = (rateLimits: Record<string, number>) => {
    const rateLimiter = memoryRateLimiter();
    // settingsOf(c) reads the (empty) settings row through `db`.
    return { var: { rateLimiter, db, config: { rateLimits } } } as never;
  };
  const failure = async (p: Promise<void>) => p.then(() => null, (e: unknown) => e as ApiError);

  it('counts per scope and answers GitLab 429 with Retry-After: interval', async () => {
    const c = fakeContext({});
    expect(await failure(checkRateLimit(c, 'k', [1, 'x'], 1, 60))).toBeNull();
    const err = await failure(checkRateLimit(c, 'k', [1, 'x'], 1, 60));
    expect(err).toBeInstanceOf(ApiError);
    expect(err!.status).toBe(429);
    expect(err!.body).toEqual({ message: { error: 'This endpoint has been requested too many times. Try again later.' } });
    expect(err!.headers).toEqual({ 'Retry-After': '60' });
    expect(await failure(checkRateLimit(c, 'k', [2, 'x'], 1, 60))).toBeNull();
    expect(await failure(checkRateLimit(c, 'k', [1, 'x'], 0, 60))).toBeNull();
  });

  it('issues_create is disabled by default and, when limited, sends no Retry-After', async () => {
    const off = fakeContext({});
    for (let n = 0; n < 5; n++) expect(await failure(applicationLimit(off, 'issues_create', [7, 3], { retryAfter: false }))).toBeNull();
    const on = fakeContext({ issues_create: 1 });
    expect(await failure(applicationLimit(on, 'issues_create', [7, 3], { retryAfter: false }))).toBeNull();
    const err = await failure(applicationLimit(on, 'issues_create', [7, 3], { retryAfter: false }));
    expect(err!.status).toBe(429);
    expect(err!.headers).toEqual({});
    // Another project of the same user has a count of its own.
    expect(await failure(applicationLimit(on, 'issues_create', [8, 3], { retryAfter: false }))).toBeNull();
  });
});
