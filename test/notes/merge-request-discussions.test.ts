/**
 * Merge request discussions (GitLab lib/api/discussions.rb, DiffNote, ResolvableDiscussion):
 * diff notes on a position validated as DiffNote validates it, resolving notes and discussions and
 * who may, and `blocking_discussions_resolved` / `detailed_merge_status` feeding the merge when the
 * project sets only_allow_merge_if_all_discussions_are_resolved.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let dev: TestUser;
let guest: TestUser;

const LINES = 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n';
const LINE_CODE_ERROR = `400 Bad request - Note {:line_code=>["can't be blank", "must be a valid line code"]}`;

async function newProject() {
  const project = (await api('/projects', { token: owner.token, body: { name: unique('mrd'), visibility: 'public' } })).body as { id: number };
  for (const [u, level] of [[dev, 30], [guest, 10]] as const) {
    expect((await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
  }
  const init = await api(`/projects/${project.id}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'lib.txt', content: LINES }, { action: 'create', file_path: 'README.md', content: '# r\n' }] } });
  expect(init.status).toBe(201);
  return project;
}

/** A merge request changing line 2 of lib.txt (`b` to `B`): one hunk, lines 1 to 5. */
async function newMr(pid: number) {
  const branch = unique('feat');
  expect((await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch, ref: 'main' } })).status).toBe(201);
  const c = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch, commit_message: 'B', actions: [{ action: 'update', file_path: 'lib.txt', content: LINES.replace('b\n', 'B\n') }] } });
  expect(c.status).toBe(201);
  const mr = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { title: unique('mr'), source_branch: branch, target_branch: 'main' } });
  expect(mr.status).toBe(201);
  const full = (await api(`/projects/${pid}/merge_requests/${mr.body.iid}`, { token: owner.token })).body;
  return full as { iid: number; diff_refs: { base_sha: string; start_sha: string; head_sha: string } };
}

const position = (mr: Awaited<ReturnType<typeof newMr>>, lines: { old_line?: number; new_line?: number }, extra: Record<string, unknown> = {}) => ({
  ...mr.diff_refs,
  position_type: 'text',
  old_path: 'lib.txt',
  new_path: 'lib.txt',
  ...lines,
  ...extra,
});

beforeAll(async () => {
  [owner, dev, guest] = await Promise.all([createUser(), createUser(), createUser()]);
});

describe('POST /projects/:id/merge_requests/:merge_request_iid/discussions with a position', () => {
  it('makes a resolvable DiffNote on an added, a removed, a context and an unfolded line', async () => {
    const project = await newProject();
    const mr = await newMr(project.id);
    const url = `/projects/${project.id}/merge_requests/${mr.iid}/discussions`;
    const res = await api(url, { token: guest.token, body: { body: 'capital?', position: position(mr, { new_line: 2 }) } });
    expect(res.status).toBe(201);
    const note = res.body.notes[0];
    expect(Object.keys(note)).toEqual([
      'id', 'type', 'body', 'attachment', 'author', 'created_at', 'updated_at', 'system', 'noteable_id', 'noteable_type', 'project_id', 'commit_id', 'position',
      'resolvable', 'resolved', 'resolved_by', 'resolved_at', 'confidential', 'internal', 'imported', 'imported_from', 'noteable_iid', 'commands_changes',
    ]);
    expect(note).toMatchObject({ type: 'DiffNote', noteable_type: 'MergeRequest', commit_id: null, resolvable: true, resolved: false, resolved_by: null, resolved_at: null });
    expect(note.position).toEqual({ ...mr.diff_refs, old_path: 'lib.txt', new_path: 'lib.txt', position_type: 'text', old_line: null, new_line: 2, line_range: null, ignore_whitespace_change: false });
    for (const lines of [{ old_line: 2 }, { old_line: 3, new_line: 3 }, { old_line: 10, new_line: 10 }]) {
      const ok = await api(url, { token: guest.token, body: { body: 'ok', position: position(mr, lines) } });
      expect(ok.status, JSON.stringify(lines)).toBe(201);
    }
    // A reply to a diff discussion is a diff note on the same position.
    const reply = await api(`${url}/${res.body.id}/notes`, { token: dev.token, body: { body: 'yes' } });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ type: 'DiffNote', position: note.position, resolvable: true, resolved: false });
  });

  it('refuses positions that name no line of the diff, as DiffNote validation words it', async () => {
    const project = await newProject();
    const mr = await newMr(project.id);
    const url = `/projects/${project.id}/merge_requests/${mr.iid}/discussions`;
    const cases: [Record<string, unknown>, string][] = [
      [position(mr, { new_line: 99 }), LINE_CODE_ERROR],
      // Not an added line, and not a line both sides share where the hunk says.
      [position(mr, { old_line: 10, new_line: 11 }), LINE_CODE_ERROR],
      [position(mr, { new_line: 1 }, { head_sha: 'f'.repeat(40) }), LINE_CODE_ERROR],
      [position(mr, { new_line: 1 }, { old_path: 'README.md', new_path: 'README.md' }), LINE_CODE_ERROR],
      [position(mr, {}), `400 Bad request - Note {:line_code=>["can't be blank", "must be a valid line code"], :position=>["is incomplete"]}`],
    ];
    for (const [pos, message] of cases) {
      const res = await api(url, { token: guest.token, body: { body: 'x', position: pos } });
      expect(res.status, JSON.stringify(pos)).toBe(400);
      expect(res.body).toEqual({ message });
    }
    const missing = await api(url, { token: guest.token, body: { body: 'x', position: { ...position(mr, { new_line: 2 }), base_sha: undefined } } });
    expect(missing.body).toEqual({ error: 'position[base_sha] is missing' });
    const badType = await api(url, { token: guest.token, body: { body: 'x', position: position(mr, { new_line: 2 }, { position_type: 'pixel' }) } });
    expect(badType.body).toEqual({ error: 'position[position_type] does not have a valid value' });
    expect((await api(url, { token: guest.token })).body).toEqual([]);
  });
});

