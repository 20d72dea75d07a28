/**
 * Merge requests over a real branch history built through the repository API: create, get, the
 * HEAD that follows pushes, update with system notes, merge (sha check, draft, the merge commit on
 * the target branch) and the issues a merge closes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let dev: TestUser;
let reporter: TestUser;
let guest: TestUser;
let outsider: TestUser;
let project: { id: number; path_with_namespace: string; web_url: string };

async function commit(branch: string, files: Record<string, string>, extra: Record<string, unknown> = {}, token = owner.token) {
  const actions = Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content }));
  const res = await api(`/projects/${project.id}/repository/commits`, { token, body: { branch, commit_message: unique('c'), actions, ...extra } });
  expect(res.status).toBe(201);
  return res.body as { id: string; parent_ids: string[] };
}
async function branch(name: string, ref = 'main') {
  const res = await api(`/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch: name, ref } });
  expect(res.status).toBe(201);
  return res.body as { commit: { id: string } };
}
async function head(name: string): Promise<string> {
  const res = await api(`/projects/${project.id}/repository/branches/${encodeURIComponent(name)}`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.commit.id;
}
async function mr(body: Record<string, unknown>, token = owner.token) {
  const res = await api(`/projects/${project.id}/merge_requests`, { token, body: { title: unique('mr'), target_branch: 'main', ...body } });
  expect(res.status).toBe(201);
  return res.body;
}
/** A branch off main with one commit of its own. */
async function feature(files: Record<string, string> = { [`${unique('f')}.txt`]: 'hello\n' }) {
  const name = unique('feat');
  await branch(name);
  const c = await commit(name, files);
  return { name, sha: c.id };
}
const mrPath = (iid: number) => `/projects/${project.id}/merge_requests/${iid}`;

beforeAll(async () => {
  [owner, dev, reporter, guest, outsider] = await Promise.all([createUser(), createUser(), createUser(), createUser(), createUser()]);
  const res = await api('/projects', { token: owner.token, body: { name: unique('mrs'), visibility: 'private' } });
  expect(res.status).toBe(201);
  project = res.body;
  for (const [u, level] of [[dev, 30], [reporter, 20], [guest, 10]] as const) {
    const m = await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } });
    expect(m.status).toBe(201);
  }
  await commit('main', { 'README.md': '# readme\n' });
});

