/**
 * `PUT /projects/:id/merge_requests/:merge_request_iid/rebase` on both runtimes
 * (lib/api/merge_requests.rb, MergeRequests::RebaseService): the source branch's commits replayed on
 * the target head, authors kept, conflicts reported in merge_error, and GitLab's refusals.
 */
import { sendJob, storageSql } from '#harness';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';
import { rebase, waitForRebase } from './rebase-support';

let owner: TestUser;
let dev: TestUser;
let reporter: TestUser;

const REBASE_ERROR = 'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.';

async function commit(pid: number, branch: string, token: string, actions: Record<string, unknown>[], message = unique('c')) {
  const res = await api(`/projects/${pid}/repository/commits`, { token, body: { branch, commit_message: message, actions } });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
  return res.body as { id: string; short_id: string; title: string; author_email: string; authored_date: string };
}
const file = (file_path: string, content = 'x\n', action = 'create') => ({ action, file_path, content });

async function setup() {
  const p = await api('/projects', { token: owner.token, body: { name: unique('rb'), visibility: 'private' } });
  expect(p.status).toBe(201);
  const pid = p.body.id as number;
  for (const [u, level] of [[dev, 30], [reporter, 20]] as const) await api(`/projects/${pid}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } });
  await commit(pid, 'main', owner.token, [file('shared.txt', 'one\n'), file('a.txt')]);
  const branch = unique('feat');
  expect((await api(`/projects/${pid}/repository/branches`, { token: dev.token, body: { branch, ref: 'main' } })).status).toBe(201);
  return { pid, branch };
}

async function openMr(pid: number, branch: string) {
  const m = await api(`/projects/${pid}/merge_requests`, { token: dev.token, body: { source_branch: branch, target_branch: 'main', title: unique('MR') } });
  expect(m.status).toBe(201);
  return { iid: m.body.iid as number, base: `/projects/${pid}/merge_requests/${m.body.iid}` };
}

beforeAll(async () => {
  [owner, dev, reporter] = await Promise.all([createUser(), createUser(), createUser()]);
});

describe('PUT /projects/:id/merge_requests/:merge_request_iid/rebase', () => {
  it('replays the source commits on the target head, keeping titles and authors', async () => {
    const { pid, branch } = await setup();
    const first = await commit(pid, branch, dev.token, [file('b.txt')], 'First change');
    const second = await commit(pid, branch, dev.token, [file('c.txt')], 'Second change');
    const m = await openMr(pid, branch);
    const main = await commit(pid, 'main', owner.token, [file('d.txt')]);
    const { res, mr } = await rebase(m.base, dev.token);
    expect(res.body).toEqual({ rebase_in_progress: true });
    expect(mr.merge_error).toBeNull();
    expect(mr.rebase_in_progress).toBe(false);
    expect(mr.sha).not.toBe(second.id);
    expect(mr.diff_refs).toEqual({ base_sha: main.id, head_sha: mr.sha, start_sha: main.id });
    const commits = (await api(`${m.base}/commits`, { token: dev.token })).body;
    expect(commits.map((k: any) => [k.title, k.author_email, k.authored_date])).toEqual([
      ['Second change', second.author_email, second.authored_date],
      ['First change', first.author_email, first.authored_date],
    ]);
    expect(commits.map((k: any) => k.id)).not.toContain(first.id);
    // The branch history now runs through the target head.
    const log = (await api(`/projects/${pid}/repository/commits?ref_name=${branch}`, { token: dev.token })).body.map((k: any) => k.id);
    expect(log.slice(0, 3)).toEqual([mr.sha, commits[1].id, main.id]);
    expect(commits[0].parent_ids).toEqual([commits[1].id]);
    expect(commits[1].parent_ids).toEqual([main.id]);
    // Files of both sides are there.
    for (const path of ['b.txt', 'c.txt', 'd.txt']) expect((await api(`/projects/${pid}/repository/files/${path}?ref=${branch}`, { token: dev.token })).status).toBe(200);
    const notes = (await api(`${m.base}/notes?sort=asc`, { token: dev.token })).body.filter((n: any) => n.system).map((n: any) => n.body);
    expect(notes.some((b: string) => b.startsWith('added 2 commits'))).toBe(true);
  });

  it('leaves an up-to-date branch alone', async () => {
    const { pid, branch } = await setup();
    const head = await commit(pid, branch, dev.token, [file('b.txt')]);
    const m = await openMr(pid, branch);
    expect((await rebase(m.base, dev.token)).mr).toMatchObject({ sha: head.id, merge_error: null });
  });

  it('reports a conflict in merge_error and keeps the branch', async () => {
    const { pid, branch } = await setup();
    const head = await commit(pid, branch, dev.token, [file('shared.txt', 'mine\n', 'update')]);
    const m = await openMr(pid, branch);
    await commit(pid, 'main', owner.token, [file('shared.txt', 'theirs\n', 'update')]);
    expect((await rebase(m.base, dev.token)).mr).toMatchObject({ sha: head.id, merge_error: REBASE_ERROR, rebase_in_progress: false });
  });

  it('queues the rebase within the write budget however many commits it rewrites', async () => {
    const { pid, branch } = await setup();
    const own: string[] = [];
    for (let k = 0; k < 6; k++) own.push((await commit(pid, branch, dev.token, [file(`f${k}.txt`)], `Change ${k}`)).id);
    const m = await openMr(pid, branch);
    const main = await commit(pid, 'main', owner.token, [file('d.txt')]);
    const { res, mr } = await rebase(m.base, dev.token);
    expect(Number(res.headers.get('x-storage-round-trips'))).toBeLessThanOrEqual(3);
    expect(mr).toMatchObject({ merge_error: null, diff_refs: { base_sha: main.id, start_sha: main.id } });
    const commits = (await api(`${m.base}/commits`, { token: dev.token })).body;
    expect(commits.map((k: any) => k.title)).toEqual([5, 4, 3, 2, 1, 0].map((k) => `Change ${k}`));
    expect(commits.some((k: any) => own.includes(k.id))).toBe(false);
  });

  it('answers 409 while a rebase is in progress, which the GET shows', async () => {
    const { pid, branch } = await setup();
    const head = await commit(pid, branch, dev.token, [file('b.txt')]);
    const m = await openMr(pid, branch);
    const id = (await api(m.base, { token: dev.token })).body.id as number;
    // A rebase queued and not yet run (the mark the PUT sets, held as the job's id).
    await storageSql(`UPDATE merge_requests SET rebase_jid = 'pending' WHERE id = ${id}`);
    expect((await api(`${m.base}?include_rebase_in_progress=true`, { token: dev.token })).body.rebase_in_progress).toBe(true);
    expect((await api(m.base, { token: dev.token })).body).not.toHaveProperty('rebase_in_progress');
    expect(await api(`${m.base}/rebase`, { method: 'PUT', token: dev.token })).toMatchObject({
      status: 409,
      body: { message: 'Failed to enqueue the rebase operation, possibly due to a long-lived transaction. Try again later.' },
    });
    expect((await api(m.base, { token: dev.token })).body).toMatchObject({ sha: head.id });
  });

  it('stops counting a mark whose job was lost once a job status would have expired (30 minutes)', async () => {
    const { pid, branch } = await setup();
    await commit(pid, branch, dev.token, [file('b.txt')]);
    const m = await openMr(pid, branch);
    const main = await commit(pid, 'main', owner.token, [file('d.txt')]);
    const id = (await api(m.base, { token: dev.token })).body.id as number;
    const minutesAgo = (n: number) => `merge_request_rebase:${id}:${Date.now() - n * 60_000}:lost`;
    // Queued 29 minutes ago and never run: still in progress, a second rebase is refused.
    await storageSql(`UPDATE merge_requests SET rebase_jid = '${minutesAgo(29)}' WHERE id = ${id}`);
    expect((await api(`${m.base}?include_rebase_in_progress=true`, { token: dev.token })).body.rebase_in_progress).toBe(true);
    expect((await api(`${m.base}/rebase`, { method: 'PUT', token: dev.token })).status).toBe(409);
    // Queued 31 minutes ago: GitLab's job status is gone, so the merge request is free again.
    await storageSql(`UPDATE merge_requests SET rebase_jid = '${minutesAgo(31)}' WHERE id = ${id}`);
    expect((await api(`${m.base}?include_rebase_in_progress=true`, { token: dev.token })).body.rebase_in_progress).toBe(false);
    const { mr } = await rebase(m.base, dev.token);
    expect(mr).toMatchObject({ merge_error: null, rebase_in_progress: false, diff_refs: { base_sha: main.id } });
    // The new mark replaced the lost one and the job cleared it.
    expect(await storageSql(`SELECT rebase_jid FROM merge_requests WHERE id = ${id}`)).toEqual([{ rebase_jid: null }]);
  });

  it('does nothing when the job is delivered again after it finished', async () => {
    const { pid, branch } = await setup();
    await commit(pid, branch, dev.token, [file('b.txt')]);
    const m = await openMr(pid, branch);
    await commit(pid, 'main', owner.token, [file('d.txt')]);
    const mrId = (await api(m.base, { token: dev.token })).body.id as number;
    // The job's message as the PUT sends it, delivered by hand so the test knows its id.
    const job = { type: 'merge_request_rebase', id: unique('merge_request_rebase:'), mergeRequestId: mrId, userId: dev.id };
    await storageSql(`UPDATE merge_requests SET rebase_jid = '${job.id}' WHERE id = ${mrId}`);
    await sendJob(job);
    const done = await waitForRebase(m.base, dev.token);
    expect(done.merge_error).toBeNull();
    const versions = (await api(`${m.base}/versions`, { token: dev.token })).body.length as number;
    // The target moves on: a second run of the same job would rebase again.
    await commit(pid, 'main', owner.token, [file('e.txt')]);
    await sendJob(job);
    // A sentinel job sent after it (an up-to-date merge request elsewhere) tells when the queue got that far.
    const other = await setup();
    await commit(other.pid, other.branch, dev.token, [file('b.txt')]);
    const s = await openMr(other.pid, other.branch);
    const sentinelId = (await api(s.base, { token: dev.token })).body.id as number;
    const sentinel = { ...job, id: unique('merge_request_rebase:'), mergeRequestId: sentinelId };
    await storageSql(`UPDATE merge_requests SET rebase_jid = '${sentinel.id}' WHERE id = ${sentinelId}`);
    await sendJob(sentinel);
    await waitForRebase(s.base, dev.token);
    await new Promise((r) => setTimeout(r, 300));
    const after = (await api(`${m.base}?include_rebase_in_progress=true`, { token: dev.token })).body;
    expect(after).toMatchObject({ sha: done.sha, merge_error: null, rebase_in_progress: false });
    expect((await api(`${m.base}/versions`, { token: dev.token })).body.length).toBe(versions);
  });

  it('is refused as GitLab refuses it', async () => {
    const { pid, branch } = await setup();
    await commit(pid, branch, dev.token, [file('b.txt')]);
    const m = await openMr(pid, branch);
    // A reporter may read the merge request but not push to its branch.
    expect(await api(`${m.base}/rebase`, { method: 'PUT', token: reporter.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden - Cannot push to source branch' } });
    // A protected source branch without force push.
    expect((await api(`/projects/${pid}/protected_branches`, { token: owner.token, body: { name: branch, push_access_level: 30 } })).status).toBe(201);
    expect(await api(`${m.base}/rebase`, { method: 'PUT', token: dev.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden - Source branch is protected from force push' } });
    expect((await api(`/projects/${pid}/protected_branches/${branch}`, { method: 'PATCH', token: owner.token, body: { allow_force_push: true } })).status).toBe(200);
    await rebase(m.base, dev.token);
    // A closed merge request: the rebase cannot be queued.
    expect((await api(m.base, { method: 'PUT', token: dev.token, body: { state_event: 'close' } })).status).toBe(200);
    expect(await api(`${m.base}/rebase`, { method: 'PUT', token: dev.token })).toMatchObject({
      status: 409,
      body: { message: 'Failed to enqueue the rebase operation, possibly due to a long-lived transaction. Try again later.' },
    });
    // A missing source branch.
    const other = unique('gone');
    await api(`/projects/${pid}/repository/branches`, { token: dev.token, body: { branch: other, ref: 'main' } });
    await commit(pid, other, dev.token, [file('g.txt')]);
    const m2 = await openMr(pid, other);
    expect((await api(`/projects/${pid}/repository/branches/${other}`, { method: 'DELETE', token: dev.token })).status).toBe(204);
    expect(await api(`${m2.base}/rebase`, { method: 'PUT', token: dev.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden - Source branch does not exist' } });
    // Unknown merge request, anonymous caller.
    expect((await api(`/projects/${pid}/merge_requests/999/rebase`, { method: 'PUT', token: dev.token })).status).toBe(404);
    expect((await api(`${m.base}/rebase`, { method: 'PUT', token: null })).status).toBe(401);
  });
});
