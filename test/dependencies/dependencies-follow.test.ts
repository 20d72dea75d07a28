/**
 * The dependency list follows every change of the default branch's head, not only commits through
 * the commits API: a merged merge request (merge commit, squash, fast-forward) is a push to its
 * target branch, and its push hooks (the scanner, the refresh of merge requests from that branch)
 * write in the merge's batch, their reads in the batch that finds the merge request (within the
 * write budget of 3 round trips).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';
import { PACKAGE_LOCK_V3, YARN_V1 } from './lockfiles';
import { rebase } from '../merge-requests/rebase-support';

const WRITE_BUDGET = 3;
let owner: TestUser;

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));
const brief = (rows: { name: string; version: string; package_manager: string; dependency_file_path: string }[]) => rows.map((d) => `${d.dependency_file_path} ${d.name}@${d.version}`);

async function project(body: Record<string, unknown> = {}) {
  const p = await api('/projects', { token: owner.token, body: { name: unique('follow'), visibility: 'private', ...body } });
  expect(p.status).toBe(201);
  const pid = p.body.id as number;
  await commit(pid, 'main', [{ action: 'create', file_path: 'README.md', content: '# app\n' }]);
  return pid;
}

async function commit(pid: number, branch: string, actions: Record<string, unknown>[], start?: string) {
  const res = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch, start_branch: start, commit_message: unique('c'), actions } });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

/** A branch off main adding `files`, and its merge request into main. */
async function openMr(pid: number, files: Record<string, string>) {
  const branch = unique('feat');
  await commit(pid, branch, Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content })), 'main');
  const mr = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title: unique('MR') } });
  expect(mr.status).toBe(201);
  return { branch, iid: mr.body.iid as number };
}

/** The merge with the caller cached (as the budget test measures it). */
async function merge(pid: number, iid: number, body: Record<string, unknown> = {}) {
  await api('/user', { token: owner.token });
  const res = await api(`/projects/${pid}/merge_requests/${iid}/merge`, { method: 'PUT', token: owner.token, body });
  expect(res.status).toBe(200);
  expect(res.body.state).toBe('merged');
  return res;
}

const deps = async (pid: number, query = '') => {
  const res = await api(`/projects/${pid}/dependencies?per_page=100${query}`, { token: owner.token });
  expect(res.status).toBe(200);
  return brief(res.body);
};

const NPM = ['package-lock.json @types/node@20.11.5', 'package-lock.json lodash@4.17.21', 'package-lock.json minimist@1.2.8', 'package-lock.json undici-types@5.26.5'];

beforeAll(async () => {
  owner = await createUser();
});

describe('a merged merge request updates the dependency list in its batch', () => {
  it('with a merge commit', async () => {
    const pid = await project();
    const { iid } = await openMr(pid, { 'package-lock.json': PACKAGE_LOCK_V3 });
    expect(await deps(pid)).toEqual([]);
    const res = await merge(pid, iid);
    expect(res.body.merge_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(trips(res)).toBeLessThanOrEqual(WRITE_BUDGET);
    expect(res.headers.get('x-storage-repeated-reads')).toBe('0');
    expect(await deps(pid)).toEqual(NPM);
    expect(await deps(pid, '&package_manager=yarn')).toEqual([]);
  });

  it('squashed, and a later merge that removes the lockfile empties it', async () => {
    const pid = await project();
    const { iid } = await openMr(pid, { 'web/yarn.lock': YARN_V1, 'package-lock.json': PACKAGE_LOCK_V3 });
    const res = await merge(pid, iid, { squash: true, should_remove_source_branch: true });
    expect(res.body.squash_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(trips(res)).toBeLessThanOrEqual(WRITE_BUDGET);
    expect(await deps(pid, '&package_manager=npm')).toEqual(NPM);
    expect(await deps(pid, '&package_manager=yarn')).toHaveLength(4);
    // A branch that deletes both lockfiles, merged: nothing is left.
    const branch = unique('drop');
    await commit(pid, branch, [{ action: 'delete', file_path: 'web/yarn.lock' }, { action: 'delete', file_path: 'package-lock.json' }], 'main');
    const mr = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title: unique('drop') } });
    const dropped = await merge(pid, mr.body.iid);
    expect(trips(dropped)).toBeLessThanOrEqual(WRITE_BUDGET);
    expect(await deps(pid)).toEqual([]);
  });

  it('fast-forward (merge_method ff), with and without squash', async () => {
    const pid = await project({ merge_method: 'ff' });
    const first = await openMr(pid, { 'package-lock.json': PACKAGE_LOCK_V3 });
    const ff = await merge(pid, first.iid);
    expect(ff.body.merge_commit_sha).toBeNull();
    expect(trips(ff)).toBeLessThanOrEqual(WRITE_BUDGET);
    expect(await deps(pid)).toEqual(NPM);
    const second = await openMr(pid, { 'web/yarn.lock': YARN_V1 });
    const squashed = await merge(pid, second.iid, { squash: true });
    expect(trips(squashed)).toBeLessThanOrEqual(WRITE_BUDGET);
    expect(await deps(pid, '&package_manager=yarn')).toHaveLength(4);
  });

  it('not when the target is another branch than the default', async () => {
    const pid = await project();
    const target = unique('release');
    expect((await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: target, ref: 'main' } })).status).toBe(201);
    const branch = unique('feat');
    await commit(pid, branch, [{ action: 'create', file_path: 'package-lock.json', content: PACKAGE_LOCK_V3 }], target);
    const mr = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: target, title: unique('MR') } });
    await merge(pid, mr.body.iid);
    expect(await deps(pid)).toEqual([]);
  });
});

