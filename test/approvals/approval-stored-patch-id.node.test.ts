/**
 * Issue 13: a merge request's first approval in an isolate costs what any later one does. The patch id
 * an approval records (repository/patch-id.ts) is stored on the merge request row by the push that
 * moved its source head (merge-requests/refresh.ts), so a cold isolate reads no manifests for it. Two
 * apps over one database file stand for two Workers isolates: the push happens in one, the approvals
 * in the other, whose caches of git facts are cold.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';

type App = Awaited<ReturnType<typeof createNodeApp>>;

const client = (app: App) => async (path: string, init: { method?: string; token?: string; body?: unknown } = {}) => {
  const headers: Record<string, string> = { 'PRIVATE-TOKEN': init.token ?? DEV_ROOT_TOKEN };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await app.app.fetch(new Request(`http://localhost/api/v4${path}`, { method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'), headers, body: init.body !== undefined ? JSON.stringify(init.body) : undefined }));
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, roundTrips: Number(res.headers.get('x-storage-round-trips')) };
};

let pushing: App;
let elsewhere: ReturnType<typeof client>;
let here: ReturnType<typeof client>;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-patch-id-'));
  const options = { databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000', REPORT_ROUND_TRIPS: 'true' } };
  pushing = await createNodeApp(options);
  elsewhere = client(pushing);
  here = client(await createNodeApp(options));
});

let n = 0;
async function user() {
  const username = `pid${Date.now().toString(36)}${n++}`;
  const u = await elsewhere('/users', { body: { username, email: `${username}@example.com`, name: username, password: 'Secret-pass-123', skip_confirmation: true } });
  const t = await elsewhere(`/users/${u.body.id}/personal_access_tokens`, { body: { name: 't', scopes: ['api'] } });
  return { id: u.body.id as number, token: t.body.token as string };
}

const commit = async (pid: number, branch: string, file: string) =>
  expect((await elsewhere(`/projects/${pid}/repository/commits`, { body: { branch, commit_message: file, actions: [{ action: 'create', file_path: file, content: `${file}\n` }] } })).status).toBe(201);

it('the first approval of a merge request in a cold isolate costs what the next one does, and records the patch id a computation gives', async () => {
  const [a, b] = [await user(), await user()];
  const p = await elsewhere('/projects', { body: { name: `p${n++}` } });
  const pid = p.body.id as number;
  for (const u of [a, b]) expect((await elsewhere(`/projects/${pid}/members`, { body: { user_id: u.id, access_level: 30 } })).status).toBe(201);
  await commit(pid, 'main', 'README.md');
  await elsewhere(`/projects/${pid}/repository/branches`, { body: { branch: 'feature', ref: 'main' } });
  await commit(pid, 'feature', 'one.txt');
  const mr = await elsewhere(`/projects/${pid}/merge_requests`, { body: { source_branch: 'feature', target_branch: 'main', title: 'MR' } });
  // A push to the source branch stores the facts and the patch id on the row.
  await commit(pid, 'feature', 'two.txt');
  const M = `/projects/${pid}/merge_requests/${mr.body.iid}`;
  // The first read after a push builds the system approval rules for the new head (a write): done there.
  expect((await elsewhere(`${M}/approvals`)).status).toBe(200);

  // Callers cached here; nothing of the merge request's git facts is.
  for (const u of [a, b]) expect((await here('/user', { token: u.token })).status).toBe(200);
  const first = await here(`${M}/approve`, { method: 'POST', token: a.token });
  const second = await here(`${M}/approve`, { method: 'POST', token: b.token });
  expect([first.status, second.status]).toEqual([201, 201]);
  expect(first.roundTrips).toBe(second.roundTrips);

  // What was recorded is the patch id of the newest diff version, computed from the same changes.
  const rows = await pushing.db.all<{ user_id: number; patch_id_sha: string | null; diff: string | null }>(
    sql`select a.user_id, a.patch_id_sha, (select d.patch_id_sha from merge_request_diffs d where d.merge_request_id = a.merge_request_id order by d.id desc limit 1) as diff from approvals a where a.merge_request_id = ${mr.body.id} order by a.user_id`,
  );
  expect(rows).toHaveLength(2);
  for (const r of rows) expect(r.patch_id_sha).toMatch(/^[0-9a-f]{40}$/);
  expect(rows.map((r) => r.patch_id_sha)).toEqual(rows.map((r) => r.diff));
});
