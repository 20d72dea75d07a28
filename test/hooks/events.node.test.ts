/**
 * The other event kinds delivered on Node to a receiver on 127.0.0.1: merge requests (open, update,
 * close, reopen, approved, unapproved, merge), notes on issues, merge requests and commits, pushes (with the
 * branch filter), deployments; group hooks get the events of their projects; a project without a
 * matching hook records no event at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookReceiver } from './receiver';
import { harnessApp, storageSql } from '../harness/node';
import { api, createUser, rootToken, unique } from '../support';

const rx = hookReceiver();
const received = rx.received;
const idle = async () => (await harnessApp()).jobs.idle();
const at = (path: string) => received.filter((r) => r.path === path);

async function setup(flags: Record<string, unknown>) {
  const u = await createUser();
  const p = (await api('/projects', { token: u.token, body: { name: unique('ev') } })).body;
  const commit = (branch: string, file: string, extra: Record<string, unknown> = {}) =>
    api(`/projects/${p.id}/repository/commits`, { token: u.token, body: { branch, commit_message: `add ${file}`, actions: [{ action: 'create', file_path: file, content: 'x' }], ...extra } });
  expect((await commit('main', 'README.md')).status).toBe(201);
  const path = `/h/${unique('p')}`;
  expect((await api(`/projects/${p.id}/hooks`, { token: u.token, body: { url: `${rx.base}${path}`, push_events: false, ...flags } })).status).toBe(201);
  return { u, p, path, commit };
}

describe('webhook events', () => {
  it('merge request open, update, approved, unapproved, close, reopen and merge', async () => {
    const { u, p, path, commit } = await setup({ merge_requests_events: true });
    expect((await commit('feature', 'f.txt', { start_branch: 'main' })).status).toBe(201);
    const mr = (await api(`/projects/${p.id}/merge_requests`, { token: u.token, body: { title: 'Feature', source_branch: 'feature', target_branch: 'main' } })).body;
    await api(`/projects/${p.id}/merge_requests/${mr.iid}`, { method: 'PUT', token: u.token, body: { title: 'Feature 2' } });
    const approver = await createUser();
    await api(`/projects/${p.id}/members`, { token: u.token, body: { user_id: approver.id, access_level: 40 } });
    expect((await api(`/projects/${p.id}/merge_requests/${mr.iid}/approve`, { method: 'POST', token: approver.token })).status).toBe(201);
    expect((await api(`/projects/${p.id}/merge_requests/${mr.iid}/unapprove`, { method: 'POST', token: approver.token })).status).toBe(201);
    await api(`/projects/${p.id}/merge_requests/${mr.iid}`, { method: 'PUT', token: u.token, body: { state_event: 'close' } });
    await api(`/projects/${p.id}/merge_requests/${mr.iid}`, { method: 'PUT', token: u.token, body: { state_event: 'reopen' } });
    expect((await api(`/projects/${p.id}/merge_requests/${mr.iid}/merge`, { method: 'PUT', token: u.token })).status).toBe(200);
    await idle();
    const got = at(path);
    expect(got.map((r) => r.headers['x-gitlab-event'])).toEqual(Array(7).fill('Merge Request Hook'));
    // No approval is required here: the approval approves it, and its removal leaves it approved (`unapproval`).
    expect(got.map((r) => r.body.object_attributes.action)).toEqual(['open', 'update', 'approved', 'unapproval', 'close', 'reopen', 'merge']);
    const [open, update] = got.map((r) => r.body);
    expect(open).toMatchObject({
      object_kind: 'merge_request',
      event_type: 'merge_request',
      user: { id: u.id },
      object_attributes: { iid: mr.iid, source_branch: 'feature', target_branch: 'main', state: 'opened', url: `${p.web_url}/-/merge_requests/${mr.iid}` },
    });
    expect(open.object_attributes.last_commit.id).toBe(mr.sha);
    expect(update.changes.title).toEqual({ previous: 'Feature', current: 'Feature 2' });
    expect(got[2].body.user.id).toBe(approver.id);
    expect(got[6].body.object_attributes.state).toBe('merged');
  });

  it('approval and unapproval while approvals are still needed, approved and unapproved when the state flips', async () => {
    const { u, p, path, commit } = await setup({ merge_requests_events: true });
    const [a, b] = await Promise.all([createUser(), createUser()]);
    for (const x of [a, b]) await api(`/projects/${p.id}/members`, { token: u.token, body: { user_id: x.id, access_level: 30 } });
    expect((await api(`/projects/${p.id}/approval_rules`, { token: u.token, body: { name: 'two', approvals_required: 2, user_ids: [a.id, b.id] } })).status).toBe(201);
    expect((await commit('two', 'two.txt', { start_branch: 'main' })).status).toBe(201);
    const mr = (await api(`/projects/${p.id}/merge_requests`, { token: u.token, body: { title: 'Two', source_branch: 'two', target_branch: 'main' } })).body;
    const base = `/projects/${p.id}/merge_requests/${mr.iid}`;
    for (const [who, verb] of [[a, 'approve'], [b, 'approve'], [a, 'unapprove'], [b, 'unapprove']] as const) expect((await api(`${base}/${verb}`, { method: 'POST', token: who.token })).status).toBe(201);
    await idle();
    expect(at(path).map((r) => [r.body.object_attributes.action, r.body.user.id])).toEqual([
      ['open', u.id],
      ['approval', a.id],
      ['approved', b.id],
      ['unapproved', a.id],
      ['unapproval', b.id],
    ]);
  });

  it('an issue closed by a merge (Closes #n) is an issue close event', async () => {
    const { u, p, path, commit } = await setup({ issues_events: true });
    const issue = (await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'to close' } })).body;
    expect((await commit('fix', 'fix.txt', { start_branch: 'main' })).status).toBe(201);
    const mr = (await api(`/projects/${p.id}/merge_requests`, { token: u.token, body: { title: 'Fix', source_branch: 'fix', target_branch: 'main', description: `Closes #${issue.iid}` } })).body;
    expect((await api(`/projects/${p.id}/merge_requests/${mr.iid}/merge`, { method: 'PUT', token: u.token })).status).toBe(200);
    expect((await api(`/projects/${p.id}/issues/${issue.iid}`, { token: u.token })).body.state).toBe('closed');
    await idle();
    expect(at(path).map((r) => [r.body.object_attributes.iid, r.body.object_attributes.action, r.body.object_attributes.state])).toEqual([
      [issue.iid, 'open', 'opened'],
      [issue.iid, 'close', 'closed'],
    ]);
  });

  it('notes on issues and merge requests, and confidential notes only to confidential note hooks', async () => {
    const { u, p, path, commit } = await setup({ note_events: true });
    const issue = (await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'talk' } })).body;
    const note = (await api(`/projects/${p.id}/issues/${issue.iid}/notes`, { token: u.token, body: { body: 'hello there' } })).body;
    const secret = (await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'hidden', confidential: true } })).body;
    await api(`/projects/${p.id}/issues/${secret.iid}/notes`, { token: u.token, body: { body: 'psst' } });
    await idle();
    expect(at(path).map((r) => [r.headers['x-gitlab-event'], r.body.object_attributes.note])).toEqual([['Note Hook', 'hello there']]);
    expect(at(path)[0].body).toMatchObject({
      object_kind: 'note',
      event_type: 'note',
      project_id: p.id,
      object_attributes: { id: note.id, noteable_type: 'Issue', url: `${p.web_url}/-/issues/${issue.iid}#note_${note.id}`, action: 'create' },
      issue: { iid: issue.iid, title: 'talk' },
    });
    expect((await commit('topic', 't.txt', { start_branch: 'main' })).status).toBe(201);
    const mr = (await api(`/projects/${p.id}/merge_requests`, { token: u.token, body: { title: 'Topic', source_branch: 'topic', target_branch: 'main' } })).body;
    const mrNote = (await api(`/projects/${p.id}/merge_requests/${mr.iid}/notes`, { token: u.token, body: { body: 'looks good' } })).body;
    await idle();
    expect(at(path)).toHaveLength(2);
    expect(at(path)[1].body).toMatchObject({
      object_kind: 'note',
      object_attributes: { id: mrNote.id, noteable_type: 'MergeRequest', note: 'looks good', url: `${p.web_url}/-/merge_requests/${mr.iid}#note_${mrNote.id}` },
      merge_request: { iid: mr.iid, title: 'Topic', source_branch: 'topic' },
    });
  });

  it('notes written through the discussions API: threads, replies and diff notes', async () => {
    const { u, p, path, commit } = await setup({ note_events: true });
    const issue = (await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'thread' } })).body;
    const d = (await api(`/projects/${p.id}/issues/${issue.iid}/discussions`, { token: u.token, body: { body: 'start' } })).body;
    const reply = (await api(`/projects/${p.id}/issues/${issue.iid}/discussions/${d.id}/notes`, { token: u.token, body: { body: 'reply' } })).body;
    const secret = (await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'hidden', confidential: true } })).body;
    expect((await api(`/projects/${p.id}/issues/${secret.iid}/discussions`, { token: u.token, body: { body: 'psst' } })).status).toBe(201);
    await idle();
    expect(at(path).map((r) => [r.body.object_attributes.note, r.body.object_attributes.type, r.body.object_attributes.discussion_id])).toEqual([
      ['start', 'DiscussionNote', d.id],
      ['reply', 'DiscussionNote', d.id],
    ]);
    expect(at(path)[1].body.object_attributes.id).toBe(reply.id);

    expect((await commit('topic', 't.txt', { start_branch: 'main' })).status).toBe(201);
    const mr = (await api(`/projects/${p.id}/merge_requests`, { token: u.token, body: { title: 'Topic', source_branch: 'topic', target_branch: 'main' } })).body;
    const refs = (await api(`/projects/${p.id}/merge_requests/${mr.iid}`, { token: u.token })).body.diff_refs;
    const position = { position_type: 'text', ...refs, new_path: 't.txt', old_path: 't.txt', new_line: 1 };
    const diff = await api(`/projects/${p.id}/merge_requests/${mr.iid}/discussions`, { token: u.token, body: { body: 'on line one', position } });
    expect(diff.status).toBe(201);
    await idle();
    expect(at(path)).toHaveLength(3);
    const hook = at(path)[2].body;
    expect(hook).toMatchObject({ object_kind: 'note', merge_request: { iid: mr.iid }, object_attributes: { note: 'on line one', type: 'DiffNote', noteable_type: 'MergeRequest' } });
    expect(hook.object_attributes.position).toMatchObject({ base_sha: refs.base_sha, head_sha: refs.head_sha, new_path: 't.txt', new_line: 1 });
    expect(typeof hook.object_attributes.line_code).toBe('string');
  });

  it('notes on a commit (a thread and its reply) carry the commit, and no noteable id', async () => {
    const { u, p, path } = await setup({ note_events: true });
    const c = (await api(`/projects/${p.id}/repository/commits/main`, { token: u.token })).body;
    const d = (await api(`/projects/${p.id}/repository/commits/${c.id}/discussions`, { token: u.token, body: { body: 'nice commit' } })).body;
    expect(d.notes).toHaveLength(1);
    const reply = (await api(`/projects/${p.id}/repository/commits/${c.id}/discussions/${d.id}/notes`, { token: u.token, body: { body: 'agreed' } })).body;
    await idle();
    const got = at(path).map((r) => r.body);
    expect(got.map((b) => [b.object_attributes.id, b.object_attributes.note])).toEqual([
      [d.notes[0].id, 'nice commit'],
      [reply.id, 'agreed'],
    ]);
    const commit = { id: c.id, message: c.message, title: c.title, timestamp: new Date(c.authored_date).toISOString().replace(/\.\d+Z$/, '+00:00'), url: `${p.web_url}/-/commit/${c.id}`, author: { name: c.author_name, email: c.author_email } };
    for (const [i, b] of got.entries()) {
      expect(b).toMatchObject({ object_kind: 'note', event_type: 'note', project_id: p.id, commit });
      expect(b.commit).toEqual(commit);
      expect([b.issue, b.merge_request]).toEqual([undefined, undefined]);
      const id = i === 0 ? d.notes[0].id : reply.id;
      expect(b.object_attributes).toMatchObject({ noteable_type: 'Commit', noteable_id: null, commit_id: c.id, url: `${p.web_url}/-/commit/${c.id}#note_${id}`, action: 'create' });
    }
  });

  it('tag pushes: a lightweight and an annotated tag created, then deleted', async () => {
    const { u, p, path } = await setup({ tag_push_events: true });
    const head = (await api(`/projects/${p.id}/repository/commits/main`, { token: u.token })).body.id;
    expect((await api(`/projects/${p.id}/repository/tags`, { token: u.token, body: { tag_name: 'v1', ref: 'main' } })).status).toBe(201);
    const annotated = (await api(`/projects/${p.id}/repository/tags`, { token: u.token, body: { tag_name: 'v2', ref: 'main', message: 'Release two' } })).body;
    expect((await api(`/projects/${p.id}/repository/tags/v1`, { method: 'DELETE', token: u.token })).status).toBe(204);
    // A refused create records nothing.
    expect((await api(`/projects/${p.id}/repository/tags`, { token: u.token, body: { tag_name: 'v2', ref: 'main' } })).status).toBe(400);
    await idle();
    const got = at(path);
    expect(got.map((r) => r.headers['x-gitlab-event'])).toEqual(['Tag Push Hook', 'Tag Push Hook', 'Tag Push Hook']);
    const blank = '0'.repeat(40);
    expect(got.map((r) => [r.body.ref, r.body.before, r.body.after, r.body.checkout_sha, r.body.message])).toEqual([
      ['refs/tags/v1', blank, head, head, null],
      ['refs/tags/v2', blank, annotated.target, head, 'Release two'],
      ['refs/tags/v1', head, blank, null, null],
    ]);
    expect(got[0].body).toMatchObject({ object_kind: 'tag_push', event_name: 'tag_push', user_id: u.id, project_id: p.id, commits: [], total_commits_count: 0 });
  });

  it('pushes through the commits API, filtered by push_events_branch_filter', async () => {
    const { u, p, path, commit } = await setup({ push_events: true, push_events_branch_filter: 'release/*' });
    await commit('main', 'a.txt');
    const pushed = await commit('release/1', 'b.txt', { start_branch: 'main' });
    await idle();
    expect(at(path)).toHaveLength(1);
    expect(at(path)[0].headers['x-gitlab-event']).toBe('Push Hook');
    expect(at(path)[0].body).toMatchObject({
      object_kind: 'push',
      event_name: 'push',
      ref: 'refs/heads/release/1',
      after: pushed.body.id,
      user_id: u.id,
      project_id: p.id,
      total_commits_count: 1,
      commits: [{ id: pushed.body.id, message: 'add b.txt', title: 'add b.txt', added: ['b.txt'], modified: [], removed: [] }],
    });
    // Commit#repo_changes per commit, against its first parent.
    const actions = [
      { action: 'update', file_path: 'b.txt', content: 'changed' },
      { action: 'delete', file_path: 'README.md' },
      { action: 'create', file_path: 'c.txt', content: 'new' },
    ];
    const second = await api(`/projects/${p.id}/repository/commits`, { token: u.token, body: { branch: 'release/1', commit_message: 'mixed', actions } });
    expect(second.status).toBe(201);
    await idle();
    expect(at(path)).toHaveLength(2);
    const [pushedCommit] = at(path)[1].body.commits;
    expect(pushedCommit.id).toBe(second.body.id);
    expect({ added: pushedCommit.added, modified: pushedCommit.modified, removed: pushedCommit.removed }).toEqual({ added: ['c.txt'], modified: ['b.txt'], removed: ['README.md'] });
  });

  it('deployments when their status changes, and group hooks for the projects below', async () => {
    const u = await createUser();
    const gpath = unique('hg');
    const group = (await api('/groups', { token: u.token, body: { name: gpath, path: gpath } })).body;
    const p = (await api('/projects', { token: u.token, body: { name: unique('gp'), namespace_id: group.id } })).body;
    const sha = (await api(`/projects/${p.id}/repository/commits`, { token: u.token, body: { branch: 'main', commit_message: 'c', actions: [{ action: 'create', file_path: 'x', content: 'x' }] } })).body.id;
    const path = `/g/${unique('d')}`;
    const hook = await api(`/groups/${group.id}/hooks`, { token: u.token, body: { url: `${rx.base}${path}`, push_events: false, deployment_events: true } });
    expect(hook.status).toBe(201);
    expect(hook.body).toMatchObject({ group_id: group.id, deployment_events: true, push_events: false });
    const d = (await api(`/projects/${p.id}/deployments`, { token: u.token, body: { environment: 'production', sha, ref: 'main', tag: false } })).body;
    await api(`/projects/${p.id}/deployments/${d.id}`, { method: 'PUT', token: u.token, body: { status: 'running' } });
    await api(`/projects/${p.id}/deployments/${d.id}`, { method: 'PUT', token: u.token, body: { status: 'success' } });
    // An invalid transition changes nothing and records nothing.
    expect((await api(`/projects/${p.id}/deployments/${d.id}`, { method: 'PUT', token: u.token, body: { status: 'running' } })).status).toBe(400);
    await idle();
    expect(at(path).map((r) => [r.headers['x-gitlab-event'], r.body.status])).toEqual([
      ['Deployment Hook', 'running'],
      ['Deployment Hook', 'success'],
    ]);
    expect(at(path)[1].body).toMatchObject({ object_kind: 'deployment', deployment_id: d.id, environment: 'production', ref: 'main', short_sha: sha.slice(0, 8), project: { id: p.id } });
    // The group hook's own delivery log (group_hooks.rb mounts API::Hooks::Events), newest first, owners only.
    const logs = await api(`/groups/${group.id}/hooks/${hook.body.id}/events`, { token: u.token });
    expect(logs.status).toBe(200);
    expect(logs.body.map((l: any) => [l.trigger, l.response_status, l.request_data.status])).toEqual([
      ['deployment_hooks', '200', 'success'],
      ['deployment_hooks', '200', 'running'],
    ]);
    expect((await api(`/groups/${group.id}/hooks/${hook.body.id}/events?status=client_failure`, { token: u.token })).body).toEqual([]);
    expect((await api(`/groups/${group.id}/hooks/${hook.body.id}/events?per_page=21`, { token: u.token })).body).toEqual({ error: 'per_page does not have a valid value' });
    // A project hook's id is not one of the group's hooks.
    const ph = (await api(`/projects/${p.id}/hooks`, { token: u.token, body: { url: `${rx.base}${path}`, push_events: false } })).body;
    expect((await api(`/groups/${group.id}/hooks/${ph.id}/events`, { token: u.token })).body).toEqual({ message: '404 Not found' });
  });

  it('records no event for a write whose batch failed', async () => {
    const { u, p, path } = await setup({ issues_events: true });
    expect((await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'first', iid: 7 } })).status).toBe(201);
    // The same iid again: the unique index fails the whole batch (409 Duplicated issue), event row included.
    const dup = await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'second', iid: 7 } });
    expect([dup.status, dup.body]).toEqual([409, { message: 'Duplicated issue' }]);
    await idle();
    expect(await storageSql(`SELECT kind, action FROM web_hook_events WHERE project_id = ${p.id}`)).toEqual([{ kind: 'issue', action: 'open' }]);
    expect(at(path).map((r) => r.body.object_attributes.title)).toEqual(['first']);
  });

  it('records no outbox row for a project whose hooks do not take the event', async () => {
    const { u, p } = await setup({ issues_events: false, note_events: true });
    await api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'quiet' } });
    expect(await storageSql(`SELECT id FROM web_hook_events WHERE project_id = ${p.id}`)).toEqual([]);
  });
});
