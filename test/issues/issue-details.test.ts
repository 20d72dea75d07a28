/** Issue participants, related/closing merge requests and user agent details (GitLab lib/api/issues.rb). */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let owner: TestUser;
let assignee: TestUser;
let mentioned: TestUser;
let outsider: TestUser;
let guest: TestUser;
let project: { id: number };

async function mkIssue(token: string, extra: Record<string, unknown> = {}) {
  const res = await api(`/projects/${project.id}/issues`, { token, body: { title: unique('t'), ...extra } });
  expect(res.status).toBe(201);
  return res.body as { id: number; iid: number };
}
const base = (iid: number) => `/projects/${project.id}/issues/${iid}`;
const ids = (body: { id: number }[]) => body.map((u) => u.id);

beforeAll(async () => {
  [owner, assignee, mentioned, outsider, guest] = await Promise.all([createUser(), createUser(), createUser(), createUser(), createUser()]);
  const res = await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'private' } });
  expect(res.status).toBe(201);
  project = res.body;
  for (const [u, level] of [[assignee, 30], [mentioned, 20], [guest, 10]] as const) {
    const m = await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } });
    expect(m.status).toBe(201);
  }
});

describe('GET /projects/:id/issues/:issue_iid/participants', () => {
  it('lists the author, assignees and mentioned users who can read the issue, as UserRefs', async () => {
    const issue = await mkIssue(owner.token, {
      assignee_ids: [assignee.id],
      description: `ping @${mentioned.username} and @${outsider.username}, mail me at a@${owner.username}.example`,
    });
    const res = await api(`${base(issue.iid)}/participants`, { token: guest.token });
    expect(res.status).toBe(200);
    // The outsider is mentioned but cannot read the private project.
    expect(ids(res.body)).toEqual([owner.id, assignee.id, mentioned.id]);
    expect(Object.keys(res.body[0])).toEqual(['id', 'username', 'name', 'state', 'avatar_url', 'web_url']);
    expect(res.body[0]).toMatchObject({ id: owner.id, username: owner.username, state: 'active' });
    expect(res.headers.get('x-total')).toBe('3');
    const page = await api(`${base(issue.iid)}/participants?per_page=2&page=2`, { token: guest.token });
    expect(ids(page.body)).toEqual([mentioned.id]);
  });

  it('drops mentioned users who cannot read a confidential issue', async () => {
    const issue = await mkIssue(owner.token, { confidential: true, description: `cc @${guest.username} @${mentioned.username}` });
    const res = await api(`${base(issue.iid)}/participants`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([owner.id, mentioned.id]);
    const hidden = await api(`${base(issue.iid)}/participants`, { token: guest.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Not found' });
  });

  it('drops non-members when the issues feature is private to members', async () => {
    const pub = await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'public', issues_access_level: 'private' } });
    expect(pub.status).toBe(201);
    const issue = await api(`/projects/${pub.body.id}/issues`, { token: owner.token, body: { title: unique('t'), description: `cc @${outsider.username}` } });
    expect(issue.status).toBe(201);
    const res = await api(`/projects/${pub.body.id}/issues/${issue.body.iid}/participants`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([owner.id]);
    const open = await api(`/projects/${pub.body.id}`, { token: owner.token, method: 'PUT', body: { issues_access_level: 'enabled' } });
    expect(open.status).toBe(200);
    const after = await api(`/projects/${pub.body.id}/issues/${issue.body.iid}/participants`, { token: owner.token });
    expect(ids(after.body)).toEqual([owner.id, outsider.id]);
  });

  it('answers 404 for unreadable projects', async () => {
    const issue = await mkIssue(owner.token);
    const res = await api(`${base(issue.iid)}/participants`, { token: outsider.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Project Not Found' });
    const anon = await api(`${base(issue.iid)}/participants`);
    expect(anon.status).toBe(404);
  });
});

describe('GET related_merge_requests and closed_by', () => {
  it('answer an empty paginated list for a readable issue', async () => {
    const issue = await mkIssue(owner.token);
    for (const sub of ['related_merge_requests', 'closed_by']) {
      const res = await api(`${base(issue.iid)}/${sub}`, { token: guest.token });
      expect(res.status, sub).toBe(200);
      expect(res.body).toEqual([]);
      expect(res.headers.get('x-total')).toBe('0');
      expect(res.headers.get('x-page')).toBe('1');
      const missing = await api(`${base(999999)}/${sub}`, { token: guest.token });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ message: '404 Not found' });
      const hidden = await api(`${base(issue.iid)}/${sub}`, { token: outsider.token });
      expect(hidden.status).toBe(404);
    }
  });
});

describe('GET /projects/:id/issues/:issue_iid/user_agent_detail', () => {
  it('is for administrators only, checked before the issue lookup', async () => {
    const forbidden = await api(`${base(999999)}/user_agent_detail`, { token: owner.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ message: '403 Forbidden' });
    const anon = await api(`${base(999999)}/user_agent_detail`);
    expect(anon.status).toBe(401);
    const missing = await api(`${base(999999)}/user_agent_detail`, { token: rootToken });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Not found' });
  });

  it('shows the user agent recorded when the issue was created', async () => {
    const res = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: unique('t') }, headers: { 'User-Agent': 'agent-test/1.0' } });
    expect(res.status).toBe(201);
    const detail = await api(`${base(res.body.iid)}/user_agent_detail`, { token: rootToken });
    expect(detail.status).toBe(200);
    expect(Object.keys(detail.body)).toEqual(['user_agent', 'ip_address', 'spamsvc_submitted']);
    expect(detail.body).toMatchObject({ user_agent: 'agent-test/1.0', spamsvc_submitted: false });
    expect(typeof detail.body.ip_address).toBe('string');
  });
});
