/**
 * Protected branches on a free instance (INSTANCE_PLAN=free; its own Node app): the CE entity
 * (no unprotect levels, code owner approval, inherited, user_id/group_id), no unprotect rows, the
 * Premium parameters ignored (user entries, allowed_to_merge, unprotect levels), and no
 * unprotection restrictions, so an administrator who is no member may write.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';

let dir: string;
let call: (path: string, init?: { method?: string; body?: unknown; token?: string }) => Promise<{ status: number; body: any }>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wfapi-pb-free-'));
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
        headers: { 'PRIVATE-TOKEN': init.token ?? DEV_ROOT_TOKEN, 'Content-Type': 'application/json' },
        body: init.body ? JSON.stringify(init.body) : undefined,
      }),
    );
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('protected branches on a free instance', () => {
  it('presents the CE entity and ignores the Premium parameters', async () => {
    const owner = await call('/users', { body: { email: 'pbf@example.com', name: 'Owner', username: 'pbf-owner', password: 'secret-pass-123', skip_confirmation: true } });
    const dev = await call('/users', { body: { email: 'pbf-dev@example.com', name: 'Dev', username: 'pbf-dev', password: 'secret-pass-123', skip_confirmation: true } });
    const token = (await call(`/users/${owner.body.id}/personal_access_tokens`, { body: { name: 't', scopes: ['api'] } })).body.token;
    const group = await call('/groups', { body: { name: 'pbf', path: 'pbf' }, token });
    const project = await call('/projects', { body: { name: 'repo', namespace_id: group.body.id }, token });
    expect(project.status).toBe(201);
    await call(`/projects/${project.body.id}/members`, { body: { user_id: dev.body.id, access_level: 30 }, token });
    const base = `/projects/${project.body.id}/protected_branches`;

    const res = await call(base, {
      token,
      body: {
        name: 'main',
        allowed_to_push: [{ user_id: dev.body.id }],
        allowed_to_merge: [{ access_level: 30 }],
        unprotect_access_level: 60,
        code_owner_approval_required: true,
      },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'name', 'push_access_levels', 'merge_access_levels', 'allow_force_push']);
    expect(res.body.push_access_levels).toEqual([{ id: expect.any(Number), access_level: 40, access_level_description: 'Maintainers' }]);
    expect(res.body.merge_access_levels).toEqual([{ id: expect.any(Number), access_level: 40, access_level_description: 'Maintainers' }]);
    expect((await call(`${base}/main`, { token })).body).toEqual(res.body);

    // No unprotection restrictions: root, an administrator who is no member, writes and unprotects.
    const patched = await call(`${base}/main`, { method: 'PATCH', body: { allow_force_push: true, allowed_to_merge: [{ access_level: 30 }] } });
    expect(patched.status).toBe(200);
    expect(patched.body.allow_force_push).toBe(true);
    expect(patched.body.merge_access_levels.map((l: any) => l.access_level)).toEqual([40]);
    expect((await call(base, { body: { name: 'rootmade' } })).status).toBe(201);
    expect((await call(`${base}/main`, { method: 'DELETE' })).status).toBe(204);
    expect((await call(base, { token })).body.map((b: any) => b.name)).toEqual(['rootmade']);
  });
});