describe('the merge is a push to its target branch for the other push hooks too', () => {
  it('an open merge request from the target branch gets the new version and the "added commits" note', async () => {
    const pid = await project();
    // A merge request whose source branch is main (into a release branch).
    const release = unique('release');
    expect((await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: release, ref: 'main' } })).status).toBe(201);
    await commit(pid, 'main', [{ action: 'create', file_path: 'more.txt', content: 'more\n' }]);
    const fromMain = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { source_branch: 'main', target_branch: release, title: unique('up') } });
    expect(fromMain.status).toBe(201);
    const versions = async () => (await api(`/projects/${pid}/merge_requests/${fromMain.body.iid}/versions`, { token: owner.token })).body as { head_commit_sha: string }[];
    const before = await versions();
    const { iid } = await openMr(pid, { 'feature.txt': 'f\n' });
    const res = await merge(pid, iid);
    expect(trips(res)).toBeLessThanOrEqual(WRITE_BUDGET);
    const after = await versions();
    expect(after).toHaveLength(before.length + 1);
    expect(after[0].head_commit_sha).toBe(res.body.merge_commit_sha);
    const notes = (await api(`/projects/${pid}/merge_requests/${fromMain.body.iid}/notes?sort=asc`, { token: owner.token })).body as { body: string; system: boolean }[];
    expect(notes.filter((n) => n.system).map((n) => n.body.split('\n')[0])).toContain('added 1 commit');
    const shown = await api(`/projects/${pid}/merge_requests/${fromMain.body.iid}`, { token: owner.token });
    expect(shown.body.sha).toBe(res.body.merge_commit_sha);
  });

  it('a rebase is queued within the write budget and its job runs the push hooks', async () => {
    const pid = await project();
    const { iid, branch } = await openMr(pid, { 'feature.txt': 'f\n' });
    await commit(pid, 'main', [{ action: 'create', file_path: 'main.txt', content: 'm\n' }]);
    await api('/user', { token: owner.token });
    // The PUT checks and queues (merge-requests/rebase-routes.ts); the rebase and its push hooks
    // (the open merge requests from the branch, the lockfiles) run in the job.
    const { res } = await rebase(`/projects/${pid}/merge_requests/${iid}`, owner.token);
    expect(trips(res)).toBeLessThanOrEqual(WRITE_BUDGET);
    const main = (await api(`/projects/${pid}/repository/branches/main`, { token: owner.token })).body.commit.id;
    const head = (await api(`/projects/${pid}/repository/commits/${branch}`, { token: owner.token })).body;
    expect(head.parent_ids).toEqual([main]);
    // The rebase refreshed the merge request (a new diff version on the rewritten head).
    const versions = (await api(`/projects/${pid}/merge_requests/${iid}/versions`, { token: owner.token })).body as { head_commit_sha: string }[];
    expect(versions[0].head_commit_sha).toBe(head.id);
  });
});
