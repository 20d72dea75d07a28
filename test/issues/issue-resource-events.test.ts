/**
 * An issue's resource events (issue 18 item 2; GitLab lib/api/resource_label_events.rb,
 * resource_milestone_events.rb, resource_state_events.rb): label, milestone and state changes made
 * through create and update are recorded in the write's batch and listed, paginated, in GitLab's shape.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;
let outsider: TestUser;
let project: { id: number; path_with_namespace: string };
let m1: { id: number; title: string };
let m2: { id: number; title: string };

const events = async (iid: number, kind: string, token = owner.token, query = '') => api(`/projects/${project.id}/issues/${iid}/resource_${kind}_events${query}`, { token });
const put = (iid: number, body: Record<string, unknown>) => api(`/projects/${project.id}/issues/${iid}`, { method: 'PUT', token: owner.token, body });

beforeAll(async () => {
  [owner, outsider] = await Promise.all([createUser(), createUser()]);
  project = (await api('/projects', { token: owner.token, body: { path: unique('p'), visibility: 'public' } })).body;
  for (const name of ['ev-a', 'ev-b', 'ev-c']) expect((await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name, color: '#112233' } })).status).toBe(201);
  m1 = (await api(`/projects/${project.id}/milestones`, { token: owner.token, body: { title: unique('m') } })).body;
  m2 = (await api(`/projects/${project.id}/milestones`, { token: owner.token, body: { title: unique('m') } })).body;
});

describe('GET /projects/:id/issues/:issue_iid/resource_label_events', () => {
  it('records labels added on create and through labels, add_labels and remove_labels', async () => {
    const issue = (await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'ev', labels: 'ev-a,ev-b' } })).body;
    expect((await put(issue.iid, { add_labels: 'ev-c', remove_labels: 'ev-a' })).status).toBe(200);
    expect((await put(issue.iid, { labels: 'ev-c' })).status).toBe(200);
    // Nothing changes: nothing recorded.
    expect((await put(issue.iid, { add_labels: 'ev-c' })).status).toBe(200);
    const res = await events(issue.iid, 'label');
    expect(res.status).toBe(200);
    expect(res.body.map((e: { action: string; label: { name: string } }) => `${e.action} ${e.label.name}`)).toEqual(['add ev-a', 'add ev-b', 'remove ev-a', 'add ev-c', 'remove ev-b']);
    const first = res.body[0];
    expect(Object.keys(first)).toEqual(['id', 'user', 'created_at', 'resource_type', 'resource_id', 'label', 'action']);
    expect(first).toMatchObject({ resource_type: 'Issue', resource_id: issue.id, user: { id: owner.id, username: owner.username } });
    expect(Object.keys(first.label)).toEqual(['id', 'name', 'description', 'description_html', 'text_color', 'color']);
    expect(res.headers.get('x-total')).toBe('5');

    const page = await events(issue.iid, 'label', owner.token, '?per_page=2&page=2');
    expect(page.body.map((e: { id: number }) => e.id)).toEqual([res.body[2].id, res.body[3].id]);
    expect(page.headers.get('x-total-pages')).toBe('3');

    const one = await events(issue.iid, 'label', owner.token, `/${first.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(first);
  });

  it('records labels the write itself creates (on create and on add_labels)', async () => {
    const [n1, n2] = [unique('new'), unique('new')];
    const issue = (await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'fresh', labels: n1 } })).body;
    expect((await put(issue.iid, { add_labels: n2 })).status).toBe(200);
    const res = await events(issue.iid, 'label');
    expect(res.body.map((e: { action: string; label: { name: string } }) => `${e.action} ${e.label.name}`)).toEqual([`add ${n1}`, `add ${n2}`]);
  });

  it('keeps events of a deleted label, without the label', async () => {
    const name = unique('gone');
    const label = (await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name, color: '#000000' } })).body;
    const issue = (await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'ev', labels: name } })).body;
    expect((await api(`/projects/${project.id}/labels/${label.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    const res = await events(issue.iid, 'label');
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ action: 'add', label: null });
  });

  it('answers 404 for another issue event, 401 anonymously, and hides a confidential issue', async () => {
    const a = (await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'a', labels: 'ev-a' } })).body;
    const b = (await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'b', confidential: true, labels: 'ev-b' } })).body;
    const eventOfB = (await events(b.iid, 'label')).body[0].id;
    const wrong = await events(a.iid, 'label', owner.token, `/${eventOfB}`);
    expect(wrong.status).toBe(404);
    expect(wrong.body).toEqual({ message: '404 Not found' });
    expect((await events(a.iid, 'label', owner.token, '/abc')).status).toBe(404);
    expect((await api(`/projects/${project.id}/issues/${a.iid}/resource_label_events`)).status).toBe(401);
    expect((await events(a.iid, 'label', outsider.token)).status).toBe(200);
    const hidden = await events(b.iid, 'label', outsider.token);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Not found' });
  });
});

describe('GET /projects/:id/issues/:issue_iid/resource_milestone_events', () => {
  it('records a milestone set on create, changed, and removed, with the issue state', async () => {
    const issue = (await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'ms', milestone_id: m1.id } })).body;
    expect((await put(issue.iid, { milestone_id: m2.id, state_event: 'close' })).status).toBe(200);
    expect((await put(issue.iid, { milestone_id: 0 })).status).toBe(200);
    const res = await events(issue.iid, 'milestone');
    expect(res.status).toBe(200);
    expect(res.body.map((e: { action: string; milestone: { id: number }; state: string }) => [e.action, e.milestone.id, e.state])).toEqual([
      ['add', m1.id, 'opened'],
      ['add', m2.id, 'closed'],
      ['remove', m2.id, 'closed'],
    ]);
    expect(Object.keys(res.body[0])).toEqual(['id', 'user', 'created_at', 'resource_type', 'resource_id', 'milestone', 'action', 'state']);
    expect(res.body[0].milestone).toMatchObject({ id: m1.id, title: m1.title, project_id: project.id, web_url: expect.stringContaining(`/${project.path_with_namespace}/-/milestones/`) });
  });
});

describe('a deleted milestone', () => {
  it('leaves a remove event on each of its issues, without the milestone', async () => {
    const gone = (await api(`/projects/${project.id}/milestones`, { token: owner.token, body: { title: unique('gone') } })).body;
    const issue = (await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'ms', milestone_id: gone.id } })).body;
    expect((await api(`/projects/${project.id}/milestones/${gone.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    const res = await events(issue.iid, 'milestone');
    expect(res.body.map((e: { action: string; milestone: unknown; state: string }) => [e.action, e.milestone, e.state])).toEqual([
      ['add', null, 'opened'],
      ['remove', null, 'opened'],
    ]);
    expect((await api(`/projects/${project.id}/issues/${issue.iid}`, { token: owner.token })).body.milestone).toBeNull();
  });
});

describe('GET /projects/:id/issues/:issue_iid/resource_state_events', () => {
  it('records closing and reopening, once per real change', async () => {
    const issue = (await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'st' } })).body;
    const closes = await Promise.all([1, 2, 3, 4, 5].map(() => put(issue.iid, { state_event: 'close' })));
    expect(closes.every((r) => r.status === 200)).toBe(true);
    expect((await put(issue.iid, { state_event: 'reopen' })).status).toBe(200);
    expect((await put(issue.iid, { state_event: 'reopen' })).status).toBe(200);
    const res = await events(issue.iid, 'state');
    expect(res.body.map((e: { state: string }) => e.state)).toEqual(['closed', 'reopened']);
    expect(Object.keys(res.body[0])).toEqual(['id', 'user', 'created_at', 'resource_type', 'resource_id', 'source_commit', 'source_merge_request_id', 'state']);
    expect(res.body[0]).toMatchObject({ resource_type: 'Issue', resource_id: issue.id, source_commit: null, source_merge_request_id: null });
  });
});

describe('events through other writes', () => {
  it('follow a promoted label to its group, and record the close of an issue promoted to an epic', async () => {
    const path = unique('g');
    const group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'public' } })).body;
    const gp = (await api('/projects', { token: owner.token, body: { path: unique('p'), namespace_id: group.id, visibility: 'public' } })).body;
    const name = unique('promo');
    expect((await api(`/projects/${gp.id}/labels`, { token: owner.token, body: { name, color: '#123456' } })).status).toBe(201);
    const issue = (await api(`/projects/${gp.id}/issues`, { token: owner.token, body: { title: 'promote', labels: name } })).body;
    const promoted = await api(`/projects/${gp.id}/labels/${name}/promote`, { method: 'PUT', token: owner.token });
    expect(promoted.status).toBe(200);
    const labelEvents = (await api(`/projects/${gp.id}/issues/${issue.iid}/resource_label_events`, { token: owner.token })).body;
    expect(labelEvents.map((e: { label: { id: number; name: string } | null }) => e.label && [e.label.id, e.label.name])).toEqual([[promoted.body.id, name]]);

    expect((await api(`/projects/${gp.id}/issues/${issue.iid}/notes`, { token: owner.token, body: { body: '/promote' } })).status).toBeLessThan(300);
    const states = (await api(`/projects/${gp.id}/issues/${issue.iid}/resource_state_events`, { token: owner.token })).body;
    expect(states.map((e: { state: string }) => e.state)).toEqual(['closed']);
  });
});
