/**
 * What a deleted user's contributions become (Users::MigrateRecordsToGhostUserService; reference B 1.5):
 * on a soft delete the ghost user authors them, on hard_delete they are gone. Approvals are not
 * migrated by GitLab: they go with the user either way.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, type TestUser, unique } from '../support';

let owner: TestUser;

async function commit(pid: number, branch: string, token: string) {
  const res = await api(`/projects/${pid}/repository/commits`, {
    token,
    body: { branch, commit_message: unique('c'), actions: [{ action: 'create', file_path: `${unique('f')}.txt`, content: 'x\n' }] },
  });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
}

/** A group project with a main branch, the given users developers in it. */
async function project(devs: TestUser[]): Promise<number> {
  const path = unique('gh');
  const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } });
  for (const u of devs) await api(`/groups/${g.body.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: 30 } });
  const p = await api('/projects', { token: owner.token, body: { path: 'p', namespace_id: g.body.id } });
  if (p.status !== 201) throw new Error(p.text);
  await commit(p.body.id, 'main', owner.token);
  return p.body.id;
}

async function mergeRequest(pid: number, author: TestUser, body: Record<string, unknown> = {}) {
  const branch = unique('feat');
  await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch, ref: 'main' } });
  await commit(pid, branch, owner.token);
  const m = await api(`/projects/${pid}/merge_requests`, { token: author.token, body: { source_branch: branch, target_branch: 'main', title: unique('MR'), ...body } });
  if (m.status !== 201) throw new Error(m.text);
  return m.body.iid as number;
}

/** Everything a user contributes, as a client would: an issue, a merge request, comments, an award, an approval. */
async function contribute(pid: number, u: TestUser, ownerIssueIid: number, ownerMrIid: number) {
  const issue = await api(`/projects/${pid}/issues`, { token: u.token, body: { title: unique('issue'), assignee_ids: [u.id] } });
  expect(issue.status).toBe(201);
  const mrIid = await mergeRequest(pid, u);
  const note = await api(`/projects/${pid}/issues/${ownerIssueIid}/notes`, { token: u.token, body: { body: unique('comment') } });
  expect(note.status).toBe(201);
  const mrNote = await api(`/projects/${pid}/merge_requests/${ownerMrIid}/notes`, { token: u.token, body: { body: unique('review') } });
  expect(mrNote.status).toBe(201);
  const award = await api(`/projects/${pid}/issues/${ownerIssueIid}/award_emoji`, { token: u.token, body: { name: 'thumbsup' } });
  expect(award.status).toBe(201);
  const approve = await api(`/projects/${pid}/merge_requests/${ownerMrIid}/approve`, { token: u.token, method: 'POST' });
  expect(approve.status).toBe(201);
  return { issueIid: issue.body.iid as number, mrIid, noteId: note.body.id as number, mrNoteId: mrNote.body.id as number };
}

beforeAll(async () => {
  owner = await createUser();
});

describe('DELETE /users/:id: contributions and the ghost user', () => {
  it('re-attributes issues, merge requests, comments and award emoji to the ghost user; assignments and approvals go', async () => {
    const [doomed, other] = await Promise.all([createUser(), createUser()]);
    const pid = await project([doomed, other]);
    const ownerIssue = await api(`/projects/${pid}/issues`, { token: owner.token, body: { title: unique('owner issue') } });
    const ownerMrIid = await mergeRequest(pid, owner, { assignee_ids: [doomed.id], reviewer_ids: [doomed.id] });
    const mine = await contribute(pid, doomed, ownerIssue.body.iid, ownerMrIid);
    // Another deleted user's identical award: the ghost can hold it only once (award_emoji_unique).
    await api(`/projects/${pid}/issues/${ownerIssue.body.iid}/award_emoji`, { token: other.token, body: { name: 'thumbsup' } });
    expect((await api(`/users/${other.id}`, { method: 'DELETE', token: rootToken })).status).toBe(204);

    expect((await api(`/users/${doomed.id}`, { method: 'DELETE', token: rootToken })).status).toBe(204);

    const isGhost = (u: any) => {
      expect(u).toMatchObject({ name: 'Ghost User', state: 'active' });
      expect(u.username).toMatch(/^ghost\d*$/);
    };
    const issue = await api(`/projects/${pid}/issues/${mine.issueIid}`, { token: owner.token });
    expect(issue.status).toBe(200);
    isGhost(issue.body.author);
    expect(issue.body.assignees).toEqual([]);
    expect(issue.body.assignee).toBeNull();
    const mr = await api(`/projects/${pid}/merge_requests/${mine.mrIid}`, { token: owner.token });
    expect(mr.status).toBe(200);
    isGhost(mr.body.author);
    const notes = await api(`/projects/${pid}/issues/${ownerIssue.body.iid}/notes`, { token: owner.token });
    const note = notes.body.find((n: any) => n.id === mine.noteId);
    isGhost(note.author);
    const mrNote = await api(`/projects/${pid}/merge_requests/${ownerMrIid}/notes/${mine.mrNoteId}`, { token: owner.token });
    isGhost(mrNote.body.author);
    const awards = await api(`/projects/${pid}/issues/${ownerIssue.body.iid}/award_emoji`, { token: owner.token });
    expect(awards.body).toHaveLength(1);
    expect(awards.body[0].name).toBe('thumbsup');
    isGhost(awards.body[0].user);
    // Assignee and reviewer rows go (dependent: :destroy); approvals are not migrated (GitLab deletes them).
    const ownerMr = await api(`/projects/${pid}/merge_requests/${ownerMrIid}`, { token: owner.token });
    expect(ownerMr.body.assignees).toEqual([]);
    expect(ownerMr.body.reviewers).toEqual([]);
    const approvals = await api(`/projects/${pid}/merge_requests/${ownerMrIid}/approvals`, { token: owner.token });
    expect(approvals.status).toBe(200);
    expect(approvals.body.approved_by).toEqual([]);
    // The issue lists render the ghost too.
    const list = await api(`/projects/${pid}/issues?per_page=100`, { token: owner.token });
    isGhost(list.body.find((i: any) => i.iid === mine.issueIid).author);
  });

  it('hard_delete=true removes the contributions instead', async () => {
    const doomed = await createUser();
    const pid = await project([doomed]);
    const ownerIssue = await api(`/projects/${pid}/issues`, { token: owner.token, body: { title: unique('owner issue') } });
    const ownerMrIid = await mergeRequest(pid, owner);
    const mine = await contribute(pid, doomed, ownerIssue.body.iid, ownerMrIid);

    expect((await api(`/users/${doomed.id}?hard_delete=true`, { method: 'DELETE', token: rootToken })).status).toBe(204);

    expect(await api(`/projects/${pid}/issues/${mine.issueIid}`, { token: owner.token })).toMatchObject({ status: 404 });
    expect(await api(`/projects/${pid}/merge_requests/${mine.mrIid}`, { token: owner.token })).toMatchObject({ status: 404 });
    const notes = await api(`/projects/${pid}/issues/${ownerIssue.body.iid}/notes`, { token: owner.token });
    expect(notes.body.map((n: any) => n.id)).not.toContain(mine.noteId);
    expect((await api(`/projects/${pid}/merge_requests/${ownerMrIid}/notes/${mine.mrNoteId}`, { token: owner.token })).status).toBe(404);
    expect((await api(`/projects/${pid}/issues/${ownerIssue.body.iid}/award_emoji`, { token: owner.token })).body).toEqual([]);
    expect((await api(`/projects/${pid}/merge_requests/${ownerMrIid}/approvals`, { token: owner.token })).body.approved_by).toEqual([]);
    // Nothing left renders a null author.
    const list = await api(`/projects/${pid}/issues?per_page=100`, { token: owner.token });
    expect(list.body.map((i: any) => i.iid)).toEqual([ownerIssue.body.iid]);
  });
});
