/**
 * A merge request's resource events (issue 18 item 2; GitLab lib/api/resource_*_events.rb with the
 * MergeRequest eventable): labels and milestone on create and update, close/reopen and merge state
 * events, the issue closed by the merge getting its own state event with source_merge_request_id.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;
let guest: TestUser;
let project: { id: number };
let milestone: { id: number };

async function commit(branch: string, file: string, start?: string) {
  const res = await api(`/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch, ...(start ? { start_branch: start } : {}), commit_message: file, actions: [{ action: 'create', file_path: file, content: 'x' }] },
  });
  expect(res.status).toBe(201);
}
async function mkMr(body: Record<string, unknown> = {}) {
  const branch = unique('b');
  await commit(branch, `${branch}.txt`, 'main');
  const res = await api(`/projects/${project.id}/merge_requests`, { token: owner.token, body: { title: branch, source_branch: branch, target_branch: 'main', ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: number; iid: number };
}
const events = (iid: number, kind: string, token = owner.token, tail = '') => api(`/projects/${project.id}/merge_requests/${iid}/resource_${kind}_events${tail}`, { token });
const put = (iid: number, body: Record<string, unknown>) => api(`/projects/${project.id}/merge_requests/${iid}`, { method: 'PUT', token: owner.token, body });

beforeAll(async () => {
  [owner, guest] = await Promise.all([createUser(), createUser()]);
  project = (await api('/projects', { token: owner.token, body: { path: unique('p'), visibility: 'private' } })).body;
  await commit('main', 'README.md');
  for (const name of ['mr-a', 'mr-b']) expect((await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name, color: '#112233' } })).status).toBe(201);
  milestone = (await api(`/projects/${project.id}/milestones`, { token: owner.token, body: { title: unique('m') } })).body;
  expect((await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: guest.id, access_level: 10 } })).status).toBe(201);
});

describe('GET /projects/:id/merge_requests/:merge_request_iid/resource_*_events', () => {
  it('records labels and the milestone on create and update, and closing and reopening', async () => {
    const mr = await mkMr({ labels: 'mr-a', milestone_id: milestone.id });
    expect((await put(mr.iid, { add_labels: 'mr-b', remove_labels: 'mr-a', state_event: 'close' })).status).toBe(200);
    expect((await put(mr.iid, { state_event: 'reopen', milestone_id: 0 })).status).toBe(200);
    const labels = await events(mr.iid, 'label');
    expect(labels.status).toBe(200);
    expect(labels.body.map((e: { action: string; label: { name: string }; resource_type: string; resource_id: number }) => [e.action, e.label.name, e.resource_type, e.resource_id])).toEqual([
      ['add', 'mr-a', 'MergeRequest', mr.id],
      ['remove', 'mr-a', 'MergeRequest', mr.id],
      ['add', 'mr-b', 'MergeRequest', mr.id],
    ]);
    const milestones = await events(mr.iid, 'milestone');
    expect(milestones.body.map((e: { action: string; milestone: { id: number }; state: string }) => [e.action, e.milestone.id, e.state])).toEqual([
      ['add', milestone.id, 'opened'],
      ['remove', milestone.id, 'opened'],
    ]);
    const states = await events(mr.iid, 'state');
    expect(states.body.map((e: { state: string }) => e.state)).toEqual(['closed', 'reopened']);
    const one = await events(mr.iid, 'state', owner.token, `/${states.body[1].id}`);
    expect(one.body).toEqual(states.body[1]);
    expect((await events(mr.iid, 'state', owner.token, '/999999')).body).toEqual({ message: '404 Not found' });
  });

  it('records the merge, and the close of the issue it closes with source_merge_request_id', async () => {
    const issue = (await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'closed by mr' } })).body;
    const mr = await mkMr({ description: `Closes #${issue.iid}` });
    const merged = await api(`/projects/${project.id}/merge_requests/${mr.iid}/merge`, { method: 'PUT', token: owner.token });
    expect(merged.status).toBe(200);
    expect((await events(mr.iid, 'state')).body.map((e: { state: string }) => e.state)).toEqual(['merged']);
    const issueEvents = (await api(`/projects/${project.id}/issues/${issue.iid}/resource_state_events`, { token: owner.token })).body;
    expect(issueEvents).toHaveLength(1);
    expect(issueEvents[0]).toMatchObject({ state: 'closed', resource_type: 'Issue', resource_id: issue.id, source_merge_request_id: mr.id });
  });

  it('clears a deleted milestone from its merge requests, with a remove event (Milestones::DestroyService)', async () => {
    const gone = (await api(`/projects/${project.id}/milestones`, { token: owner.token, body: { title: unique('gone') } })).body;
    const mr = await mkMr({ milestone_id: gone.id });
    expect((await api(`/projects/${project.id}/milestones/${gone.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await api(`/projects/${project.id}/merge_requests/${mr.iid}`, { token: owner.token })).body.milestone).toBeNull();
    expect((await events(mr.iid, 'milestone')).body.map((e: { action: string; milestone: unknown }) => [e.action, e.milestone])).toEqual([
      ['add', null],
      ['remove', null],
    ]);
  });

  it('hides the events of a merge request the caller may not read (guest of a private project: 404), 401 anonymously', async () => {
    const mr = await mkMr({ labels: 'mr-a' });
    const hidden = await events(mr.iid, 'label', guest.token);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Not found' });
    expect((await api(`/projects/${project.id}/merge_requests/${mr.iid}/resource_label_events`)).status).toBe(401);
  });
});
