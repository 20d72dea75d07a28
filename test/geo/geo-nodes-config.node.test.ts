/**
 * Geo nodes on instances configured otherwise, each with its own server (Node only): a free plan
 * refuses administrators after the admin check and before parameters; GEO_NODE_NAME (gitlab.rb
 * `geo_node_name`) names the current node instead of the external URL; a blob store that fails
 * makes the current node's status unhealthy with the check's message.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import type { Env } from '../../src/platform/env';
import { createNodeApp } from '../../src/node-app';

async function instance(env: Env) {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-geo-'));
  const blobRoot = join(dir, 'blobs');
  const { app } = await createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot, migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000', ...env } });
  const call = async (path: string, init: { method?: string; body?: unknown; token?: string | null } = {}) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (init.token !== null) headers['PRIVATE-TOKEN'] = init.token ?? DEV_ROOT_TOKEN;
    const res = await app.fetch(new Request(`http://localhost/api/v4${path}`, { method: init.method ?? (init.body ? 'POST' : 'GET'), headers, body: init.body ? JSON.stringify(init.body) : undefined }));
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
  /** Turns the blob store's directory into a file: every later write fails. */
  const breakBlobs = () => {
    rmSync(blobRoot, { recursive: true, force: true });
    writeFileSync(blobRoot, 'not a directory');
  };
  return { call, breakBlobs };
}

describe('geo nodes on a free instance', () => {
  it('answers 401 to anonymous callers, then 403 to administrators whatever the parameters', async () => {
    const { call } = await instance({ INSTANCE_PLAN: 'free' });
    expect(await call('/geo_nodes', { token: null })).toEqual({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await call('/geo_nodes')).toEqual({ status: 403, body: { message: '403 Forbidden' } });
    expect(await call('/geo_nodes', { body: {} })).toEqual({ status: 403, body: { message: '403 Forbidden' } });
    expect(await call('/geo_nodes', { body: { name: 'n', url: 'https://n.example.com' } })).toEqual({ status: 403, body: { message: '403 Forbidden' } });
    expect(await call('/geo_nodes/status')).toEqual({ status: 403, body: { message: '403 Forbidden' } });
    expect(await call('/geo_nodes/abc')).toEqual({ status: 403, body: { message: '403 Forbidden' } });
    expect(await call('/geo_nodes/1', { method: 'DELETE' })).toEqual({ status: 403, body: { message: '403 Forbidden' } });
  });

  it('serves a premium instance', async () => {
    const { call } = await instance({ INSTANCE_PLAN: 'premium' });
    expect(await call('/geo_nodes')).toEqual({ status: 200, body: [] });
  });
});

describe('the current node', () => {
  it('is the node named GEO_NODE_NAME when it is set, and the external URL with a slash otherwise', async () => {
    const named = await instance({ GEO_NODE_NAME: 'London', EXTERNAL_URL: 'https://gitlab.example.com/' });
    const london = await named.call('/geo_nodes', { body: { name: 'London', url: 'https://gitlab.example.com', primary: true } });
    expect(london.status).toBe(201);
    expect(london.body).toMatchObject({ name: 'London', current: true, web_edit_url: `https://gitlab.example.com/admin/geo/sites/${london.body.id}/edit` });
    expect(london.body._links.self).toBe(`https://gitlab.example.com/api/v4/geo_nodes/${london.body.id}`);
    // The external URL names no node here: a secondary may carry it.
    const byUrl = await named.call('/geo_nodes', { body: { name: 'https://gitlab.example.com/', url: 'https://other.example.com' } });
    expect(byUrl.body).toMatchObject({ current: false, primary: false });
    expect(await named.call('/geo_nodes', { body: { name: 'london', url: 'https://third.example.com' } })).toEqual({ status: 400, body: { message: { name: ['has already been taken'] } } });
    expect((await named.call(`/geo_nodes/${london.body.id}/status`)).status).toBe(200);

    const plain = await instance({ EXTERNAL_URL: 'https://git.example.org/gitlab' });
    expect(await plain.call('/geo_nodes', { body: { name: 'https://git.example.org/gitlab/', url: 'https://elsewhere.example.org' } })).toEqual({
      status: 400,
      body: { message: { base: ['Current node must be the primary node or you will be locking yourself out'] } },
    });
    const own = await plain.call('/geo_nodes', { body: { name: 'https://git.example.org/gitlab', url: 'https://git.example.org/gitlab', primary: true } });
    expect(own.body).toMatchObject({ name: 'https://git.example.org/gitlab/', current: true });
  });

  it("is unhealthy when its status check's blob round trip fails", async () => {
    const { call, breakBlobs } = await instance({});
    const node = await call('/geo_nodes', { body: { name: 'http://localhost/', url: 'http://localhost', primary: true } });
    expect(node.body.current).toBe(true);
    expect((await call(`/geo_nodes/${node.body.id}/status`)).body).toMatchObject({ healthy: true, health: 'Healthy', health_status: 'Healthy' });
    breakBlobs();
    const s = await call(`/geo_nodes/${node.body.id}/status`);
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ healthy: false, health_status: 'Unhealthy' });
    expect(s.body.health).toMatch(/^Blob storage check failed: /);
  });
});
