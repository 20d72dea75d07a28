/**
 * Counters that read merge requests: the issue entity's merge_requests_count (merge requests that
 * close the issue and that the caller may see) and /user_counts' assigned and review-requested
 * merge requests.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let reviewer: TestUser;
let guest: TestUser;

beforeAll(async () => {
  [owner, reviewer, guest] = await Promise.all([createUser(), createUser(), createUser()]);
});

describe('merge request counters', () => {
  it('count closing merge requests on the issue and open assigned/review-requested ones for the user', async () => {
    const p = (await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'private' } })).body;
    expect((await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: reviewer.id, access_level: 30 } })).status).toBe(201);
    expect((await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: guest.id, access_level: 10 } })).status).toBe(201);
    const issue = (await api(`/projects/${p.id}/issues`, { token: owner.token, body: { title: 'Bug' } })).body;
    expect(issue.merge_requests_count).toBe(0);
    const commit = (branch: string, extra: Record<string, unknown>, path: string) =>
      api(`/projects/${p.id}/repository/commits`, { token: owner.token, body: { branch, commit_message: path, actions: [{ action: 'create', file_path: path, content: path }], ...extra } });
    expect((await commit('main', {}, 'README')).status).toBe(201);
    expect((await commit('fix', { start_branch: 'main' }, 'fix.txt')).status).toBe(201);
    const before = (await api('/user_counts', { token: reviewer.token })).body;
    const mr = await api(`/projects/${p.id}/merge_requests`, {
      token: owner.token,
      body: { source_branch: 'fix', target_branch: 'main', title: 'Fix the bug', description: `Closes #${issue.iid}`, assignee_id: owner.id, reviewer_ids: [reviewer.id] },
    });
    expect(mr.status).toBe(201);
    expect((await api(`/projects/${p.id}/issues/${issue.iid}`, { token: owner.token })).body.merge_requests_count).toBe(1);
    // A guest of a private project cannot read its merge requests, so none counts for them.
    expect((await api(`/projects/${p.id}/issues/${issue.iid}`, { token: guest.token })).body.merge_requests_count).toBe(0);
    const list = await api(`/projects/${p.id}/issues?iids[]=${issue.iid}`, { token: owner.token });
    expect(list.body[0].merge_requests_count).toBe(1);
    expect((await api('/user_counts', { token: owner.token })).body).toMatchObject({ assigned_merge_requests: 1, merge_requests: 1 });
    const after = (await api('/user_counts', { token: reviewer.token })).body;
    expect(after.review_requested_merge_requests).toBe(before.review_requested_merge_requests + 1);
    // Closing the merge request takes it out of the open counters.
    expect((await api(`/projects/${p.id}/merge_requests/${mr.body.iid}`, { method: 'PUT', token: owner.token, body: { state_event: 'close' } })).status).toBe(200);
    expect((await api('/user_counts', { token: owner.token })).body).toMatchObject({ assigned_merge_requests: 0 });
  });
});
