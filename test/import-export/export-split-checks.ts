/**
 * An export split across many queue messages (a tiny per-message budget and two rows per part)
 * against the same project's export in one message: every member of the archive is the same bytes,
 * the status is `started` throughout, the parts are gone afterwards, and delivering the messages
 * twice (at once, and after the export finished) changes nothing. Run on workerd (Queue, D1, R2)
 * and on Node (in-process runner, libSQL, filesystem blobs) by export-split.*.test.ts.
 */
import { sendJob, storageSql } from '#harness';
import { expect } from 'vitest';
import { api, createUser, unique } from '../support';
import { download, untar, waitForExport } from './export-support';

type Row = { id: number; jid: string; status: string; blob_key: string | null; progress: string | null };
type Progress = { key: string; parts: Record<string, number[]>; relation: number; assembled?: boolean; done?: boolean };

const ISSUES = 7;

async function row(projectId: number): Promise<Row> {
  const rows = (await storageSql(`SELECT id, jid, status, blob_key, progress FROM project_export_jobs WHERE project_id = ${projectId} ORDER BY id`)) as Row[];
  expect(rows).toHaveLength(1);
  return rows[0];
}

/** The project: a repository on two branches, labels, a milestone, issues with notes and labels, two merge requests. */
async function seed(token: string) {
  const p = (await api('/projects', { token, body: { name: unique('split') } })).body;
  const commit = (body: Record<string, unknown>) => api(`/projects/${p.id}/repository/commits`, { token, body });
  expect((await commit({ branch: 'main', commit_message: 'Initial', actions: [{ action: 'create', file_path: 'README.md', content: 'hello\n' }] })).status).toBe(201);
  for (const b of ['f1', 'f2'])
    expect((await commit({ branch: b, start_branch: 'main', commit_message: `On ${b}`, actions: [{ action: 'create', file_path: `${b}.txt`, content: `${b}\n` }] })).status).toBe(201);
  for (const [name, color] of [['bug', '#ff0000'], ['feature', '#00ff00'], ['later', '#0000ff']])
    expect((await api(`/projects/${p.id}/labels`, { token, body: { name, color } })).status).toBe(201);
  const milestone = (await api(`/projects/${p.id}/milestones`, { token, body: { title: 'v1' } })).body;
  for (let k = 1; k <= ISSUES; k++) {
    const issue = await api(`/projects/${p.id}/issues`, { token, body: { title: `Issue ${k}`, labels: k % 2 ? 'bug,later' : 'feature', ...(k % 3 ? {} : { milestone_id: milestone.id }) } });
    expect(issue.status).toBe(201);
    for (let n = 0; n < (k % 3) + 1; n++) expect((await api(`/projects/${p.id}/issues/${issue.body.iid}/notes`, { token, body: { body: `Note ${n} on ${k}` } })).status).toBe(201);
  }
  for (const b of ['f1', 'f2'])
    expect((await api(`/projects/${p.id}/merge_requests`, { token, body: { source_branch: b, target_branch: 'main', title: `Merge ${b}`, labels: 'bug' } })).status).toBe(201);
  return p as { id: number };
}

/** The blob store as the test sees it (R2 binding, or the Node app's folder). */
export interface StoreView {
  exists(key: string): Promise<boolean>;
  read(key: string): Promise<ArrayBuffer>;
}

