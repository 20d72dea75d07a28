/** Notes on issues and the /promote quick action (GitLab lib/api/notes.rb; spec: Issues, Note). */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let outsider: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path: string; path_with_namespace: string };
let personal: { id: number };

beforeAll(async () => {
  [owner, reporter, guest, outsider] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
  const path = unique('g');
  group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'public' } })).body;
  project = (await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.id, visibility: 'public' } })).body;
  personal = (await api('/projects', { token: owner.token, body: { name: unique('pp'), visibility: 'private' } })).body;
  for (const [u, level] of [[reporter, 20], [guest, 10]] as const) {
    expect((await api(`/groups/${group.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
  }
});

const newIssue = async (body: Record<string, unknown> = {}, projectId = project.id) => {
  const res = await api(`/projects/${projectId}/issues`, { token: owner.token, body: { title: unique('issue'), ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: number; iid: number; title: string };
};
const notesUrl = (iid: number, suffix = '', projectId = project.id) => `/projects/${projectId}/issues/${iid}/notes${suffix}`;

describe('POST /projects/:id/issues/:issue_iid/notes', () => {
  it('creates a comment with the Note entity, counts it and touches the issue', async () => {
    const issue = await newIssue();
    const before = (await api(`/projects/${project.id}/issues/${issue.iid}`, { token: owner.token })).body.updated_at;
    const res = await api(notesUrl(issue.iid), { token: outsider.token, body: { body: 'Looks good' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual([
      'id', 'type', 'body', 'attachment', 'author', 'created_at', 'updated_at', 'system', 'noteable_id', 'noteable_type', 'project_id', 'resolvable',
      'confidential', 'internal', 'imported', 'imported_from', 'noteable_iid', 'commands_changes',
    ]);
    expect(res.body).toMatchObject({
      type: null,
      body: 'Looks good',
      attachment: null,
      author: { id: outsider.id },
      system: false,
      noteable_id: issue.id,
      noteable_type: 'Issue',
      project_id: project.id,
      resolvable: false,
      confidential: false,
      internal: false,
      noteable_iid: issue.iid,
      commands_changes: {},
    });
    const after = await api(`/projects/${project.id}/issues/${issue.iid}`, { token: owner.token });
    expect(after.body.user_notes_count).toBe(1);
    expect(after.body.updated_at >= before).toBe(true);
    const read = await api(notesUrl(issue.iid, `/${res.body.id}`), { token: guest.token });
    expect(read.body).toMatchObject({ id: res.body.id, body: 'Looks good' });
  });

  it('validates the body and needs sign-in', async () => {
    const issue = await newIssue();
    expect((await api(notesUrl(issue.iid), { token: owner.token, body: {} })).body).toEqual({ error: 'body is missing' });
    const blank = await api(notesUrl(issue.iid), { token: owner.token, body: { body: ' ' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ message: `400 Bad request - Note {:note=>["can't be blank"]}` });
    expect((await api(notesUrl(issue.iid), { body: { body: 'x' } })).status).toBe(401);
    expect((await api(notesUrl(issue.iid))).status).toBe(401);
    const missing = await api(notesUrl(99999), { token: owner.token, body: { body: 'x' } });
    expect(missing.status).toBe(404);
    // NotesFinder#target: IssuesFinder...find_by!(iid:) raises RecordNotFound before not_found!('Issue').
    expect(missing.body).toEqual({ message: '404 Not found' });
    expect((await api(notesUrl(issue.iid), { token: owner.token })).body).toEqual([]);
  });

  it('keeps internal notes from guests and outsiders; a locked discussion refuses them', async () => {
    const issue = await newIssue();
    const internal = await api(notesUrl(issue.iid), { token: reporter.token, body: { body: 'between us', internal: true } });
    expect(internal.body).toMatchObject({ internal: true, confidential: true });
    const sneaky = await api(notesUrl(issue.iid), { token: guest.token, body: { body: 'try', internal: true } });
    expect(sneaky.body.internal).toBe(false);
    const guestView = await api(notesUrl(issue.iid), { token: guest.token });
    expect(guestView.body.map((n: { body: string }) => n.body)).toEqual(['try']);
    expect(guestView.headers.get('x-total')).toBe('1');
    expect((await api(notesUrl(issue.iid, `/${internal.body.id}`), { token: guest.token })).body).toEqual({ message: '404 Note Not Found' });
    expect((await api(notesUrl(issue.iid), { token: reporter.token })).body.length).toBe(2);
    await api(`/projects/${project.id}/issues/${issue.iid}`, { method: 'PUT', token: owner.token, body: { discussion_locked: true } });
    // IssuablePolicy `locked & ~is_project_member`: members (guests too) may still comment, others not.
    expect((await api(notesUrl(issue.iid), { token: outsider.token, body: { body: 'x' } })).status).toBe(403);
    expect((await api(notesUrl(issue.iid), { token: guest.token, body: { body: 'x' } })).status).toBe(201);
    expect((await api(notesUrl(issue.iid), { token: reporter.token, body: { body: 'x' } })).status).toBe(201);
  });
});

describe('GET /projects/:id/issues/:issue_iid/notes', () => {
  it('lists system notes and comments newest first, filters by activity, sorts and pages', async () => {
    const issue = await newIssue();
    await api(notesUrl(issue.iid), { token: owner.token, body: { body: 'first' } });
    await api(`/projects/${project.id}/issues/${issue.iid}`, { method: 'PUT', token: owner.token, body: { confidential: true } });
    await api(notesUrl(issue.iid), { token: owner.token, body: { body: 'second' } });
    const all = await api(notesUrl(issue.iid), { token: owner.token });
    expect(all.body.map((n: { body: string }) => n.body)).toEqual(['second', 'made the issue confidential', 'first']);
    expect(all.body[1].system).toBe(true);
    const asc = await api(notesUrl(issue.iid, '?sort=asc&activity_filter=only_comments'), { token: owner.token });
    expect(asc.body.map((n: { body: string }) => n.body)).toEqual(['first', 'second']);
    const activity = await api(notesUrl(issue.iid, '?activity_filter=only_activity'), { token: owner.token });
    expect(activity.body.map((n: { body: string }) => n.body)).toEqual(['made the issue confidential']);
    const page = await api(notesUrl(issue.iid, '?per_page=2&page=2'), { token: owner.token });
    expect(page.body.map((n: { body: string }) => n.body)).toEqual(['first']);
    expect(page.headers.get('x-total')).toBe('3');
    expect((await api(notesUrl(issue.iid, '?sort=up'), { token: owner.token })).body).toEqual({ error: 'sort does not have a valid value' });
    // The issue is confidential now: IssuesFinder hides it from a guest, so its notes are 404 Not found.
    expect((await api(notesUrl(issue.iid), { token: guest.token })).body).toEqual({ message: '404 Not found' });
  });
});

describe('PUT and DELETE /projects/:id/issues/:issue_iid/notes/:note_id', () => {
  it('lets the author edit, maintainers and the author delete, nobody edit system notes', async () => {
    const issue = await newIssue();
    const note = (await api(notesUrl(issue.iid), { token: guest.token, body: { body: 'typo' } })).body;
    const edited = await api(notesUrl(issue.iid, `/${note.id}`), { method: 'PUT', token: guest.token, body: { body: 'fixed' } });
    expect(edited.status).toBe(200);
    expect(edited.body.body).toBe('fixed');
    expect((await api(notesUrl(issue.iid, `/${note.id}`), { method: 'PUT', token: reporter.token, body: { body: 'x' } })).status).toBe(403);
    expect((await api(notesUrl(issue.iid, `/${note.id}`), { method: 'PUT', token: guest.token, body: { body: '' } })).body).toEqual({ error: 'body is empty' });
    expect((await api(notesUrl(issue.iid, `/${note.id}`), { method: 'DELETE', token: reporter.token })).status).toBe(403);
    expect((await api(notesUrl(issue.iid, `/${note.id}`), { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await api(notesUrl(issue.iid, `/${note.id}`), { token: owner.token })).body).toEqual({ message: '404 Not found' });
    await api(`/projects/${project.id}/issues/${issue.iid}`, { method: 'PUT', token: owner.token, body: { discussion_locked: true } });
    const system = (await api(notesUrl(issue.iid), { token: owner.token })).body.find((n: { system: boolean }) => n.system);
    expect((await api(notesUrl(issue.iid, `/${system.id}`), { method: 'PUT', token: owner.token, body: { body: 'x' } })).status).toBe(403);
  });
});

describe('the /promote quick action', () => {
  it('promotes an issue to an epic of its group: 202 with only the command, the issue closed, labels copied', async () => {
    const issue = await newIssue({ labels: 'promo' });
    const res = await api(notesUrl(issue.iid), { token: reporter.token, body: { body: '/promote' } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ commands_changes: { promote_to_epic: true }, summary: ['Promoted issue to an epic.'] });
    const after = await api(`/projects/${project.id}/issues/${issue.iid}`, { token: owner.token });
    expect(after.body.state).toBe('closed');
    const epics = await api(`/groups/${group.id}/epics?search=${encodeURIComponent(issue.title)}`, { token: owner.token });
    expect(epics.body.length).toBe(1);
    expect(epics.body[0]).toMatchObject({ title: issue.title, author: { id: reporter.id }, labels: ['promo'] });
    const notes = await api(notesUrl(issue.iid), { token: owner.token });
    expect(notes.body[0]).toMatchObject({ system: true, body: `promoted to epic ${group.full_path}&${epics.body[0].iid}` });
    // Issue#promoted?: a second /promote is refused and makes no second epic.
    const again = await api(notesUrl(issue.iid), { token: reporter.token, body: { body: '/promote' } });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: '400 Bad request - Note {:commands_only=>["Could not apply promote command."]}' });
    expect((await api(`/groups/${group.id}/epics?search=${encodeURIComponent(issue.title)}`, { token: owner.token })).body.length).toBe(1);
  });

  it('keeps the rest of the body as a comment (201 with commands_changes)', async () => {
    const issue = await newIssue();
    const res = await api(notesUrl(issue.iid), { token: owner.token, body: { body: 'Bigger than an issue.\n/promote' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ body: 'Bigger than an issue.', commands_changes: { promote_to_epic: true } });
  });

  it('refuses guests and projects outside a group', async () => {
    const issue = await newIssue();
    const guestTry = await api(notesUrl(issue.iid), { token: guest.token, body: { body: '/promote' } });
    expect(guestTry.status).toBe(400);
    expect((await api(`/projects/${project.id}/issues/${issue.iid}`, { token: owner.token })).body.state).toBe('opened');
    const own = await newIssue({}, personal.id);
    const res = await api(notesUrl(own.iid, '', personal.id), { token: owner.token, body: { body: '/promote' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('does not belong to a group');
  });
});

describe('notes on epics (/groups/:id/epics/:epic_id/notes)', () => {
  it('comments on an epic by its id, lists and reads the notes; a promoted epic carries its system note', async () => {
    const epic = (await api(`/groups/${group.id}/epics`, { token: reporter.token, body: { title: unique('epic') } })).body;
    const url = `/groups/${group.id}/epics/${epic.id}/notes`;
    const res = await api(url, { token: guest.token, body: { body: 'on the epic' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ body: 'on the epic', noteable_id: epic.id, noteable_type: 'Epic', project_id: null, noteable_iid: null, author: { id: guest.id } });
    const list = await api(url, { token: owner.token });
    expect(list.body.map((n: { body: string }) => n.body)).toEqual(['on the epic']);
    expect((await api(`${url}/${res.body.id}`, { token: outsider.token })).body.body).toBe('on the epic');
    expect((await api(url)).status).toBe(401);
    expect((await api(`/groups/${group.id}/epics/999999/notes`, { token: owner.token })).body).toEqual({ message: '404 Epic Not Found' });
    // Promotion wrote "promoted from issue" on its epic.
    const issue = await newIssue();
    await api(notesUrl(issue.iid), { token: owner.token, body: { body: '/promote' } });
    const promoted = (await api(`/groups/${group.id}/epics?search=${encodeURIComponent(issue.title)}`, { token: owner.token })).body[0];
    const notes = await api(`/groups/${group.id}/epics/${promoted.id}/notes`, { token: owner.token });
    expect(notes.body.map((n: { body: string; system: boolean }) => [n.system, n.body])).toEqual([[true, `promoted from issue ${project.path_with_namespace}#${issue.iid}`]]);
  });
});
