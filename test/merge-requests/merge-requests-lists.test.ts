/** The three merge request lists: filters, order, pagination, view=simple and scopes. */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let dev: TestUser;
let other: TestUser;
let group: { id: number; full_path: string };
let project: { id: number };
let project2: { id: number };
const mrs: Record<string, { id: number; iid: number; project_id: number }> = {};
let milestone: { id: number; title: string };
const label = unique('lab');

async function setupProject(pid: number, branches: string[]) {
  const c = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'README', content: 'r' }] } });
  expect(c.status).toBe(201);
  for (const b of branches) {
    expect((await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: b, ref: 'main' } })).status).toBe(201);
    const cc = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch: b, commit_message: b, actions: [{ action: 'create', file_path: `${b}.txt`, content: b }] } });
    expect(cc.status).toBe(201);
  }
}
async function create(key: string, pid: number, body: Record<string, unknown>, token = owner.token) {
  const res = await api(`/projects/${pid}/merge_requests`, { token, body: { target_branch: 'main', ...body } });
  expect(res.status).toBe(201);
  mrs[key] = res.body;
}
const iids = (body: { iid: number }[]) => body.map((m) => m.iid);
const list = async (q: string, token = owner.token) => {
  const res = await api(`/projects/${project.id}/merge_requests${q}`, { token });
  expect(res.status).toBe(200);
  return res;
};

