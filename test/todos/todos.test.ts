/** To-do items (GitLab lib/api/todos.rb, app/finders/todos_finder.rb, entities/todo.rb). */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let dev: TestUser;
let project: { id: number; name: string; path: string; path_with_namespace: string };
let other: { id: number };

async function mkProject(token: string, visibility = 'private') {
  const res = await api('/projects', { token, body: { name: unique('p'), visibility } });
  expect(res.status).toBe(201);
  return res.body;
}

async function mkIssue(projectId: number, token = owner.token, extra: Record<string, unknown> = {}) {
  const res = await api(`/projects/${projectId}/issues`, { token, body: { title: unique('t'), ...extra } });
  expect(res.status).toBe(201);
  return res.body as { id: number; iid: number; title: string; web_url: string };
}

const todoOf = (projectId: number, iid: number, token: string) => api(`/projects/${projectId}/issues/${iid}/todo`, { token, method: 'POST' });

beforeAll(async () => {
  [owner, dev] = await Promise.all([createUser(), createUser()]);
  project = await mkProject(owner.token);
  other = await mkProject(owner.token);
  for (const p of [project, other]) {
    const m = await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } });
    expect(m.status).toBe(201);
  }
});

describe('POST /projects/:id/issues/:issue_iid/todo', () => {
  it('creates a marked to-do (201) in the entity order of entities/todo.rb', async () => {
    const issue = await mkIssue(project.id);
    const res = await todoOf(project.id, issue.iid, dev.token);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'project', 'author', 'action_name', 'target_type', 'target', 'target_url', 'body', 'state', 'created_at', 'updated_at']);
    expect(res.body).toMatchObject({
      project: { id: project.id, name: project.name, path: project.path, path_with_namespace: project.path_with_namespace },
      author: { id: dev.id, username: dev.username },
      action_name: 'marked',
      target_type: 'Issue',
      target: { id: issue.id, iid: issue.iid, title: issue.title },
      target_url: issue.web_url,
      body: issue.title,
      state: 'pending',
    });
    expect(Object.keys(res.body.project)).toEqual(['id', 'description', 'name', 'name_with_namespace', 'path', 'path_with_namespace', 'created_at']);
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('answers 304 without a body while a pending to-do exists, and 201 again once it is done', async () => {
    const issue = await mkIssue(project.id);
    const first = await todoOf(project.id, issue.iid, dev.token);
    expect(first.status).toBe(201);
    const again = await todoOf(project.id, issue.iid, dev.token);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    const list = await api(`/todos?project_id=${project.id}&type=Issue`, { token: dev.token });
    expect(list.body.filter((t: { target: { id: number } }) => t.target.id === issue.id)).toHaveLength(1);
    const done = await api(`/todos/${first.body.id}/mark_as_done`, { token: dev.token, method: 'POST' });
    expect(done.status).toBe(201);
    const third = await todoOf(project.id, issue.iid, dev.token);
    expect(third.status).toBe(201);
    expect(third.body.id).not.toBe(first.body.id);
  });

  it('creates exactly one to-do under concurrent requests', async () => {
    const issue = await mkIssue(project.id);
    const results = await Promise.all([0, 1, 2, 3, 4].map(() => todoOf(project.id, issue.iid, owner.token)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 304, 304, 304, 304]);
    const list = await api(`/todos?project_id=${project.id}&per_page=100`, { token: owner.token });
    expect(list.body.filter((t: { target: { id: number } }) => t.target.id === issue.id)).toHaveLength(1);
  });

  it('needs sign-in and a readable issue', async () => {
    const issue = await mkIssue(project.id);
    const anon = await api(`/projects/${project.id}/issues/${issue.iid}/todo`, { method: 'POST' });
    expect(anon.status).toBe(401);
    const outsider = await createUser();
    const hidden = await todoOf(project.id, issue.iid, outsider.token);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Project Not Found' });
    const missing = await todoOf(project.id, 999999, dev.token);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Not found' });
    const list = await api('/todos', { token: outsider.token });
    expect(list.body).toEqual([]);
  });
});

