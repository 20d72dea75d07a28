/**
 * The dependency list is an Ultimate feature (ee/lib/api/dependencies.rb `authorize! :read_dependency`,
 * licensed by `dependency_scanning`): on a premium instance (INSTANCE_PLAN=premium; its own Node app)
 * a member who may read the code is refused 403 after the project lookup, and a hidden project is still 404.
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
  dir = mkdtempSync(join(tmpdir(), 'wfapi-deps-premium-'));
  const { app } = await createNodeApp({
    databaseUrl: `file:${join(dir, 'db.sqlite')}`,
    blobRoot: join(dir, 'blobs'),
    migrationsFolder: 'drizzle',
    env: { PASSWORD_HASH_ITERATIONS: '1000', INSTANCE_PLAN: 'premium' },
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

describe('dependencies below Ultimate', () => {
  it('answers 403 for a project the caller can read, 404 for one that does not exist', async () => {
    const project = await call('/projects', { body: { name: 'premium-deps' } });
    expect(project.status).toBe(201);
    const pushed = await call(`/projects/${project.body.id}/repository/commits`, {
      body: { branch: 'main', commit_message: 'lock', actions: [{ action: 'create', file_path: 'package-lock.json', content: '{"lockfileVersion":3,"packages":{"node_modules/lodash":{"version":"4.17.20"}}}' }] },
    });
    expect(pushed.status).toBe(201);
    expect(await call(`/projects/${project.body.id}/dependencies`)).toEqual({ status: 403, body: { message: '403 Forbidden' } });
    expect(await call('/projects/987654321/dependencies')).toEqual({ status: 404, body: { message: '404 Project Not Found' } });
  });
});
