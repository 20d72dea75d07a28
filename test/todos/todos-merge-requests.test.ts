/** To-dos on merge requests (assigned, review requested) are listed by GET /todos with the MergeRequest entity, and can be marked done. */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let reviewer: TestUser;

beforeAll(async () => {
  [owner, reviewer] = await Promise.all([createUser(), createUser()]);
});

describe('merge request to-dos', () => {
  it('lists review-requested and assigned merge requests, filters by type, and marks them done', async () => {
    const p = (await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'private' } })).body;
    expect((await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: reviewer.id, access_level: 30 } })).status).toBe(201);
    const commit = (branch: string, path: string, extra: Record<string, unknown> = {}) =>
      api(`/projects/${p.id}/repository/commits`, { token: owner.token, body: { branch, commit_message: path, actions: [{ action: 'create', file_path: path, content: path }], ...extra } });
    await commit('main', 'README');
    await commit('feature', 'f.txt', { start_branch: 'main' });
    const mr = (await api(`/projects/${p.id}/merge_requests`, { token: owner.token, body: { source_branch: 'feature', target_branch: 'main', title: 'Feature', reviewer_ids: [reviewer.id], assignee_id: reviewer.id } })).body;
    const list = await api('/todos?type=MergeRequest', { token: reviewer.token });
    expect(list.status).toBe(200);
    const mine = list.body.filter((t: { target: { id: number } }) => t.target.id === mr.id);
    expect(mine.map((t: { action_name: string }) => t.action_name).sort()).toEqual(['assigned', 'review_requested']);
    expect(mine[0]).toMatchObject({ target_type: 'MergeRequest', target: { iid: mr.iid, title: 'Feature', source_branch: 'feature' }, body: 'Feature', state: 'pending' });
    expect(mine[0].target_url).toMatch(new RegExp(`/-/merge_requests/${mr.iid}$`));
    expect((await api('/todos?type=Issue', { token: reviewer.token })).body.some((t: { target_type: string }) => t.target_type === 'MergeRequest')).toBe(false);
    const done = await api(`/todos/${mine[0].id}/mark_as_done`, { method: 'POST', token: reviewer.token });
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({ id: mine[0].id, state: 'done', target_type: 'MergeRequest' });
    const after = await api('/todos?type=MergeRequest', { token: reviewer.token });
    expect(after.body.filter((t: { target: { id: number } }) => t.target.id === mr.id)).toHaveLength(1);
    // Removed from the project, the reviewer no longer sees the merge request's to-do.
    expect((await api(`/projects/${p.id}/members/${reviewer.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await api('/todos?type=MergeRequest', { token: reviewer.token })).body.filter((t: { target: { id: number } }) => t.target.id === mr.id)).toEqual([]);
  });
});
