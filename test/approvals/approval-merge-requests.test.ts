/**
 * Merge-request-level approvals end to end on both runtimes, with real branches and commits:
 * approve at HEAD (sha check), a push to the source branch removing approvals, committers excluded
 * by setting, approval_state and merge request rules copied from project rules, merging refused
 * while approvals are missing (lib/api/merge_request_approvals.rb with its EE prepend,
 * ee/lib/api/merge_request_approval_rules.rb; spec Merge-request-level approvals).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;
let dev1: TestUser;
let dev2: TestUser;
let author: TestUser;

interface Mr {
  pid: number;
  iid: number;
  base: string;
  sourceBranch: string;
}

async function commit(pid: number, branch: string, token: string, extra: Record<string, unknown> = {}) {
  const res = await api(`/projects/${pid}/repository/commits`, {
    token,
    body: { branch, commit_message: unique('c'), actions: [{ action: 'create', file_path: `${unique('f')}.txt`, content: 'x\n' }], ...extra },
  });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
  return res.body.id as string;
}

async function project(settings?: Record<string, unknown>): Promise<number> {
  const path = unique('apm');
  const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } });
  for (const u of [dev1, dev2, author]) await api(`/groups/${g.body.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: 30 } });
  const p = await api('/projects', { token: owner.token, body: { path: 'p', namespace_id: g.body.id } });
  if (p.status !== 201) throw new Error(p.text);
  await commit(p.body.id, 'main', owner.token);
  if (settings) await api(`/projects/${p.body.id}/approvals`, { token: owner.token, body: settings });
  return p.body.id;
}

async function mergeRequest(pid: number, committer: TestUser = author): Promise<Mr> {
  const sourceBranch = unique('feat');
  const b = await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: sourceBranch, ref: 'main' } });
  if (b.status !== 201) throw new Error(b.text);
  await commit(pid, sourceBranch, committer.token);
  const m = await api(`/projects/${pid}/merge_requests`, { token: author.token, body: { source_branch: sourceBranch, target_branch: 'main', title: unique('MR') } });
  if (m.status !== 201) throw new Error(m.text);
  return { pid, iid: m.body.iid, base: `/projects/${pid}/merge_requests/${m.body.iid}`, sourceBranch };
}

const headOf = async (m: Mr) => (await api(m.base, { token: owner.token })).body.sha as string;

beforeAll(async () => {
  [owner, dev1, dev2, author] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
});

describe('approve, unapprove and the HEAD', () => {
  it('approves at HEAD, refuses another sha with 409, counts against rules', async () => {
    const pid = await project();
    await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'Devs', approvals_required: 2, user_ids: [dev1.id, dev2.id] } });
    const m = await mergeRequest(pid);
    const head = await headOf(m);
    expect(head).toMatch(/^[0-9a-f]{40}$/);
    const wrong = await api(`${m.base}/approve`, { token: dev1.token, body: { sha: '0'.repeat(40) } });
    expect(wrong.status).toBe(409);
    expect(wrong.body).toEqual({ message: `SHA does not match HEAD of source branch: ${head}` });
    const ok = await api(`${m.base}/approve`, { token: dev1.token, body: { sha: head } });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ iid: m.iid, approvals_required: 2, approvals_left: 1, approved: false, user_has_approved: true });
    expect((await api(`${m.base}/approve`, { token: dev1.token, method: 'POST' })).status).toBe(401);
    const second = await api(`${m.base}/approve`, { token: dev2.token, method: 'POST' });
    expect(second.body).toMatchObject({ approvals_left: 0, approved: true });
    expect(second.body.approved_by.map((a: any) => a.user.id)).toEqual([dev1.id, dev2.id]);
    const un = await api(`${m.base}/unapprove`, { token: dev2.token, method: 'POST' });
    expect(un.status).toBe(201);
    expect(un.body).toMatchObject({ approvals_left: 1, approved: false });
    expect(await api(`${m.base}/unapprove`, { token: dev2.token, method: 'POST' })).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
  });

  it('a push to the source branch removes approvals (reset_approvals_on_push, the default)', async () => {
    const pid = await project();
    await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'Devs', approvals_required: 1, user_ids: [dev1.id] } });
    const m = await mergeRequest(pid);
    expect((await api(`${m.base}/approve`, { token: dev1.token, method: 'POST' })).body.approved).toBe(true);
    const old = await headOf(m);
    const pushed = await commit(pid, m.sourceBranch, author.token);
    expect(await headOf(m)).toBe(pushed);
    const after = await api(`${m.base}/approvals`, { token: dev1.token });
    expect(after.body).toMatchObject({ approved: false, approvals_left: 1, approved_by: [] });
    // Approving with the old sha is refused; with the new one it counts again.
    expect((await api(`${m.base}/approve`, { token: dev1.token, body: { sha: old } })).status).toBe(409);
    expect((await api(`${m.base}/approve`, { token: dev1.token, body: { sha: pushed } })).body.approved).toBe(true);
  });

  it('approvals survive a push when reset_approvals_on_push is off', async () => {
    const pid = await project({ reset_approvals_on_push: false });
    const m = await mergeRequest(pid);
    await api(`${m.base}/approve`, { token: dev1.token, method: 'POST' });
    await commit(pid, m.sourceBranch, author.token);
    expect((await api(`${m.base}/approvals`, { token: dev1.token })).body.approved_by.map((a: any) => a.user.id)).toEqual([dev1.id]);
  });

  it('turning reset_approvals_on_push on keeps earlier approvals until the next push', async () => {
    const pid = await project({ reset_approvals_on_push: false });
    const m = await mergeRequest(pid);
    await api(`${m.base}/approve`, { token: dev1.token, method: 'POST' });
    await commit(pid, m.sourceBranch, author.token);
    const on = await api(`/projects/${pid}/approvals`, { token: owner.token, body: { reset_approvals_on_push: true } });
    expect(on.body.reset_approvals_on_push).toBe(true);
    expect((await api(`${m.base}/approvals`, { token: dev1.token })).body.approved_by.map((a: any) => a.user.id)).toEqual([dev1.id]);
    await commit(pid, m.sourceBranch, author.token);
    expect((await api(`${m.base}/approvals`, { token: dev1.token })).body.approved_by).toEqual([]);
  });

  it('merge_requests_disable_committers_approval: a committer of the source branch may not approve', async () => {
    const pid = await project({ merge_requests_disable_committers_approval: true });
    const m = await mergeRequest(pid, dev1);
    const res = await api(`${m.base}/approve`, { token: dev1.token, method: 'POST' });
    expect(res).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect((await api(`${m.base}/approvals`, { token: dev1.token })).body.user_can_approve).toBe(false);
    expect((await api(`${m.base}/approve`, { token: dev2.token, method: 'POST' })).status).toBe(201);
    // The same committer may approve where committers are allowed.
    const pid2 = await project();
    const m2 = await mergeRequest(pid2, dev1);
    expect((await api(`${m2.base}/approve`, { token: dev1.token, method: 'POST' })).status).toBe(201);
  });

  it('concurrent approvals by one user create one approval', async () => {
    const pid = await project();
    const m = await mergeRequest(pid);
    const res = await Promise.all([1, 2, 3].map(() => api(`${m.base}/approve`, { token: dev1.token, method: 'POST' })));
    expect(res.map((r) => r.status).sort()).toEqual([201, 401, 401]);
    expect((await api(`${m.base}/approvals`, { token: dev2.token })).body.approved_by.map((a: any) => a.user.id)).toEqual([dev1.id]);
  });
});

describe('rules on the merge request', () => {
  it('copies a project rule (approval_project_rule_id) and overrides it; approval_state shows source_rule and overridden', async () => {
    const pid = await project();
    const pr = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'Backend', approvals_required: 1, user_ids: [dev1.id, dev2.id] } });
    const m = await mergeRequest(pid);
    const state = await api(`${m.base}/approval_state`, { token: dev1.token });
    expect(state.status).toBe(200);
    expect(state.body.approval_rules_overwritten).toBe(false);
    expect(state.body.rules.map((r: any) => [r.id, r.name, r.source_rule, r.overridden])).toEqual([[pr.body.id, 'Backend', null, false]]);
    const copy = await api(`${m.base}/approval_rules`, { token: author.token, body: { name: 'whatever', approvals_required: 1, approval_project_rule_id: pr.body.id } });
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ name: 'Backend', approvals_required: 1, source_rule: { approvals_required: 1 }, overridden: false });
    expect(copy.body.users.map((u: any) => u.id).sort((a: number, b: number) => a - b)).toEqual([dev1.id, dev2.id].sort((a, b) => a - b));
    const edited = await api(`${m.base}/approval_rules/${copy.body.id}`, { method: 'PUT', token: author.token, body: { name: 'Backend', approvals_required: 2 } });
    expect(edited.body.overridden).toBe(true);
    const after = await api(`${m.base}/approval_state`, { token: dev1.token });
    expect(after.body.approval_rules_overwritten).toBe(true);
    expect(after.body.rules.map((r: any) => [r.id, r.approvals_required, r.approved, r.overridden, r.source_rule])).toEqual([[copy.body.id, 2, false, true, { approvals_required: 1 }]]);
    const list = await api(`${m.base}/approval_rules`, { token: dev2.token });
    expect(list.body.map((r: any) => r.id)).toEqual([copy.body.id]);
    expect((await api(`${m.base}/approval_rules/${copy.body.id}`, { method: 'DELETE', token: author.token })).status).toBe(204);
    expect((await api(`${m.base}/approval_state`, { token: dev1.token })).body.approval_rules_overwritten).toBe(false);
  });

  it('merging is refused while approvals are missing and allowed once approved', async () => {
    const pid = await project();
    await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'Devs', approvals_required: 1, user_ids: [dev1.id] } });
    const m = await mergeRequest(pid);
    const refused = await api(`${m.base}/merge`, { method: 'PUT', token: owner.token });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect((await api(m.base, { token: owner.token })).body.state).toBe('opened');
    await api(`${m.base}/approve`, { token: dev1.token, method: 'POST' });
    const merged = await api(`${m.base}/merge`, { method: 'PUT', token: owner.token });
    expect(merged.status).toBe(200);
    expect(merged.body.state).toBe('merged');
    // After merging, approvals can no longer be removed or given; the state keeps the approval.
    expect((await api(`${m.base}/unapprove`, { token: dev1.token, method: 'POST' })).status).toBe(404);
    expect((await api(`${m.base}/approve`, { token: dev2.token, method: 'POST' })).status).toBe(401);
    const after = await api(`${m.base}/approvals`, { token: dev2.token });
    expect(after.body).toMatchObject({ state: 'merged', approved: true });
    expect(after.body.approved_by.map((a: any) => a.user.id)).toEqual([dev1.id]);
  });

  it('a Reporter of a group named on a rule of the protected target branch may approve (merge_request_group_approver)', async () => {
    const path = unique('apg');
    const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'public' } });
    const p = await api('/projects', { token: owner.token, body: { path: 'p', namespace_id: g.body.id, visibility: 'public' } });
    const pid = p.body.id;
    await commit(pid, 'main', owner.token);
    await api(`/projects/${pid}/members`, { token: owner.token, body: { user_id: author.id, access_level: 30 } });
    const reviewersPath = unique('rev');
    const reviewers = await api('/groups', { token: owner.token, body: { name: reviewersPath, path: reviewersPath, visibility: 'public' } });
    const outsider = await createUser();
    await api(`/groups/${reviewers.body.id}/members`, { token: owner.token, body: { user_id: outsider.id, access_level: 20 } });
    const m = await mergeRequest(pid);
    // Not yet: the outsider is no member of the project.
    expect((await api(`${m.base}/approve`, { token: outsider.token, method: 'POST' })).status).toBe(403);
    // The first push protected the default branch (default_branch_protection).
    const pb = await api(`/projects/${pid}/protected_branches/main`, { token: owner.token });
    expect(pb.status).toBe(200);
    const rule = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'Reviewers', approvals_required: 1, group_ids: [reviewers.body.id], protected_branch_ids: [pb.body.id] } });
    expect(rule.status).toBe(201);
    const ok = await api(`${m.base}/approve`, { token: outsider.token, method: 'POST' });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ approved: true, approvals_left: 0 });
  });
});
