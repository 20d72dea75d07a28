/**
 * Issue 16 item 1 on Node apps of their own: protected environments are Premium (403 on a free
 * instance, where environments still work), and deleting a project removes its environments and
 * protected environments with their entries (deployments/cascade.ts), read back from storage.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { count, eq, inArray } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client';
import { environments, protectedEnvironmentEntries, protectedEnvironments } from '../../src/db/schema';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function instance(plan: string) {
  const dir = mkdtempSync(join(tmpdir(), `wfapi-env-${plan}-`));
  dirs.push(dir);
  const { app, db } = await createNodeApp({
    databaseUrl: `file:${join(dir, 'db.sqlite')}`,
    blobRoot: join(dir, 'blobs'),
    migrationsFolder: 'drizzle',
    env: { PASSWORD_HASH_ITERATIONS: '1000', INSTANCE_PLAN: plan },
  });
  const call = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await app.fetch(
      new Request(`http://localhost/api/v4${path}`, {
        method: init.method ?? (init.body ? 'POST' : 'GET'),
        headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN, 'Content-Type': 'application/json' },
        body: init.body ? JSON.stringify(init.body) : undefined,
      }),
    );
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
  return { call, db: db as Db };
}

describe('protected environments and the plan', () => {
  it('answers 403 on a free instance, where environments still work', async () => {
    const { call } = await instance('free');
    const p = (await call('/projects', { body: { name: 'free-env' } })).body;
    expect((await call(`/projects/${p.id}/environments`, { body: { name: 'production' } })).status).toBe(201);
    expect(await call(`/projects/${p.id}/protected_environments`, { body: { name: 'production', deploy_access_levels: [{ access_level: 40 }] } })).toEqual({ status: 403, body: { message: '403 Forbidden' } });
    expect(await call(`/projects/${p.id}/protected_environments`)).toEqual({ status: 403, body: { message: '403 Forbidden' } });
  });
});

describe('deleting a project', () => {
  it('removes its environments and protected environments with their entries, and only its own', async () => {
    const { call, db } = await instance('premium');
    const make = async (name: string) => {
      const p = (await call('/projects', { body: { name } })).body;
      expect((await call(`/projects/${p.id}/environments`, { body: { name: 'production' } })).status).toBe(201);
      const pe = await call(`/projects/${p.id}/protected_environments`, { body: { name: 'production', deploy_access_levels: [{ access_level: 40 }], approval_rules: [{ access_level: 40 }] } });
      expect(pe.status).toBe(201);
      return p.id as number;
    };
    const doomed = await make('doomed');
    const kept = await make('kept');
    const counts = async (pid: number) => {
      const [envs] = await db.select({ n: count() }).from(environments).where(eq(environments.projectId, pid));
      const ids = (await db.select({ id: protectedEnvironments.id }).from(protectedEnvironments).where(eq(protectedEnvironments.projectId, pid))).map((r) => r.id);
      const [entries] = await db.select({ n: count() }).from(protectedEnvironmentEntries).where(inArray(protectedEnvironmentEntries.protectedEnvironmentId, ids.length ? ids : [-1]));
      return [envs.n, ids.length, entries.n];
    };
    expect(await counts(doomed)).toEqual([1, 1, 2]);
    const [pe] = await db.select({ id: protectedEnvironments.id }).from(protectedEnvironments).where(eq(protectedEnvironments.projectId, doomed));
    const entriesOf = async () => (await db.select({ n: count() }).from(protectedEnvironmentEntries).where(eq(protectedEnvironmentEntries.protectedEnvironmentId, pe.id)))[0].n;
    expect(await entriesOf()).toBe(2);
    expect((await call(`/projects/${doomed}`, { method: 'DELETE' })).status).toBe(202);
    expect(await counts(doomed)).toEqual([0, 0, 0]);
    expect(await entriesOf()).toBe(0);
    expect(await counts(kept)).toEqual([1, 1, 2]);
  });
});
