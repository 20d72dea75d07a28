/** POST /projects/:id/issues and GET /projects/:id/issues/:issue_iid (GitLab lib/api/issues.rb). */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let owner: TestUser;
let developer: TestUser;
let guest: TestUser;
let outsider: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path: string; path_with_namespace: string };
let publicProject: { id: number; path_with_namespace: string };

async function mkProject(token: string, body: Record<string, unknown>) {
  const res = await api('/projects', { token, body: { name: unique('p'), ...body } });
  expect(res.status).toBe(201);
  return res.body;
}

beforeAll(async () => {
  [owner, developer, guest, outsider] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
  const path = unique('g');
  const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'public' } });
  expect(g.status).toBe(201);
  group = g.body;
  project = await mkProject(owner.token, { namespace_id: group.id, visibility: 'private' });
  publicProject = await mkProject(owner.token, { namespace_id: group.id, visibility: 'public' });
  for (const [u, level] of [[developer, 30], [guest, 10]] as const) {
    const res = await api(`/groups/${group.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } });
    expect(res.status).toBe(201);
  }
});

describe('POST /projects/:id/issues', () => {
  it('creates an issue with the next iid and answers the full entity', async () => {
    const res = await api(`/projects/${project.id}/issues`, {
      token: developer.token,
      headers: { 'user-agent': 'issue-test/1.0', 'x-forwarded-for': '203.0.113.9' },
      body: { title: 'First', description: 'Steps:\n- [x] one\n- [ ] two', labels: 'bug,backend', assignee_ids: [developer.id], due_date: '2030-01-31' },
    });
    expect(res.status).toBe(201);
    const i = res.body;
    expect(Object.keys(i)).toEqual([
      'id', 'iid', 'project_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'closed_at', 'closed_by', 'labels', 'milestone',
      'assignees', 'author', 'type', 'assignee', 'user_notes_count', 'merge_requests_count', 'upvotes', 'downvotes', 'due_date', 'confidential',
      'discussion_locked', 'issue_type', 'web_url', 'time_stats', 'task_completion_status', 'weight', 'blocking_issues_count', 'has_tasks',
      'task_status', '_links', 'references', 'severity', 'subscribed', 'moved_to_id', 'imported', 'imported_from', 'service_desk_reply_to',
      'epic_iid', 'epic', 'iteration', 'health_status',
    ]);
    expect(i).toMatchObject({
      iid: 1,
      project_id: project.id,
      title: 'First',
      state: 'opened',
      closed_at: null,
      closed_by: null,
      labels: ['backend', 'bug'],
      milestone: null,
      type: 'ISSUE',
      user_notes_count: 0,
      merge_requests_count: 0,
      upvotes: 0,
      downvotes: 0,
      due_date: '2030-01-31',
      confidential: false,
      discussion_locked: false,
      issue_type: 'issue',
      time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
      task_completion_status: { count: 2, completed_count: 1 },
      has_tasks: true,
      task_status: '1 of 2 checklist items completed',
      references: { short: '#1', relative: '#1', full: `${project.path_with_namespace}#1` },
      severity: 'UNKNOWN',
      subscribed: true,
      moved_to_id: null,
      weight: null,
      epic_iid: null,
      epic: null,
      iteration: null,
      health_status: null,
    });
    expect(i.author).toMatchObject({ id: developer.id, username: developer.username });
    expect(i.assignees.map((a: { id: number }) => a.id)).toEqual([developer.id]);
    expect(i.assignee.id).toBe(developer.id);
    expect(i.web_url).toMatch(new RegExp(`/${project.path_with_namespace}/-/issues/1$`));
    expect(i._links.self).toMatch(new RegExp(`/api/v4/projects/${project.id}/issues/1$`));
    expect(i._links.notes).toMatch(/\/issues\/1\/notes$/);
    expect(i._links.award_emoji).toMatch(/\/issues\/1\/award_emoji$/);
    expect(i._links.project).toMatch(new RegExp(`/api/v4/projects/${project.id}$`));

    const second = await api(`/projects/${project.id}/issues`, { token: developer.token, body: { title: 'Second' } });
    expect(second.body.iid).toBe(2);
    expect(second.body).not.toHaveProperty('task_status');
    expect(second.body.has_tasks).toBe(false);

    // The missing labels were created as project labels.
    const labels = await api(`/projects/${project.id}/labels`, { token: developer.token });
    expect(labels.body.map((l: { name: string }) => l.name)).toEqual(expect.arrayContaining(['backend', 'bug']));

    const read = await api(`/projects/${project.id}/issues/1`, { token: guest.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: i.id, title: 'First', labels: ['backend', 'bug'], subscribed: false });

    // user agent and IP recorded for administrators
    const uad = await api(`/projects/${project.id}/issues/1/user_agent_detail`, { token: rootToken });
    if (uad.status === 200) expect(uad.body).toMatchObject({ user_agent: 'issue-test/1.0', ip_address: '203.0.113.9' });
  });

  it('accepts form and JSON bodies alike, and labels as an array', async () => {
    const res = await api(`/projects/${project.id}/issues`, { token: developer.token, form: { title: 'Form', 'labels[]': 'z-label' } });
    expect(res.status).toBe(201);
    expect(res.body.labels).toEqual(['z-label']);
  });

  it('validates the title', async () => {
    const missing = await api(`/projects/${project.id}/issues`, { token: developer.token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'title is missing' });
    const blank = await api(`/projects/${project.id}/issues`, { token: developer.token, body: { title: '  ' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ message: { title: ["can't be blank"] } });
    const long = await api(`/projects/${project.id}/issues`, { token: developer.token, body: { title: 'x'.repeat(256) } });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ message: { title: ['is too long (maximum is 255 characters)'] } });
  });

  it('drops metadata a guest may not set, keeps several assignees (Premium) and skips users who cannot read the project', async () => {
    const res = await api(`/projects/${project.id}/issues`, { token: guest.token, body: { title: 'Guest', labels: 'guest-label', assignee_ids: [developer.id], due_date: '2030-01-01' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ labels: [], assignees: [], due_date: null });
    const two = await api(`/projects/${project.id}/issues`, { token: developer.token, body: { title: 'Two', assignee_ids: [developer.id, owner.id] } });
    expect(two.body.assignees.map((a: { id: number }) => a.id)).toEqual([developer.id, owner.id]);
    // A user who cannot read the private project is not assigned.
    const out = await api(`/projects/${project.id}/issues`, { token: developer.token, body: { title: 'Out', assignee_id: outsider.id } });
    expect(out.body.assignees).toEqual([]);
  });

  it('lets non-members open issues in public projects, but not in private ones', async () => {
    const pub = await api(`/projects/${publicProject.id}/issues`, { token: outsider.token, body: { title: 'From outside' } });
    expect(pub.status).toBe(201);
    expect(pub.body.author.id).toBe(outsider.id);
    const priv = await api(`/projects/${project.id}/issues`, { token: outsider.token, body: { title: 'x' } });
    expect(priv.status).toBe(404);
    expect(priv.body).toEqual({ message: '404 Project Not Found' });
    const anon = await api(`/projects/${publicProject.id}/issues`, { body: { title: 'x' } });
    expect(anon.status).toBe(401);
  });

  it('takes iid and created_at only from owners and administrators; a duplicate iid is 409', async () => {
    const dev = await api(`/projects/${project.id}/issues`, { token: developer.token, body: { title: 'Dev iid', iid: 500, created_at: '2020-01-01T00:00:00Z' } });
    expect(dev.body.iid).not.toBe(500);
    expect(dev.body.created_at).not.toBe('2020-01-01T00:00:00.000Z');
    const own = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Own iid', iid: 500, created_at: '2020-01-01T00:00:00Z' } });
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({ iid: 500, created_at: '2020-01-01T00:00:00.000Z' });
    const dup = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Dup', iid: 500 } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ message: 'Duplicated issue' });
    const next = await api(`/projects/${project.id}/issues`, { token: developer.token, body: { title: 'After' } });
    expect(next.body.iid).toBe(501);
  });

  it('hides confidential issues from guests and outsiders but not from the author or assignees', async () => {
    const res = await api(`/projects/${publicProject.id}/issues`, { token: developer.token, body: { title: 'Secret', confidential: true } });
    expect(res.status).toBe(201);
    const iid = res.body.iid;
    expect((await api(`/projects/${publicProject.id}/issues/${iid}`, { token: outsider.token })).status).toBe(404);
    const g = await api(`/projects/${publicProject.id}/issues/${iid}`, { token: guest.token });
    expect(g.status).toBe(404);
    expect(g.body).toEqual({ message: '404 Not found' });
    expect((await api(`/projects/${publicProject.id}/issues/${iid}`)).status).toBe(404);
    expect((await api(`/projects/${publicProject.id}/issues/${iid}`, { token: developer.token })).status).toBe(200);
    const own = await api(`/projects/${publicProject.id}/issues`, { token: outsider.token, body: { title: 'Mine', confidential: true } });
    expect((await api(`/projects/${publicProject.id}/issues/${own.body.iid}`, { token: outsider.token })).status).toBe(200);
    expect((await api(`/projects/${publicProject.id}/issues/${own.body.iid}`, { token: rootToken })).status).toBe(200);
  });

  it('answers 404 for a missing issue and for a private project', async () => {
    const missing = await api(`/projects/${project.id}/issues/99999`, { token: developer.token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Not found' });
    const priv = await api(`/projects/${project.id}/issues/1`, { token: outsider.token });
    expect(priv.body).toEqual({ message: '404 Project Not Found' });
    const byPath = await api(`/projects/${encodeURIComponent(project.path_with_namespace)}/issues/1`, { token: developer.token });
    expect(byPath.status).toBe(200);
  });
});
