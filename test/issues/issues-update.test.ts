/** PUT, DELETE, subscribe/unsubscribe on /projects/:id/issues/:issue_iid, and GET /issues/:id (lib/api/issues.rb). */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let author: TestUser;
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  [owner, reporter, guest, author] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
  const res = await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'private' } });
  expect(res.status).toBe(201);
  project = res.body;
  for (const [u, level] of [[reporter, 20], [guest, 10], [author, 10]] as const) {
    expect((await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
  }
});

const newIssue = async (token: string, body: Record<string, unknown> = {}) => {
  const res = await api(`/projects/${project.id}/issues`, { token, body: { title: unique('issue'), ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: number; iid: number; title: string; updated_at: string };
};
const url = (iid: number, suffix = '') => `/projects/${project.id}/issues/${iid}${suffix}`;
const systemNotes = async (iid: number) => {
  const res = await api(url(iid, '/notes?sort=asc'), { token: owner.token });
  return res.status === 200 ? (res.body as { body: string; system: boolean }[]).filter((n) => n.system).map((n) => n.body) : null;
};

describe('PUT /projects/:id/issues/:issue_iid', () => {
  it('closes and reopens with closed_at and closed_by', async () => {
    const i = await newIssue(reporter.token);
    const closed = await api(url(i.iid), { method: 'PUT', token: reporter.token, body: { state_event: 'close' } });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ state: 'closed', closed_by: { id: reporter.id } });
    expect(closed.body.closed_at).toEqual(expect.any(String));
    const read = await api(url(i.iid), { token: guest.token });
    expect(read.body.state).toBe('closed');
    const reopened = await api(url(i.iid), { method: 'PUT', token: reporter.token, body: { state_event: 'reopen' } });
    expect(reopened.body).toMatchObject({ state: 'opened', closed_at: null, closed_by: null });
  });

  it('changes title, description, labels, assignees, due date and confidentiality, writing system notes', async () => {
    const i = await newIssue(reporter.token, { labels: 'a,b', title: 'Fix the login page' });
    const res = await api(url(i.iid), {
      method: 'PUT',
      token: reporter.token,
      body: { title: 'Fix the logout button', description: 'new text', add_labels: 'c', remove_labels: 'a', assignee_ids: [guest.id], due_date: '2031-02-03', confidential: true, discussion_locked: true },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'Fix the logout button', description: 'new text', labels: ['b', 'c'], due_date: '2031-02-03', confidential: true, discussion_locked: true });
    expect(res.body.assignees.map((a: { id: number }) => a.id)).toEqual([guest.id]);
    // The assignee got an "assigned" to-do (checked while they can still read the confidential issue).
    const todos = await api('/todos', { token: guest.token });
    expect(todos.status).toBe(200);
    expect(todos.body.some((t: { target: { iid: number }; action_name: string }) => t.target.iid === i.iid && t.action_name === 'assigned')).toBe(true);
    const replaced = await api(url(i.iid), { method: 'PUT', token: reporter.token, body: { labels: 'z', assignee_ids: [] } });
    expect(replaced.body).toMatchObject({ labels: ['z'], assignees: [], assignee: null });
    // change_title marks the changed characters (Gitlab::Diff::CharDiff).
    expect(await systemNotes(i.iid)).toEqual([
      'changed title from **Fix the log{-in page-}** to **Fix the log{+out button+}**',
      'changed the description',
      'made the issue confidential',
      'locked the discussion in this issue',
      'changed due date to February 3, 2031',
      `assigned to @${guest.username}`,
      `unassigned @${guest.username}`,
    ]);
  });

  it('reads assignees as GitLab does: assignee_id wins, [0] unassigns, nobody assignable keeps them', async () => {
    const outsider = await createUser();
    const i = await newIssue(owner.token);
    await api(url(i.iid), { method: 'PUT', token: owner.token, body: { assignee_ids: [reporter.id, guest.id, author.id] } });
    // Three names in one note, joined as Array#to_sentence.
    expect((await systemNotes(i.iid))?.[0]).toBe(`assigned to @${reporter.username}, @${guest.username}, and @${author.username}`);
    // convert_parameters_from_legacy_format: assignee_id replaces assignee_ids.
    const legacy = await api(url(i.iid), { method: 'PUT', token: owner.token, body: { assignee_id: guest.id, assignee_ids: [reporter.id] } });
    expect(legacy.body.assignees.map((a: { id: number }) => a.id)).toEqual([guest.id]);
    // Only users who cannot read the project: the parameter is dropped, the assignees stay.
    const kept = await api(url(i.iid), { method: 'PUT', token: owner.token, body: { assignee_ids: [outsider.id] } });
    expect(kept.status).toBe(200);
    expect(kept.body.assignees.map((a: { id: number }) => a.id)).toEqual([guest.id]);
    // [0] is IssuableFinder's NONE: everybody is unassigned.
    const none = await api(url(i.iid), { method: 'PUT', token: owner.token, body: { assignee_ids: [0] } });
    expect(none.body).toMatchObject({ assignees: [], assignee: null });
    expect((await api(url(i.iid), { token: owner.token })).body.assignees).toEqual([]);
  });

  it('drops discussion_locked from a guest creating an issue (it is metadata)', async () => {
    const i = await newIssue(guest.token, { discussion_locked: true, confidential: true });
    expect(i).toMatchObject({ discussion_locked: false, confidential: true });
  });

  it('lets the author (a guest) edit the title but not the metadata', async () => {
    const i = await newIssue(author.token);
    const res = await api(url(i.iid), { method: 'PUT', token: author.token, body: { title: 'Author edit', labels: 'x', due_date: '2031-01-01' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'Author edit', labels: [], due_date: null });
    const other = await api(url(i.iid), { method: 'PUT', token: guest.token, body: { title: 'Guest edit' } });
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ message: '403 Forbidden' });
    expect((await api(url(i.iid), { token: owner.token })).body.title).toBe('Author edit');
  });

  it('needs at least one attribute, and validates it', async () => {
    const i = await newIssue(reporter.token);
    const none = await api(url(i.iid), { method: 'PUT', token: reporter.token, body: {} });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatch(/are missing, at least one parameter must be provided$/);
    const blank = await api(url(i.iid), { method: 'PUT', token: reporter.token, body: { title: '' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ message: { title: ["can't be blank"] } });
    const bad = await api(url(i.iid), { method: 'PUT', token: reporter.token, body: { state_event: 'explode' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'state_event does not have a valid value' });
  });
});

describe('DELETE /projects/:id/issues/:issue_iid', () => {
  it('is for owners and administrators only, and removes the issue', async () => {
    const i = await newIssue(reporter.token);
    const denied = await api(url(i.iid), { method: 'DELETE', token: reporter.token });
    expect(denied.status).toBe(403);
    const ok = await api(url(i.iid), { method: 'DELETE', token: owner.token });
    expect(ok.status).toBe(204);
    expect(ok.text).toBe('');
    const gone = await api(url(i.iid), { token: owner.token });
    expect(gone.status).toBe(404);
    const again = await api(url(i.iid), { method: 'DELETE', token: owner.token });
    expect(again.status).toBe(404);
    // issues.rb: `not_found!('Issue')`.
    expect(again.body).toEqual({ message: '404 Issue Not Found' });
  });

  it('answers a confidential issue the caller cannot read like a missing one', async () => {
    const i = await newIssue(owner.token, { confidential: true });
    const res = await api(url(i.iid), { method: 'DELETE', token: guest.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Issue Not Found' });
    expect((await api(url(i.iid), { token: owner.token })).status).toBe(200);
  });

  it('honours If-Unmodified-Since', async () => {
    const i = await newIssue(reporter.token);
    const res = await api(url(i.iid), { method: 'DELETE', token: owner.token, headers: { 'if-unmodified-since': new Date(Date.parse(i.updated_at) - 60_000).toUTCString() } });
    expect(res.status).toBe(412);
    expect((await api(url(i.iid), { token: owner.token })).status).toBe(200);
  });
});

describe('POST /projects/:id/issues/:issue_iid/subscribe and /unsubscribe', () => {
  it('subscribes, answers 304 when already subscribed, and unsubscribes', async () => {
    const i = await newIssue(reporter.token);
    const sub = await api(url(i.iid, '/subscribe'), { method: 'POST', token: guest.token });
    expect(sub.status).toBe(201);
    expect(sub.body).toMatchObject({ iid: i.iid, subscribed: true });
    const again = await api(url(i.iid, '/subscribe'), { method: 'POST', token: guest.token });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect((await api(url(i.iid), { token: guest.token })).body.subscribed).toBe(true);
    const unsub = await api(url(i.iid, '/unsubscribe'), { method: 'POST', token: guest.token });
    expect(unsub.status).toBe(201);
    expect(unsub.body.subscribed).toBe(false);
    expect((await api(url(i.iid, '/unsubscribe'), { method: 'POST', token: guest.token })).status).toBe(304);
    // The author is subscribed by participation until they unsubscribe.
    expect((await api(url(i.iid, '/subscribe'), { method: 'POST', token: reporter.token })).status).toBe(304);
    expect((await api(url(i.iid, '/unsubscribe'), { method: 'POST', token: reporter.token })).body.subscribed).toBe(false);
    expect((await api(url(i.iid, '/subscribe'), { method: 'POST' })).status).toBe(401);
  });
});

describe('GET /issues/:id', () => {
  it('is for administrators', async () => {
    const i = await newIssue(reporter.token);
    const res = await api(`/issues/${i.id}`, { token: rootToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: i.id, iid: i.iid, project_id: project.id });
    expect((await api(`/issues/${i.id}`, { token: owner.token })).status).toBe(403);
    expect((await api('/issues/999999999', { token: rootToken })).body).toEqual({ message: '404 Not found' });
    // `requires :id, type: String` + Issue.find: a non-numeric id is a 404, not a 400.
    const word = await api('/issues/abc', { token: rootToken });
    expect(word.status).toBe(404);
    expect(word.body).toEqual({ message: '404 Not found' });
  });
});

describe('closing an issue resolves the closer’s to-dos', () => {
  it('marks the closing user’s pending to-do done and leaves others pending', async () => {
    const i = await newIssue(owner.token, { assignee_ids: [reporter.id] });
    expect((await api(url(i.iid, '/todo'), { method: 'POST', token: owner.token })).status).toBe(201);
    const pending = async (token: string) => ((await api('/todos', { token })).body as { target: { id: number } }[]).filter((t) => t.target.id === i.id).length;
    expect(await pending(reporter.token)).toBe(1);
    expect(await pending(owner.token)).toBe(1);
    await api(url(i.iid), { method: 'PUT', token: owner.token, body: { state_event: 'close' } });
    expect(await pending(owner.token)).toBe(0);
    expect(await pending(reporter.token)).toBe(1);
  });
});
