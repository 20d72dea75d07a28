/** Bounded list parameters (100 items unless declared otherwise) and search terms (4,096 characters). */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;
let pid: number;

beforeAll(async () => {
  owner = await createUser();
  pid = (await api('/projects', { token: owner.token, body: { name: unique('lim') } })).body.id;
});

const labels = (n: number) => Array.from({ length: n }, (_, i) => `L${i}`).join(',');

describe('label lists on issue writes', () => {
  it('refuses 3,000 labels on create with the limit validator wording and creates neither issue nor labels', async () => {
    const title = unique('i');
    const res = await api(`/projects/${pid}/issues`, { token: owner.token, body: { title, labels: labels(3000) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'labels must contain at most 100 items' });
    expect((await api(`/projects/${pid}/issues?search=${title}`, { token: owner.token })).body).toEqual([]);
    expect((await api(`/projects/${pid}/labels?search=L2999`, { token: owner.token })).body).toEqual([]);
  });

  it('takes 100 labels', async () => {
    const res = await api(`/projects/${pid}/issues`, { token: owner.token, body: { title: unique('i'), labels: labels(100) } });
    expect(res.status).toBe(201);
    expect(res.body.labels).toHaveLength(100);
  });

  it('counts repeated add_labels[] values too', async () => {
    const issue = (await api(`/projects/${pid}/issues`, { token: owner.token, body: { title: unique('i') } })).body;
    const form = { add_labels: Array.from({ length: 101 }, (_, i) => `A${i}`) };
    const res = await api(`/projects/${pid}/issues/${issue.iid}`, { method: 'PUT', token: owner.token, form: { 'add_labels[]': form.add_labels } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'add_labels must contain at most 100 items' });
    expect((await api(`/projects/${pid}/issues/${issue.iid}`, { token: owner.token })).body.labels).toEqual([]);
  });

  it('bounds assignee_ids at 1,000 items (the model allows 200 assignees: assignee-count-limits.test.ts)', async () => {
    const res = await api(`/projects/${pid}/issues`, { token: owner.token, body: { title: unique('i'), assignee_ids: Array.from({ length: 1001 }, (_, i) => i + 1) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'assignee_ids must contain at most 1000 items' });
  });
});

describe('search terms', () => {
  const long = 's'.repeat(4097);
  it.each([
    ['/projects/:id/issues', () => `/projects/${pid}/issues`],
    ['/projects/:id/merge_requests', () => `/projects/${pid}/merge_requests`],
    ['/projects/:id/labels', () => `/projects/${pid}/labels`],
    ['/projects', () => '/projects'],
    ['/users', () => '/users'],
  ])('%s answers 400 for a search over 4,096 characters', async (_name, path) => {
    const res = await api(`${path()}?search=${long}`, { token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'search must be less than 4096 characters' });
  });

  it('still searches with 4,096 characters', async () => {
    const res = await api(`/projects/${pid}/issues?search=${'s'.repeat(4096)}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });
});