export async function splitExportChecks(store: StoreView) {
  const u = await createUser();
  const p = await seed(u.token);

  // One message: the default budget holds this project whole, each relation in one part.
  expect((await api(`/projects/${p.id}/export`, { method: 'POST', token: u.token })).status).toBe(202);
  await waitForExport(p.id, u.token);
  // Downloaded once through the API (a second download within the minute is rate limited), then read from the store.
  const res = await download(p.id, u.token);
  expect(res.status).toBe(200);
  const single = await untar(await res.arrayBuffer());
  const first = await row(p.id);
  const firstProgress = JSON.parse(first.progress!) as Progress;
  expect(firstProgress.parts.issues).toHaveLength(1);

  // The same export again, split: a zero budget makes each message write one part of two rows and
  // hand on; every message is delivered twice at once.
  await storageSql(`UPDATE project_export_jobs SET status = 'queued', progress = NULL WHERE id = ${first.id}`);
  const message = { type: 'project_export', id: first.jid, budgetMs: 0, partRows: 2 };
  await Promise.all([sendJob(message), sendJob(message)]);
  const seen = new Set<string>();
  for (const until = Date.now() + 60_000; ; ) {
    const status = (await api(`/projects/${p.id}/export`, { token: u.token })).body.export_status;
    if (status === 'finished') break;
    seen.add(status);
    expect(Date.now()).toBeLessThan(until);
    await new Promise((r) => setTimeout(r, 50));
  }
  // `queued` only until the first message ran; never `none` or `finished` half-way.
  expect([...seen].filter((s) => s !== 'queued' && s !== 'started')).toEqual([]);
  const done = await row(p.id);
  const progress = JSON.parse(done.progress!) as Progress;
  expect(progress).toMatchObject({ assembled: true, done: true, key: done.blob_key });
  // Seven issues in parts of two rows: four parts, so at least five messages.
  expect(progress.parts.issues).toHaveLength(Math.ceil(ISSUES / 2));
  expect(progress.parts.labels).toHaveLength(2);
  expect(progress.parts.merge_requests).toHaveLength(1);

  const split = await untar(await store.read(done.blob_key!));
  expect([...split.keys()]).toEqual([...single.keys()]);
  expect([...split.keys()]).toEqual(expect.arrayContaining(['./VERSION', './tree/project.json', './tree/project/issues.ndjson', './tree/project/merge_requests.ndjson', './project.bundle']));
  expect(new TextDecoder().decode(split.get('./VERSION'))).toBe('0.2.4\n');
  for (const [name, bytes] of single) expect([name, Buffer.from(split.get(name)!).toString('base64')]).toEqual([name, Buffer.from(bytes).toString('base64')]);
  const issues = new TextDecoder().decode(split.get('./tree/project/issues.ndjson')).trim().split('\n').map((l) => JSON.parse(l));
  expect(issues.map((i) => i.title)).toEqual(Array.from({ length: ISSUES }, (_, k) => `Issue ${k + 1}`));
  expect(issues.map((i) => i.notes.length)).toEqual(Array.from({ length: ISSUES }, (_, k) => (k + 1) % 3 + 1));

  // The parts are gone; the archive stays.
  expect(await store.exists(done.blob_key!)).toBe(true);
  const partKeys = Object.entries(progress.parts).flatMap(([relation, sizes]) => sizes.map((_, n) => `${done.blob_key!.slice(0, done.blob_key!.lastIndexOf('/'))}/parts/${relation}/${n}.ndjson`));
  expect(partKeys.length).toBeGreaterThan(8);
  for (const key of partKeys) expect([key, await store.exists(key)]).toEqual([key, false]);

  // Delivered again once finished: nothing moves.
  await sendJob(message);
  await new Promise((r) => setTimeout(r, 500));
  expect(await row(p.id)).toEqual(done);
  const again = await untar(await store.read(done.blob_key!));
  for (const [name, bytes] of split) expect(Buffer.from(again.get(name)!).equals(Buffer.from(bytes))).toBe(true);
}

/**
 * A consumer that died after writing the first part of `issues`: the progress and that part are in
 * storage, the rest is not. The next delivery goes on after the part's last issue, and the archive
 * is the one-message archive byte for byte (same member mtime, same key's file name).
 */
