/**
 * The three issue lists (GET /issues, /groups/:id/issues, /projects/:id/issues): default scopes,
 * authentication of /issues, ordering, pagination headers and Link URLs, parameter validation
 * with Grape's messages, and the list entity. State is created through the API.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

async function newGroup(token: string, visibility = 'public', parentId?: number) {
  const path = unique('g');
  const res = await api('/groups', { token, body: { name: path, path, visibility, ...(parentId ? { parent_id: parentId } : {}) } });
  expect(res.status).toBe(201);
  return res.body as { id: number; full_path: string; path: string };
}

async function newProject(token: string, body: Record<string, unknown> = {}) {
  const name = unique('p');
  const res = await api('/projects', { token, body: { name, visibility: 'public', ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: number; path: string; path_with_namespace: string };
}

async function newIssue(projectId: number, token: string, body: Record<string, unknown> = {}) {
  const res = await api(`/projects/${projectId}/issues`, { token, body: { title: unique('issue'), ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number; iid: number; project_id: number; title: string };
}

const iids = (body: { iid: number }[]) => body.map((i) => i.iid);
const ids = (body: { id: number }[]) => body.map((i) => i.id);

let owner: TestUser;
let other: TestUser;
let group: { id: number; full_path: string; path: string };
let project: { id: number; path: string; path_with_namespace: string };
let created: { id: number; iid: number }[];

beforeAll(async () => {
  owner = await createUser();
  other = await createUser();
  group = await newGroup(owner.token);
  project = await newProject(owner.token, { namespace_id: group.id });
  created = [];
  for (let i = 0; i < 5; i++) {
    created.push(await newIssue(project.id, owner.token, { created_at: new Date(Date.UTC(2024, 0, 1 + i)).toISOString() }));
  }
  // One issue by another user, in the same project.
  created.push(await newIssue(project.id, other.token, { created_at: new Date(Date.UTC(2024, 0, 10)).toISOString() }));
});

describe('GET /projects/:id/issues', () => {
  it('lists every issue of the project, newest first, with GitLab pagination headers', async () => {
    const res = await api(`/projects/${project.id}/issues`);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(ids([...created].reverse()));
    expect(res.headers.get('x-total')).toBe('6');
    expect(res.headers.get('x-total-pages')).toBe('1');
    expect(res.headers.get('x-page')).toBe('1');
    expect(res.headers.get('x-per-page')).toBe('20');
    expect(res.headers.get('x-next-page')).toBe('');
    expect(res.headers.get('x-prev-page')).toBe('');
  });

  it('presents the Issue entity without `subscribed` and with references relative to the project', async () => {
    const res = await api(`/projects/${project.id}/issues?per_page=1`);
    const issue = res.body[0];
    expect(issue.id).toBe(created[5].id);
    expect(issue.project_id).toBe(project.id);
    expect(issue.state).toBe('opened');
    expect(issue.author.username).toBe(other.username);
    expect(issue).not.toHaveProperty('subscribed');
    expect(issue.references).toEqual({ short: `#${issue.iid}`, relative: `#${issue.iid}`, full: `${project.path_with_namespace}#${issue.iid}` });
    // created_at is honoured for project owners only (set_issue_created_at); `other` is not one.
    expect(issue.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const second = await api(`/projects/${project.id}/issues?per_page=1&page=2`);
    expect(second.body[0].id).toBe(created[4].id);
    expect(second.body[0].created_at).toBe('2024-01-05T00:00:00.000Z');
  });

  it('builds Link URLs from every request parameter with the declared defaults, sorted', async () => {
    const res = await api(`/projects/${project.id}/issues?per_page=2&page=2&labels=`);
    expect(iids(res.body)).toEqual(iids([created[3], created[2]]));
    const link = res.headers.get('link')!;
    const q = (page: number) =>
      `id=${project.id}&labels=&order_by=created_at&page=${page}&per_page=2&sort=desc&state=all&with_labels_details=false`;
    const base = `/api/v4/projects/${project.id}/issues?`;
    expect(link).toContain(`${base}${q(1)}>; rel="prev"`);
    expect(link).toContain(`${base}${q(3)}>; rel="next"`);
    expect(link).toContain(`${base}${q(1)}>; rel="first"`);
    expect(link).toContain(`${base}${q(3)}>; rel="last"`);
    expect(link.indexOf('rel="prev"')).toBeLessThan(link.indexOf('rel="next"'));
    expect(res.headers.get('x-total-pages')).toBe('3');
  });

  it('orders by created_at ascending, and beyond the last page answers [] without prev/next', async () => {
    const asc = await api(`/projects/${project.id}/issues?sort=asc`);
    expect(ids(asc.body)).toEqual(ids(created));
    const beyond = await api(`/projects/${project.id}/issues?page=9`);
    expect(beyond.body).toEqual([]);
    expect(beyond.headers.get('x-total')).toBe('6');
    expect(beyond.headers.get('link')).not.toContain('rel="prev"');
    expect(beyond.headers.get('link')).toContain('rel="last"');
  });

  it('accepts the scope values of issues_params on project lists', async () => {
    const mine = await api(`/projects/${project.id}/issues?scope=created-by-me`, { token: other.token });
    expect(ids(mine.body)).toEqual([created[5].id]);
    const anonymousMine = await api(`/projects/${project.id}/issues?scope=created_by_me`);
    expect(anonymousMine.status).toBe(200);
    expect(anonymousMine.body).toEqual([]);
    expect(anonymousMine.headers.get('x-total')).toBe('0');
  });

  it('404 for a missing project', async () => {
    const res = await api('/projects/999999999/issues');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Project Not Found' });
  });
});

describe('GET /issues', () => {
  it('401 for anonymous callers unless scope=all', async () => {
    const res = await api('/issues');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: '401 Unauthorized' });
    expect((await api('/issues?scope=created_by_me')).status).toBe(401);
    const all = await api('/issues?scope=all');
    expect(all.status).toBe(200);
  });

  it('defaults to created_by_me and carries scope and non_archived in Link URLs', async () => {
    const res = await api('/issues', { token: other.token });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([created[5].id]);
    const link = res.headers.get('link')!;
    expect(link).toContain('/api/v4/issues?non_archived=true&order_by=created_at&page=1&per_page=20&scope=created_by_me&sort=desc&state=all&with_labels_details=false>; rel="first"');
    // references.relative is the short form on /issues (no group or project context).
    expect(res.body[0].references.relative).toBe(`#${res.body[0].iid}`);
  });

  it('assigned_to_me lists the issues assigned to the caller', async () => {
    const assigned = await newIssue(project.id, owner.token, { assignee_ids: [other.id] });
    const res = await api('/issues?scope=assigned_to_me', { token: other.token });
    expect(ids(res.body)).toEqual([assigned.id]);
    const hyphen = await api('/issues?scope=assigned-to-me', { token: other.token });
    expect(ids(hyphen.body)).toEqual([assigned.id]);
  });

  it('scope=all includes public issues of other users', async () => {
    const res = await api(`/issues?scope=all&iids[]=${created[0].iid}&per_page=100`, { token: other.token });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toContain(created[0].id);
  });

  it('excludes archived projects unless non_archived=false', async () => {
    const p = await newProject(owner.token);
    const issue = await newIssue(p.id, owner.token);
    expect((await api(`/projects/${p.id}`, { method: 'PUT', token: owner.token, body: { archived: true } })).status).toBe(200);
    expect(ids((await api('/issues', { token: owner.token })).body)).not.toContain(issue.id);
    expect(ids((await api('/issues?non_archived=false', { token: owner.token })).body)).toContain(issue.id);
    // Project lists do not filter on archived projects.
    expect(ids((await api(`/projects/${p.id}/issues`)).body)).toEqual([issue.id]);
  });
});

describe('GET /groups/:id/issues', () => {
  it('lists issues of the group and its subgroups, with references relative to the group', async () => {
    const sub = await newGroup(owner.token, 'public', group.id);
    const subProject = await newProject(owner.token, { namespace_id: sub.id });
    const deep = await newIssue(subProject.id, owner.token);
    const res = await api(`/groups/${group.id}/issues?per_page=100`);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(expect.arrayContaining([...ids(created), deep.id]));
    expect(res.body[0].id).toBe(deep.id);
    // Project#to_reference_base: another namespace than the group's own gives the full path.
    expect(res.body[0].references.relative).toBe(`${subProject.path_with_namespace}#${deep.iid}`);
    const own = res.body.find((i: { id: number }) => i.id === created[0].id);
    expect(own.references.relative).toBe(`${project.path}#${created[0].iid}`);
    const link = res.headers.get('link')!;
    expect(link).toContain(`/api/v4/groups/${group.id}/issues?id=${group.id}&non_archived=true&order_by=created_at&page=1&per_page=100&sort=desc&state=all&with_labels_details=false>; rel="first"`);
  });

  it('404 for a missing group', async () => {
    const res = await api('/groups/999999999/issues');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Group Not Found' });
  });
});

describe('ordering', () => {
  let p: { id: number };
  let a: { id: number; iid: number };
  let b: { id: number; iid: number };
  let c: { id: number; iid: number };
  beforeAll(async () => {
    p = await newProject(owner.token);
    a = await newIssue(p.id, owner.token, { title: 'Banana', due_date: '2030-05-01', weight: 3 });
    b = await newIssue(p.id, owner.token, { title: 'apple', weight: 1 });
    c = await newIssue(p.id, owner.token, { title: 'Cherry', due_date: '2030-01-01' });
  });
  const order = async (q: string) => ids((await api(`/projects/${p.id}/issues?${q}`)).body);

  it('title asc/desc', async () => {
    // SQLite compares bytes: upper case sorts first, as in a C-collated database.
    expect(await order('order_by=title&sort=asc')).toEqual([a.id, c.id, b.id]);
    expect(await order('order_by=title&sort=desc')).toEqual([b.id, c.id, a.id]);
  });

  it('due_date puts issues without a due date last in both directions', async () => {
    expect(await order('order_by=due_date&sort=asc')).toEqual([c.id, a.id, b.id]);
    expect(await order('order_by=due_date&sort=desc')).toEqual([a.id, c.id, b.id]);
  });

  it('weight puts issues without a weight last; ties break by id DESC', async () => {
    expect(await order('order_by=weight&sort=asc')).toEqual([b.id, a.id, c.id]);
    expect(await order('order_by=weight&sort=desc')).toEqual([a.id, b.id, c.id]);
  });

  it('popularity, relative_position, milestone_due, label_priority and priority are accepted', async () => {
    for (const o of ['popularity', 'relative_position', 'milestone_due', 'label_priority', 'priority', 'updated_at']) {
      const res = await api(`/projects/${p.id}/issues?order_by=${o}&sort=asc`);
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(3);
    }
    // No upvotes anywhere: popularity falls back to id DESC.
    expect(await order('order_by=popularity&sort=asc')).toEqual([c.id, b.id, a.id]);
    expect(await order('order_by=relative_position&sort=desc')).toEqual([c.id, b.id, a.id]);
  });
});

describe('label priority ordering', () => {
  let p: { id: number };
  const is: Record<string, { id: number }> = {};
  beforeAll(async () => {
    p = await newProject(owner.token);
    for (const [name, priority] of [['high', 1], ['low', 5], ['plain', undefined]] as const) {
      const res = await api(`/projects/${p.id}/labels`, { token: owner.token, body: { name, color: '#ff0000', ...(priority ? { priority } : {}) } });
      expect(res.status, res.text).toBe(201);
    }
    is.a = await newIssue(p.id, owner.token, { labels: 'low' });
    is.b = await newIssue(p.id, owner.token, { labels: 'high,low' });
    is.c = await newIssue(p.id, owner.token, { labels: 'plain' });
    is.d = await newIssue(p.id, owner.token);
  });
  const order = async (q: string) => ids((await api(`/projects/${p.id}/issues?${q}`)).body);

  it('label_priority: the lowest priority of an issue\'s labels, issues without one last in both directions', async () => {
    expect(await order('order_by=label_priority&sort=asc')).toEqual([is.b.id, is.a.id, is.d.id, is.c.id]);
    expect(await order('order_by=label_priority&sort=desc')).toEqual([is.a.id, is.b.id, is.d.id, is.c.id]);
  });

  it('labels being filtered on are left out of the priority (label_names_excluded_from_priority_sort)', async () => {
    expect(await order('labels=low&order_by=label_priority&sort=asc')).toEqual([is.b.id, is.a.id]);
    expect(await order('labels=high&order_by=label_priority&sort=asc')).toEqual([is.b.id]);
  });

  it('priority: milestone due date first (none here), then label priority', async () => {
    expect(await order('order_by=priority&sort=asc')).toEqual([is.b.id, is.a.id, is.d.id, is.c.id]);
  });
});

describe('parameter validation (Grape 400 bodies)', () => {
  const bad: [string, string][] = [
    ['state=merged', 'state does not have a valid value'],
    ['order_by=name', 'order_by does not have a valid value'],
    ['sort=up', 'sort does not have a valid value'],
    ['scope=mine', 'scope does not have a valid value'],
    ['milestone_id=Next', 'milestone_id does not have a valid value'],
    ['milestone_id=any', 'milestone_id does not have a valid value'],
    ['due_date=yesterday', 'due_date does not have a valid value'],
    ['issue_type=epic', 'issue_type does not have a valid value'],
    ['assignee_id=foo', 'assignee_id should be an integer, none, or any, however got foo'],
    ['weight=heavy', 'weight should be an integer, none, or any, however got heavy'],
    ['author_id=x', 'author_id is invalid'],
    ['iids[]=x', 'iids is invalid'],
    ['created_after=yesterday', 'created_after is invalid'],
    ['confidential=maybe', 'confidential is invalid'],
    ['per_page=0', 'per_page has a value not allowed'],
    ['assignee_id=1&assignee_username=x', 'assignee_id, assignee_username are mutually exclusive'],
    ['author_id=1&author_username=x', 'author_id, author_username are mutually exclusive'],
    ['milestone=x&milestone_id=None', 'milestone_id, milestone are mutually exclusive'],
    ['not[labels]=a&not[weight]=x', 'not[weight] is invalid'],
    ['not[author_id]=1&not[author_username]=x', 'not[author_id], not[author_username] are mutually exclusive'],
    ['health_status=great', 'health_status does not have a valid value'],
  ];
  for (const [q, error] of bad) {
    it(`${q} -> 400 ${error}`, async () => {
      for (const path of [`/projects/${project.id}/issues`, `/groups/${group.id}/issues`, '/issues']) {
        const res = await api(`${path}?${q}`, { token: other.token });
        expect(res.status, `${path}?${q}`).toBe(400);
        expect(res.body).toEqual({ error });
      }
    });
  }

  it('validates parameters before authenticating /issues', async () => {
    const res = await api('/issues?state=nope');
    expect(res.status).toBe(400);
  });

  it('accepts case-insensitive None/Any for assignee_id and health_status', async () => {
    expect((await api(`/projects/${project.id}/issues?assignee_id=NONE`)).status).toBe(200);
    expect((await api(`/projects/${project.id}/issues?health_status=On_Track`)).status).toBe(200);
  });

  it('a search string longer than D1 LIKE patterns allow still answers 200', async () => {
    const user = await createUser();
    const long = 'x'.repeat(300);
    const res = await api(`/projects/${project.id}/issues?search=${long}`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    const words = Array.from({ length: 150 }, (_, i) => `word${i}`).join(' ');
    expect((await api(`/projects/${project.id}/issues?search=${encodeURIComponent(words)}`, { token: user.token })).status).toBe(200);
  });

  it('many iids and labels stay within D1 bound-parameter limits', async () => {
    const many = Array.from({ length: 300 }, (_, i) => `iids[]=${i + 1}`).join('&');
    const res = await api(`/projects/${project.id}/issues?${many}`);
    expect(res.status).toBe(200);
    const total = Number((await api(`/projects/${project.id}/issues`)).headers.get('x-total'));
    expect(total).toBeGreaterThanOrEqual(6);
    expect(res.body).toHaveLength(total);
    const labels = Array.from({ length: 200 }, (_, i) => `l${i}`).join(',');
    const lres = await api(`/projects/${project.id}/issues?labels=${labels}&order_by=label_priority`);
    expect(lres.status).toBe(200);
    expect(lres.body).toEqual([]);
  });

  it('ignores pagination=keyset (issues.rb paginates by offset)', async () => {
    const res = await api(`/projects/${project.id}/issues?pagination=keyset&per_page=2`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe((await api(`/projects/${project.id}/issues`)).headers.get('x-total'));
    expect(res.headers.get('link')).toContain('rel="last"');
    expect(res.body).toHaveLength(2);
  });
});

