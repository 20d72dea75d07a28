/**
 * GET /projects/:id/milestones/:milestone_id/merge_requests and the group twin
 * (milestone_responses.rb): the milestone's merge requests of every state, best label priority
 * first, MergeRequestBasic, paginated; a group milestone lists those of its subtree.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let group: { id: number };
let project: { id: number };
let sibling: { id: number };
let milestone: { id: number; title: string };
let groupMilestone: { id: number; title: string };
const iids: Record<string, number> = {};

async function branchWithCommit(pid: number, branch: string) {
  expect((await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch, ref: 'main' } })).status).toBe(201);
  const c = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch, commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: branch }] } });
  expect(c.status).toBe(201);
}
async function mr(pid: number, key: string, body: Record<string, unknown>) {
  await branchWithCommit(pid, key);
  const res = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { source_branch: key, target_branch: 'main', title: key, ...body } });
  expect(res.status).toBe(201);
  iids[key] = res.body.iid;
}

beforeAll(async () => {
  [owner, reporter, guest] = await Promise.all([createUser(), createUser(), createUser()]);
  const path = unique('msmr');
  group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } })).body;
  expect((await api(`/groups/${group.id}/members`, { token: owner.token, body: { user_id: reporter.id, access_level: 20 } })).status).toBe(201);
  expect((await api(`/groups/${group.id}/members`, { token: owner.token, body: { user_id: guest.id, access_level: 10 } })).status).toBe(201);
  project = (await api('/projects', { token: owner.token, body: { path: 'one', namespace_id: group.id } })).body;
  sibling = (await api('/projects', { token: owner.token, body: { path: 'two', namespace_id: group.id } })).body;
  for (const pid of [project.id, sibling.id]) {
    const c = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'README', content: 'r' }] } });
    expect(c.status).toBe(201);
  }
  milestone = (await api(`/projects/${project.id}/milestones`, { token: owner.token, body: { title: unique('ms') } })).body;
  groupMilestone = (await api(`/groups/${group.id}/milestones`, { token: owner.token, body: { title: unique('gms') } })).body;
  const urgent = unique('urgent');
  expect((await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name: urgent, color: '#ff0000', priority: 1 } })).status).toBe(201);
  await mr(project.id, 'plain', { milestone_id: milestone.id });
  await mr(project.id, 'prioritised', { milestone_id: milestone.id, labels: urgent });
  await mr(project.id, 'closed', { milestone_id: milestone.id });
  await mr(project.id, 'elsewhere', {});
  await mr(project.id, 'in-group', { milestone_id: groupMilestone.id });
  await mr(sibling.id, 'sibling', { milestone_id: groupMilestone.id });
  expect((await api(`/projects/${project.id}/merge_requests/${iids.closed}`, { method: 'PUT', token: owner.token, body: { state_event: 'close' } })).status).toBe(200);
});

describe('GET /projects/:id/milestones/:milestone_id/merge_requests', () => {
  it("lists the milestone's merge requests of every state, label priority first, then newest", async () => {
    const res = await api(`/projects/${project.id}/milestones/${milestone.id}/merge_requests`, { token: reporter.token });
    expect(res.status).toBe(200);
    expect(res.body.map((m: { iid: number }) => m.iid)).toEqual([iids.prioritised, iids.closed, iids.plain]);
    expect(res.body.map((m: { state: string }) => m.state)).toEqual(['opened', 'closed', 'opened']);
    expect(res.body[0].milestone).toMatchObject({ id: milestone.id, title: milestone.title });
    expect(res.body[0]).not.toHaveProperty('changes_count');
    expect(res.headers.get('x-total')).toBe('3');
  });

  it("shows a guest of a private project none (guests cannot read its merge requests), without a 403", async () => {
    const res = await api(`/projects/${project.id}/milestones/${milestone.id}/merge_requests`, { token: guest.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.get('x-total')).toBe('0');
    const inGroup = await api(`/groups/${group.id}/milestones/${groupMilestone.id}/merge_requests`, { token: guest.token });
    expect(inGroup.body).toEqual([]);
  });

  it('paginates with the usual headers', async () => {
    const res = await api(`/projects/${project.id}/milestones/${milestone.id}/merge_requests?per_page=2&page=2`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.map((m: { iid: number }) => m.iid)).toEqual([iids.plain]);
    expect(res.headers.get('x-page')).toBe('2');
    expect(res.headers.get('x-total-pages')).toBe('2');
  });

  it('answers 404 for an unknown milestone and for a caller who cannot see the project', async () => {
    const missing = await api(`/projects/${project.id}/milestones/0/merge_requests`, { token: guest.token });
    expect(missing.status).toBe(404);
    const outsider = await createUser();
    const hidden = await api(`/projects/${project.id}/milestones/${milestone.id}/merge_requests`, { token: outsider.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Project Not Found' });
  });
});

describe('GET /groups/:id/milestones/:milestone_id/merge_requests', () => {
  it("lists the group milestone's merge requests across the group's projects", async () => {
    const res = await api(`/groups/${group.id}/milestones/${groupMilestone.id}/merge_requests`, { token: reporter.token });
    expect(res.status).toBe(200);
    expect(res.body.map((m: { project_id: number; iid: number }) => [m.project_id, m.iid])).toEqual([
      [sibling.id, iids.sibling],
      [project.id, iids['in-group']],
    ]);
    expect(res.body[0].references.relative).toBe(`two!${iids.sibling}`);
  });
});
