/**
 * A push to a merge request's source branch stores its merge facts (merge base, conflict verdict,
 * changed files) on the merge request in the push's batch (merge-requests/refresh.ts), so a read on
 * an isolate that never computed them (cold sha-keyed caches: a second app on the same database)
 * reads no repository facts: the list costs its two round trips.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';

const dir = mkdtempSync(join(tmpdir(), 'wfapi-mr-facts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const open = async () => {
  const { app } = await createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000' } });
  return async (path: string, body?: unknown) => {
    const res = await app.fetch(
      new Request(`http://localhost/api/v4${path}`, { method: body ? 'POST' : 'GET', headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN, 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined }),
    );
    return { status: res.status, n: Number(res.headers.get('x-storage-round-trips')), body: (await res.json()) as any };
  };
};

it('a list on a cold isolate after a push reads the facts the push stored', async () => {
  const call = await open();
  const p = await call('/projects', { name: 'facts' });
  const pid = p.body.id;
  const commit = (branch: string, path: string, content: string) => call(`/projects/${pid}/repository/commits`, { branch, commit_message: path, actions: [{ action: 'create', file_path: path, content }] });
  expect((await commit('main', 'a.txt', 'a\n')).status).toBe(201);
  expect((await call(`/projects/${pid}/repository/branches`, { branch: 'topic', ref: 'main' })).status).toBe(201);
  expect((await commit('topic', 'b.txt', 'b\n')).status).toBe(201);
  // The target gets a b.txt of its own: merging conflicts.
  expect((await commit('main', 'b.txt', 'other\n')).status).toBe(201);
  const mr = await call(`/projects/${pid}/merge_requests`, { source_branch: 'topic', target_branch: 'main', title: 'Topic' });
  expect(mr.status).toBe(201);
  expect((await commit('topic', 'c.txt', 'c\n')).status).toBe(201);

  // A second app on the same database: nothing sha-keyed is cached there.
  const cold = await open();
  await cold('/user');
  // The approval state rebuilds the system rules for the new head (a write of its own) and primes no merge facts.
  expect((await cold(`/projects/${pid}/merge_requests/${mr.body.iid}/approval_state`)).status).toBe(200);
  const list = await cold(`/projects/${pid}/merge_requests`);
  expect(list.status).toBe(200);
  expect([list.n, list.body[0].has_conflicts, list.body[0].merge_status]).toEqual([2, true, 'cannot_be_merged']);
  const one = await (await open())(`/projects/${pid}/merge_requests/${mr.body.iid}`);
  expect([one.body.has_conflicts, one.body.diff_refs, one.body.changes_count]).toEqual([true, list.body[0].diff_refs ?? one.body.diff_refs, '2']);
});
