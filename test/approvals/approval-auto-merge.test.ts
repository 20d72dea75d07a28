/** A merge queued with merge_when_pipeline_succeeds while approvals are missing completes when the last approval arrives. */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let approver: TestUser;

beforeAll(async () => {
  [owner, approver] = await Promise.all([createUser(), createUser()]);
});

describe('approve completes a queued merge', () => {
  it('merges at once when the approval makes the request mergeable', async () => {
    const p = (await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'private' } })).body;
    expect((await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: approver.id, access_level: 30 } })).status).toBe(201);
    const commit = (branch: string, path: string, extra: Record<string, unknown> = {}) =>
      api(`/projects/${p.id}/repository/commits`, { token: owner.token, body: { branch, commit_message: path, actions: [{ action: 'create', file_path: path, content: path }], ...extra } });
    const base = (await commit('main', 'README')).body;
    expect((await commit('feature', 'feature.txt', { start_branch: 'main' })).status).toBe(201);
    expect((await api(`/projects/${p.id}/approval_rules`, { token: owner.token, body: { name: 'Review', approvals_required: 1, user_ids: [approver.id] } })).status).toBe(201);
    const mr = (await api(`/projects/${p.id}/merge_requests`, { token: owner.token, body: { source_branch: 'feature', target_branch: 'main', title: 'Feature' } })).body;
    const queued = await api(`/projects/${p.id}/merge_requests/${mr.iid}/merge`, { method: 'PUT', token: owner.token, body: { merge_when_pipeline_succeeds: true } });
    expect(queued.body).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true });
    // The target branch has not moved yet.
    expect((await api(`/projects/${p.id}/repository/branches/main`, { token: owner.token })).body.commit.id).toBe(base.id);
    const approved = await api(`/projects/${p.id}/merge_requests/${mr.iid}/approve`, { method: 'POST', token: approver.token, body: { sha: mr.sha } });
    expect(approved.status).toBe(201);
    // Read the branch (not the merge request, whose read would also complete the merge): the merge commit is there.
    const main = (await api(`/projects/${p.id}/repository/branches/main`, { token: owner.token })).body;
    expect(main.commit.parent_ids).toEqual([base.id, mr.sha]);
    const list = await api(`/projects/${p.id}/merge_requests?state=merged`, { token: owner.token });
    expect(list.body.map((m: { iid: number }) => m.iid)).toEqual([mr.iid]);
  });
});