describe('resolving merge request discussions', () => {
  it('blocks the merge only when the project asks, and lets developers resolve', async () => {
    const project = await newProject();
    const mr = await newMr(project.id);
    const mrUrl = `/projects/${project.id}/merge_requests/${mr.iid}`;
    const d = (await api(`${mrUrl}/discussions`, { token: guest.token, body: { body: 'fix this' } })).body;
    expect(d.notes[0]).toMatchObject({ type: 'DiscussionNote', resolvable: true, resolved: false });
    // Without the setting an unresolved discussion blocks nothing (mergeable_discussions_state?).
    expect((await api(mrUrl, { token: owner.token })).body).toMatchObject({ blocking_discussions_resolved: true, detailed_merge_status: 'mergeable' });

    const set = await api(`/projects/${project.id}`, { method: 'PUT', token: owner.token, body: { only_allow_merge_if_all_discussions_are_resolved: true } });
    expect(set.status).toBe(200);
    expect(set.body.only_allow_merge_if_all_discussions_are_resolved).toBe(true);
    expect((await api(mrUrl, { token: owner.token })).body).toMatchObject({ blocking_discussions_resolved: false, detailed_merge_status: 'discussions_not_resolved' });
    const listed = (await api(`/projects/${project.id}/merge_requests?iids[]=${mr.iid}`, { token: owner.token })).body;
    expect(listed[0]).toMatchObject({ blocking_discussions_resolved: false, detailed_merge_status: 'discussions_not_resolved' });
    const refused = await api(`${mrUrl}/merge`, { method: 'PUT', token: owner.token });
    expect(refused.status).toBe(405);
    expect(refused.body).toEqual({ message: '405 Method Not Allowed' });

    // Discussion#can_resolve?: the merge request's author or Developer and above; a guest is refused.
    const byGuest = await api(`${mrUrl}/discussions/${d.id}`, { method: 'PUT', token: guest.token, body: { resolved: true } });
    expect(byGuest.status).toBe(403);
    const resolved = await api(`${mrUrl}/discussions/${d.id}`, { method: 'PUT', token: dev.token, body: { resolved: true } });
    expect(resolved.status).toBe(200);
    expect(resolved.body.notes[0]).toMatchObject({ resolved: true, resolved_by: { id: dev.id } });
    expect(resolved.body.notes[0].resolved_at).toEqual(expect.any(String));
    expect((await api(mrUrl, { token: owner.token })).body).toMatchObject({ blocking_discussions_resolved: true, detailed_merge_status: 'mergeable' });

    const reopened = await api(`${mrUrl}/discussions/${d.id}`, { method: 'PUT', token: dev.token, body: { resolved: false } });
    expect(reopened.body.notes[0]).toMatchObject({ resolved: false, resolved_by: null, resolved_at: null });
    expect((await api(mrUrl, { token: owner.token })).body.blocking_discussions_resolved).toBe(false);
    // A note's author may resolve that note (NotePolicy), though not the whole discussion.
    const own = await api(`${mrUrl}/discussions/${d.id}/notes/${d.notes[0].id}`, { method: 'PUT', token: guest.token, body: { resolved: true } });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ resolved: true, resolved_by: { id: guest.id } });
    // A reply to a resolved discussion is resolved by its author: the thread stays resolved (Notes::BuildService).
    const reply = await api(`${mrUrl}/discussions/${d.id}/notes`, { token: dev.token, body: { body: 'done' } });
    expect(reply.body).toMatchObject({ resolvable: true, resolved: true, resolved_by: { id: dev.id } });
    const merged = await api(`${mrUrl}/merge`, { method: 'PUT', token: owner.token });
    expect(merged.status).toBe(200);
    expect(merged.body.state).toBe('merged');
  });

  it('turns a plain merge request note into a resolvable thread when replied to', async () => {
    const project = await newProject();
    const mr = await newMr(project.id);
    const mrUrl = `/projects/${project.id}/merge_requests/${mr.iid}`;
    const note = (await api(`${mrUrl}/notes`, { token: dev.token, body: { body: 'plain' } })).body;
    expect(note.resolvable).toBe(false);
    const d = (await api(`${mrUrl}/discussions`, { token: dev.token })).body.find((x: { notes: { id: number }[] }) => x.notes[0].id === note.id);
    expect(d.individual_note).toBe(true);
    // An individual note is not resolvable: nothing to resolve.
    expect((await api(`${mrUrl}/discussions/${d.id}`, { method: 'PUT', token: dev.token, body: { resolved: true } })).status).toBe(403);
    expect((await api(`${mrUrl}/discussions/${d.id}/notes`, { token: guest.token, body: { body: 'reply' } })).status).toBe(201);
    const thread = (await api(`${mrUrl}/discussions/${d.id}`, { token: dev.token })).body;
    expect(thread.individual_note).toBe(false);
    expect(thread.notes.map((n: { type: string; resolvable: boolean }) => [n.type, n.resolvable])).toEqual([
      ['DiscussionNote', true],
      ['DiscussionNote', true],
    ]);
    const res = await api(`${mrUrl}/discussions/${d.id}`, { method: 'PUT', token: owner.token, body: { resolved: true } });
    expect(res.body.notes.every((n: { resolved: boolean }) => n.resolved)).toBe(true);
  });
});

