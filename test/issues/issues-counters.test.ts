/** Counters fed by issues: /user_counts, the Project entity's open_issues_count, and cleanup on project deletion. */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let owner: TestUser;
let dev: TestUser;
let project: { id: number };

beforeAll(async () => {
  [owner, dev] = await Promise.all([createUser(), createUser()]);
  const res = await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'private' } });
  project = res.body;
  expect((await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } })).status).toBe(201);
});

const create = (body: Record<string, unknown>, token = owner.token) => api(`/projects/${project.id}/issues`, { token, body: { title: unique('i'), ...body } });

describe('GET /user_counts with issues and to-dos', () => {
  it('counts open assigned issues and pending to-dos', async () => {
    const a = await create({ assignee_ids: [dev.id] });
    await create({ assignee_ids: [dev.id] });
    await create({});
    let counts = await api('/user_counts', { token: dev.token });
    expect(counts.body).toMatchObject({ assigned_issues: 2, todos: 2 });
    await api(`/projects/${project.id}/issues/${a.body.iid}`, { method: 'PUT', token: owner.token, body: { state_event: 'close' } });
    counts = await api('/user_counts', { token: dev.token });
    expect(counts.body).toMatchObject({ assigned_issues: 1, todos: 2 });
    // Self-assignment makes no to-do.
    await create({ assignee_ids: [owner.id] });
    expect((await api('/user_counts', { token: owner.token })).body).toMatchObject({ assigned_issues: 1, todos: 0 });
  });
});

describe('open_issues_count and project deletion', () => {
  it('counts open issues (confidential ones only for reporters and above), and deleting the project removes its issues', async () => {
    const res = await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'private' } });
    const p = res.body;
    const guest = await createUser();
    expect((await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: guest.id, access_level: 10 } })).status).toBe(201);
    const mk = (body: Record<string, unknown>) => api(`/projects/${p.id}/issues`, { token: owner.token, body: { title: unique('i'), ...body } });
    const first = await mk({ labels: 'gone' });
    await mk({});
    await mk({ confidential: true });
    const closed = await mk({});
    await api(`/projects/${p.id}/issues/${closed.body.iid}`, { method: 'PUT', token: owner.token, body: { state_event: 'close' } });
    // Projects::OpenIssuesCountService: members with reporter access or more count confidential issues too;
    // a guest, and an administrator who is not a member, count only the public ones.
    expect((await api(`/projects/${p.id}`, { token: owner.token })).body.open_issues_count).toBe(3);
    expect((await api(`/projects/${p.id}`, { token: guest.token })).body.open_issues_count).toBe(2);
    expect((await api(`/projects/${p.id}`, { token: rootToken })).body.open_issues_count).toBe(2);
    const listed = await api(`/projects?membership=true&search=${encodeURIComponent(p.name)}`, { token: owner.token });
    expect(listed.body.map((x: { id: number; open_issues_count: number }) => [x.id, x.open_issues_count])).toEqual([[p.id, 3]]);
    const listedByGuest = await api(`/projects?membership=true&search=${encodeURIComponent(p.name)}`, { token: guest.token });
    expect(listedByGuest.body.map((x: { open_issues_count: number }) => x.open_issues_count)).toEqual([2]);
    expect((await api(`/issues/${first.body.id}`, { token: rootToken })).status).toBe(200);
    expect((await api(`/projects/${p.id}`, { method: 'DELETE', token: owner.token })).status).toBe(202);
    expect((await api(`/issues/${first.body.id}`, { token: rootToken })).status).toBe(404);
  });
});
