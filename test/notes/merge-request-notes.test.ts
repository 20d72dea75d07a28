/**
 * Notes and award emoji on merge requests (GitLab lib/api/notes.rb, award_emoji.rb,
 * helpers/notes_helpers.rb): the Note entity with noteable_type MergeRequest, system notes in the
 * list, internal notes, locked discussions, archived projects, user_notes_count and upvotes/downvotes
 * of the merge request kept in step.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let owner: TestUser;
let dev: TestUser;
let reporter: TestUser;
let guest: TestUser;
let outsider: TestUser;
let project: { id: number };
let hidden: { id: number };

async function seed(pid: number) {
  const res = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'README.md', content: '# r\n' }] } });
  expect(res.status).toBe(201);
}
/** A fresh branch with one commit and a merge request from it into main. */
async function newMr(pid = project.id, body: Record<string, unknown> = {}) {
  const name = unique('feat');
  expect((await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: name, ref: 'main' } })).status).toBe(201);
  const c = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch: name, commit_message: 'c', actions: [{ action: 'create', file_path: `${name}.txt`, content: 'x' }] } });
  expect(c.status).toBe(201);
  const res = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { title: unique('mr'), source_branch: name, target_branch: 'main', ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: number; iid: number; updated_at: string };
}
const mrUrl = (iid: number, pid = project.id) => `/projects/${pid}/merge_requests/${iid}`;
const notesUrl = (iid: number, suffix = '', pid = project.id) => `${mrUrl(iid, pid)}/notes${suffix}`;
const getMr = async (iid: number, pid = project.id) => (await api(mrUrl(iid, pid), { token: owner.token })).body;
const bodies = (list: { body: string }[]) => list.map((n) => n.body);