describe('POST /projects/:id/merge_requests', () => {
  it('creates a merge request whose sha and diff_refs come from the branches', async () => {
    const f = await feature();
    const mainHead = await head('main');
    const label = unique('lbl');
    const created = await mr({ source_branch: f.name, description: 'the body', assignee_ids: [dev.id], reviewer_ids: [reporter.id], labels: label, remove_source_branch: true });
    expect(created).toMatchObject({
      project_id: project.id,
      state: 'opened',
      source_branch: f.name,
      target_branch: 'main',
      description: 'the body',
      source_project_id: project.id,
      target_project_id: project.id,
      draft: false,
      work_in_progress: false,
      merge_status: 'can_be_merged',
      detailed_merge_status: 'mergeable',
      sha: f.sha,
      merge_commit_sha: null,
      squash_commit_sha: null,
      force_remove_source_branch: true,
      should_remove_source_branch: null,
      labels: [label],
      changes_count: '1',
      has_conflicts: false,
      user: { can_merge: true },
      diff_refs: { base_sha: mainHead, head_sha: f.sha, start_sha: mainHead },
      merged_by: null,
      merged_at: null,
      closed_by: null,
      closed_at: null,
      subscribed: true,
    });
    expect(created.author.id).toBe(owner.id);
    expect(created.assignees.map((u: { id: number }) => u.id)).toEqual([dev.id]);
    expect(created.assignee.id).toBe(dev.id);
    expect(created.reviewers.map((u: { id: number }) => u.id)).toEqual([reporter.id]);
    expect(created.references).toEqual({ short: `!${created.iid}`, relative: `!${created.iid}`, full: `${project.path_with_namespace}!${created.iid}` });
    expect(created.web_url).toBe(`${project.web_url}/-/merge_requests/${created.iid}`);
    // Entities::MergeRequestBasic order, then Entities::MergeRequest.
    const keys = Object.keys(created);
    expect(keys.slice(0, 8)).toEqual(['id', 'iid', 'project_id', 'title', 'description', 'state', 'created_at', 'updated_at']);
    expect(keys.indexOf('merged_by')).toBeLessThan(keys.indexOf('target_branch'));
    expect(keys.indexOf('sha')).toBeLessThan(keys.indexOf('merge_commit_sha'));
    expect(keys.indexOf('changes_count')).toBeGreaterThan(keys.indexOf('blocking_discussions_resolved'));
    expect(keys[keys.length - 1]).toBe('user');

    const read = await api(mrPath(created.iid), { token: reporter.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: created.id, sha: f.sha, labels: [label] });
  });

  it('gives iids per project in order and answers 409 for a second open request on the same branches', async () => {
    const f = await feature();
    const a = await mr({ source_branch: f.name });
    const dup = await api(`/projects/${project.id}/merge_requests`, { token: owner.token, body: { title: 'again', source_branch: f.name, target_branch: 'main' } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ message: [`Another open merge request already exists for this source branch: !${a.iid}`] });
    const g = await feature();
    const b = await mr({ source_branch: g.name });
    expect(b.iid).toBe(a.iid + 1);
  });

  it('derives draft from the title prefix', async () => {
    for (const title of ['Draft: x', '[Draft] y', '(draft) z']) {
      const f = await feature();
      const created = await mr({ source_branch: f.name, title });
      expect(created.draft).toBe(true);
      expect(created.work_in_progress).toBe(true);
      expect(created.detailed_merge_status).toBe('draft_status');
    }
  });

  it('a developer may create; a reporter may not', async () => {
    const f = await feature();
    const created = await mr({ source_branch: f.name }, dev.token);
    expect(created.author.id).toBe(dev.id);
    const g = await feature();
    const res = await api(`/projects/${project.id}/merge_requests`, { token: reporter.token, body: { title: 'x', source_branch: g.name, target_branch: 'main' } });
    expect(res.status).toBe(403);
  });
});

describe('HEAD follows the source branch', () => {
  it('a commit pushed to the source branch moves sha, diff_refs and changes_count without touching the merge request', async () => {
    const f = await feature({ 'a.txt': 'a\n' });
    const created = await mr({ source_branch: f.name });
    const next = await commit(f.name, { 'b.txt': 'b\n' });
    const read = await api(mrPath(created.iid), { token: owner.token });
    expect(read.body.sha).toBe(next.id);
    expect(read.body.diff_refs.head_sha).toBe(next.id);
    expect(read.body.changes_count).toBe('2');
    const commits = await api(`${mrPath(created.iid)}/commits`, { token: owner.token });
    expect(commits.status).toBe(200);
    expect(commits.body.map((c: { id: string }) => c.id)).toEqual([next.id, f.sha]);
    const changes = await api(`${mrPath(created.iid)}/changes`, { token: owner.token });
    expect(changes.status).toBe(200);
    expect(changes.body.changes.map((d: { new_path: string }) => d.new_path).sort()).toEqual(['a.txt', 'b.txt']);
  });
});

