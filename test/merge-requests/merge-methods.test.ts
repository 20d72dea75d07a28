/**
 * Project merge methods and squash options, on both runtimes (Project#merge_method,
 * ProjectSetting#squash_option, MergeRequests::MergeStrategies::FromSourceBranch,
 * Mergeability::CheckRebaseStatusService): fast-forward-only projects need a rebased merge request
 * (need_rebase, 422 on merge) and merge without a merge commit; rebase_merge still writes one;
 * approvals survive a rebase that keeps the diff (patch id) and not a push that changes it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';
import { rebase } from './rebase-support';

let owner: TestUser;
let dev: TestUser;
let approver: TestUser;

async function commit(pid: number, branch: string, token: string, actions: Record<string, unknown>[]) {
  const res = await api(`/projects/${pid}/repository/commits`, { token, body: { branch, commit_message: unique('c'), actions } });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
  return res.body as { id: string; parent_ids: string[] };
}
const file = (file_path: string, content = 'x\n', action = 'create') => ({ action, file_path, content });

async function project(settings: Record<string, unknown>) {
  const p = await api('/projects', { token: owner.token, body: { name: unique('mm'), visibility: 'private', ...settings } });
  expect(p.status).toBe(201);
  const pid = p.body.id as number;
  for (const u of [dev, approver]) await api(`/projects/${pid}/members`, { token: owner.token, body: { user_id: u.id, access_level: 30 } });
  await commit(pid, 'main', owner.token, [file('a.txt')]);
  return { pid, entity: p.body };
}

async function behindMr(pid: number) {
  const branch = unique('feat');
  await api(`/projects/${pid}/repository/branches`, { token: dev.token, body: { branch, ref: 'main' } });
  await commit(pid, branch, dev.token, [file('b.txt')]);
  const m = await api(`/projects/${pid}/merge_requests`, { token: dev.token, body: { source_branch: branch, target_branch: 'main', title: unique('MR') } });
  expect(m.status).toBe(201);
  const main = await commit(pid, 'main', owner.token, [file('c.txt')]);
  return { branch, base: `/projects/${pid}/merge_requests/${m.body.iid}`, main };
}

beforeAll(async () => {
  [owner, dev, approver] = await Promise.all([createUser(), createUser(), createUser()]);
});

describe('project merge_method and squash_option', () => {
  it('are set on create and update, shown on the project, validated', async () => {
    const { pid, entity } = await project({ merge_method: 'rebase_merge' });
    expect(entity).toMatchObject({ merge_method: 'rebase_merge', squash_option: 'default_off' });
    const upd = await api(`/projects/${pid}`, { method: 'PUT', token: owner.token, body: { merge_method: 'ff', squash_option: 'always' } });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ merge_method: 'ff', squash_option: 'always' });
    const bad = await api(`/projects/${pid}`, { method: 'PUT', token: owner.token, body: { merge_method: 'octopus' } });
    expect(bad).toMatchObject({ status: 400, body: { error: 'merge_method does not have a valid value' } });
    expect((await api(`/projects/${pid}`, { token: owner.token })).body.merge_method).toBe('ff');
  });
});

describe('fast-forward merges', () => {
  it('need a rebase first, keep approvals through it, and move the target to the source head', async () => {
    const { pid } = await project({ merge_method: 'ff' });
    await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'One', approvals_required: 1, user_ids: [approver.id] } });
    const m = await behindMr(pid);
    const before = (await api(m.base, { token: dev.token })).body;
    expect(before).toMatchObject({ merge_status: 'can_be_merged', has_conflicts: false });
    expect((await api(`${m.base}/approve`, { token: approver.token, method: 'POST' })).status).toBe(201);
    expect((await api(m.base, { token: dev.token })).body.detailed_merge_status).toBe('need_rebase');
    expect(await api(`${m.base}/merge`, { method: 'PUT', token: owner.token })).toMatchObject({ status: 422, body: { message: 'Branch cannot be merged' } });

    const rebased = (await rebase(m.base, dev.token)).mr;
    expect(rebased.sha).not.toBe(before.sha);
    expect(rebased.detailed_merge_status).toBe('mergeable');
    // The rebase kept the diff: the approval still counts (patch id), no reset note.
    const state = (await api(`${m.base}/approvals`, { token: dev.token })).body;
    expect(state).toMatchObject({ approved: true, approvals_left: 0 });
    expect(state.approved_by.map((a: any) => a.user.id)).toEqual([approver.id]);

    const merged = await api(`${m.base}/merge`, { method: 'PUT', token: owner.token });
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ state: 'merged', merge_commit_sha: null, squash_commit_sha: null });
    expect((await api(`/projects/${pid}/repository/branches/main`, { token: dev.token })).body.commit.id).toBe(rebased.sha);
  });

  it('a push that changes the diff resets the approval even after a rebase', async () => {
    const { pid } = await project({ merge_method: 'ff' });
    const m = await behindMr(pid);
    await api(`${m.base}/approve`, { token: approver.token, method: 'POST' });
    await commit(pid, m.branch, dev.token, [file('d.txt')]);
    expect((await api(`${m.base}/approvals`, { token: dev.token })).body.approved_by).toEqual([]);
    const notes = (await api(`${m.base}/notes`, { token: dev.token })).body.map((n: any) => n.body);
    expect(notes).toContain(`reset approvals from @${approver.username} by pushing to the branch`);
  });

  it('squash with squash_option always: one squash commit on the target, no merge commit', async () => {
    const { pid } = await project({ merge_method: 'ff', squash_option: 'always' });
    const m = await behindMr(pid);
    await rebase(m.base, dev.token);
    const mr = (await api(m.base, { token: dev.token })).body;
    expect(mr).toMatchObject({ squash: false, squash_on_merge: true });
    const merged = await api(`${m.base}/merge`, { method: 'PUT', token: owner.token, body: { squash: false } });
    expect(merged.status).toBe(200);
    expect(merged.body.merge_commit_sha).toBeNull();
    expect(merged.body.squash_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    const head = (await api(`/projects/${pid}/repository/commits/main`, { token: dev.token })).body;
    expect(head.id).toBe(merged.body.squash_commit_sha);
    expect(head.parent_ids).toEqual([m.main.id]);
  });
});

describe('rebase_merge and squash never', () => {
  it('needs a rebase, then writes a merge commit; squash_option never ignores squash', async () => {
    const { pid } = await project({ merge_method: 'rebase_merge', squash_option: 'never' });
    const m = await behindMr(pid);
    expect((await api(m.base, { token: dev.token })).body.detailed_merge_status).toBe('need_rebase');
    await rebase(m.base, dev.token);
    const head = (await api(m.base, { token: dev.token })).body.sha;
    const merged = await api(`${m.base}/merge`, { method: 'PUT', token: owner.token, body: { squash: true } });
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ squash_commit_sha: null, squash_on_merge: false });
    const mc = (await api(`/projects/${pid}/repository/commits/${merged.body.merge_commit_sha}`, { token: dev.token })).body;
    expect(mc.parent_ids).toEqual([m.main.id, head]);
  });

  it('a merge method of merge needs no rebase', async () => {
    const { pid } = await project({});
    const m = await behindMr(pid);
    expect((await api(m.base, { token: dev.token })).body.detailed_merge_status).toBe('mergeable');
    expect((await api(`${m.base}/merge`, { method: 'PUT', token: owner.token })).status).toBe(200);
  });
});
