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
import { deploymentApprovals, deploymentMergeRequests, deployments, environments, protectedEnvironmentEntries, protectedEnvironments } from '../../src/db/schema';
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
  const call = async (path: string, init: { method?: string; body?: unknown; token?: string } = {}) => {
    const res = await app.fetch(
      new Request(`http://localhost/api/v4${path}`, {
        method: init.method ?? (init.body ? 'POST' : 'GET'),
        headers: { 'PRIVATE-TOKEN': init.token ?? DEV_ROOT_TOKEN, 'Content-Type': 'application/json' },
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

describe('deleting a project with deployments', () => {
  it('removes their approvals and the merge requests they shipped', async () => {
    const { call, db } = await instance('premium');
    const u = await call('/users', { body: { email: 'approver@example.com', name: 'Approver', username: 'approver', password: 'Approver-pass-123', skip_confirmation: true } });
    const token = (await call(`/users/${u.body.id}/personal_access_tokens`, { body: { name: 't', scopes: ['api'] } })).body.token as string;
    const make = async (name: string) => {
      const p = (await call('/projects', { body: { name } })).body;
      const P = `/projects/${p.id}`;
      expect((await call(`${P}/members`, { body: { user_id: u.body.id, access_level: 40 } })).status).toBe(201);
      expect((await call(`${P}/repository/commits`, { body: { branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] } })).status).toBe(201);
      expect((await call(`${P}/repository/commits`, { body: { branch: 'f', start_branch: 'main', commit_message: 'y', actions: [{ action: 'create', file_path: 'b.txt', content: 'b' }] } })).status).toBe(201);
      const mr = (await call(`${P}/merge_requests`, { body: { source_branch: 'f', target_branch: 'main', title: 'f' } })).body;
      expect((await call(`${P}/merge_requests/${mr.iid}/merge`, { method: 'PUT' })).status).toBe(200);
      expect((await call(`${P}/deployments`, { body: { environment: 'staging', sha: 'main', ref: 'main', tag: false, status: 'success' } })).body.status).toBe('success');
      expect((await call(`${P}/protected_environments`, { body: { name: 'production', deploy_access_levels: [{ access_level: 40 }], approval_rules: [{ access_level: 40 }] } })).status).toBe(201);
      const d = (await call(`${P}/deployments`, { body: { environment: 'production', sha: 'main', ref: 'main', tag: false } })).body;
      expect((await call(`${P}/deployments/${d.id}/approval`, { body: { status: 'approved' }, token })).status).toBe(201);
      return p.id as number;
    };
    const doomed = await make('doomed-deploys');
    const kept = await make('kept-deploys');
    const counts = async (pid: number) => {
      const ids = db.select({ id: deployments.id }).from(deployments).where(eq(deployments.projectId, pid));
      const [a] = await db.select({ n: count() }).from(deploymentApprovals).where(inArray(deploymentApprovals.deploymentId, ids));
      const [m] = await db.select({ n: count() }).from(deploymentMergeRequests).where(inArray(deploymentMergeRequests.deploymentId, ids));
      return [a.n, m.n];
    };
    // Counted over the whole tables: once the deployments are gone nothing names their rows.
    const totals = async () => [(await db.select({ n: count() }).from(deploymentApprovals))[0].n, (await db.select({ n: count() }).from(deploymentMergeRequests))[0].n];
    const before = await totals();
    expect(await counts(doomed)).toEqual([1, 1]);
    expect((await call(`/projects/${doomed}`, { method: 'DELETE' })).status).toBe(202);
    const after = await totals();
    expect([before[0] - after[0], before[1] - after[1]]).toEqual([1, 1]);
    expect(await counts(kept)).toEqual([1, 1]);
    // Deleting a deployment takes its approvals; deleting a stopped environment its deployments' links.
    const P = `/projects/${kept}`;
    const list = (await call(`${P}/deployments`)).body as { id: number; environment: { id: number; name: string } }[];
    const prod = list.find((d) => d.environment.name === 'production')!;
    expect((await call(`${P}/deployments/${prod.id}`, { method: 'DELETE' })).status).toBe(204);
    const staging = list.find((d) => d.environment.name === 'staging')!;
    expect((await call(`${P}/environments/${staging.environment.id}/stop`, { method: 'POST' })).status).toBe(200);
    expect((await call(`${P}/environments/${staging.environment.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await totals()).toEqual([after[0] - 1, after[1] - 1]);
  });
});
