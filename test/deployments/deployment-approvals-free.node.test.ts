/**
 * Deployment approvals on a free instance (INSTANCE_PLAN=free; its own Node app): no environment is
 * protected (EE Environment#protected? needs the license), so a deployment never waits, the approval
 * endpoint answers ApprovalService's "not protected", and DeploymentExtended has no approval fields.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';

let dir: string;
let call: (path: string, init?: { method?: string; body?: unknown }) => Promise<{ status: number; body: any }>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wfapi-dep-free-'));
  const { app } = await createNodeApp({
    databaseUrl: `file:${join(dir, 'db.sqlite')}`,
    blobRoot: join(dir, 'blobs'),
    migrationsFolder: 'drizzle',
    env: { PASSWORD_HASH_ITERATIONS: '1000', INSTANCE_PLAN: 'free' },
  });
  call = async (path, init = {}) => {
    const res = await app.fetch(
      new Request(`http://localhost/api/v4${path}`, {
        method: init.method ?? (init.body ? 'POST' : 'GET'),
        headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN, 'Content-Type': 'application/json' },
        body: init.body ? JSON.stringify(init.body) : undefined,
      }),
    );
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('deployment approvals on a free instance', () => {
  it('never blocks, refuses approvals as unprotected and shows no approval fields', async () => {
    const project = await call('/projects', { body: { name: 'free-deploys' } });
    expect(project.status).toBe(201);
    const P = `/projects/${project.body.id}`;
    const c = await call(`${P}/repository/commits`, { body: { branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] } });
    expect(c.status).toBe(201);
    const d = await call(`${P}/deployments`, { body: { environment: 'production', sha: c.body.id, ref: 'main', tag: false, status: 'running' } });
    expect(d.status).toBe(201);
    expect(d.body.status).toBe('running');
    for (const key of ['approvals', 'pending_approval_count', 'approval_summary']) expect(d.body).not.toHaveProperty(key);
    const res = await call(`${P}/deployments/${d.body.id}/approval`, { body: { status: 'rejected' } });
    expect([res.status, res.body]).toEqual([400, { message: 'This environment is not protected.' }]);
    expect((await call(`${P}/deployments/${d.body.id}`)).body).not.toHaveProperty('approvals');
  });
});