describe('PUT /projects/:id/merge_requests/:iid', () => {
  it('updates title, description, labels, assignees and state with system notes, read back after', async () => {
    const f = await feature();
    const created = await mr({ source_branch: f.name, title: 'first' });
    const l1 = unique('l');
    const res = await api(mrPath(created.iid), { method: 'PUT', token: owner.token, body: { title: 'Draft: second', description: 'new', add_labels: l1, assignee_id: dev.id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'Draft: second', description: 'new', labels: [l1], draft: true });
    expect(res.body.assignees.map((u: { id: number }) => u.id)).toEqual([dev.id]);
    const notes = await api(`${mrPath(created.iid)}/notes?sort=asc`, { token: owner.token });
    if (notes.status === 200) {
      const bodies = notes.body.map((n: { body: string }) => n.body);
      expect(bodies).toContain('changed the description');
      expect(bodies).toContain('marked this merge request as **draft**');
    }
    const closed = await api(mrPath(created.iid), { method: 'PUT', token: owner.token, body: { state_event: 'close' } });
    expect(closed.status).toBe(200);
    expect(closed.body.state).toBe('closed');
    expect(closed.body.closed_by.id).toBe(owner.id);
    expect(closed.body.closed_at).not.toBeNull();
    const reopened = await api(mrPath(created.iid), { method: 'PUT', token: owner.token, body: { state_event: 'reopen' } });
    expect(reopened.body).toMatchObject({ state: 'opened', closed_by: null, closed_at: null });
    const none = await api(mrPath(created.iid), { method: 'PUT', token: owner.token, body: {} });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatch(/at least one parameter must be provided$/);
  });

  it('reopening is refused while another open request has the same branches', async () => {
    const f = await feature();
    const a = await mr({ source_branch: f.name });
    await api(mrPath(a.iid), { method: 'PUT', token: owner.token, body: { state_event: 'close' } });
    const b = await mr({ source_branch: f.name });
    const res = await api(mrPath(a.iid), { method: 'PUT', token: owner.token, body: { state_event: 'reopen' } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ message: [`Another open merge request already exists for this source branch: !${b.iid}`] });
    expect((await api(mrPath(a.iid), { token: owner.token })).body.state).toBe('closed');
  });

  it('reopen does nothing once the source branch is gone; a closed request keeps its recorded sha', async () => {
    const f = await feature();
    const created = await mr({ source_branch: f.name });
    expect((await api(mrPath(created.iid), { method: 'PUT', token: owner.token, body: { state_event: 'close' } })).body.state).toBe('closed');
    expect((await api(`/projects/${project.id}/repository/branches/${f.name}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    const res = await api(mrPath(created.iid), { method: 'PUT', token: owner.token, body: { state_event: 'reopen' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'closed', sha: f.sha });
    expect(res.body.diff_refs.head_sha).toBe(f.sha);
  });

  it('a reporter cannot update someone else’s merge request', async () => {
    const f = await feature();
    const created = await mr({ source_branch: f.name });
    const res = await api(mrPath(created.iid), { method: 'PUT', token: reporter.token, body: { title: 'nope' } });
    expect(res.status).toBe(403);
    expect((await api(mrPath(created.iid), { token: owner.token })).body.title).toBe(created.title);
  });
});

describe('PUT /projects/:id/merge_requests/:iid/merge', () => {
  it('refuses a sha that is not HEAD with 409, then merges with a two-parent commit on the target branch', async () => {
    const f = await feature();
    const created = await mr({ source_branch: f.name });
    const bad = await api(`${mrPath(created.iid)}/merge`, { method: 'PUT', token: owner.token, body: { sha: '0'.repeat(40) } });
    expect(bad.status).toBe(409);
    expect(bad.body).toEqual({ message: `SHA does not match HEAD of source branch: ${f.sha}` });
    expect((await api(mrPath(created.iid), { token: owner.token })).body.state).toBe('opened');

    const mainBefore = await head('main');
    const res = await api(`${mrPath(created.iid)}/merge`, { method: 'PUT', token: owner.token, body: { sha: f.sha } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'merged', sha: f.sha, detailed_merge_status: 'not_open' });
    expect(res.body.merged_by.id).toBe(owner.id);
    expect(res.body.merge_user.id).toBe(owner.id);
    expect(res.body.merged_at).not.toBeNull();
    expect(res.body.merge_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    const mainAfter = await head('main');
    expect(mainAfter).toBe(res.body.merge_commit_sha);
    const c = await api(`/projects/${project.id}/repository/commits/${mainAfter}`, { token: owner.token });
    expect(c.body.parent_ids).toEqual([mainBefore, f.sha]);
    expect(c.body.message).toContain(`Merge branch '${f.name}' into 'main'`);
    expect(c.body.message).toContain(`See merge request ${project.path_with_namespace}!${created.iid}`);

    const again = await api(`${mrPath(created.iid)}/merge`, { method: 'PUT', token: owner.token });
    expect(again.status).toBe(405);
    expect(again.body).toEqual({ message: '405 Method Not Allowed' });
    const merged = await api(`/projects/${project.id}/merge_requests?state=merged&source_branch=${f.name}`, { token: owner.token });
    expect(merged.body.map((m: { iid: number }) => m.iid)).toEqual([created.iid]);
  });

  it('405 for a draft or a closed request; 401 for a developer when main is protected for maintainers; 404 for a guest', async () => {
    const f = await feature();
    const draft = await mr({ source_branch: f.name, title: 'Draft: wip' });
    const res = await api(`${mrPath(draft.iid)}/merge`, { method: 'PUT', token: owner.token });
    expect(res.status).toBe(405);
    const hidden = await api(`${mrPath(draft.iid)}/merge`, { method: 'PUT', token: guest.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Not found' });
    const byReporter = await api(`${mrPath(draft.iid)}/merge`, { method: 'PUT', token: reporter.token });
    expect(byReporter.status).toBe(401);
    expect(byReporter.body).toEqual({ message: '401 Unauthorized' });
    expect((await api(mrPath(draft.iid), { token: owner.token })).body.state).toBe('opened');
  });

  it('merge_when_pipeline_succeeds on a mergeable request without pipelines is 405 (nothing to wait for)', async () => {
    const f = await feature();
    const created = await mr({ source_branch: f.name });
    const res = await api(`${mrPath(created.iid)}/merge`, { method: 'PUT', token: owner.token, body: { merge_when_pipeline_succeeds: true } });
    expect(res.status).toBe(405);
    const draft = await feature();
    const d = await mr({ source_branch: draft.name, title: 'Draft: later' });
    const auto = await api(`${mrPath(d.iid)}/merge`, { method: 'PUT', token: owner.token, body: { merge_when_pipeline_succeeds: true } });
    expect(auto.status).toBe(200);
    expect(auto.body).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true });
    expect(auto.body.merge_user.id).toBe(owner.id);
  });
});

describe('issues closed by a merge', () => {
  it('links `Closes #n` issues, lists them from both sides, and closes them when merged into the default branch', async () => {
    const i1 = (await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: unique('i') } })).body;
    const i2 = (await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: unique('i') } })).body;
    const i3 = (await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: unique('i') } })).body;
    const f = await feature();
    const created = await mr({ source_branch: f.name, description: `Fixes #${i1.iid} and #${i2.iid}. Related to #${i3.iid}` }, dev.token);

    const closes = await api(`${mrPath(created.iid)}/closes_issues`, { token: owner.token });
    expect(closes.status).toBe(200);
    expect(closes.body.map((i: { iid: number }) => i.iid)).toEqual([i1.iid, i2.iid]);
    const closedBy = await api(`/projects/${project.id}/issues/${i1.iid}/closed_by`, { token: reporter.token });
    expect(closedBy.status).toBe(200);
    expect(closedBy.body.map((m: { iid: number }) => m.iid)).toEqual([created.iid]);
    const related = await api(`/projects/${project.id}/issues/${i3.iid}/related_merge_requests`, { token: reporter.token });
    expect(related.body.map((m: { iid: number }) => m.iid)).toEqual([created.iid]);
    expect(related.body[0]).not.toHaveProperty('subscribed');
    expect(related.body[0].changes_count).toBe('1');
    const issue = await api(`/projects/${project.id}/issues/${i1.iid}`, { token: owner.token });
    expect(issue.body.state).toBe('opened');

    // The merger (not the author) closes the issues.
    const merged = await api(`${mrPath(created.iid)}/merge`, { method: 'PUT', token: owner.token });
    expect(merged.status).toBe(200);
    for (const i of [i1, i2]) {
      const after = await api(`/projects/${project.id}/issues/${i.iid}`, { token: owner.token });
      expect(after.body.state).toBe('closed');
      expect(after.body.closed_by.id).toBe(owner.id);
      const notes = await api(`/projects/${project.id}/issues/${i.iid}/notes`, { token: owner.token });
      expect(notes.body.map((n: { body: string }) => n.body)).toContain(`closed via merge request !${created.iid}`);
    }
    expect((await api(`/projects/${project.id}/issues/${i3.iid}`, { token: owner.token })).body.state).toBe('opened');
    // closed_by (lib/api/issues.rb) keeps listing the merged request.
    const after = await api(`/projects/${project.id}/issues/${i1.iid}/closed_by`, { token: owner.token });
    expect(after.body.map((m: { iid: number; state: string }) => [m.iid, m.state])).toEqual([[created.iid, 'merged']]);
    const stillRelated = await api(`/projects/${project.id}/issues/${i1.iid}/related_merge_requests`, { token: owner.token });
    expect(stillRelated.body.map((m: { state: string }) => m.state)).toEqual(['merged']);
  });

  it('an outsider sees no related merge requests of a public issue in a project whose merge requests are private', async () => {
    const res = await api('/projects', { token: owner.token, body: { name: unique('pub'), visibility: 'public', merge_requests_access_level: 'private' } });
    expect(res.status).toBe(201);
    const pid = res.body.id;
    await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a', content: 'a' }] } });
    await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: 'f', ref: 'main' } });
    await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch: 'f', commit_message: 'f', actions: [{ action: 'create', file_path: 'b', content: 'b' }] } });
    const issue = (await api(`/projects/${pid}/issues`, { token: owner.token, body: { title: 'pub issue' } })).body;
    const m = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { title: 'x', source_branch: 'f', target_branch: 'main', description: `Closes #${issue.iid}` } });
    expect(m.status).toBe(201);
    expect((await api(`/projects/${pid}/issues/${issue.iid}/related_merge_requests`, { token: owner.token })).body).toHaveLength(1);
    const out = await api(`/projects/${pid}/issues/${issue.iid}/related_merge_requests`, { token: outsider.token });
    expect(out.status).toBe(200);
    expect(out.body).toEqual([]);
    expect((await api(`/projects/${pid}/issues/${issue.iid}/closed_by`, { token: outsider.token })).body).toEqual([]);
    expect((await api(`/projects/${pid}/merge_requests`, { token: outsider.token })).status).toBe(403);
  });
});