describe('locked and archived', () => {
  it('refuses non-members on a locked discussion (403) and everyone on an archived project', async () => {
    const project = await newProject();
    const mr = await newMr(project.id);
    const url = `/projects/${project.id}/merge_requests/${mr.iid}/discussions`;
    const stranger = await createUser();
    expect((await api(url, { token: stranger.token, body: { body: 'drive-by' } })).status).toBe(201);
    expect((await api(`/projects/${project.id}/merge_requests/${mr.iid}`, { method: 'PUT', token: owner.token, body: { discussion_locked: true } })).status).toBe(200);
    const locked = await api(url, { token: stranger.token, body: { body: 'again' } });
    expect(locked.status).toBe(403);
    expect((await api(url, { token: guest.token, body: { body: 'member' } })).status).toBe(201);
    expect((await api(`/projects/${project.id}`, { method: 'PUT', token: owner.token, body: { archived: true } })).status).toBe(200);
    expect((await api(url, { token: owner.token, body: { body: 'archived' } })).status).toBe(403);
    const threads = (await api(url, { token: stranger.token })).body.filter((d: { notes: { system: boolean }[] }) => !d.notes[0].system);
    expect(threads.map((d: { notes: { body: string }[] }) => d.notes[0].body)).toEqual(['drive-by', 'member']);
  });
});

describe('an automatic merge waiting for discussions', () => {
  it('merges once the last blocking discussion is resolved (Discussions::ResolveService)', async () => {
    const project = await newProject();
    expect((await api(`/projects/${project.id}`, { method: 'PUT', token: owner.token, body: { only_allow_merge_if_all_discussions_are_resolved: true } })).status).toBe(200);
    const mr = await newMr(project.id);
    const mrUrl = `/projects/${project.id}/merge_requests/${mr.iid}`;
    const d = (await api(`${mrUrl}/discussions`, { token: dev.token, body: { body: 'wait' } })).body;
    const auto = await api(`${mrUrl}/merge`, { method: 'PUT', token: owner.token, body: { auto_merge: true } });
    expect(auto.status).toBe(200);
    expect(auto.body).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true, detailed_merge_status: 'discussions_not_resolved' });
    expect((await api(`${mrUrl}/discussions/${d.id}`, { method: 'PUT', token: dev.token, body: { resolved: true } })).status).toBe(200);
    expect((await api(mrUrl, { token: owner.token })).body.state).toBe('merged');
  });

  it('does not merge on an approval while a discussion is unresolved (AutoMergeProcessWorker checks mergeability)', async () => {
    const project = await newProject();
    expect((await api(`/projects/${project.id}`, { method: 'PUT', token: owner.token, body: { only_allow_merge_if_all_discussions_are_resolved: true } })).status).toBe(200);
    expect((await api(`/projects/${project.id}/approval_rules`, { token: owner.token, body: { name: 'review', approvals_required: 1, user_ids: [dev.id] } })).status).toBe(201);
    const mr = await newMr(project.id);
    const mrUrl = `/projects/${project.id}/merge_requests/${mr.iid}`;
    const d = (await api(`${mrUrl}/discussions`, { token: dev.token, body: { body: 'wait' } })).body;
    expect((await api(`${mrUrl}/merge`, { method: 'PUT', token: owner.token, body: { auto_merge: true } })).body.merge_when_pipeline_succeeds).toBe(true);
    expect((await api(`${mrUrl}/approve`, { method: 'POST', token: dev.token })).status).toBe(201);
    expect((await api(mrUrl, { token: owner.token })).body).toMatchObject({ state: 'opened', detailed_merge_status: 'discussions_not_resolved' });
    expect((await api(`${mrUrl}/discussions/${d.id}`, { method: 'PUT', token: dev.token, body: { resolved: true } })).status).toBe(200);
    expect((await api(mrUrl, { token: owner.token })).body.state).toBe('merged');
  });
});
