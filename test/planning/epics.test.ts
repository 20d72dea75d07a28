/** Group epics (GitLab ee/lib/api/epics.rb, epic_issues): create, list, get, update, delete, issues of an epic, issue epic fields. */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let owner: TestUser;
let planner: TestUser;
let guest: TestUser;
let outsider: TestUser;
let group: { id: number; full_path: string };
let sub: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };

async function mkGroup(token: string, body: Record<string, unknown> = {}) {
  const path = unique('g');
  const res = await api('/groups', { token, body: { name: path, path, visibility: 'private', ...body } });
  expect(res.status).toBe(201);
  return res.body;
}

beforeAll(async () => {
  [owner, planner, guest, outsider] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
  group = await mkGroup(owner.token);
  sub = await mkGroup(owner.token, { parent_id: group.id });
  const p = await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: sub.id } });
  project = p.body;
  for (const [u, level] of [[planner, 15], [guest, 10]] as const) {
    expect((await api(`/groups/${group.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
  }
});

const epicUrl = (gid: number, iid?: number, suffix = '') => `/groups/${gid}/epics${iid != null ? `/${iid}` : ''}${suffix}`;

describe('POST /groups/:id/epics', () => {
  it('creates an epic with per-group iids, group labels and fixed dates', async () => {
    const res = await api(epicUrl(group.id), {
      token: planner.token,
      body: { title: 'Roadmap', description: 'big', labels: 'theme,q1', start_date_is_fixed: true, start_date_fixed: '2031-01-01', due_date_is_fixed: true, due_date_fixed: '2031-03-31' },
    });
    expect(res.status).toBe(201);
    const e = res.body;
    expect(Object.keys(e)).toEqual([
      'id', 'iid', 'color', 'text_color', 'group_id', 'parent_id', 'parent_iid', 'title', 'description', 'confidential', 'author', 'start_date',
      'start_date_is_fixed', 'start_date_fixed', 'start_date_from_inherited_source', 'start_date_from_milestones', 'end_date', 'due_date',
      'due_date_is_fixed', 'due_date_fixed', 'due_date_from_inherited_source', 'due_date_from_milestones', 'state', 'web_edit_url', 'web_url',
      'references', 'created_at', 'updated_at', 'closed_at', 'labels', 'upvotes', 'downvotes', 'subscribed', '_links',
    ]);
    expect(e).toMatchObject({
      iid: 1,
      color: '#1068bf',
      text_color: '#FFFFFF',
      group_id: group.id,
      parent_id: null,
      parent_iid: null,
      title: 'Roadmap',
      description: 'big',
      confidential: false,
      author: { id: planner.id },
      start_date: '2031-01-01',
      start_date_is_fixed: true,
      due_date: '2031-03-31',
      end_date: '2031-03-31',
      state: 'opened',
      labels: ['q1', 'theme'],
      upvotes: 0,
      downvotes: 0,
      subscribed: true,
      references: { short: '&1', relative: '&1', full: `${group.full_path}&1` },
      web_edit_url: `/groups/${group.full_path}/-/epics/1`,
    });
    expect(e.web_url).toMatch(new RegExp(`/groups/${group.full_path}/-/epics/1$`));
    expect(e._links).toMatchObject({ parent: null });
    expect(e._links.self).toMatch(new RegExp(`/api/v4/groups/${group.id}/epics/1$`));
    const second = await api(epicUrl(group.id), { token: planner.token, body: { title: 'Second', parent_id: e.id } });
    expect(second.body).toMatchObject({ iid: 2, parent_id: e.id, parent_iid: 1 });
    const inSub = await api(epicUrl(sub.id), { token: owner.token, body: { title: 'Sub epic' } });
    expect(inSub.body.iid).toBe(1);
    // The labels are group labels now.
    const labels = await api(`/groups/${group.id}/labels`, { token: owner.token });
    expect(labels.body.map((l: { name: string }) => l.name)).toEqual(expect.arrayContaining(['q1', 'theme']));
  });

  it('refuses guests (403), outsiders (404) and anonymous callers (401); validates', async () => {
    expect((await api(epicUrl(group.id), { token: guest.token, body: { title: 'x' } })).status).toBe(403);
    const out = await api(epicUrl(group.id), { token: outsider.token, body: { title: 'x' } });
    expect(out.status).toBe(404);
    expect(out.body).toEqual({ message: '404 Group Not Found' });
    expect((await api(epicUrl(group.id), { body: { title: 'x' } })).status).toBe(401);
    const missing = await api(epicUrl(group.id), { token: owner.token, body: {} });
    expect(missing.body).toEqual({ error: 'title is missing' });
    const color = await api(epicUrl(group.id), { token: owner.token, body: { title: 'c', color: 'blue-ish' } });
    expect(color.status).toBe(400);
    expect(color.body).toEqual({ message: { color: ['must be a valid color code'] } });
  });
});

describe('GET /groups/:id/epics', () => {
  it('lists newest first with descendants, filters, and hides confidential epics from guests', async () => {
    const conf = await api(epicUrl(group.id), { token: owner.token, body: { title: 'Secret epic', confidential: true } });
    expect(conf.status).toBe(201);
    const all = await api(epicUrl(group.id), { token: owner.token });
    expect(all.status).toBe(200);
    expect(all.headers.get('x-total')).toBe(String(all.body.length));
    const titles = all.body.map((e: { title: string }) => e.title);
    expect(titles).toEqual(expect.arrayContaining(['Roadmap', 'Second', 'Sub epic', 'Secret epic']));
    expect(titles[0]).toBe('Secret epic');
    const guestList = await api(epicUrl(group.id), { token: guest.token });
    expect(guestList.body.map((e: { title: string }) => e.title)).not.toContain('Secret epic');
    expect(guestList.headers.get('x-total')).toBe(String(all.body.length - 1));
    const own = await api(epicUrl(group.id, undefined, '?include_descendant_groups=false&labels=theme'), { token: owner.token });
    expect(own.body.map((e: { title: string }) => e.title)).toEqual(['Roadmap']);
    const search = await api(epicUrl(group.id, undefined, '?search=econ&order_by=title&sort=asc'), { token: owner.token });
    expect(search.body.map((e: { title: string }) => e.title)).toEqual(['Second']);
    expect((await api(epicUrl(group.id, undefined, '?state=bogus'), { token: owner.token })).body).toEqual({ error: 'state does not have a valid value' });
    expect((await api(epicUrl(group.id), { token: outsider.token })).status).toBe(404);
    const hidden = await api(epicUrl(group.id, conf.body.iid), { token: guest.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Epic Not Found' });
  });
});

describe('PUT and DELETE /groups/:id/epics/:epic_iid', () => {
  it('updates title, labels and state; the author may edit, guests may not; owners delete', async () => {
    const e = (await api(epicUrl(group.id), { token: planner.token, body: { title: 'To edit', labels: 'a' } })).body;
    const res = await api(epicUrl(group.id, e.iid), { method: 'PUT', token: planner.token, body: { title: 'Edited', add_labels: 'b', remove_labels: 'a', state_event: 'close' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'Edited', labels: ['b'], state: 'closed' });
    expect(res.body.closed_at).toEqual(expect.any(String));
    expect((await api(epicUrl(group.id, e.iid), { method: 'PUT', token: guest.token, body: { title: 'no' } })).status).toBe(403);
    expect((await api(epicUrl(group.id, e.iid), { method: 'PUT', token: planner.token, body: {} })).status).toBe(400);
    expect((await api(epicUrl(group.id, e.iid), { method: 'DELETE', token: planner.token })).status).toBe(403);
    expect((await api(epicUrl(group.id, e.iid), { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await api(epicUrl(group.id, e.iid), { token: owner.token })).status).toBe(404);
  });
});

describe('issues and epics', () => {
  it('sets an issue epic by id or iid, shows it in the issue and in the epic issues list, and unsets it', async () => {
    const e = (await api(epicUrl(group.id), { token: owner.token, body: { title: 'Container' } })).body;
    const issue = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'In epic', epic_iid: e.iid } });
    expect(issue.status).toBe(404); // epic_iid names an epic of the project's own group (the subgroup)
    const byId = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'In epic', epic_id: e.id } });
    expect(byId.status).toBe(201);
    expect(byId.body).toMatchObject({ epic_iid: e.iid, epic: { id: e.id, iid: e.iid, title: 'Container', group_id: group.id } });
    expect(byId.body.epic.url).toMatch(new RegExp(`/groups/${group.full_path}/-/epics/${e.iid}$`));
    const list = await api(epicUrl(group.id, e.iid, '/issues'), { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.map((i: { id: number }) => i.id)).toEqual([byId.body.id]);
    expect(list.body[0].references.relative).toBe(`${project.path_with_namespace}#${byId.body.iid}`);
    const unset = await api(`/projects/${project.id}/issues/${byId.body.iid}`, { method: 'PUT', token: owner.token, body: { epic_id: 0 } });
    expect(unset.body).toMatchObject({ epic_iid: null, epic: null });
    expect((await api(epicUrl(group.id, e.iid, '/issues'), { token: owner.token })).body).toEqual([]);
    expect((await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'x', epic_id: 999999 } })).body).toEqual({ message: '404 Epic Not Found' });
  });

  it('administrators read everything', async () => {
    expect((await api(epicUrl(group.id), { token: rootToken })).status).toBe(200);
  });
});