export async function resumeChecks(store: StoreView & { write(key: string, bytes: Uint8Array): Promise<void> }) {
  const u = await createUser();
  const p = (await api('/projects', { token: u.token, body: { name: unique('resume') } })).body;
  expect((await api(`/projects/${p.id}/repository/commits`, { token: u.token, body: { branch: 'main', commit_message: 'Initial', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] } })).status).toBe(201);
  for (let k = 1; k <= 5; k++) {
    const issue = await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: `Issue ${k}` } });
    expect((await api(`/projects/${p.id}/issues/${issue.body.iid}/notes`, { token: u.token, body: { body: `Note on ${k}` } })).status).toBe(201);
  }
  expect((await api(`/projects/${p.id}/export`, { method: 'POST', token: u.token })).status).toBe(202);
  await waitForExport(p.id, u.token);
  const res = await download(p.id, u.token);
  expect(res.status).toBe(200);
  const single = new Uint8Array(await res.arrayBuffer());
  const first = await row(p.id);
  const whole = JSON.parse(first.progress!) as Progress & { filename: string; now: number };
  expect(whole.parts).toMatchObject({ labels: [], milestones: [] });

  // What the dead consumer left: the first two issues' lines as part 0, the cursor after the second.
  const lines = new TextDecoder().decode((await untar(single.buffer)).get('./tree/project/issues.ndjson')).split('\n').filter(Boolean);
  const part = new TextEncoder().encode(`${lines[0]}\n${lines[1]}\n`);
  const folder = `exports/${p.id}/${'ab'.repeat(16)}`;
  const key = `${folder}/${whole.filename}`;
  await store.write(`${folder}/parts/issues/0.ndjson`, part);
  const mid = { key, filename: whole.filename, now: whole.now, relation: 2, after: JSON.parse(lines[1]).id, parts: { labels: [], milestones: [], issues: [part.byteLength] } };
  await storageSql(`UPDATE project_export_jobs SET status = 'started', progress = '${JSON.stringify(mid)}' WHERE id = ${first.id}`);
  expect((await api(`/projects/${p.id}/export`, { token: u.token })).body.export_status).toBe('started');

  await sendJob({ type: 'project_export', id: first.jid, budgetMs: 0, partRows: 2 });
  await waitForExport(p.id, u.token);
  const done = await row(p.id);
  expect(done.blob_key).toBe(key);
  expect((JSON.parse(done.progress!) as Progress).parts.issues).toHaveLength(3);
  expect(Buffer.from(await store.read(key)).equals(Buffer.from(single))).toBe(true);
  expect(await store.exists(`${folder}/parts/issues/0.ndjson`)).toBe(false);
}

/** A project deleted while its export is half-written: the parts go with it (the next message finds no row). */
export async function deletedMidwayChecks(store: StoreView & { write(key: string, bytes: Uint8Array): Promise<void> }) {
  const u = await createUser();
  const p = (await api('/projects', { token: u.token, body: { name: unique('gone') } })).body;
  expect((await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'One' } })).status).toBe(201);
  expect((await api(`/projects/${p.id}/export`, { method: 'POST', token: u.token })).status).toBe(202);
  await waitForExport(p.id, u.token);
  const first = await row(p.id);
  const folder = `exports/${p.id}/${'cd'.repeat(16)}`;
  const part = `${folder}/parts/labels/0.ndjson`;
  await store.write(part, new TextEncoder().encode('{"id":1}\n'));
  const mid = { key: `${folder}/x_export.tar.gz`, filename: 'x_export.tar.gz', now: 0, relation: 1, after: 0, parts: { labels: [9] } };
  await storageSql(`UPDATE project_export_jobs SET status = 'started', progress = '${JSON.stringify(mid)}' WHERE id = ${first.id}`);
  expect(await store.exists(part)).toBe(true);
  expect((await api(`/projects/${p.id}`, { method: 'DELETE', token: u.token })).status).toBe(202);
  for (const until = Date.now() + 10_000; (await store.exists(part)) || (await store.exists(first.blob_key!)); ) {
    expect(Date.now()).toBeLessThan(until);
    await new Promise((r) => setTimeout(r, 100));
  }
}