describe('merging when the target moved', () => {
  it('a conflicting change on the target makes the request unmergeable (has_conflicts, 422); a separate change merges both', async () => {
    const shared = `${unique('s')}.txt`;
    await commit('main', { [shared]: 'base\n' });
    const a = unique('fa');
    await branch(a);
    await api(`/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: { branch: a, commit_message: 'ours', actions: [{ action: 'update', file_path: shared, content: 'ours\n' }] },
    });
    const conflicting = await mr({ source_branch: a });
    expect(conflicting.has_conflicts).toBe(false);
    await api(`/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'theirs', actions: [{ action: 'update', file_path: shared, content: 'theirs\n' }] },
    });
    const read = await api(mrPath(conflicting.iid), { token: owner.token });
    expect(read.body).toMatchObject({ has_conflicts: true, merge_status: 'cannot_be_merged', detailed_merge_status: 'conflict' });
    expect(read.body).not.toHaveProperty('diverged_commits_count');
    const opts = await api(`${mrPath(conflicting.iid)}?include_diverged_commits_count=true&include_rebase_in_progress=true`, { token: owner.token });
    expect(opts.body).toMatchObject({ diverged_commits_count: 1, rebase_in_progress: false });
    const keys = Object.keys(opts.body);
    expect(keys.slice(keys.indexOf('merge_error'))).toEqual(['merge_error', 'rebase_in_progress', 'diverged_commits_count', 'first_contribution', 'user']);
    // The conflict is a git state check: mergeable_state? passes, mergeable? does not (422).
    const refused = await api(`${mrPath(conflicting.iid)}/merge`, { method: 'PUT', token: owner.token });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ message: 'Branch cannot be merged' });
    // Auto-merge is not available for a broken (conflicting) request.
    expect((await api(`${mrPath(conflicting.iid)}/merge`, { method: 'PUT', token: owner.token, body: { merge_when_pipeline_succeeds: true } })).status).toBe(405);
    expect((await api(mrPath(conflicting.iid), { token: owner.token })).body.state).toBe('opened');

    const f = await feature({ 'only-in-feature.txt': 'f\n' });
    const separate = await mr({ source_branch: f.name });
    const moved = await commit('main', { [`${unique('m')}.txt`]: 'm\n' });
    const ok = await api(`${mrPath(separate.iid)}/merge`, { method: 'PUT', token: owner.token, body: { should_remove_source_branch: true } });
    expect(ok.status).toBe(200);
    expect(ok.body.diff_refs.start_sha).toBe(moved.id);
    expect(ok.body.should_remove_source_branch).toBe(true);
    const file = await api(`/projects/${project.id}/repository/files/only-in-feature.txt/raw?ref=main`, { token: owner.token });
    expect(file.status).toBe(200);
    expect(file.text).toBe('f\n');
    // Branches::DeleteService after the merge.
    expect((await api(`/projects/${project.id}/repository/branches/${f.name}`, { token: owner.token })).status).toBe(404);
  });

  it('squash: one squash commit, merged by a merge commit', async () => {
    const f = await feature({ 'sq1.txt': '1\n' });
    await commit(f.name, { 'sq2.txt': '2\n' });
    const created = await mr({ source_branch: f.name, squash: true });
    expect(created.squash).toBe(true);
    const before = await head('main');
    const res = await api(`${mrPath(created.iid)}/merge`, { method: 'PUT', token: owner.token, body: { squash_commit_message: 'squashed!' } });
    expect(res.status).toBe(200);
    expect(res.body.squash_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    const mc = await api(`/projects/${project.id}/repository/commits/${res.body.merge_commit_sha}`, { token: owner.token });
    expect(mc.body.parent_ids).toEqual([before, res.body.squash_commit_sha]);
    const sq = await api(`/projects/${project.id}/repository/commits/${res.body.squash_commit_sha}`, { token: owner.token });
    expect(sq.body.message).toBe('squashed!');
    expect(sq.body.author_email).toBe(owner.email);
  });
});