describe('GET /todos', () => {
  it('lists only the caller\'s pending to-dos, newest first, paginated', async () => {
    const me = await createUser();
    const p = await mkProject(me.token);
    const a = await mkIssue(p.id, me.token);
    const b = await mkIssue(p.id, me.token);
    const ta = await todoOf(p.id, a.iid, me.token);
    const tb = await todoOf(p.id, b.iid, me.token);
    const res = await api('/todos?per_page=1', { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body.map((t: { id: number }) => t.id)).toEqual([tb.body.id]);
    expect(res.headers.get('x-total')).toBe('2');
    expect(res.headers.get('x-next-page')).toBe('2');
    const all = await api('/todos', { token: me.token });
    expect(all.body.map((t: { id: number }) => t.id)).toEqual([tb.body.id, ta.body.id]);
    // The created to-do's target carries `subscribed`; list targets do not (include_subscribed: false).
    const { subscribed, ...listTarget } = tb.body.target;
    expect(subscribed).toBe(true);
    expect(all.body[0]).toEqual({ ...tb.body, target: listTarget });
    expect(all.body[0].target).not.toHaveProperty('subscribed');
    const otherUser = await api('/todos', { token: dev.token });
    expect(otherUser.body.map((t: { id: number }) => t.id)).not.toContain(ta.body.id);
  });

  it('filters by state, action, type, project, group and author', async () => {
    const me = await createUser();
    const g = await api('/groups', { token: me.token, body: { name: unique('g'), path: unique('g'), visibility: 'private' } });
    expect(g.status).toBe(201);
    const inGroup = await api('/projects', { token: me.token, body: { name: unique('p'), namespace_id: g.body.id, visibility: 'private' } });
    const personal = await mkProject(me.token);
    const i1 = await mkIssue(inGroup.body.id, me.token);
    const i2 = await mkIssue(personal.id, me.token);
    const t1 = await todoOf(inGroup.body.id, i1.iid, me.token);
    const t2 = await todoOf(personal.id, i2.iid, me.token);
    const ids = async (q: string) => (await api(`/todos${q}`, { token: me.token })).body.map((t: { id: number }) => t.id);
    expect(await ids('?action=marked&type=Issue')).toEqual([t2.body.id, t1.body.id]);
    expect(await ids('?action=assigned')).toEqual([]);
    expect(await ids('?type=MergeRequest')).toEqual([]);
    expect(await ids(`?project_id=${personal.id}`)).toEqual([t2.body.id]);
    expect(await ids(`?group_id=${g.body.id}`)).toEqual([t1.body.id]);
    expect(await ids(`?author_id=${me.id}`)).toEqual([t2.body.id, t1.body.id]);
    expect(await ids(`?author_id=${dev.id}`)).toEqual([]);
    expect(await ids('?state=done')).toEqual([]);
    const unknownAuthor = await api('/todos?author_id=999999999', { token: me.token });
    expect(unknownAuthor.status).toBe(404);
    expect(unknownAuthor.body).toEqual({ message: '404 Not found' });
    const badType = await api('/todos?type=Nope', { token: me.token });
    expect(badType.status).toBe(400);
    expect(badType.body).toEqual({ error: 'type does not have a valid value' });
    const badState = await api('/todos?state=open', { token: me.token });
    expect(badState.status).toBe(400);
    expect(badState.body).toEqual({ error: 'state does not have a valid value' });
  });

  it('hides to-dos on issues the caller can no longer read', async () => {
    const me = await createUser();
    const p = await mkProject(owner.token);
    const m = await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: me.id, access_level: 30 } });
    expect(m.status).toBe(201);
    const issue = await mkIssue(p.id);
    const t = await todoOf(p.id, issue.iid, me.token);
    expect(t.status).toBe(201);
    expect((await api('/todos', { token: me.token })).body.map((x: { id: number }) => x.id)).toEqual([t.body.id]);
    const removed = await api(`/projects/${p.id}/members/${me.id}`, { token: owner.token, method: 'DELETE' });
    expect(removed.status).toBe(204);
    const after = await api('/todos', { token: me.token });
    expect(after.status).toBe(200);
    expect(after.body).toEqual([]);
    expect(after.headers.get('x-total')).toBe('0');
  });

  it('hides to-dos while the project\'s issues feature is disabled', async () => {
    const me = await createUser();
    const p = await mkProject(me.token);
    const issue = await mkIssue(p.id, me.token);
    const t = await todoOf(p.id, issue.iid, me.token);
    expect(t.status).toBe(201);
    const off = await api(`/projects/${p.id}`, { token: me.token, method: 'PUT', body: { issues_access_level: 'disabled' } });
    expect(off.status).toBe(200);
    expect((await api('/todos', { token: me.token })).body).toEqual([]);
    const on = await api(`/projects/${p.id}`, { token: me.token, method: 'PUT', body: { issues_access_level: 'enabled' } });
    expect(on.status).toBe(200);
    expect((await api('/todos', { token: me.token })).body.map((x: { id: number }) => x.id)).toEqual([t.body.id]);
  });

  it('lists assignment to-dos with their author, and any pending to-do makes marking a 304', async () => {
    const assignee = await createUser();
    const p = await mkProject(owner.token);
    const m = await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: assignee.id, access_level: 30 } });
    expect(m.status).toBe(201);
    const issue = await mkIssue(p.id, owner.token, { assignee_ids: [assignee.id] });
    const list = await api('/todos', { token: assignee.token });
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ action_name: 'assigned', author: { id: owner.id }, target: { id: issue.id }, state: 'pending' });
    const mark = await todoOf(p.id, issue.iid, assignee.token);
    expect(mark.status).toBe(304);
    expect((await api('/todos?action=marked', { token: assignee.token })).body).toEqual([]);
  });

  it('needs sign-in', async () => {
    const res = await api('/todos');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: '401 Unauthorized' });
  });
});