beforeAll(async () => {
  [owner, dev, other] = await Promise.all([createUser(), createUser(), createUser()]);
  const path = unique('mrlg');
  const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } });
  expect(g.status).toBe(201);
  group = g.body;
  const m = await api(`/groups/${group.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } });
  expect(m.status).toBe(201);
  const p = await api('/projects', { token: owner.token, body: { path: 'one', namespace_id: group.id } });
  const p2 = await api('/projects', { token: owner.token, body: { path: 'two', namespace_id: group.id } });
  expect(p.status).toBe(201);
  expect(p2.status).toBe(201);
  project = p.body;
  project2 = p2.body;
  await setupProject(project.id, ['a', 'b', 'c', 'd']);
  await setupProject(project2.id, ['x']);
  const ms = await api(`/projects/${project.id}/milestones`, { token: owner.token, body: { title: unique('ms') } });
  expect(ms.status).toBe(201);
  milestone = ms.body;
  await create('a', project.id, { source_branch: 'a', title: 'Alpha fixes the parser', labels: label, milestone_id: milestone.id, assignee_id: dev.id });
  await create('b', project.id, { source_branch: 'b', title: 'Draft: beta work', description: 'touches the lexer', reviewer_ids: [dev.id] }, dev.token);
  await create('c', project.id, { source_branch: 'c', title: 'Gamma' });
  await create('d', project.id, { source_branch: 'd', title: 'Delta' });
  await create('x', project2.id, { source_branch: 'x', title: 'Other project' }, dev.token);
  expect((await api(`/projects/${project.id}/merge_requests/${mrs.c.iid}`, { method: 'PUT', token: owner.token, body: { state_event: 'close' } })).status).toBe(200);
  expect((await api(`/projects/${project.id}/merge_requests/${mrs.d.iid}/merge`, { method: 'PUT', token: owner.token })).status).toBe(200);
});

describe('GET /projects/:id/merge_requests', () => {
  it('defaults to every state, newest first, with pagination headers and Link', async () => {
    const res = await list('');
    expect(iids(res.body)).toEqual([mrs.d.iid, mrs.c.iid, mrs.b.iid, mrs.a.iid]);
    expect(res.headers.get('x-total')).toBe('4');
    const page = await list('?per_page=3&page=2');
    expect(iids(page.body)).toEqual([mrs.a.iid]);
    expect(page.headers.get('x-total-pages')).toBe('2');
    expect(page.headers.get('x-prev-page')).toBe('1');
    expect(page.headers.get('link')).toContain('rel="first"');
    expect(page.headers.get('link')).toContain('state=all');
  });

  it('filters by state', async () => {
    expect(iids((await list('?state=opened')).body)).toEqual([mrs.b.iid, mrs.a.iid]);
    expect(iids((await list('?state=closed')).body)).toEqual([mrs.c.iid]);
    expect(iids((await list('?state=merged')).body)).toEqual([mrs.d.iid]);
  });

  it('orders by title and updated_at, ascending or descending', async () => {
    expect(iids((await list('?order_by=title&sort=asc')).body)).toEqual([mrs.a.iid, mrs.d.iid, mrs.b.iid, mrs.c.iid]);
    const upd = await list('?order_by=updated_at&sort=desc');
    expect(iids(upd.body)[0]).toBe(mrs.d.iid);
    expect(iids((await list('?sort=asc')).body)).toEqual([mrs.a.iid, mrs.b.iid, mrs.c.iid, mrs.d.iid]);
  });

  it('filters by labels, milestone, author, assignee and reviewer (ids, usernames, None/Any)', async () => {
    expect(iids((await list(`?labels=${label}`)).body)).toEqual([mrs.a.iid]);
    expect(iids((await list('?labels=None&state=opened')).body)).toEqual([mrs.b.iid]);
    expect(iids((await list(`?milestone=${encodeURIComponent(milestone.title)}`)).body)).toEqual([mrs.a.iid]);
    expect(iids((await list('?milestone=None&state=opened')).body)).toEqual([mrs.b.iid]);
    expect(iids((await list(`?author_id=${dev.id}`)).body)).toEqual([mrs.b.iid]);
    expect(iids((await list(`?author_username=${dev.username}`)).body)).toEqual([mrs.b.iid]);
    expect(iids((await list(`?assignee_id=${dev.id}`)).body)).toEqual([mrs.a.iid]);
    expect(iids((await list('?assignee_id=None&state=opened')).body)).toEqual([mrs.b.iid]);
    expect(iids((await list(`?reviewer_id=${dev.id}`)).body)).toEqual([mrs.b.iid]);
    expect(iids((await list(`?reviewer_username=${dev.username}`)).body)).toEqual([mrs.b.iid]);
    expect(iids((await list('?reviewer_id=Any')).body)).toEqual([mrs.b.iid]);
    expect((await list('?author_username=no-such-user')).body).toEqual([]);
  });

  it('filters by branches, search, draft/wip, iids, dates and not[...]', async () => {
    expect(iids((await list('?source_branch=a')).body)).toEqual([mrs.a.iid]);
    expect(iids((await list('?target_branch=main&state=opened')).body)).toEqual([mrs.b.iid, mrs.a.iid]);
    expect(iids((await list('?search=parser')).body)).toEqual([mrs.a.iid]);
    expect(iids((await list('?search=LEXER')).body)).toEqual([mrs.b.iid]);
    expect((await list('?search=lexer&in=title')).body).toEqual([]);
    expect(iids((await list('?draft=true')).body)).toEqual([mrs.b.iid]);
    expect(iids((await list('?wip=no&state=opened')).body)).toEqual([mrs.a.iid]);
    expect(iids((await list(`?iids[]=${mrs.a.iid}&iids[]=${mrs.c.iid}`)).body)).toEqual([mrs.c.iid, mrs.a.iid]);
    expect((await list('?created_after=2999-01-01T00:00:00Z')).body).toEqual([]);
    expect((await list('?created_before=2000-01-01T00:00:00Z')).body).toEqual([]);
    expect(iids((await list(`?not[labels]=${label}&state=opened`)).body)).toEqual([mrs.b.iid]);
    expect(iids((await list(`?not[author_id]=${owner.id}`)).body)).toEqual([mrs.b.iid]);
    expect(iids((await list(`?merge_user_id=${owner.id}`)).body)).toEqual([mrs.d.iid]);
    const bad = await api(`/projects/${project.id}/merge_requests?wip=yes&draft=true`, { token: owner.token });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'draft, wip are mutually exclusive' });
  });

  it('view=simple returns the short entity', async () => {
    const res = await list(`?view=simple&iids[]=${mrs.a.iid}`);
    expect(Object.keys(res.body[0])).toEqual(['id', 'iid', 'project_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'web_url']);
  });

  it('with_labels_details gives label objects', async () => {
    const res = await list(`?with_labels_details=true&iids[]=${mrs.a.iid}`);
    expect(res.body[0].labels[0]).toMatchObject({ name: label });
  });
});

describe('GET /groups/:id/merge_requests and /merge_requests', () => {
  it('group list spans its projects', async () => {
    const res = await api(`/groups/${group.id}/merge_requests?state=opened`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.map((m: { id: number }) => m.id)).toEqual([mrs.x.id, mrs.b.id, mrs.a.id]);
    expect(res.body[0].references.relative).toBe(`two!${mrs.x.iid}`);
    expect((await api(`/groups/${group.id}/merge_requests`, { token: other.token })).status).toBe(404);
  });

  it('/merge_requests defaults to created_by_me; assigned_to_me and reviews_for_me', async () => {
    const mine = await api('/merge_requests?state=all', { token: dev.token });
    expect(mine.body.map((m: { id: number }) => m.id)).toEqual([mrs.x.id, mrs.b.id]);
    const assigned = await api('/merge_requests?scope=assigned_to_me', { token: dev.token });
    expect(assigned.body.map((m: { id: number }) => m.id)).toEqual([mrs.a.id]);
    const reviews = await api('/merge_requests?scope=reviews_for_me', { token: dev.token });
    expect(reviews.body.map((m: { id: number }) => m.id)).toEqual([mrs.b.id]);
    const dashed = await api('/merge_requests?scope=assigned-to-me', { token: dev.token });
    expect(dashed.body.map((m: { id: number }) => m.id)).toEqual([mrs.a.id]);
    const outsider = await api('/merge_requests?scope=all', { token: other.token });
    expect(outsider.body.map((m: { id: number }) => m.id)).not.toContain(mrs.a.id);
  });
});

describe('long inputs', () => {
  it('200 label names and a 300-word search answer 200, not 500 (D1 parameter limits)', async () => {
    const labels = Array.from({ length: 200 }, (_, i) => `l${i}`).join(',');
    const res = await api(`/projects/${project.id}/merge_requests?labels=${labels}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    const not = await api(`/projects/${project.id}/merge_requests?not[labels]=${labels}&state=opened`, { token: owner.token });
    expect(not.status).toBe(200);
    expect(iids(not.body)).toEqual([mrs.b.iid, mrs.a.iid]);
    const words = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
    const search = await api(`/projects/${project.id}/merge_requests?search=${encodeURIComponent(words)}`, { token: owner.token });
    expect(search.status).toBe(200);
    const many = await api(`/projects/${project.id}/merge_requests?iids=${Array.from({ length: 500 }, (_, i) => i + 1).join(',')}`, { token: owner.token });
    expect(many.status).toBe(200);
    expect(many.body).toHaveLength(4);
  });
});

describe('priority orders', () => {
  it('label_priority and milestone_due put requests without them last', async () => {
    const lab = await api(`/projects/${project.id}/labels`, { method: 'PUT', token: owner.token, body: { name: label, priority: 3 } });
    expect(lab.status).toBe(200);
    expect(iids((await list('?order_by=label_priority&state=opened')).body)).toEqual([mrs.a.iid, mrs.b.iid]);
    expect(iids((await list('?order_by=label_priority&sort=asc&state=opened')).body)).toEqual([mrs.a.iid, mrs.b.iid]);
    expect(iids((await list('?order_by=milestone_due&state=opened')).body)).toEqual([mrs.a.iid, mrs.b.iid]);
    expect(iids((await list('?order_by=priority&state=opened')).body)).toEqual([mrs.a.iid, mrs.b.iid]);
  });
});