describe('races', () => {
  it('concurrent creates for the same branches: one 201, the others 409', async () => {
    const f = await feature();
    const results = await Promise.all(
      [1, 2, 3].map(() => api(`/projects/${project.id}/merge_requests`, { token: owner.token, body: { title: unique('race'), source_branch: f.name, target_branch: 'main' } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const open = await api(`/projects/${project.id}/merge_requests?state=opened&source_branch=${f.name}`, { token: owner.token });
    expect(open.body).toHaveLength(1);
  });

  it('concurrent merges of one request: one merge commit, one 200', async () => {
    const f = await feature();
    const created = await mr({ source_branch: f.name });
    const before = await head('main');
    const results = await Promise.all([1, 2, 3].map(() => api(`${mrPath(created.iid)}/merge`, { method: 'PUT', token: owner.token })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    for (const s of statuses.filter((x) => x !== 200)) expect([405, 422]).toContain(s);
    const after = await head('main');
    const c = await api(`/projects/${project.id}/repository/commits/${after}`, { token: owner.token });
    expect(c.body.parent_ids).toEqual([before, f.sha]);
    expect((await api(mrPath(created.iid), { token: owner.token })).body).toMatchObject({ state: 'merged', merge_commit_sha: after });
  });
});

describe('approvals and deletion', () => {
  it('an automatic merge queued while unapproved completes once approved, as the user who queued it', async () => {
    const f = await feature();
    const created = await mr({ source_branch: f.name, approvals_before_merge: 1 });
    const queued = await api(`${mrPath(created.iid)}/merge`, { method: 'PUT', token: owner.token, body: { merge_when_pipeline_succeeds: true } });
    expect(queued.status).toBe(200);
    expect(queued.body).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true });
    expect((await api(`${mrPath(created.iid)}/approve`, { method: 'POST', token: dev.token, body: { sha: f.sha } })).status).toBe(201);
    const read = await api(mrPath(created.iid), { token: reporter.token });
    expect(read.body).toMatchObject({ state: 'merged', merge_when_pipeline_succeeds: false });
    expect(read.body.merged_by.id).toBe(owner.id);
    expect(read.body.user.can_merge).toBe(false);
    expect((await api(mrPath(created.iid), { token: owner.token })).body.user.can_merge).toBe(true);
  });

  it('approvals_before_merge sets the any-approver rule: not_approved and 405 until approved; the owner deletes it (204) with its rules', async () => {
    const f = await feature();
    const created = await mr({ source_branch: f.name, approvals_before_merge: 1 });
    expect(created.approvals_before_merge).toBe(1);
    expect(created.detailed_merge_status).toBe('not_approved');
    const state = await api(`${mrPath(created.iid)}/approval_state`, { token: owner.token });
    expect(state.status).toBe(200);
    expect(state.body.rules.map((r: { rule_type: string; approvals_required: number }) => [r.rule_type, r.approvals_required])).toEqual([['any_approver', 1]]);
    const refused = await api(`${mrPath(created.iid)}/merge`, { method: 'PUT', token: owner.token });
    expect(refused.status).toBe(405);
    const approve = await api(`${mrPath(created.iid)}/approve`, { method: 'POST', token: dev.token, body: { sha: f.sha } });
    expect(approve.status).toBe(201);
    expect((await api(mrPath(created.iid), { token: owner.token })).body.detailed_merge_status).toBe('mergeable');

    expect((await api(mrPath(created.iid), { method: 'DELETE', token: dev.token })).status).toBe(403);
    expect((await api(mrPath(created.iid), { method: 'DELETE', token: owner.token })).status).toBe(204);
    const gone = await api(mrPath(created.iid), { token: owner.token });
    expect(gone.status).toBe(404);
    expect((await api(`${mrPath(created.iid)}/approval_state`, { token: owner.token })).status).toBe(404);
  });
});

describe('GET participants and reviewers', () => {
  it('participants: author, assignees, reviewers, then mentioned users who can read merge requests', async () => {
    const f = await feature();
    const created = await mr({ source_branch: f.name, assignee_ids: [dev.id], description: `cc @${outsider.username} @${guest.username} @${reporter.username}` });
    const res = await api(`${mrPath(created.iid)}/participants`, { token: reporter.token });
    expect(res.status).toBe(200);
    expect(res.body.map((u: { id: number }) => u.id)).toEqual([owner.id, dev.id, reporter.id]);
    expect(Object.keys(res.body[0])).toEqual(['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url'].filter((k) => k in res.body[0]));
    expect(res.headers.get('x-total')).toBe('3');
  });

  it('reviewers: user, state and created_at; replacing reviewers writes a system note', async () => {
    const f = await feature();
    const created = await mr({ source_branch: f.name, reviewer_ids: [dev.id] });
    const res = await api(`${mrPath(created.iid)}/reviewers`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(Object.keys(res.body[0])).toEqual(['user', 'state', 'created_at']);
    expect(res.body[0]).toMatchObject({ user: { id: dev.id }, state: 'unreviewed' });
    const upd = await api(mrPath(created.iid), { method: 'PUT', token: owner.token, body: { reviewer_ids: [reporter.id] } });
    expect(upd.body.reviewers.map((u: { id: number }) => u.id)).toEqual([reporter.id]);
    const after = await api(`${mrPath(created.iid)}/reviewers`, { token: owner.token });
    expect(after.body.map((r: { user: { id: number } }) => r.user.id)).toEqual([reporter.id]);
    const cleared = await api(mrPath(created.iid), { method: 'PUT', token: owner.token, body: { reviewer_ids: '' } });
    expect(cleared.body.reviewers).toEqual([]);
  });
});

describe('time tracking', () => {
  it('estimate, spent time and resets with time_stats; reporters may read but not write', async () => {
    const f = await feature();
    const created = await mr({ source_branch: f.name });
    const base = mrPath(created.iid);
    const est = await api(`${base}/time_estimate`, { method: 'POST', token: dev.token, body: { duration: '1d 2h' } });
    expect(est.status).toBe(200);
    expect(est.body).toEqual({ time_estimate: 36000, total_time_spent: 0, human_time_estimate: '1d 2h', human_total_time_spent: null });
    const spent = await api(`${base}/add_spent_time`, { method: 'POST', token: dev.token, body: { duration: '90m' } });
    expect(spent.status).toBe(201);
    expect(spent.body).toMatchObject({ total_time_spent: 5400, human_total_time_spent: '1h 30m' });
    const over = await api(`${base}/add_spent_time`, { method: 'POST', token: dev.token, body: { duration: '-2h' } });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ message: { time_spent: ['Time to subtract exceeds the total time spent'] } });
    const bad = await api(`${base}/time_estimate`, { method: 'POST', token: dev.token, body: { duration: 'soon' } });
    expect(bad.status).toBe(400);
    expect((await api(`${base}/time_estimate`, { method: 'POST', token: reporter.token, body: { duration: '1h' } })).status).toBe(403);
    const stats = await api(`${base}/time_stats`, { token: reporter.token });
    expect(stats.body).toMatchObject({ time_estimate: 36000, total_time_spent: 5400 });
    expect((await api(base, { token: owner.token })).body.time_stats).toEqual(stats.body);
    expect((await api(`${base}/reset_spent_time`, { method: 'POST', token: dev.token })).body.total_time_spent).toBe(0);
    expect((await api(`${base}/reset_time_estimate`, { method: 'POST', token: dev.token })).body.time_estimate).toBe(0);
  });
});

describe('subscriptions and cancelling an automatic merge', () => {
  it('the author is subscribed; unsubscribe then subscribe, 304 when unchanged', async () => {
    const f = await feature();
    const created = await mr({ source_branch: f.name });
    expect((await api(`${mrPath(created.iid)}/subscribe`, { method: 'POST', token: owner.token })).status).toBe(304);
    const un = await api(`${mrPath(created.iid)}/unsubscribe`, { method: 'POST', token: owner.token });
    expect(un.status).toBe(201);
    expect(un.body.subscribed).toBe(false);
    expect((await api(mrPath(created.iid), { token: owner.token })).body.subscribed).toBe(false);
    expect((await api(`${mrPath(created.iid)}/unsubscribe`, { method: 'POST', token: owner.token })).status).toBe(304);
    const sub = await api(`${mrPath(created.iid)}/subscribe`, { method: 'POST', token: reporter.token });
    expect(sub.status).toBe(201);
    expect(sub.body.subscribed).toBe(true);
  });

  it('cancel_merge_when_pipeline_succeeds: 406 when nothing is queued, 201 and cleared when queued', async () => {
    const f = await feature();
    const created = await mr({ source_branch: f.name, title: 'Draft: queued' });
    const none = await api(`${mrPath(created.iid)}/cancel_merge_when_pipeline_succeeds`, { method: 'POST', token: owner.token });
    expect(none.status).toBe(406);
    expect((await api(`${mrPath(created.iid)}/merge`, { method: 'PUT', token: owner.token, body: { merge_when_pipeline_succeeds: true } })).body.merge_when_pipeline_succeeds).toBe(true);
    const res = await api(`${mrPath(created.iid)}/cancel_merge_when_pipeline_succeeds`, { method: 'POST', token: owner.token });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ merge_when_pipeline_succeeds: false, merge_user: null });
  });
});

describe('archived projects', () => {
  it('merge requests of an archived project can be read but not created, updated or merged', async () => {
    const p = await api('/projects', { token: owner.token, body: { name: unique('arch'), visibility: 'private' } });
    expect(p.status).toBe(201);
    const pid = p.body.id;
    await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'i', actions: [{ action: 'create', file_path: 'a', content: 'a' }] } });
    for (const b of ['f', 'g']) {
      await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: b, ref: 'main' } });
      await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch: b, commit_message: b, actions: [{ action: 'create', file_path: b, content: b }] } });
    }
    const created = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { title: 'before', source_branch: 'f', target_branch: 'main' } });
    expect(created.status).toBe(201);
    const arch = await api(`/projects/${pid}/archive`, { method: 'POST', token: owner.token });
    if (arch.status === 404) expect((await api(`/projects/${pid}`, { method: 'PUT', token: owner.token, body: { archived: true } })).status).toBe(200);
    expect((await api(`/projects/${pid}`, { token: owner.token })).body.archived).toBe(true);
    expect((await api(`/projects/${pid}/merge_requests/${created.body.iid}`, { token: owner.token })).status).toBe(200);
    expect((await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { title: 'x', source_branch: 'g', target_branch: 'main' } })).status).toBe(403);
    expect((await api(`/projects/${pid}/merge_requests/${created.body.iid}`, { method: 'PUT', token: owner.token, body: { title: 'after' } })).status).toBe(403);
    expect((await api(`/projects/${pid}/merge_requests/${created.body.iid}/merge`, { method: 'PUT', token: owner.token })).status).toBe(401);
    expect((await api(`/projects/${pid}/merge_requests/${created.body.iid}`, { token: owner.token })).body).toMatchObject({ title: 'before', state: 'opened' });
  });
});
