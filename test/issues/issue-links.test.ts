/**
 * Linked issues (issue 18 item 2; GitLab lib/api/issue_links.rb, IssueLinks::CreateService /
 * DestroyService, IssuePolicy admin_issue_link): linking within and across projects, the link types
 * from either side, refusals in GitLab's order and words, system notes on both issues, what a
 * caller may see, and links going with their issues.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;
let guest: TestUser;
let outsider: TestUser;
type Project = { id: number; path: string; path_with_namespace: string };
let group: { id: number; full_path: string };
let p1: Project;
let p2: Project;
let other: Project;
let priv: Project;

async function mkProject(token: string, body: Record<string, unknown>): Promise<Project> {
  const res = await api('/projects', { token, body: { path: unique('p'), visibility: 'public', ...body } });
  expect(res.status).toBe(201);
  return res.body;
}
async function mkIssue(p: Project, body: Record<string, unknown> = {}, token = owner.token) {
  const res = await api(`/projects/${p.id}/issues`, { token, body: { title: unique('issue'), ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: number; iid: number; project_id: number };
}
const links = (i: { iid: number; project_id: number }) => `/projects/${i.project_id}/issues/${i.iid}/links`;
const link = (from: { iid: number; project_id: number }, to: { iid: number; project_id: number }, linkType?: string, token = owner.token) =>
  api(links(from), { token, body: { target_project_id: String(to.project_id), target_issue_iid: String(to.iid), ...(linkType ? { link_type: linkType } : {}) } });
const systemNotes = async (i: { iid: number; project_id: number }) =>
  ((await api(`/projects/${i.project_id}/issues/${i.iid}/notes?sort=asc`, { token: owner.token })).body as { body: string; system: boolean }[]).filter((n) => n.system).map((n) => n.body);

beforeAll(async () => {
  [owner, guest, outsider] = await Promise.all([createUser(), createUser(), createUser()]);
  const path = unique('g');
  group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'public' } })).body;
  p1 = await mkProject(owner.token, { namespace_id: group.id });
  p2 = await mkProject(owner.token, { namespace_id: group.id });
  other = await mkProject(outsider.token, {});
  priv = await mkProject(owner.token, { namespace_id: group.id, visibility: 'private' });
  expect((await api(`/projects/${p1.id}/members`, { token: owner.token, body: { user_id: guest.id, access_level: 10 } })).status).toBe(201);
});

describe('POST /projects/:id/issues/:issue_iid/links', () => {
  it('links two issues, answers the stored link and notes it on both issues', async () => {
    const [a, b] = [await mkIssue(p1), await mkIssue(p1)];
    const res = await link(a, b);
    expect(res.status).toBe(201);
    expect(res.body.link_type).toBe('relates_to');
    expect(res.body.source_issue).toMatchObject({ id: a.id, iid: a.iid, project_id: p1.id });
    expect(res.body.target_issue).toMatchObject({ id: b.id, iid: b.iid });
    // IssueBasic: no _links or references.
    expect(res.body.source_issue).not.toHaveProperty('references');
    expect(await systemNotes(a)).toContain(`marked this issue as related to #${b.iid}`);
    expect(await systemNotes(b)).toContain(`marked this issue as related to #${a.iid}`);
  });

  it('stores is_blocked_by as the target blocking the source, and each side reads its own type', async () => {
    const [a, b] = [await mkIssue(p1), await mkIssue(p2)];
    const res = await link(a, b, 'is_blocked_by');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ link_type: 'blocks', source_issue: { id: b.id }, target_issue: { id: a.id } });
    const fromA = (await api(links(a), { token: owner.token })).body;
    const fromB = (await api(links(b), { token: owner.token })).body;
    expect(fromA.map((i: { id: number; link_type: string }) => [i.id, i.link_type])).toEqual([[b.id, 'is_blocked_by']]);
    expect(fromB.map((i: { id: number; link_type: string }) => [i.id, i.link_type])).toEqual([[a.id, 'blocks']]);
    // Cross-project references in the same namespace name the project's path.
    expect(await systemNotes(b)).toContain(`marked this issue as blocking ${p1.path}#${a.iid}`);
    expect(await systemNotes(a)).toContain(`marked this issue as blocked by ${p2.path}#${b.iid}`);
  });

  it('refuses a pair already linked either way (409) and a self link (422)', async () => {
    const [a, b] = [await mkIssue(p1), await mkIssue(p1)];
    expect((await link(a, b)).status).toBe(201);
    for (const res of [await link(a, b), await link(b, a, 'blocks')]) {
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ message: 'Issue(s) already assigned' });
    }
    const self = await link(a, a);
    expect(self.status).toBe(422);
    expect(self.body).toEqual({ message: `#${a.iid} cannot be added: cannot be related to itself` });
  });

  it('settles concurrent links of one pair with one 201', async () => {
    const [a, b] = [await mkIssue(p1), await mkIssue(p1)];
    const results = await Promise.all([link(a, b), link(b, a), link(a, b, 'blocks'), link(b, a, 'relates_to')]);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status !== 201).every((r) => r.status === 409)).toBe(true);
    expect((await api(links(a), { token: owner.token })).body).toHaveLength(1);
  });

  it('answers 404s for a missing target project or issue, and 400 for a bad link type', async () => {
    const a = await mkIssue(p1);
    const noProject = await api(links(a), { token: owner.token, body: { target_project_id: '999999999', target_issue_iid: '1' } });
    expect(noProject.status).toBe(404);
    expect(noProject.body).toEqual({ message: '404 Project Not Found' });
    const noIssue = await api(links(a), { token: owner.token, body: { target_project_id: String(p1.id), target_issue_iid: '99999' } });
    expect(noIssue.status).toBe(404);
    expect(noIssue.body).toEqual({ message: '404 Not found' });
    const bad = await api(links(a), { token: owner.token, body: { target_project_id: String(p1.id), target_issue_iid: String(a.iid), link_type: 'duplicates' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'link_type does not have a valid value' });
    const missing = await api(links(a), { token: owner.token, body: { target_project_id: String(p1.id) } });
    expect(missing.status).toBe(400);
  });

  it('needs Guest in the source project, then in the target project (403s with the service words)', async () => {
    const a = await mkIssue(p1);
    const foreign = await mkIssue(other, {}, outsider.token);
    // outsider is no member of p1: the source check.
    const fromSource = await link(a, foreign, undefined, outsider.token);
    expect(fromSource.status).toBe(403);
    expect(fromSource.body.message).toBe("Couldn't link issues. You must have at least the Guest role in the source issue's project.");
    // guest is a member of p1 but not of `other` (public: readable): the target check.
    const toTarget = await link(a, foreign, undefined, guest.token);
    expect(toTarget.status).toBe(403);
    expect(toTarget.body.message).toBe("Couldn't link issues. You must have at least the Guest role in both projects.");
    // A private project the caller cannot see is its 404.
    const hidden = await mkIssue(priv);
    const res = await link(a, hidden, undefined, guest.token);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Project Not Found' });
    // A guest may link within its project.
    expect((await link(a, await mkIssue(p1), undefined, guest.token)).status).toBe(201);
  });

  it('is refused to anonymous callers (401)', async () => {
    const a = await mkIssue(p1);
    expect((await api(links(a))).status).toBe(401);
    expect((await api(links(a), { body: { target_project_id: String(p1.id), target_issue_iid: String(a.iid) } })).status).toBe(401);
  });
});

describe('blocking_issues_count', () => {
  it('counts the open issues an issue blocks, in every issue answer', async () => {
    const [a, b, c] = [await mkIssue(p1), await mkIssue(p1), await mkIssue(p2)];
    expect((await link(a, b, 'blocks')).status).toBe(201);
    expect((await link(c, a, 'is_blocked_by')).status).toBe(201);
    const get = async () => (await api(`/projects/${p1.id}/issues/${a.iid}`, { token: owner.token })).body.blocking_issues_count;
    expect(await get()).toBe(2);
    expect((await api(`/projects/${p1.id}/issues/${b.iid}`, { method: 'PUT', token: owner.token, body: { state_event: 'close' } })).status).toBe(200);
    expect(await get()).toBe(1);
    const listed = (await api(`/projects/${p1.id}/issues?iids[]=${a.iid}&iids[]=${b.iid}`, { token: owner.token })).body;
    expect(listed.map((i: { iid: number; blocking_issues_count: number }) => [i.iid, i.blocking_issues_count]).sort()).toEqual([[a.iid, 1], [b.iid, 0]].sort());
  });
});

describe('GET /projects/:id/issues/:issue_iid/links', () => {
  it('lists linked issues in link order with the link fields, only those the caller may read', async () => {
    const a = await mkIssue(p1);
    const b = await mkIssue(p1);
    const hidden = await mkIssue(priv);
    const secret = await mkIssue(p2, { confidential: true });
    for (const t of [b, hidden, secret]) expect((await link(a, t)).status).toBe(201);
    const mine = await api(links(a), { token: owner.token });
    expect(mine.status).toBe(200);
    expect(mine.body.map((i: { id: number }) => i.id)).toEqual([b.id, hidden.id, secret.id]);
    expect(Object.keys(mine.body[0])).toEqual(expect.arrayContaining(['issue_link_id', 'link_type', 'link_created_at', 'link_updated_at', 'references', 'web_url']));
    expect(mine.body[0]).not.toHaveProperty('subscribed');
    // guest: member of p1 only; the private project's issue and the confidential one are left out.
    const theirs = await api(links(a), { token: guest.token });
    expect(theirs.body.map((i: { id: number }) => i.id)).toEqual([b.id]);
  });
});

describe('GET and DELETE /projects/:id/issues/:issue_iid/links/:issue_link_id', () => {
  it('shows one link from either end, then removes it with notes on both issues', async () => {
    const [a, b] = [await mkIssue(p1), await mkIssue(p2)];
    expect((await link(a, b, 'blocks')).status).toBe(201);
    const id = (await api(links(a), { token: owner.token })).body[0].issue_link_id as number;
    for (const end of [a, b]) {
      const one = await api(`${links(end)}/${id}`, { token: owner.token });
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ link_type: 'blocks', source_issue: { id: a.id }, target_issue: { id: b.id } });
    }
    // Not a link of this issue: find's 404.
    const c = await mkIssue(p1);
    expect((await api(`${links(c)}/${id}`, { token: owner.token })).body).toEqual({ message: '404 Not found' });
    expect((await api(`${links(c)}/abc`, { token: owner.token })).status).toBe(404);
    // A guest of p1 only may read the public p2's issue, but may not unlink it: the service's 404.
    const refused = await api(`${links(a)}/${id}`, { method: 'DELETE', token: guest.token });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ message: 'No Issue Link found' });
    const del = await api(`${links(b)}/${id}`, { method: 'DELETE', token: owner.token });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ link_type: 'blocks', source_issue: { id: a.id }, target_issue: { id: b.id } });
    expect((await api(links(a), { token: owner.token })).body).toEqual([]);
    expect(await systemNotes(a)).toContain(`removed the relation with ${p2.path}#${b.iid}`);
    expect(await systemNotes(b)).toContain(`removed the relation with ${p1.path}#${a.iid}`);
    expect((await api(`${links(a)}/${id}`, { method: 'DELETE', token: owner.token })).status).toBe(404);
  });

  it('drops the links of a deleted issue', async () => {
    const [a, b] = [await mkIssue(p1), await mkIssue(p2)];
    expect((await link(a, b)).status).toBe(201);
    expect((await api(`/projects/${p2.id}/issues/${b.iid}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await api(links(a), { token: owner.token })).body).toEqual([]);
    // The pair's slot is free again: a new issue can be linked (the unique index holds no stale row).
    expect((await link(a, await mkIssue(p2))).status).toBe(201);
  });
});
