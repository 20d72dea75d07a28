/**
 * Issue 14: writes made through the API of another isolate reach this isolate's cached runners
 * through the change log (src/ci/runner-changes.ts) within one check interval. Two apps over one
 * database file stand for two isolates (each has its own Db, so its own caches); the caches' clock is
 * moved instead of sleeping.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cacheable, claimChangeCheck, RUNNER_CHANGES_CHECK_MS } from '../../src/ci/runner-changes';
import { createNodeApp } from '../../src/node-app';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { setCacheClock } from '../../src/platform/isolate-cache';

type App = Awaited<ReturnType<typeof createNodeApp>>;

function client(app: App) {
  return async (path: string, init: { method?: string; token?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (init.token) headers['PRIVATE-TOKEN'] = init.token;
    const res = await app.app.fetch(new Request(`http://localhost/api/v4${path}`, { method: init.method ?? 'POST', headers, body: init.body !== undefined ? JSON.stringify(init.body) : undefined }));
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, trips: Number(res.headers.get('x-storage-round-trips')), stamp: res.headers.get('x-gitlab-last-update') };
  };
}

let here: ReturnType<typeof client>;
let elsewhere: ReturnType<typeof client>;
let now = 0;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-runner-changes-'));
  const options = { databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000', REPORT_ROUND_TRIPS: 'true' } };
  here = client(await createNodeApp(options));
  elsewhere = client(await createNodeApp(options));
});
beforeEach(() => {
  now = Date.now() + 24 * 3600_000;
  setCacheClock(() => now);
});
afterEach(() => setCacheClock(null));

const poll = (token: string) => here('/jobs/request', { body: { token } });

/** A runner registered elsewhere, cached here. */
async function cachedHere(registrationToken?: string): Promise<{ id: number; token: string }> {
  const reg = registrationToken ?? (await elsewhere('/runners/reset_registration_token', { token: DEV_ROOT_TOKEN })).body.token;
  const created = await elsewhere('/runners', { body: { token: reg } });
  expect(created.status).toBe(201);
  expect((await here('/runners/verify', { body: { token: created.body.token } })).status).toBe(200);
  expect((await poll(created.body.token)).trips).toBe(0);
  return created.body;
}

/** The answer here just before the next check is due, and at it. */
async function aroundCheck(token: string) {
  now += RUNNER_CHANGES_CHECK_MS - 1;
  const before = await poll(token);
  now += 1;
  const after = await poll(token);
  return { before, after };
}

describe('a runner written elsewhere', () => {
  it('paused: the poll answers the new stamp after the check', async () => {
    const { id, token } = await cachedHere();
    const stamp = (await poll(token)).stamp;
    expect((await elsewhere(`/runners/${id}`, { method: 'PUT', token: DEV_ROOT_TOKEN, body: { paused: true } })).status).toBe(200);
    const { before, after } = await aroundCheck(token);
    expect(before.stamp).toBe(stamp);
    expect(after.status).toBe(204);
    expect(after.stamp).not.toBe(stamp);
  });

  it('deleted by id, unregistered, or its token reset: refused after the check', async () => {
    const byId = await cachedHere();
    const unregistered = await cachedHere();
    const reset = await cachedHere();
    expect((await elsewhere(`/runners/${byId.id}`, { method: 'DELETE', token: DEV_ROOT_TOKEN })).status).toBe(204);
    expect((await elsewhere('/runners', { method: 'DELETE', body: { token: unregistered.token } })).status).toBe(204);
    expect((await elsewhere(`/runners/${reset.id}/reset_authentication_token`, { token: DEV_ROOT_TOKEN })).status).toBe(201);
    for (const r of [byId, unregistered, reset]) expect((await poll(r.token)).status).toBe(204);
    now += RUNNER_CHANGES_CHECK_MS;
    for (const r of [byId, unregistered, reset]) expect((await poll(r.token)).status).toBe(403);
  });

  it('removed with its project: refused after the check', async () => {
    const project = await elsewhere('/projects', { token: DEV_ROOT_TOKEN, body: { name: `p${Date.now().toString(36)}` } });
    expect(project.status).toBe(201);
    const reg = (await elsewhere(`/projects/${project.body.id}/runners/reset_registration_token`, { token: DEV_ROOT_TOKEN })).body.token;
    const { token } = await cachedHere(reg);
    expect((await elsewhere(`/projects/${project.body.id}`, { method: 'DELETE', token: DEV_ROOT_TOKEN })).status).toBe(202);
    const { before, after } = await aroundCheck(token);
    expect(before.status).toBe(204);
    expect(after.status).toBe(403);
  });
});

describe('a row read from a replica behind this isolate', () => {
  it('is answered but not cached: only rows read with a change id at least as new as the cursor are', async () => {
    // A Db no request has used yet (the cursor is per Db); the check's statement is not sent.
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-runner-cursor-'));
    const { db } = await createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000' } });
    expect(cacheable(db, 7)).toBe(false); // no check yet: nothing is known to be new enough
    const check = claimChangeCheck(db)!;
    expect(check.fresh).toBe(true);
    expect(check.apply([{ id: 5, runnerId: 1 }])).toBe('all');
    expect(cacheable(db, 4)).toBe(false);
    expect(cacheable(db, null)).toBe(false);
    expect(cacheable(db, 5)).toBe(true);
    expect(cacheable(db, 9)).toBe(true);
  });
});
