/**
 * Issue 13: merge request writes within the write budget of 3 storage round trips, on both runtimes
 * (the caller cached first, as the budget test does): the checks' reads in the batch that finds the
 * merge request, then the write with its answer's reads in one batch. The answers are the same as
 * before: each request's effect is checked too.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

const WRITE_BUDGET = 3;
let owner: TestUser;
let pid: number;

async function commit(branch: string, actions: Record<string, unknown>[], start?: string, project = pid) {
  const res = await api(`/projects/${project}/repository/commits`, { token: owner.token, body: { branch, start_branch: start, commit_message: unique('c'), actions } });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
  return res.body as { id: string };
}
const file = (file_path: string, content = 'x\n') => ({ action: 'create', file_path, content });

async function openMr(body: Record<string, unknown> = {}) {
  const branch = unique('feat');
  await commit(branch, [file(`${branch}.txt`)], 'main');
  const res = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title: unique('MR'), ...body } });
  expect(res.status).toBe(201);
  return { branch, iid: res.body.iid as number, base: `/projects/${pid}/merge_requests/${res.body.iid}` };
}

/** The request with the caller cached, and its round trips. */
async function measured(path: string, method: string, body?: unknown, as = owner) {
  await api('/user', { token: as.token });
  const res = await api(path, { method, token: as.token, body });
  return { res, trips: Number(res.headers.get('x-storage-round-trips')) };
}

beforeAll(async () => {
  owner = await createUser();
  const p = await api('/projects', { token: owner.token, body: { name: unique('mrw'), visibility: 'private' } });
  expect(p.status).toBe(201);
  pid = p.body.id;
  await commit('main', [file('README.md')]);
});

