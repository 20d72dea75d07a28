/**
 * A single merge request answers in the round trip that finds its project (merge-request-find.ts),
 * also on an isolate that never saw it: a merged one's changes_count comes from the real_size of its
 * recorded diff version, read in that batch, not from two manifests read afterwards. A second app on
 * the same database has every sha-keyed cache cold. The approvals' merge_status (liveState) uses the
 * merge facts a push stored on the row as the presenter does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';

const dir = mkdtempSync(join(tmpdir(), 'wfapi-mr-single-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const open = async () => {
  const { app } = await createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000', REPORT_ROUND_TRIPS: 'true' } });
  return async (path: string, body?: unknown, method?: string) => {
    const res = await app.fetch(
      new Request(`http://localhost/api/v4${path}`, {
        method: method ?? (body ? 'POST' : 'GET'),
        headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN, 'Content-Type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      }),
    );
    return { status: res.status, n: Number(res.headers.get('x-storage-round-trips')), body: (await res.json()) as any };
  };
};

it('a merged merge request on a cold isolate: one round trip, the same answer', async () => {
  const call = await open();
  const p = await call('/projects', { name: 'single' });
  const pid = p.body.id;
  const commit = (branch: string, path: string) => call(`/projects/${pid}/repository/commits`, { branch, commit_message: path, actions: [{ action: 'create', file_path: path, content: `${path}\n` }] });
  expect((await commit('main', 'a.txt')).status).toBe(201);
  expect((await call(`/projects/${pid}/repository/branches`, { branch: 'topic', ref: 'main' })).status).toBe(201);
  expect((await commit('topic', 'b.txt')).status).toBe(201);
  expect((await commit('topic', 'c.txt')).status).toBe(201);
  const mr = await call(`/projects/${pid}/merge_requests`, { source_branch: 'topic', target_branch: 'main', title: 'Topic' });
  expect(mr.status).toBe(201);
  expect((await call(`/projects/${pid}/merge_requests/${mr.body.iid}/merge`, {}, 'PUT')).status).toBe(200);
  const warm = await call(`/projects/${pid}/merge_requests/${mr.body.iid}`);
  expect([warm.status, warm.body.state, warm.body.changes_count]).toEqual([200, 'merged', '2']);

  const cold = await open();
  await cold('/user'); // the caller, cached from here on
  const one = await cold(`/projects/${pid}/merge_requests/${mr.body.iid}`);
  expect(one.n).toBe(1);
  expect(one.body).toEqual(warm.body);
});

it('the approvals of an open merge request on a cold isolate after a push: its merge status from the facts the push stored, one round trip', async () => {
  const call = await open();
  const p = await call('/projects', { name: 'single-open' });
  const pid = p.body.id;
  const commit = (branch: string, path: string, content = `${path}\n`) => call(`/projects/${pid}/repository/commits`, { branch, commit_message: path, actions: [{ action: 'create', file_path: path, content }] });
  expect((await commit('main', 'a.txt')).status).toBe(201);
  expect((await call(`/projects/${pid}/repository/branches`, { branch: 'topic', ref: 'main' })).status).toBe(201);
  expect((await commit('topic', 'b.txt')).status).toBe(201);
  // The target gets a b.txt of its own: merging conflicts.
  expect((await commit('main', 'b.txt', 'other\n')).status).toBe(201);
  const mr = await call(`/projects/${pid}/merge_requests`, { source_branch: 'topic', target_branch: 'main', title: 'Topic' });
  expect(mr.status).toBe(201);
  expect((await commit('topic', 'c.txt')).status).toBe(201);
  const warm = await call(`/projects/${pid}/merge_requests/${mr.body.iid}/approvals`);
  expect([warm.status, warm.body.merge_status]).toEqual([200, 'cannot_be_merged']);

  const cold = await open();
  await cold('/user');
  const one = await cold(`/projects/${pid}/merge_requests/${mr.body.iid}/approvals`);
  expect(one.n).toBe(1);
  expect(one.body).toEqual(warm.body);
});
