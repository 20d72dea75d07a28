/**
 * Discussions (GitLab lib/api/discussions.rb, entities/discussion.rb): threads on issues, merge
 * requests, epics and commits, one model with the notes API (a plain note is an individual-note
 * discussion; replying turns it into a thread), pagination by discussion, internal notes left out.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let dev: TestUser;
let guest: TestUser;
let outsider: TestUser;
let project: { id: number };
let sha: string;

const HEX40 = /^[0-9a-f]{40}$/;

beforeAll(async () => {
  [owner, dev, guest, outsider] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
  project = (await api('/projects', { token: owner.token, body: { name: unique('disc'), visibility: 'public' } })).body;
  for (const [u, level] of [[dev, 30], [guest, 10]] as const) {
    expect((await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
  }
  const c = await api(`/projects/${project.id}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'README.md', content: '# r\n' }] } });
  expect(c.status).toBe(201);
  sha = c.body.id;
});

const newIssue = async () => (await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: unique('i') } })).body as { iid: number; id: number };
const issueUrl = (iid: number, suffix = '') => `/projects/${project.id}/issues/${iid}${suffix}`;

describe('POST /projects/:id/issues/:issue_iid/discussions', () => {
  it('starts a thread: a 40-hex id, not an individual note, one DiscussionNote', async () => {
    const issue = await newIssue();
    const res = await api(issueUrl(issue.iid, '/discussions'), { token: guest.token, body: { body: 'Why?' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'individual_note', 'notes']);
    expect(res.body.id).toMatch(HEX40);
    expect(res.body.individual_note).toBe(false);
    expect(res.body.notes).toHaveLength(1);
    expect(res.body.notes[0]).toMatchObject({ type: 'DiscussionNote', body: 'Why?', noteable_type: 'Issue', noteable_id: issue.id, noteable_iid: issue.iid, resolvable: false, author: { id: guest.id } });
    // One model: the notes API shows the thread's note.
    const listed = await api(issueUrl(issue.iid, '/notes'), { token: guest.token });
    expect(listed.body.map((n: { id: number }) => n.id)).toContain(res.body.notes[0].id);
    // And the single discussion reads back the same.
    const one = await api(issueUrl(issue.iid, `/discussions/${res.body.id}`), { token: guest.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(res.body);
  });

  it('refuses a blank body as Notes::CreateService does, and a missing one as Grape does', async () => {
    const issue = await newIssue();
    const blank = await api(issueUrl(issue.iid, '/discussions'), { token: guest.token, body: { body: '  ' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ message: `400 Bad request - Note {:note=>["can't be blank"]}` });
    const missing = await api(issueUrl(issue.iid, '/discussions'), { token: guest.token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'body is missing' });
    expect((await api(issueUrl(issue.iid, '/discussions'), { token: guest.token })).body).toEqual([]);
  });

  it('backdates created_at for owners only (set_note_created_at)', async () => {
    const issue = await newIssue();
    const at = '2020-01-02T03:04:05.000Z';
    const mine = await api(issueUrl(issue.iid, '/discussions'), { token: owner.token, body: { body: 'old', created_at: at } });
    expect(mine.body.notes[0].created_at).toBe(at);
    const theirs = await api(issueUrl(issue.iid, '/discussions'), { token: dev.token, body: { body: 'new', created_at: at } });
    expect(theirs.body.notes[0].created_at).not.toBe(at);
  });
});

describe('GET /projects/:id/issues/:issue_iid/discussions', () => {
  it('shows a plain note as an individual-note discussion, and a reply turns it into a thread', async () => {
    const issue = await newIssue();
    const note = (await api(issueUrl(issue.iid, '/notes'), { token: dev.token, body: { body: 'plain' } })).body;
    const before = await api(issueUrl(issue.iid, '/discussions'), { token: dev.token });
    expect(before.status).toBe(200);
    const d = before.body.find((x: { notes: { id: number }[] }) => x.notes[0].id === note.id);
    expect(d).toMatchObject({ individual_note: true, notes: [{ id: note.id, type: null }] });
    expect(d.id).toMatch(HEX40);

    const reply = await api(issueUrl(issue.iid, `/discussions/${d.id}/notes`), { token: guest.token, body: { body: 'reply' } });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ type: 'DiscussionNote', body: 'reply', author: { id: guest.id } });
    const after = await api(issueUrl(issue.iid, `/discussions/${d.id}`), { token: dev.token });
    expect(after.body.individual_note).toBe(false);
    expect(after.body.notes.map((n: { id: number; type: string }) => [n.id, n.type])).toEqual([
      [note.id, 'DiscussionNote'],
      [reply.body.id, 'DiscussionNote'],
    ]);
    expect((await api(issueUrl(issue.iid, `/notes/${note.id}`), { token: dev.token })).body.type).toBe('DiscussionNote');
    const notesOf = await api(issueUrl(issue.iid, `/discussions/${d.id}/notes`), { token: dev.token });
    expect(notesOf.body.map((n: { id: number }) => n.id)).toEqual([note.id, reply.body.id]);
  });

  it('pages by discussion with X-Total, in the order of their first note', async () => {
    const issue = await newIssue();
    const ids: string[] = [];
    for (const body of ['one', 'two', 'three']) ids.push((await api(issueUrl(issue.iid, '/discussions'), { token: owner.token, body: { body } })).body.id);
    await api(issueUrl(issue.iid, `/discussions/${ids[0]}/notes`), { token: owner.token, body: { body: 'one again' } });
    const first = await api(issueUrl(issue.iid, '/discussions?per_page=2'), { token: owner.token });
    expect(first.headers.get('x-total')).toBe('3');
    expect(first.headers.get('x-total-pages')).toBe('2');
    expect(first.body.map((d: { id: string }) => d.id)).toEqual(ids.slice(0, 2));
    expect(first.body[0].notes.map((n: { body: string }) => n.body)).toEqual(['one', 'one again']);
    const second = await api(issueUrl(issue.iid, '/discussions?per_page=2&page=2'), { token: owner.token });
    expect(second.body.map((d: { id: string }) => d.id)).toEqual([ids[2]]);
  });

  it('lists system notes as individual discussions that cannot be replied to', async () => {
    const issue = await newIssue();
    expect((await api(issueUrl(issue.iid), { method: 'PUT', token: owner.token, body: { title: 'renamed' } })).status).toBe(200);
    const list = await api(issueUrl(issue.iid, '/discussions'), { token: owner.token });
    const system = list.body.find((d: { notes: { system: boolean }[] }) => d.notes[0].system);
    expect(system).toMatchObject({ individual_note: true, notes: [{ system: true, type: null }] });
    expect(system.notes[0].body).toMatch(/^changed title/);
    const reply = await api(issueUrl(issue.iid, `/discussions/${system.id}/notes`), { token: owner.token, body: { body: 'no' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message: '400 Bad request - Discussion can not be replied to.' });
  });

  it('leaves out internal notes the caller may not read, in the count too', async () => {
    const issue = await newIssue();
    expect((await api(issueUrl(issue.iid, '/notes'), { token: owner.token, body: { body: 'secret', internal: true } })).status).toBe(201);
    await api(issueUrl(issue.iid, '/discussions'), { token: owner.token, body: { body: 'open' } });
    const mine = await api(issueUrl(issue.iid, '/discussions'), { token: owner.token });
    expect(mine.headers.get('x-total')).toBe('2');
    const theirs = await api(issueUrl(issue.iid, '/discussions'), { token: outsider.token });
    expect(theirs.headers.get('x-total')).toBe('1');
    expect(theirs.body.map((d: { notes: { body: string }[] }) => d.notes[0].body)).toEqual(['open']);
    const hidden = mine.body.find((d: { notes: { body: string }[] }) => d.notes[0].body === 'secret');
    const res = await api(issueUrl(issue.iid, `/discussions/${hidden.id}`), { token: outsider.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Discussion Not Found' });
  });

  it('answers 401 without a caller and 404 for a missing discussion', async () => {
    const issue = await newIssue();
    expect((await api(issueUrl(issue.iid, '/discussions'))).status).toBe(401);
    const missing = await api(issueUrl(issue.iid, `/discussions/${'a'.repeat(40)}`), { token: owner.token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Discussion Not Found' });
    const notes = await api(issueUrl(issue.iid, `/discussions/${'a'.repeat(40)}/notes`), { token: owner.token });
    expect(notes.body).toEqual({ message: '404 Notes Not Found' });
  });
});

describe('PUT and DELETE /projects/:id/issues/:issue_iid/discussions/:discussion_id/notes/:note_id', () => {
  it('edits (admin_note), refuses to resolve an issue note, and deletes', async () => {
    const issue = await newIssue();
    const d = (await api(issueUrl(issue.iid, '/discussions'), { token: guest.token, body: { body: 'draft' } })).body;
    const noteUrl = issueUrl(issue.iid, `/discussions/${d.id}/notes/${d.notes[0].id}`);
    const other = await api(noteUrl, { method: 'PUT', token: dev.token, body: { body: 'hijack' } });
    expect(other.status).toBe(403);
    const edited = await api(noteUrl, { method: 'PUT', token: guest.token, body: { body: 'final' } });
    expect(edited.status).toBe(200);
    expect(edited.body.body).toBe('final');
    expect((await api(noteUrl, { token: guest.token })).body.body).toBe('final');
    const both = await api(noteUrl, { method: 'PUT', token: guest.token, body: { body: 'x', resolved: true } });
    expect(both.body).toEqual({ error: 'body, resolved are mutually exclusive' });
    const neither = await api(noteUrl, { method: 'PUT', token: guest.token, body: {} });
    expect(neither.body).toEqual({ error: 'body, resolved are missing, exactly one parameter must be provided' });
    const resolve = await api(noteUrl, { method: 'PUT', token: guest.token, body: { resolved: true } });
    expect(resolve.status).toBe(400);
    expect(resolve.body).toEqual({ message: '400 Bad request - Note is not resolvable' });
    expect((await api(noteUrl, { method: 'DELETE', token: dev.token })).status).toBe(403);
    expect((await api(noteUrl, { method: 'DELETE', token: guest.token })).status).toBe(204);
    expect((await api(issueUrl(issue.iid, `/discussions/${d.id}`), { token: guest.token })).status).toBe(404);
  });
});

describe('/projects/:id/repository/commits/:sha/discussions', () => {
  it('keeps a commit thread with commit notes (noteable_id null), replies, 404 Commit Not Found', async () => {
    const url = `/projects/${project.id}/repository/commits/${sha}/discussions`;
    const res = await api(url, { token: guest.token, body: { body: 'nice commit' } });
    expect(res.status).toBe(201);
    expect(res.body.notes[0]).toMatchObject({ type: 'DiscussionNote', noteable_type: 'Commit', noteable_id: null, noteable_iid: null, project_id: project.id, resolvable: false });
    const reply = await api(`${url}/${res.body.id}/notes`, { token: dev.token, body: { body: 'thanks' } });
    expect(reply.status).toBe(201);
    const list = await api(url, { token: outsider.token });
    expect(list.status).toBe(200);
    const d = list.body.find((x: { id: string }) => x.id === res.body.id);
    expect(d.notes.map((n: { body: string }) => n.body)).toEqual(['nice commit', 'thanks']);
    // A short sha names the same commit.
    expect((await api(`/projects/${project.id}/repository/commits/${sha.slice(0, 8)}/discussions/${res.body.id}`, { token: guest.token })).body.id).toBe(res.body.id);
    const missing = await api(`/projects/${project.id}/repository/commits/${'0'.repeat(40)}/discussions`, { token: guest.token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Commit Not Found' });
  });
});

describe('/groups/:id/epics/:epic_id/discussions', () => {
  it('threads on an epic, and replies turn an epic note into a thread', async () => {
    const path = unique('dg');
    const group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'public' } })).body;
    const epic = (await api(`/groups/${group.id}/epics`, { token: owner.token, body: { title: 'Roadmap' } })).body;
    const url = `/groups/${group.id}/epics/${epic.id}/discussions`;
    const d = await api(url, { token: owner.token, body: { body: 'Q3?' } });
    expect(d.status).toBe(201);
    expect(d.body.notes[0]).toMatchObject({ type: 'DiscussionNote', noteable_type: 'Epic', noteable_id: epic.id, noteable_iid: null, project_id: null });
    const note = (await api(`/groups/${group.id}/epics/${epic.id}/notes`, { token: owner.token, body: { body: 'plain' } })).body;
    const single = (await api(url, { token: owner.token })).body.find((x: { notes: { id: number }[] }) => x.notes[0].id === note.id);
    expect(single.individual_note).toBe(true);
    expect((await api(`${url}/${single.id}/notes`, { token: owner.token, body: { body: 'reply' } })).status).toBe(201);
    expect((await api(`${url}/${single.id}`, { token: owner.token })).body.individual_note).toBe(false);
  });
});

describe('editing a commit discussion note', () => {
  it('saves the body of a note on a commit', async () => {
    const url = `/projects/${project.id}/repository/commits/${sha}/discussions`;
    const d = (await api(url, { token: dev.token, body: { body: 'typo' } })).body;
    const res = await api(`${url}/${d.id}/notes/${d.notes[0].id}`, { method: 'PUT', token: dev.token, body: { body: 'fixed' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ body: 'fixed', noteable_type: 'Commit' });
    expect((await api(`${url}/${d.id}`, { token: dev.token })).body.notes[0].body).toBe('fixed');
  });
});

describe('diff notes on a commit', () => {
  it('take a position on the commit\'s own diff (diff_refs_match_commit), never resolvable', async () => {
    const c = await api(`/projects/${project.id}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'two', actions: [{ action: 'update', file_path: 'README.md', content: '# r\nmore\n' }] } });
    expect(c.status).toBe(201);
    const parent = c.body.parent_ids[0];
    const url = `/projects/${project.id}/repository/commits/${c.body.id}/discussions`;
    const position = { base_sha: parent, start_sha: parent, head_sha: c.body.id, position_type: 'text', old_path: 'README.md', new_path: 'README.md', new_line: 2 };
    const res = await api(url, { token: dev.token, body: { body: 'more?', position } });
    expect(res.status).toBe(201);
    const note = res.body.notes[0];
    expect(note).toMatchObject({ type: 'DiffNote', noteable_type: 'Commit', resolvable: false, position: { ...position, old_line: null, line_range: null } });
    // commit_id is shown for a merge request's diff notes only (Entities::Note).
    expect('commit_id' in note).toBe(false);
    const off = await api(url, { token: dev.token, body: { body: 'x', position: { ...position, start_sha: c.body.id } } });
    expect(off.status).toBe(400);
    expect(off.body).toEqual({ message: '400 Bad request - Note {:commit_id=>["does not match the diff refs"]}' });
  });
});