describe('merge request writes within the round-trip budget', () => {
  it('PUT updates the merge request and answers it in one batch', async () => {
    const { base } = await openMr();
    const { res, trips } = await measured(base, 'PUT', { description: 'new words', title: 'Draft: renamed' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ description: 'new words', title: 'Draft: renamed', draft: true, detailed_merge_status: 'draft_status' });
    expect(trips).toBeLessThanOrEqual(WRITE_BUDGET);
    const notes = await api(`${base}/notes?sort=asc`, { token: owner.token });
    expect(notes.body.map((n: { body: string }) => n.body)).toEqual(expect.arrayContaining(['changed the description', 'marked this merge request as **draft**']));
  });

  it('PUT close, reopen, another target branch and labels read what they check with the merge request', async () => {
    const { base, branch } = await openMr();
    const close = await measured(base, 'PUT', { state_event: 'close' });
    expect(close.res.body).toMatchObject({ state: 'closed', closed_by: { id: owner.id } });
    expect(close.trips).toBeLessThanOrEqual(WRITE_BUDGET);
    const reopen = await measured(base, 'PUT', { state_event: 'reopen' });
    expect(reopen.res.body).toMatchObject({ state: 'opened', closed_by: null });
    expect(reopen.trips).toBeLessThanOrEqual(WRITE_BUDGET);
    const target = unique('target');
    expect((await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: target, ref: 'main' } })).status).toBe(201);
    const retarget = await measured(base, 'PUT', { target_branch: target });
    // (A new target's merge base, diff version and merge facts are read cold once: not counted here.)
    expect(retarget.res.body).toMatchObject({ target_branch: target, source_branch: branch });
    const labels = await measured(base, 'PUT', { labels: 'one,two' });
    expect(labels.res.body.labels).toEqual(['one', 'two']);
    expect(labels.trips).toBeLessThanOrEqual(WRITE_BUDGET);
    // Another open merge request for the same branches: the reopen is refused (409), read in the same batch.
    await api(base, { method: 'PUT', token: owner.token, body: { state_event: 'close', target_branch: 'main' } });
    const twin = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title: unique('twin') } });
    expect(twin.status).toBe(201);
    const refused = await api(base, { method: 'PUT', token: owner.token, body: { state_event: 'reopen' } });
    expect(refused).toMatchObject({ status: 409, body: { message: [`Another open merge request already exists for this source branch: !${twin.body.iid}`] } });
  });

  it('unsubscribe and subscribe answer the entity with the new subscription', async () => {
    const { base } = await openMr();
    const off = await measured(`${base}/unsubscribe`, 'POST');
    expect(off.res.status).toBe(201);
    expect(off.res.body.subscribed).toBe(false);
    expect(off.trips).toBeLessThanOrEqual(WRITE_BUDGET);
    const on = await measured(`${base}/subscribe`, 'POST');
    expect(on.res.status).toBe(201);
    expect(on.res.body.subscribed).toBe(true);
    expect(on.trips).toBeLessThanOrEqual(WRITE_BUDGET);
    expect((await api(`${base}/subscribe`, { method: 'POST', token: owner.token })).status).toBe(304);
  });

  it('POST todo writes the to-do and answers it with its merge request target', async () => {
    const { base, iid } = await openMr();
    const { res, trips } = await measured(`${base}/todo`, 'POST');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ action_name: 'marked', target_type: 'MergeRequest', state: 'pending', target: { iid, subscribed: false } });
    expect(trips).toBeLessThanOrEqual(WRITE_BUDGET);
    expect((await api(`${base}/todo`, { method: 'POST', token: owner.token })).status).toBe(304);
  });

  it('POST pipelines and PUT rebase check everything in one batch', async () => {
    const { base } = await openMr();
    const pipe = await measured(`${base}/pipelines`, 'POST');
    expect(pipe.res).toMatchObject({ status: 400, body: { message: { base: ['Missing CI config file'] } } });
    expect(pipe.trips).toBeLessThanOrEqual(WRITE_BUDGET);
    const rebase = await measured(`${base}/rebase`, 'PUT');
    expect(rebase.res).toMatchObject({ status: 202, body: { rebase_in_progress: true } });
    expect(rebase.trips).toBeLessThanOrEqual(WRITE_BUDGET);
  });

  it('PUT merge with auto_merge on a draft schedules it, and cancel unschedules it', async () => {
    const { base } = await openMr({ title: 'Draft: later' });
    // A draft's approval rules are built on the first read of its approval state (the approvals'
    // lazy rebuild writes them), which the draft's answers never asked for: read it once first.
    expect((await api(`${base}/approval_state`, { token: owner.token })).status).toBe(200);
    const set = await measured(`${base}/merge`, 'PUT', { auto_merge: true });
    expect(set.res.status).toBe(200);
    expect(set.res.body).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true, merge_user: { id: owner.id } });
    expect(set.trips).toBeLessThanOrEqual(WRITE_BUDGET);
    const cancel = await measured(`${base}/cancel_merge_when_pipeline_succeeds`, 'POST');
    expect(cancel.res.status).toBe(201);
    expect(cancel.res.body).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: false, merge_user: null });
    expect(cancel.trips).toBeLessThanOrEqual(WRITE_BUDGET);
  });

  it('PUT merge merges, closes the issue it closes, deletes the source branch when asked, in one batch', async () => {
    const issue = await api(`/projects/${pid}/issues`, { token: owner.token, body: { title: unique('bug') } });
    expect(issue.status).toBe(201);
    const { base, branch } = await openMr({ description: `Closes #${issue.body.iid}` });
    const { res, trips } = await measured(`${base}/merge`, 'PUT', { should_remove_source_branch: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'merged', merged_by: { id: owner.id }, detailed_merge_status: 'not_open' });
    expect(res.body.merge_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(trips).toBeLessThanOrEqual(WRITE_BUDGET);
    expect((await api(`/projects/${pid}/issues/${issue.body.iid}`, { token: owner.token })).body.state).toBe('closed');
    expect((await api(`/projects/${pid}/repository/branches/${branch}`, { token: owner.token })).status).toBe(404);
    expect((await api(`/projects/${pid}/repository/branches/main`, { token: owner.token })).body.commit.id).toBe(res.body.merge_commit_sha);
    // Merged already: the checks refuse before anything is written.
    expect((await api(`${base}/merge`, { method: 'PUT', token: owner.token })).status).toBe(405);
  });

  it('PUT merge with squash and should_remove_source_branch: a squash and a merge commit, no read sent twice', async () => {
    const branch = unique('sq');
    await commit(branch, [file(`${branch}-1.txt`, 'one\n')], 'main');
    await commit(branch, [file(`${branch}-2.txt`, 'two\n')]);
    const mr = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title: unique('Squashed') } });
    expect(mr.status).toBe(201);
    const target = (await api(`/projects/${pid}/repository/branches/main`, { token: owner.token })).body.commit.id as string;
    const { res, trips } = await measured(`/projects/${pid}/merge_requests/${mr.body.iid}/merge`, 'PUT', { squash: true, should_remove_source_branch: true });
    expect(res.status).toBe(200);
    expect(trips).toBeLessThanOrEqual(WRITE_BUDGET);
    expect(res.headers.get('x-storage-repeated-reads')).toBe('0');
    expect(res.body).toMatchObject({ state: 'merged', squash: true, should_remove_source_branch: true });
    const squash = (await api(`/projects/${pid}/repository/commits/${res.body.squash_commit_sha}`, { token: owner.token })).body;
    expect(squash).toMatchObject({ title: mr.body.title, parent_ids: [target] });
    const merge = (await api(`/projects/${pid}/repository/commits/${res.body.merge_commit_sha}`, { token: owner.token })).body;
    expect(merge.parent_ids).toEqual([target, res.body.squash_commit_sha]);
    expect((await api(`/projects/${pid}/repository/branches/main`, { token: owner.token })).body.commit.id).toBe(res.body.merge_commit_sha);
    expect((await api(`/projects/${pid}/repository/branches/${branch}`, { token: owner.token })).status).toBe(404);
    // The merged tree has both files of the squashed branch; the history of main goes through the squash commit only.
    const files = (await api(`/projects/${pid}/repository/tree?ref=main&per_page=100`, { token: owner.token })).body.map((e: { path: string }) => e.path);
    expect(files).toEqual(expect.arrayContaining([`${branch}-1.txt`, `${branch}-2.txt`]));
    const history = (await api(`/projects/${pid}/repository/commits?ref_name=main&per_page=3`, { token: owner.token })).body.map((c: { id: string }) => c.id);
    expect(history.slice(0, 3)).toEqual([res.body.merge_commit_sha, res.body.squash_commit_sha, target]);
  });

  it('PUT merge right after a push to the source branch: the stale approval rules are rebuilt from what the first batch read', async () => {
    const { base, branch } = await openMr();
    await commit(branch, [file(`${branch}-more.txt`)]);
    const { res, trips } = await measured(`${base}/merge`, 'PUT', { squash: true, should_remove_source_branch: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'merged', squash: true });
    expect(res.headers.get('x-storage-repeated-reads')).toBe('0');
    // The batch that finds it, the rules' rebuild with the rebuilt rules read back (src/approvals/
    // system-rules.ts: the project's rules come from the first batch, not read again), the merge.
    expect(trips).toBeLessThanOrEqual(WRITE_BUDGET);
  });

  it('PUT merge right after a push, with report approver rules naming a user and a group: the rebuilt rules read back whole in the rebuild\'s batch', async () => {
    // A project of a group, a Coverage-Check rule naming a user, and a Vulnerability-Check rule naming the group.
    const dev = await createUser();
    const path = unique('rag');
    const group = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } });
    expect(group.status).toBe(201);
    expect((await api(`/groups/${group.body.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } })).status).toBe(201);
    const project = await api('/projects', { token: owner.token, body: { path: 'p', namespace_id: group.body.id } });
    expect(project.status).toBe(201);
    const P = `/projects/${project.body.id}`;
    await commit('main', [file('README.md')], undefined, project.body.id);
    const coverage = await api(`${P}/approval_rules`, {
      token: owner.token,
      body: { name: 'Coverage-Check', approvals_required: 0, rule_type: 'report_approver', report_type: 'code_coverage', user_ids: [dev.id] },
    });
    expect(coverage.status).toBe(201);
    const vulnerability = await api(`${P}/approval_rules`, {
      token: owner.token,
      body: { name: 'Vulnerability-Check', approvals_required: 0, rule_type: 'report_approver', report_type: 'vulnerability', group_ids: [group.body.id] },
    });
    expect(vulnerability.status).toBe(201);
    const open = async () => {
      const branch = unique('feat');
      await commit(branch, [file(`${branch}.txt`)], 'main', project.body.id);
      const res = await api(`${P}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title: unique('MR') } });
      expect(res.status).toBe(201);
      // The push after the merge request was opened leaves its system rules stale.
      await commit(branch, [file(`${branch}-more.txt`)], undefined, project.body.id);
      return `${P}/merge_requests/${res.body.iid}`;
    };

    const base = await open();
    const { res, trips } = await measured(`${base}/merge`, 'PUT', { should_remove_source_branch: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'merged', merged_by: { id: owner.id } });
    expect(res.headers.get('x-storage-repeated-reads')).toBe('0');
    expect(trips).toBeLessThanOrEqual(WRITE_BUDGET);
    // The rules were rebuilt before the merge, with their users and groups, and kept as merged.
    const rules = (await api(`${base}/approval_rules`, { token: owner.token })).body;
    expect(rules.map((r: any) => [r.name, r.report_type, r.users.map((u: any) => u.id), r.groups.map((g: any) => g.id), r.eligible_approvers.map((u: any) => u.id)])).toEqual([
      ['Coverage-Check', 'code_coverage', [dev.id], [], [dev.id]],
      // The group's members but the author (merge_requests_author_approval is off).
      ['Vulnerability-Check', 'vulnerability', [], [group.body.id], [dev.id]],
    ]);

    // Approving and a merge request rule of its own, right after a push, within the budget as well.
    const approving = await open();
    const approve = await measured(`${approving}/approve`, 'POST', undefined, dev);
    expect(approve.res.status).toBe(201);
    expect(approve.res.body.approved_by.map((a: any) => a.user.id)).toEqual([dev.id]);
    expect(approve.trips).toBeLessThanOrEqual(WRITE_BUDGET);
    const ruled = await open();
    const rule = await measured(`${ruled}/approval_rules`, 'POST', { name: 'own', approvals_required: 1, user_ids: [dev.id] });
    expect(rule.res.status).toBe(201);
    expect(rule.res.body).toMatchObject({ name: 'own', rule_type: 'regular', users: [{ id: dev.id }] });
    expect(rule.trips).toBeLessThanOrEqual(WRITE_BUDGET);
    expect((await api(`${ruled}/approval_rules`, { token: owner.token })).body.map((r: any) => r.name)).toEqual(['Coverage-Check', 'Vulnerability-Check', 'own']);
  });
});
