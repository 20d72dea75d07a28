/**
 * Linked epics need Ultimate (`authorize_related_epics_feature!`): on a Premium instance epics work
 * and every linked-epics route answers 403, after the group is found (its 404 comes first) and after
 * `authenticate_non_get!` (401). Its own server (INSTANCE_PLAN=premium), so a Node-only test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';

let dir: string;
let created: Awaited<ReturnType<typeof createNodeApp>>;
let call: (path: string, init?: { method?: string; body?: unknown; token?: string | null }) => Promise<{ status: number; body: any }>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wfapi-premium-links-'));
  created = await createNodeApp({
    databaseUrl: `file:${join(dir, 'db.sqlite')}`,
    blobRoot: join(dir, 'blobs'),
    migrationsFolder: 'drizzle',
    env: { PASSWORD_HASH_ITERATIONS: '1000', INSTANCE_PLAN: 'premium' },
  });
  const { app } = created;
  call = async (path, init = {}) => {
    const token = init.token === undefined ? DEV_ROOT_TOKEN : init.token;
    const res = await app.fetch(
      new Request(`http://localhost/api/v4${path}`, {
        method: init.method ?? (init.body ? 'POST' : 'GET'),
        headers: { ...(token ? { 'PRIVATE-TOKEN': token } : {}), 'Content-Type': 'application/json' },
        body: init.body ? JSON.stringify(init.body) : undefined,
      }),
    );
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('linked epics on a Premium instance', () => {
  it('answer 403 once the group is found; epics themselves work', async () => {
    const group = await call('/groups', { body: { name: 'prem-g', path: 'prem-g', visibility: 'public' } });
    expect(group.status).toBe(201);
    const g = group.body.id;
    const a = await call(`/groups/${g}/epics`, { body: { title: 'A' } });
    const b = await call(`/groups/${g}/epics`, { body: { title: 'B' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    const forbidden = { status: 403, body: { message: '403 Forbidden' } };
    const groupNotFound = { status: 404, body: { message: '404 Group Not Found' } };
    const link = { target_group_id: String(g), target_epic_iid: b.body.iid };

    expect(await call(`/groups/${g}/epics/${a.body.iid}/related_epics`)).toEqual(forbidden);
    expect(await call(`/groups/${g}/epics/${a.body.iid}/related_epics`, { token: null })).toEqual(forbidden);
    expect(await call(`/groups/${g}/epics/999/related_epics`)).toEqual(forbidden);
    expect(await call('/groups/999999/epics/1/related_epics')).toEqual(groupNotFound);
    expect(await call(`/groups/${g}/related_epic_links`)).toEqual(forbidden);
    expect(await call('/groups/999999/related_epic_links')).toEqual(groupNotFound);
    expect(await call(`/groups/${g}/epics/${a.body.iid}/related_epics`, { body: link })).toEqual(forbidden);
    expect(await call(`/groups/${g}/epics/${a.body.iid}/related_epics`, { body: link, token: null })).toEqual({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await call('/groups/999999/epics/1/related_epics', { body: link })).toEqual(groupNotFound);
    expect(await call(`/groups/${g}/epics/${a.body.iid}/related_epics/1`, { method: 'DELETE' })).toEqual(forbidden);
  });
});