beforeAll(async () => {
  [owner, dev, reporter, guest, outsider] = await Promise.all([createUser(), createUser(), createUser(), createUser(), createUser()]);
  project = (await api('/projects', { token: owner.token, body: { name: unique('mrn'), visibility: 'public' } })).body;
  hidden = (await api('/projects', { token: owner.token, body: { name: unique('mrh'), visibility: 'private' } })).body;
  for (const p of [project, hidden]) {
    for (const [u, level] of [[dev, 30], [reporter, 20], [guest, 10]] as const) {
      expect((await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
    }
    await seed(p.id);
  }
});

describe('POST /projects/:id/merge_requests/:merge_request_iid/notes', () => {
  it('comments with the Note entity, counts the comment in user_notes_count and touches the merge request', async () => {
    const mr = await newMr();
    const res = await api(notesUrl(mr.iid), { token: outsider.token, body: { body: 'Looks good' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual([
      'id', 'type', 'body', 'attachment', 'author', 'created_at', 'updated_at', 'system', 'noteable_id', 'noteable_type', 'project_id', 'resolvable',
      'confidential', 'internal', 'imported', 'imported_from', 'noteable_iid', 'commands_changes',
    ]);
    expect(res.body).toMatchObject({
      type: null,
      body: 'Looks good',
      attachment: null,
      author: { id: outsider.id, username: outsider.username },
      system: false,
      noteable_id: mr.id,
      noteable_type: 'MergeRequest',
      project_id: project.id,
      resolvable: false,
      confidential: false,
      internal: false,
      imported: false,
      imported_from: 'none',
      noteable_iid: mr.iid,
      commands_changes: {},
    });
    const after = await getMr(mr.iid);
    expect(after.user_notes_count).toBe(1);
    expect(after.updated_at >= mr.updated_at).toBe(true);
    expect(after.updated_at).toBe(res.body.created_at);
    const read = await api(notesUrl(mr.iid, `/${res.body.id}`), { token: guest.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it('validates the body, needs sign-in and answers 404 Not found for a missing merge request', async () => {
    const mr = await newMr();
    const missingBody = await api(notesUrl(mr.iid), { token: owner.token, body: {} });
    expect(missingBody.status).toBe(400);
    expect(missingBody.body).toEqual({ error: 'body is missing' });
    const blank = await api(notesUrl(mr.iid), { token: owner.token, body: { body: ' \n ' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ message: `400 Bad request - Note {:note=>["can't be blank"]}` });
    const long = await api(notesUrl(mr.iid), { token: owner.token, body: { body: 'x'.repeat(1_000_001) } });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ message: '400 Bad request - Note {:note=>["is too long (maximum is 1000000 characters)"]}' });
    const anonymous = await api(notesUrl(mr.iid), { body: { body: 'x' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: '401 Unauthorized' });
    expect((await api(notesUrl(mr.iid))).status).toBe(401);
    const missing = await api(notesUrl(999999), { token: owner.token, body: { body: 'x' } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Not found' });
    const badIid = await api(notesUrl('abc' as unknown as number), { token: owner.token });
    expect(badIid.status).toBe(400);
    expect(badIid.body).toEqual({ error: 'merge_request_iid is invalid' });
    const noProject = await api(notesUrl(mr.iid, '', 99999999), { token: owner.token });
    expect(noProject.body).toEqual({ message: '404 Project Not Found' });
    // Nothing of the refused requests was written.
    expect((await api(notesUrl(mr.iid), { token: owner.token })).body).toEqual([]);
    expect((await getMr(mr.iid)).user_notes_count).toBe(0);
  });

  it('honours created_at from project owners and administrators only', async () => {
    const mr = await newMr();
    const when = '2020-01-02T03:04:05.000Z';
    const byOwner = await api(notesUrl(mr.iid), { token: owner.token, body: { body: 'old', created_at: when } });
    expect(byOwner.body).toMatchObject({ created_at: when, updated_at: when });
    const byAdmin = await api(notesUrl(mr.iid), { token: rootToken, body: { body: 'older', created_at: '2019-05-06T00:00:00Z' } });
    expect(byAdmin.body).toMatchObject({ created_at: '2019-05-06T00:00:00.000Z', author: { id: 1 } });
    const byDev = await api(notesUrl(mr.iid), { token: dev.token, body: { body: 'now', created_at: when } });
    expect(byDev.status).toBe(201);
    expect(byDev.body.created_at).not.toBe(when);
    const bad = await api(notesUrl(mr.iid), { token: owner.token, body: { body: 'x', created_at: 'yesterday' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'created_at is invalid' });
    expect(bodies((await api(notesUrl(mr.iid, '?sort=asc'), { token: owner.token })).body)).toEqual(['older', 'old', 'now']);
  });

  it('keeps internal notes from guests and outsiders and counts them in user_notes_count', async () => {
    const mr = await newMr();
    const internal = await api(notesUrl(mr.iid), { token: reporter.token, body: { body: 'between us', internal: true } });
    expect(internal.status).toBe(201);
    expect(internal.body).toMatchObject({ internal: true, confidential: true });
    const legacy = await api(notesUrl(mr.iid), { token: dev.token, body: { body: 'old flag', confidential: true } });
    expect(legacy.body).toMatchObject({ internal: true, confidential: true });
    // mark_note_as_internal is refused silently: the note is created public.
    const sneaky = await api(notesUrl(mr.iid), { token: guest.token, body: { body: 'try', internal: true } });
    expect(sneaky.status).toBe(201);
    expect(sneaky.body.internal).toBe(false);
    for (const token of [guest.token, outsider.token]) {
      const view = await api(notesUrl(mr.iid), { token });
      expect(bodies(view.body)).toEqual(['try']);
      expect(view.headers.get('x-total')).toBe('1');
      const one = await api(notesUrl(mr.iid, `/${internal.body.id}`), { token });
      expect(one.status).toBe(404);
      expect(one.body).toEqual({ message: '404 Note Not Found' });
    }
    expect(bodies((await api(notesUrl(mr.iid), { token: reporter.token })).body)).toEqual(['try', 'old flag', 'between us']);
    expect((await getMr(mr.iid)).user_notes_count).toBe(3);
  });

  it('a locked discussion refuses comments from non-members (403) and takes them from members', async () => {
    const mr = await newMr();
    const early = await api(notesUrl(mr.iid), { token: outsider.token, body: { body: 'before the lock' } });
    expect(early.status).toBe(201);
    const lock = await api(mrUrl(mr.iid), { method: 'PUT', token: owner.token, body: { discussion_locked: true } });
    expect(lock.body.discussion_locked).toBe(true);
    const refused = await api(notesUrl(mr.iid), { token: outsider.token, body: { body: 'x' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: '403 Forbidden' });
    // The author of an earlier note lost admin_note with the lock too.
    expect((await api(notesUrl(mr.iid, `/${early.body.id}`), { method: 'PUT', token: outsider.token, body: { body: 'edit' } })).status).toBe(403);
    expect((await api(notesUrl(mr.iid, `/${early.body.id}`), { method: 'DELETE', token: outsider.token })).status).toBe(403);
    expect((await api(notesUrl(mr.iid), { token: guest.token, body: { body: 'guest member' } })).status).toBe(201);
    expect((await api(notesUrl(mr.iid), { token: rootToken, body: { body: 'admin' } })).status).toBe(201);
    const list = await api(notesUrl(mr.iid, '?activity_filter=only_comments'), { token: outsider.token });
    expect(bodies(list.body)).toEqual(['admin', 'guest member', 'before the lock']);
  });

  it('answers 429 past notes_create_limit and writes nothing', async () => {
    const before = (await api('/application/settings', { token: rootToken })).body.notes_create_limit;
    const mr = await newMr();
    const writer = await createUser();
    try {
      expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { notes_create_limit: 2 } })).status).toBe(200);
      expect((await api(notesUrl(mr.iid), { token: writer.token, body: { body: 'one' } })).status).toBe(201);
      expect((await api(notesUrl(mr.iid), { token: writer.token, body: { body: 'two' } })).status).toBe(201);
      const third = await api(notesUrl(mr.iid), { token: writer.token, body: { body: 'three' } });
      expect(third.status).toBe(429);
      expect(third.body).toEqual({ message: { error: 'This endpoint has been requested too many times. Try again later.' } });
    } finally {
      await api('/application/settings', { method: 'PUT', token: rootToken, body: { notes_create_limit: before } });
    }
    expect(bodies((await api(notesUrl(mr.iid), { token: owner.token })).body)).toEqual(['two', 'one']);
  });
});

describe('GET /projects/:id/merge_requests/:merge_request_iid/notes', () => {
  it('lists comments and the system notes written elsewhere, newest first; filters, sorts and pages', async () => {
    const mr = await newMr();
    await api(notesUrl(mr.iid), { token: owner.token, body: { body: 'first' } });
    expect((await api(mrUrl(mr.iid), { method: 'PUT', token: owner.token, body: { discussion_locked: true } })).status).toBe(200);
    await api(notesUrl(mr.iid), { token: dev.token, body: { body: 'second' } });
    const all = await api(notesUrl(mr.iid), { token: reporter.token });
    expect(all.status).toBe(200);
    expect(bodies(all.body)).toEqual(['second', 'locked the discussion in this merge request', 'first']);
    expect(all.body[1]).toMatchObject({ system: true, noteable_type: 'MergeRequest', noteable_iid: mr.iid, author: { id: owner.id } });
    expect(all.headers.get('x-total')).toBe('3');
    const asc = await api(notesUrl(mr.iid, '?sort=asc&activity_filter=only_comments'), { token: owner.token });
    expect(bodies(asc.body)).toEqual(['first', 'second']);
    const activity = await api(notesUrl(mr.iid, '?activity_filter=only_activity'), { token: owner.token });
    expect(bodies(activity.body)).toEqual(['locked the discussion in this merge request']);
    const page = await api(notesUrl(mr.iid, '?per_page=2&page=2'), { token: owner.token });
    expect(bodies(page.body)).toEqual(['first']);
    expect(page.headers.get('x-total')).toBe('3');
    expect(page.headers.get('x-total-pages')).toBe('2');
    expect(page.headers.get('link')).toContain('rel="prev"');
    // user_notes_count leaves system notes out.
    expect((await getMr(mr.iid)).user_notes_count).toBe(2);
    const badSort = await api(notesUrl(mr.iid, '?sort=up'), { token: owner.token });
    expect(badSort.status).toBe(400);
    expect(badSort.body).toEqual({ error: 'sort does not have a valid value' });
    expect((await api(notesUrl(mr.iid, '?order_by=title'), { token: owner.token })).body).toEqual({ error: 'order_by does not have a valid value' });
    expect((await api(notesUrl(mr.iid, '?activity_filter=some'), { token: owner.token })).body).toEqual({ error: 'activity_filter does not have a valid value' });
  });

  it('orders by updated_at: an edited note moves first', async () => {
    const mr = await newMr();
    const a = (await api(notesUrl(mr.iid), { token: owner.token, body: { body: 'a' } })).body;
    await api(notesUrl(mr.iid), { token: owner.token, body: { body: 'b' } });
    await new Promise((r) => setTimeout(r, 5));
    expect((await api(notesUrl(mr.iid, `/${a.id}`), { method: 'PUT', token: owner.token, body: { body: 'a2' } })).status).toBe(200);
    expect(bodies((await api(notesUrl(mr.iid, '?order_by=updated_at'), { token: owner.token })).body)).toEqual(['a2', 'b']);
    expect(bodies((await api(notesUrl(mr.iid, '?order_by=updated_at&sort=asc'), { token: owner.token })).body)).toEqual(['b', 'a2']);
    expect(bodies((await api(notesUrl(mr.iid), { token: owner.token })).body)).toEqual(['b', 'a2']);
  });

  it('hides the notes of a merge request the caller may not read (404 Not found), and of an unreadable project', async () => {
    const mr = await newMr(hidden.id);
    const note = await api(notesUrl(mr.iid, '', hidden.id), { token: reporter.token, body: { body: 'private' } });
    expect(note.status).toBe(201);
    // A guest of a private project sees the project but not its merge requests (MergeRequestsFinder).
    for (const [method, suffix, body] of [['GET', '', undefined], ['GET', `/${note.body.id}`, undefined], ['POST', '', { body: 'x' }], ['PUT', `/${note.body.id}`, { body: 'x' }], ['DELETE', `/${note.body.id}`, undefined]] as const) {
      const res = await api(notesUrl(mr.iid, suffix, hidden.id), { method, token: guest.token, body });
      expect([method, suffix, res.status, res.body]).toEqual([method, suffix, 404, { message: '404 Not found' }]);
      const outside = await api(notesUrl(mr.iid, suffix, hidden.id), { method, token: outsider.token, body });
      expect([method, suffix, outside.status, outside.body]).toEqual([method, suffix, 404, { message: '404 Project Not Found' }]);
    }
    expect(bodies((await api(notesUrl(mr.iid, '', hidden.id), { token: reporter.token })).body)).toEqual(['private']);
  });

  it('a note of another merge request or an unknown note is 404 Not found', async () => {
    const mr = await newMr();
    const other = await newMr();
    const note = (await api(notesUrl(other.iid), { token: owner.token, body: { body: 'elsewhere' } })).body;
    for (const id of [note.id, 99999999]) {
      const res = await api(notesUrl(mr.iid, `/${id}`), { token: owner.token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: '404 Not found' });
    }
    // An issue note with the same id is not a merge request note either.
    const issue = (await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'i' } })).body;
    const issueNote = (await api(`/projects/${project.id}/issues/${issue.iid}/notes`, { token: owner.token, body: { body: 'on issue' } })).body;
    expect((await api(notesUrl(mr.iid, `/${issueNote.id}`), { token: owner.token })).body).toEqual({ message: '404 Not found' });
    expect((await api(notesUrl(mr.iid), { token: owner.token })).body).toEqual([]);
  });
});

describe('comments and the merge request around them', () => {
  it('a commenter becomes a participant and is subscribed; an internal note makes nobody a participant', async () => {
    const mr = await newMr();
    const commenter = await createUser();
    expect((await api(mrUrl(mr.iid), { token: commenter.token })).body.subscribed).toBe(false);
    expect((await api(notesUrl(mr.iid), { token: commenter.token, body: { body: 'I was here, cc @' + guest.username } })).status).toBe(201);
    expect((await api(notesUrl(mr.iid), { token: reporter.token, body: { body: 'quietly', internal: true } })).status).toBe(201);
    const people = await api(`${mrUrl(mr.iid)}/participants`, { token: owner.token });
    expect(people.body.map((u: { id: number }) => u.id)).toEqual([owner.id, commenter.id, guest.id]);
    expect((await api(mrUrl(mr.iid), { token: commenter.token })).body.subscribed).toBe(true);
  });
});

describe('PUT /projects/:id/merge_requests/:merge_request_iid/notes/:note_id', () => {
  it('lets the author and maintainers edit, nobody edit a system note, and refuses to change confidentiality', async () => {
    const mr = await newMr();
    const note = (await api(notesUrl(mr.iid), { token: guest.token, body: { body: 'typo' } })).body;
    const edited = await api(notesUrl(mr.iid, `/${note.id}`), { method: 'PUT', token: guest.token, body: { body: 'fixed' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id: note.id, body: 'fixed', author: { id: guest.id }, created_at: note.created_at, noteable_iid: mr.iid });
    expect(edited.body.updated_at >= note.updated_at).toBe(true);
    // after_save :touch_noteable: an edit moves the merge request's updated_at too.
    expect((await getMr(mr.iid)).updated_at).toBe(edited.body.updated_at);
    const byDev = await api(notesUrl(mr.iid, `/${note.id}`), { method: 'PUT', token: dev.token, body: { body: 'dev' } });
    expect(byDev.status).toBe(403);
    expect(byDev.body).toEqual({ message: '403 Forbidden' });
    const byOwner = await api(notesUrl(mr.iid, `/${note.id}`), { method: 'PUT', token: owner.token, body: { body: 'owner' } });
    expect(byOwner.body.body).toBe('owner');
    const empty = await api(notesUrl(mr.iid, `/${note.id}`), { method: 'PUT', token: guest.token, body: { body: '' } });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ error: 'body is empty' });
    const confidential = await api(notesUrl(mr.iid, `/${note.id}`), { method: 'PUT', token: owner.token, body: { body: 'secret now', confidential: true } });
    expect(confidential.status).toBe(400);
    expect(confidential.body).toEqual({ message: '400 Bad request - Note {:confidential=>["can not be changed for existing notes"]}' });
    // The same value is no change; nothing of the refused edits was saved.
    expect((await api(notesUrl(mr.iid, `/${note.id}`), { method: 'PUT', token: owner.token, body: { confidential: false } })).status).toBe(200);
    expect((await api(notesUrl(mr.iid, `/${note.id}`), { token: owner.token })).body).toMatchObject({ body: 'owner', internal: false });
    await api(mrUrl(mr.iid), { method: 'PUT', token: owner.token, body: { title: 'renamed' } });
    const system = (await api(notesUrl(mr.iid, '?activity_filter=only_activity'), { token: owner.token })).body[0];
    expect(system.system).toBe(true);
    expect((await api(notesUrl(mr.iid, `/${system.id}`), { method: 'PUT', token: owner.token, body: { body: 'x' } })).status).toBe(403);
    expect((await api(notesUrl(mr.iid, `/${system.id}`), { method: 'DELETE', token: rootToken })).status).toBe(403);
  });

  it('an internal note stays internal', async () => {
    const mr = await newMr();
    const note = (await api(notesUrl(mr.iid), { token: reporter.token, body: { body: 'inside', internal: true } })).body;
    const res = await api(notesUrl(mr.iid, `/${note.id}`), { method: 'PUT', token: reporter.token, body: { confidential: false } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: '400 Bad request - Note {:confidential=>["can not be changed for existing notes"]}' });
    const ok = await api(notesUrl(mr.iid, `/${note.id}`), { method: 'PUT', token: reporter.token, body: { body: 'still inside' } });
    expect(ok.body).toMatchObject({ body: 'still inside', internal: true });
  });
});

describe('DELETE /projects/:id/merge_requests/:merge_request_iid/notes/:note_id', () => {
  it('lets the author and maintainers delete, removes the note with its award emoji, honours If-Unmodified-Since', async () => {
    const mr = await newMr();
    const note = (await api(notesUrl(mr.iid), { token: guest.token, body: { body: 'bye' } })).body;
    const award = await api(notesUrl(mr.iid, `/${note.id}/award_emoji`), { token: dev.token, body: { name: 'heart' } });
    expect(award.status).toBe(201);
    expect((await api(notesUrl(mr.iid, `/${note.id}`), { method: 'DELETE', token: dev.token })).status).toBe(403);
    const stale = await api(notesUrl(mr.iid, `/${note.id}`), { method: 'DELETE', token: guest.token, headers: { 'If-Unmodified-Since': 'Thu, 01 Jan 2015 00:00:00 GMT' } });
    expect(stale.status).toBe(412);
    expect(stale.body).toEqual({ message: '412 Precondition Failed' });
    expect((await api(notesUrl(mr.iid, `/${note.id}`), { token: guest.token })).status).toBe(200);
    const gone = await api(notesUrl(mr.iid, `/${note.id}`), { method: 'DELETE', token: guest.token });
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    expect((await api(notesUrl(mr.iid, `/${note.id}`), { token: owner.token })).body).toEqual({ message: '404 Not found' });
    expect((await api(notesUrl(mr.iid, `/${note.id}/award_emoji`), { token: owner.token })).body).toEqual({ message: '404 Not found' });
    expect((await api(notesUrl(mr.iid, `/${note.id}`), { method: 'DELETE', token: guest.token })).status).toBe(404);
    expect((await getMr(mr.iid)).user_notes_count).toBe(0);
    const byMaintainer = (await api(notesUrl(mr.iid), { token: guest.token, body: { body: 'again' } })).body;
    expect((await api(notesUrl(mr.iid, `/${byMaintainer.id}`), { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await api(notesUrl(mr.iid), { token: owner.token })).body).toEqual([]);
  });
});

describe('notes and award emoji of an archived project', () => {
  it('stay readable but cannot be written (403 for notes, 404 Award Emoji Not Found for awards)', async () => {
    const p = (await api('/projects', { token: owner.token, body: { name: unique('arch'), visibility: 'public' } })).body;
    await seed(p.id);
    const mr = await newMr(p.id);
    const note = (await api(notesUrl(mr.iid, '', p.id), { token: owner.token, body: { body: 'before' } })).body;
    const award = (await api(`${mrUrl(mr.iid, p.id)}/award_emoji`, { token: owner.token, body: { name: 'thumbsup' } })).body;
    const arch = await api(`/projects/${p.id}/archive`, { method: 'POST', token: owner.token });
    if (arch.status === 404) expect((await api(`/projects/${p.id}`, { method: 'PUT', token: owner.token, body: { archived: true } })).status).toBe(200);
    expect((await api(`/projects/${p.id}`, { token: owner.token })).body.archived).toBe(true);
    for (const token of [owner.token, rootToken]) {
      expect((await api(notesUrl(mr.iid, '', p.id), { token, body: { body: 'after' } })).body).toEqual({ message: '403 Forbidden' });
      expect((await api(notesUrl(mr.iid, `/${note.id}`, p.id), { method: 'PUT', token, body: { body: 'after' } })).body).toEqual({ message: '403 Forbidden' });
      expect((await api(notesUrl(mr.iid, `/${note.id}`, p.id), { method: 'DELETE', token })).body).toEqual({ message: '403 Forbidden' });
      const a = await api(`${mrUrl(mr.iid, p.id)}/award_emoji`, { token, body: { name: 'tada' } });
      expect(a.status).toBe(404);
      expect(a.body).toEqual({ message: '404 Award Emoji Not Found' });
      expect((await api(notesUrl(mr.iid, `/${note.id}/award_emoji`, p.id), { token, body: { name: 'tada' } })).body).toEqual({ message: '404 Award Emoji Not Found' });
    }
    expect(bodies((await api(notesUrl(mr.iid, '', p.id), { token: outsider.token })).body)).toEqual(['before']);
    expect((await api(`${mrUrl(mr.iid, p.id)}/award_emoji`, { token: outsider.token })).body.map((x: { name: string }) => x.name)).toEqual(['thumbsup']);
    expect((await getMr(mr.iid, p.id)).upvotes).toBe(1);
    // award_emoji.rb checks only the award's owner on delete.
    expect((await api(`${mrUrl(mr.iid, p.id)}/award_emoji/${award.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await getMr(mr.iid, p.id)).upvotes).toBe(0);
  });
});

describe('award emoji on merge requests', () => {
  const awards = (iid: number, suffix = '', pid = project.id) => `${mrUrl(iid, pid)}/award_emoji${suffix}`;

  it('awards, lists, reads, and keeps upvotes/downvotes of the merge request in step', async () => {
    const mr = await newMr();
    const up = await api(awards(mr.iid), { token: outsider.token, body: { name: 'thumbsup' } });
    expect(up.status).toBe(201);
    expect(Object.keys(up.body)).toEqual(['id', 'name', 'user', 'created_at', 'updated_at', 'awardable_id', 'awardable_type', 'url']);
    expect(up.body).toMatchObject({ name: 'thumbsup', user: { id: outsider.id }, awardable_id: mr.id, awardable_type: 'MergeRequest', url: null });
    await api(awards(mr.iid), { token: dev.token, body: { name: 'thumbsup' } });
    await api(awards(mr.iid), { token: guest.token, body: { name: 'thumbsdown' } });
    await api(awards(mr.iid), { token: guest.token, body: { name: 'tada' } });
    const list = await api(awards(mr.iid), { token: reporter.token });
    expect(list.body.map((a: { name: string }) => a.name)).toEqual(['thumbsup', 'thumbsup', 'thumbsdown', 'tada']);
    expect(list.headers.get('x-total')).toBe('4');
    const paged = await api(awards(mr.iid, '?per_page=1&page=3'), { token: reporter.token });
    expect(paged.body.map((a: { name: string }) => a.name)).toEqual(['thumbsdown']);
    const one = await api(awards(mr.iid, `/${up.body.id}`), { token: guest.token });
    expect(one.body).toEqual(up.body);
    expect(await getMr(mr.iid)).toMatchObject({ upvotes: 2, downvotes: 1 });
    // The list shows the same counts; popularity orders by them; my_reaction_emoji finds them.
    const row = (await api(`/projects/${project.id}/merge_requests?iids[]=${mr.iid}`, { token: owner.token })).body[0];
    expect(row).toMatchObject({ upvotes: 2, downvotes: 1 });
    const popular = await api(`/projects/${project.id}/merge_requests?order_by=popularity&per_page=1`, { token: owner.token });
    expect(popular.body[0].iid).toBe(mr.iid);
    const mine = await api(`/projects/${project.id}/merge_requests?my_reaction_emoji=thumbsdown`, { token: guest.token });
    expect(mine.body.map((m: { iid: number }) => m.iid)).toEqual([mr.iid]);
  });

  it('refuses a duplicate and an unknown name; deletes only one’s own (admins any), recounting the votes', async () => {
    const mr = await newMr();
    const a = await api(awards(mr.iid), { token: dev.token, body: { name: 'thumbsup' } });
    const dup = await api(awards(mr.iid), { token: dev.token, body: { name: 'thumbsup' } });
    expect(dup.status).toBe(404);
    expect(dup.body).toEqual({ message: '404 Award Emoji {:name=>["has already been taken"]} Not Found' });
    const bad = await api(awards(mr.iid), { token: dev.token, body: { name: 'not-an-emoji-xyz' } });
    expect(bad.status).toBe(404);
    expect(bad.body).toEqual({ message: '404 Award Emoji {:name=>["is not a valid emoji name"]} Not Found' });
    expect((await api(awards(mr.iid), { token: dev.token, body: {} })).body).toEqual({ error: 'name is missing' });
    expect((await api(awards(mr.iid), { body: { name: 'tada' } })).status).toBe(401);
    expect((await api(awards(mr.iid))).status).toBe(401);
    expect((await api(awards(mr.iid), { token: owner.token })).body.map((x: { name: string }) => x.name)).toEqual(['thumbsup']);
    const notYours = await api(awards(mr.iid, `/${a.body.id}`), { method: 'DELETE', token: owner.token });
    expect(notYours.status).toBe(401);
    expect(notYours.body).toEqual({ message: '401 Unauthorized' });
    expect((await getMr(mr.iid)).upvotes).toBe(1);
    expect((await api(awards(mr.iid, `/${a.body.id}`), { method: 'DELETE', token: dev.token })).status).toBe(204);
    expect((await getMr(mr.iid)).upvotes).toBe(0);
    expect((await api(awards(mr.iid, `/${a.body.id}`), { token: dev.token })).body).toEqual({ message: '404 Not found' });
    const down = await api(awards(mr.iid), { token: guest.token, body: { name: 'thumbsdown' } });
    expect((await getMr(mr.iid)).downvotes).toBe(1);
    expect((await api(awards(mr.iid, `/${down.body.id}`), { method: 'DELETE', token: rootToken })).status).toBe(204);
    expect((await getMr(mr.iid)).downvotes).toBe(0);
    expect((await api(awards(mr.iid), { token: owner.token })).body).toEqual([]);
    expect((await api(awards(999999), { token: owner.token })).body).toEqual({ message: '404 Not found' });
  });

  it('a merge request the caller may not read: 404 Award Emoji Not Found; a locked one takes awards from members only', async () => {
    const mr = await newMr(hidden.id);
    const a = await api(awards(mr.iid, '', hidden.id), { token: reporter.token, body: { name: 'rocket' } });
    expect(a.status).toBe(201);
    for (const [method, suffix, body] of [['GET', '', undefined], ['GET', `/${a.body.id}`, undefined], ['POST', '', { name: 'eyes' }]] as const) {
      const res = await api(awards(mr.iid, suffix, hidden.id), { method, token: guest.token, body });
      expect([method, suffix, res.status, res.body]).toEqual([method, suffix, 404, { message: '404 Award Emoji Not Found' }]);
    }
    expect((await api(awards(mr.iid, '', hidden.id), { token: outsider.token })).body).toEqual({ message: '404 Project Not Found' });
    expect((await api(awards(mr.iid, '', hidden.id), { token: reporter.token })).body.map((x: { name: string }) => x.name)).toEqual(['rocket']);

    const locked = await newMr();
    expect((await api(mrUrl(locked.iid), { method: 'PUT', token: owner.token, body: { discussion_locked: true } })).body.discussion_locked).toBe(true);
    const refused = await api(awards(locked.iid), { token: outsider.token, body: { name: 'thumbsup' } });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ message: '404 Award Emoji Not Found' });
    expect((await api(awards(locked.iid), { token: guest.token, body: { name: 'thumbsup' } })).status).toBe(201);
    expect((await api(awards(locked.iid), { token: outsider.token })).body.map((x: { name: string }) => x.name)).toEqual(['thumbsup']);
    expect((await getMr(locked.iid)).upvotes).toBe(1);
  });
});

describe('award emoji on merge request notes', () => {
  it('awards a note without counting it as a vote of the merge request', async () => {
    const mr = await newMr();
    const note = (await api(notesUrl(mr.iid), { token: owner.token, body: { body: 'hi' } })).body;
    const url = notesUrl(mr.iid, `/${note.id}/award_emoji`);
    const res = await api(url, { token: outsider.token, body: { name: 'thumbsup' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'thumbsup', awardable_id: note.id, awardable_type: 'Note', user: { id: outsider.id } });
    expect((await api(url, { token: guest.token })).body.map((a: { name: string }) => a.name)).toEqual(['thumbsup']);
    expect((await api(`${url}/${res.body.id}`, { token: guest.token })).body).toEqual(res.body);
    expect((await getMr(mr.iid)).upvotes).toBe(0);
    expect((await api(`${mrUrl(mr.iid)}/award_emoji`, { token: owner.token })).body).toEqual([]);
    // An award id of the merge request itself is not one of the note's.
    const own = (await api(`${mrUrl(mr.iid)}/award_emoji`, { token: owner.token, body: { name: 'tada' } })).body;
    expect((await api(`${url}/${own.id}`, { token: owner.token })).body).toEqual({ message: '404 Not found' });
    expect((await api(notesUrl(mr.iid, '/99999999/award_emoji'), { token: owner.token })).body).toEqual({ message: '404 Not found' });
    expect((await api(`${url}/${res.body.id}`, { method: 'DELETE', token: outsider.token })).status).toBe(204);
    expect((await api(url, { token: guest.token })).body).toEqual([]);
    expect((await getMr(mr.iid)).upvotes).toBe(0);
  });

  it('an internal note’s awards are hidden from those who may not read it', async () => {
    const mr = await newMr();
    const note = (await api(notesUrl(mr.iid), { token: reporter.token, body: { body: 'inside', internal: true } })).body;
    const url = notesUrl(mr.iid, `/${note.id}/award_emoji`);
    expect((await api(url, { token: dev.token, body: { name: 'eyes' } })).status).toBe(201);
    for (const [method, body] of [['GET', undefined], ['POST', { name: 'heart' }]] as const) {
      const res = await api(url, { method, token: guest.token, body });
      expect([method, res.status, res.body]).toEqual([method, 404, { message: '404 Award Emoji Not Found' }]);
    }
    expect((await api(url, { token: reporter.token })).body.map((a: { name: string }) => a.name)).toEqual(['eyes']);
  });
});