describe('POST /todos/:id/mark_as_done and /todos/mark_as_done', () => {
  it('marks one (201, state done) and only the owner may', async () => {
    const me = await createUser();
    const p = await mkProject(me.token);
    const issue = await mkIssue(p.id, me.token);
    const t = await todoOf(p.id, issue.iid, me.token);
    const foreign = await api(`/todos/${t.body.id}/mark_as_done`, { token: dev.token, method: 'POST' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: '404 Not found' });
    const res = await api(`/todos/${t.body.id}/mark_as_done`, { token: me.token, method: 'POST' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: t.body.id, state: 'done', action_name: 'marked' });
    expect((await api('/todos', { token: me.token })).body).toEqual([]);
    const done = await api('/todos?state=done', { token: me.token });
    expect(done.body.map((x: { id: number; state: string }) => [x.id, x.state])).toEqual([[t.body.id, 'done']]);
  });

  it('marks all pending to-dos (204)', async () => {
    const me = await createUser();
    const p = await mkProject(me.token);
    for (let i = 0; i < 3; i++) {
      const issue = await mkIssue(p.id, me.token);
      expect((await todoOf(p.id, issue.iid, me.token)).status).toBe(201);
    }
    const devBefore = (await api('/todos?per_page=100', { token: dev.token })).body.length;
    const res = await api('/todos/mark_as_done', { token: me.token, method: 'POST' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api('/todos', { token: me.token })).body).toEqual([]);
    expect((await api('/todos?state=done', { token: me.token })).body).toHaveLength(3);
    expect((await api('/todos?per_page=100', { token: dev.token })).body.length).toBe(devBefore);
    const anon = await api('/todos/mark_as_done', { method: 'POST' });
    expect(anon.status).toBe(401);
  });
});
