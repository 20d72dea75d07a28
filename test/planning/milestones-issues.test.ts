/**
 * Milestones and labels seen through issues: GET …/milestones/:milestone_id/issues (IssueBasic,
 * label priority order, confidential issues hidden), label counts over visible issues, labels
 * created by issue creation, and milestone deletion unsetting issues.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let guest: TestUser;
let group: { id: number };
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  [owner, guest] = await Promise.all([createUser(), createUser()]);
  const path = unique('g');
  group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'public' } })).body;
  project = (await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.id, visibility: 'public' } })).body;
  expect((await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: guest.id, access_level: 10 } })).status).toBe(201);
});

const issue = async (body: Record<string, unknown>) => {
  const res = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: unique('i'), ...body } });
  expect(res.status).toBe(201);
  return res.body;
};

describe('GET /projects/:id/milestones/:milestone_id/issues', () => {
  it('lists the milestone issues as IssueBasic in label priority order and hides confidential issues from guests', async () => {
    const m = (await api(`/projects/${project.id}/milestones`, { token: owner.token, body: { title: unique('m') } })).body;
    const hi = (await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name: unique('hi'), color: '#000000', priority: 1 } })).body;
    const lo = (await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name: unique('lo'), color: '#000000', priority: 5 } })).body;
    const plain = await issue({ milestone_id: m.id });
    const low = await issue({ milestone_id: m.id, labels: lo.name });
    const high = await issue({ milestone_id: m.id, labels: `${lo.name},${hi.name}` });
    const secret = await issue({ milestone_id: m.id, confidential: true });
    await issue({});

    const res = await api(`/projects/${project.id}/milestones/${m.id}/issues`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.map((i: any) => i.iid)).toEqual([high.iid, low.iid, secret.iid, plain.iid]);
    expect(res.headers.get('x-total')).toBe('4');
    const first = res.body[0];
    expect(first.milestone).toMatchObject({ id: m.id, iid: m.iid, project_id: project.id, title: m.title });
    expect(first).not.toHaveProperty('_links');
    expect(first).not.toHaveProperty('subscribed');
    expect(first).toHaveProperty('time_stats');
    expect(first).toHaveProperty('web_url');

    const asGuest = await api(`/projects/${project.id}/milestones/${m.id}/issues`, { token: guest.token });
    expect(asGuest.body.map((i: any) => i.iid)).toEqual([high.iid, low.iid, plain.iid]);
    expect(asGuest.headers.get('x-total')).toBe('3');
    const stranger = await createUser();
    const asStranger = await api(`/projects/${project.id}/milestones/${m.id}/issues`, { token: stranger.token });
    expect(asStranger.body.map((i: any) => i.iid)).not.toContain(secret.iid);
    expect((await api(`/projects/${project.id}/milestones/0/issues`, { token: owner.token })).status).toBe(404);
  });

  it('group milestones list issues of the group projects', async () => {
    const gm = (await api(`/groups/${group.id}/milestones`, { token: owner.token, body: { title: unique('gm') } })).body;
    const i = await issue({ milestone_id: gm.id });
    const res = await api(`/groups/${group.id}/milestones/${gm.id}/issues`, { token: guest.token });
    expect(res.status).toBe(200);
    expect(res.body.map((x: any) => x.id)).toEqual([i.id]);
    expect(res.body[0].milestone).toMatchObject({ id: gm.id, group_id: group.id });
  });

  it('a milestone issue page costs 2 round trips whatever its size; another parent\'s milestone is a 404', async () => {
    const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));
    const pm = (await api(`/projects/${project.id}/milestones`, { token: owner.token, body: { title: unique('rt') } })).body;
    const gm = (await api(`/groups/${group.id}/milestones`, { token: owner.token, body: { title: unique('grt') } })).body;
    const l = (await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name: unique('rl'), color: '#000000', priority: 1 } })).body;
    for (const m of [pm, gm]) for (let k = 0; k < 3; k++) await issue({ milestone_id: m.id, labels: l.name, assignee_ids: [owner.id] });
    await api('/user', { token: owner.token }); // the caller is cached from here on
    for (const path of [`/projects/${project.id}/milestones/${pm.id}/issues`, `/groups/${group.id}/milestones/${gm.id}/issues`]) {
      const one = await api(`${path}?per_page=1`, { token: owner.token });
      const all = await api(`${path}?per_page=100`, { token: owner.token });
      expect([one.body.length, all.body.length]).toEqual([1, 3]);
      expect(one.headers.get('x-total')).toBe('3');
      expect(all.body[0]).toMatchObject({ labels: [l.name], assignees: [{ id: owner.id }] });
      expect(trips(one)).toBe(trips(all));
      expect(trips(all)).toBeLessThanOrEqual(2);
    }
    const other = (await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.id } })).body;
    expect((await api(`/projects/${other.id}/milestones/${pm.id}/issues`, { token: owner.token })).status).toBe(404);
    const promoted = await api(`/projects/${project.id}/milestones/${pm.id}/promote`, { method: 'POST', token: owner.token });
    expect(promoted.status).toBe(200);
    expect(trips(promoted)).toBeLessThanOrEqual(3);
  });

  it('deleting the milestone leaves its issues without one', async () => {
    const m = (await api(`/projects/${project.id}/milestones`, { token: owner.token, body: { title: unique('gone') } })).body;
    const i = await issue({ milestone_id: m.id });
    expect((await api(`/projects/${project.id}/milestones/${m.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    const back = await api(`/projects/${project.id}/issues/${i.iid}`, { token: owner.token });
    expect(back.body.milestone).toBeNull();
  });
});

describe('label counts and issue labels', () => {
  it('counts open and closed issues carrying the label, confidential ones only for those who may see them', async () => {
    const l = (await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name: unique('cnt'), color: '#000000' } })).body;
    await issue({ labels: l.name });
    await issue({ labels: l.name, confidential: true });
    const closed = await issue({ labels: l.name });
    expect((await api(`/projects/${project.id}/issues/${closed.iid}`, { method: 'PUT', token: owner.token, body: { state_event: 'close' } })).status).toBe(200);
    const ownerView = await api(`/projects/${project.id}/labels?with_counts=true&search=${l.name}`, { token: owner.token });
    expect(ownerView.body[0]).toMatchObject({ id: l.id, open_issues_count: 2, closed_issues_count: 1, open_merge_requests_count: 0 });
    const stranger = await createUser();
    const strangerView = await api(`/projects/${project.id}/labels?with_counts=true&search=${l.name}`, { token: stranger.token });
    expect(strangerView.body[0]).toMatchObject({ open_issues_count: 1, closed_issues_count: 1 });
  });

  it('issue creation makes missing labels as project labels with the default colour', async () => {
    const name = unique('auto');
    const i = await issue({ labels: name });
    expect(i.labels).toEqual([name]);
    const l = await api(`/projects/${project.id}/labels/${name}`, { token: owner.token });
    expect(l.status).toBe(200);
    expect(l.body).toMatchObject({ name, color: '#6699cc', is_project_label: true });
  });
});
