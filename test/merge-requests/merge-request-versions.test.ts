/**
 * Merge request diff versions (lib/api/merge_request_diffs.rb, Entities::MergeRequestDiff and
 * MergeRequestDiffFull; MergeRequest#reload_diff on create, push, new target branch and reopen), the
 * raw diff (raw_diffs: Gitaly RawDiff, `git diff --full-index base head`), the merge request to-do
 * (todos.rb) and pipelines (no CI here: an empty list, and CreatePipelineService's refusals), on
 * both runtimes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, type TestUser, unique } from '../support';

let owner: TestUser;
let dev: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;

interface Commit {
  id: string;
  short_id: string;
  title: string;
}

async function commit(pid: number, branch: string, token: string, actions: Record<string, unknown>[], message = unique('c')): Promise<Commit> {
  const res = await api(`/projects/${pid}/repository/commits`, { token, body: { branch, commit_message: message, actions } });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
  return res.body;
}

const create = (file_path: string, content = 'x\n', extra: Record<string, unknown> = {}) => ({ action: 'create', file_path, content, ...extra });
const SHA = /^[0-9a-f]{40}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A project (group with owner, developer, reporter, guest), `main` with one commit, a branch with one more, and a merge request from it. */
async function setup(visibility = 'private') {
  const gpath = unique('ver');
  const g = await api('/groups', { token: owner.token, body: { name: gpath, path: gpath, visibility } });
  expect(g.status).toBe(201);
  for (const [u, level] of [
    [dev, 30],
    [reporter, 20],
    [guest, 10],
  ] as const)
    expect((await api(`/groups/${g.body.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
  const p = await api('/projects', { token: owner.token, body: { path: 'p', namespace_id: g.body.id, visibility } });
  expect(p.status).toBe(201);
  const pid = p.body.id as number;
  const root = await commit(pid, 'main', owner.token, [create('README.md', 'readme\n'), create('a.txt', 'one\ntwo\nthree\n')]);
  const branch = unique('feat');
  expect((await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch, ref: 'main' } })).status).toBe(201);
  const first = await commit(pid, branch, dev.token, [create('b.txt', 'bee\n')], 'Add b');
  const m = await api(`/projects/${pid}/merge_requests`, { token: dev.token, body: { source_branch: branch, target_branch: 'main', title: unique('MR') } });
  expect(m.status).toBe(201);
  return { pid, path: p.body.path_with_namespace as string, branch, root, first, mr: m.body, base: `/projects/${pid}/merge_requests/${m.body.iid}` };
}

const versions = async (base: string, token = owner.token) => {
  const res = await api(`${base}/versions?per_page=100`, { token });
  expect(res.status).toBe(200);
  return res.body as any[];
};

beforeAll(async () => {
  [owner, dev, reporter, guest, stranger] = await Promise.all([createUser(), createUser(), createUser(), createUser(), createUser()]);
});

describe('GET /projects/:id/merge_requests/:merge_request_iid/versions', () => {
  it('has one version from the creation, with the diff refs, state, size and patch id', async () => {
    const s = await setup();
    const res = await api(`${s.base}/versions`, { token: reporter.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('1');
    expect(res.body).toHaveLength(1);
    const [v] = res.body;
    expect(Object.keys(v)).toEqual(['id', 'head_commit_sha', 'base_commit_sha', 'start_commit_sha', 'created_at', 'merge_request_id', 'state', 'real_size', 'patch_id_sha']);
    expect(v).toMatchObject({
      head_commit_sha: s.first.id,
      base_commit_sha: s.root.id,
      start_commit_sha: s.root.id,
      merge_request_id: s.mr.id,
      state: 'collected',
      real_size: '1',
    });
    expect(v.id).toEqual(expect.any(Number));
    expect(v.created_at).toMatch(ISO);
    expect(v.created_at).toBe(s.mr.created_at);
    expect(v.patch_id_sha).toMatch(SHA);
    // The merge request's own diff refs are this version's.
    expect(s.mr.diff_refs).toEqual({ base_sha: v.base_commit_sha, head_sha: v.head_commit_sha, start_sha: v.start_commit_sha });
  });

  it('gets a version per push, newest first, and the "added commits" note links to it', async () => {
    const s = await setup();
    const second = await commit(s.pid, s.branch, dev.token, [create('c.txt', 'sea\n')]);
    // The target moves: the next version starts from its new head, the base stays the fork point.
    const onMain = await commit(s.pid, 'main', owner.token, [create('m.txt', 'main\n')]);
    const third = await commit(s.pid, s.branch, dev.token, [{ action: 'update', file_path: 'b.txt', content: 'bee!\n' }]);
    const list = await versions(s.base);
    expect(list).toHaveLength(3);
    expect(list.map((v) => v.head_commit_sha)).toEqual([third.id, second.id, s.first.id]);
    expect(list[0].id).toBeGreaterThan(list[1].id);
    expect(list[1].id).toBeGreaterThan(list[2].id);
    expect(list[1]).toMatchObject({ base_commit_sha: s.root.id, start_commit_sha: s.root.id, state: 'collected', real_size: '2', merge_request_id: s.mr.id });
    expect(list[0]).toMatchObject({ base_commit_sha: s.root.id, start_commit_sha: onMain.id, state: 'collected', real_size: '2' });
    // The same files changed differently: another patch id.
    expect(list[0].patch_id_sha).not.toBe(list[1].patch_id_sha);

    const notes = (await api(`${s.base}/notes?sort=asc`, { token: owner.token })).body.filter((n: any) => n.system);
    const diffIds = notes.map((n: any) => Number(/diff_id=(\d+)/.exec(n.body)![1]));
    expect(diffIds).toEqual([list[1].id, list[0].id]);
    expect(notes[1].body).toContain(`/${s.path}/-/merge_requests/${s.mr.iid}/diffs?diff_id=${list[0].id}&start_sha=${second.id})`);
  });

  it('does not add a version when another branch is pushed', async () => {
    const s = await setup();
    await commit(s.pid, 'main', owner.token, [create('z.txt')]);
    expect(await versions(s.base)).toHaveLength(1);
  });

  it('paginates with the usual headers', async () => {
    const s = await setup();
    await commit(s.pid, s.branch, dev.token, [create('c.txt')]);
    const page1 = await api(`${s.base}/versions?per_page=1`, { token: owner.token });
    expect(page1.status).toBe(200);
    expect(page1.body).toHaveLength(1);
    expect(page1.headers.get('x-total')).toBe('2');
    expect(page1.headers.get('x-total-pages')).toBe('2');
    expect(page1.headers.get('x-next-page')).toBe('2');
    expect(page1.headers.get('link')).toContain('rel="next"');
    const page2 = await api(`${s.base}/versions?per_page=1&page=2`, { token: owner.token });
    expect(page2.body.map((v: any) => v.head_commit_sha)).toEqual([s.first.id]);
    expect(page2.headers.get('x-next-page')).toBe('');
  });

  it('an empty version when the source adds nothing: state empty, no size, no patch id', async () => {
    const s = await setup();
    const same = unique('same');
    expect((await api(`/projects/${s.pid}/repository/branches`, { token: owner.token, body: { branch: same, ref: 'main' } })).status).toBe(201);
    const m = await api(`/projects/${s.pid}/merge_requests`, { token: owner.token, body: { source_branch: same, target_branch: 'main', title: 'nothing' } });
    expect(m.status).toBe(201);
    const base = `/projects/${s.pid}/merge_requests/${m.body.iid}`;
    const [v] = await versions(base);
    expect(v).toMatchObject({ head_commit_sha: s.root.id, base_commit_sha: s.root.id, start_commit_sha: s.root.id, state: 'empty', real_size: null, patch_id_sha: null });
    const full = await api(`${base}/versions/${v.id}`, { token: owner.token });
    expect(full.status).toBe(200);
    expect(full.body.commits).toEqual([]);
    expect(full.body.diffs).toEqual([]);
  });

  it('a new target branch and a reopen add versions; closing does not', async () => {
    const s = await setup();
    const other = unique('rel');
    expect((await api(`/projects/${s.pid}/repository/branches`, { token: owner.token, body: { branch: other, ref: 'main' } })).status).toBe(201);
    const moved = await commit(s.pid, other, owner.token, [create('r.txt')]);
    expect((await api(s.base, { method: 'PUT', token: dev.token, body: { target_branch: other } })).status).toBe(200);
    let list = await versions(s.base);
    expect(list).toHaveLength(2);
    expect(list[0]).toMatchObject({ head_commit_sha: s.first.id, base_commit_sha: s.root.id, start_commit_sha: moved.id, real_size: '1' });
    expect((await api(s.base, { method: 'PUT', token: dev.token, body: { state_event: 'close' } })).body.state).toBe('closed');
    expect(await versions(s.base)).toHaveLength(2);
    expect((await api(s.base, { method: 'PUT', token: dev.token, body: { state_event: 'reopen' } })).body.state).toBe('opened');
    list = await versions(s.base);
    expect(list).toHaveLength(3);
    expect(list[0]).toMatchObject({ head_commit_sha: s.first.id, start_commit_sha: moved.id });
  });

  it('needs a signed-in caller who may read the merge request (authenticate!, find_merge_request_with_access)', async () => {
    const s = await setup('public');
    expect(await api(`${s.base}/versions`)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect((await api(`${s.base}/versions`, { token: stranger.token })).status).toBe(200);
    const priv = await setup();
    expect(await api(`${priv.base}/versions`, { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await api(`${priv.base}/versions`, { token: guest.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await api(`/projects/${priv.pid}/merge_requests/9999/versions`, { token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });
});

describe('GET /projects/:id/merge_requests/:merge_request_iid/versions/:version_id', () => {
  it("answers the version with its commits (newest first) and files, each version its own", async () => {
    const s = await setup();
    const second = await commit(s.pid, s.branch, dev.token, [{ action: 'update', file_path: 'a.txt', content: 'one\nTWO\nthree\n' }], 'Change a\n\nwith a body');
    const [newest, oldest] = await versions(s.base);
    const res = await api(`${s.base}/versions/${newest.id}`, { token: reporter.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual([...Object.keys(newest), 'commits', 'diffs']);
    expect(res.body).toMatchObject(newest);
    expect(res.body.commits.map((c: any) => c.id)).toEqual([second.id, s.first.id]);
    expect(res.body.commits[0]).toMatchObject({ short_id: second.short_id, title: 'Change a', message: 'Change a\n\nwith a body', parent_ids: [s.first.id] });
    expect(res.body.diffs).toEqual([
      {
        diff: '@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n',
        collapsed: false,
        too_large: false,
        new_path: 'a.txt',
        old_path: 'a.txt',
        a_mode: '100644',
        b_mode: '100644',
        new_file: false,
        renamed_file: false,
        deleted_file: false,
        generated_file: false,
      },
      {
        diff: '@@ -0,0 +1 @@\n+bee\n',
        collapsed: false,
        too_large: false,
        new_path: 'b.txt',
        old_path: 'b.txt',
        a_mode: '0',
        b_mode: '100644',
        new_file: true,
        renamed_file: false,
        deleted_file: false,
        generated_file: false,
      },
    ]);
    const old = await api(`${s.base}/versions/${oldest.id}`, { token: owner.token });
    expect(old.body.commits.map((c: any) => c.id)).toEqual([s.first.id]);
    expect(old.body.diffs.map((d: any) => d.new_path)).toEqual(['b.txt']);
  });

  it('unidiff=true puts the ---/+++ file lines before the hunks', async () => {
    const s = await setup();
    await commit(s.pid, s.branch, dev.token, [{ action: 'update', file_path: 'a.txt', content: 'one\n' }, { action: 'delete', file_path: 'README.md' }]);
    const [v] = await versions(s.base);
    const res = await api(`${s.base}/versions/${v.id}?unidiff=true`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.diffs.map((d: any) => d.diff)).toEqual([
      '--- a/README.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-readme\n',
      '--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1 @@\n one\n-two\n-three\n',
      '--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+bee\n',
    ]);
    // The merge request's /diffs honours it too.
    const diffs = await api(`${s.base}/diffs?unidiff=true`, { token: owner.token });
    expect(diffs.body.map((d: any) => d.diff)).toEqual(res.body.diffs.map((d: any) => d.diff));
  });

  it("404 for another merge request's version or an unknown one, 400 for a version id that is not a number", async () => {
    const s = await setup();
    const other = await setup();
    const [theirs] = await versions(other.base);
    expect(await api(`${s.base}/versions/${theirs.id}`, { token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await api(`${s.base}/versions/999999999`, { token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await api(`${s.base}/versions/abc`, { token: owner.token })).toMatchObject({ status: 400, body: { error: 'version_id is invalid' } });
    const [mine] = await versions(s.base);
    expect(await api(`${s.base}/versions/${mine.id}`)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await api(`${s.base}/versions/${mine.id}`, { token: guest.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });
});

describe('GET /projects/:id/merge_requests/:merge_request_iid/raw_diffs', () => {
  it('answers `git diff --full-index base head` as plain text', async () => {
    const s = await setup();
    await commit(s.pid, 'main', owner.token, [create('del.txt', 'gone\n'), create('old.txt', 'moving\n'), create('exe.sh', 'x\n'), create('both.sh', 'y\n')]);
    const br = unique('raw');
    expect((await api(`/projects/${s.pid}/repository/branches`, { token: owner.token, body: { branch: br, ref: 'main' } })).status).toBe(201);
    await commit(s.pid, br, owner.token, [
      { action: 'update', file_path: 'a.txt', content: 'one\nTWO\nthree\n' },
      { action: 'delete', file_path: 'del.txt' },
      { action: 'move', file_path: 'new.txt', previous_path: 'old.txt' },
      { action: 'chmod', file_path: 'exe.sh', execute_filemode: true },
      { action: 'update', file_path: 'both.sh', content: 'y\nz' },
      { action: 'chmod', file_path: 'both.sh', execute_filemode: true },
      create('add.txt', 'added\nno newline'),
      { action: 'create', file_path: 'bin.dat', content: Buffer.from([0x61, 0, 0x62]).toString('base64'), encoding: 'base64' },
    ]);
    const m = await api(`/projects/${s.pid}/merge_requests`, { token: owner.token, body: { source_branch: br, target_branch: 'main', title: 'raw' } });
    expect(m.status).toBe(201);
    const blob = async (path: string, ref: string) => (await api(`/projects/${s.pid}/repository/files/${encodeURIComponent(path)}?ref=${ref}`, { token: owner.token })).body.blob_id as string;
    const Z = '0'.repeat(40);
    const expected = [
      'diff --git a/a.txt b/a.txt',
      `index ${await blob('a.txt', 'main')}..${await blob('a.txt', br)} 100644`,
      '--- a/a.txt',
      '+++ b/a.txt',
      '@@ -1,3 +1,3 @@',
      ' one',
      '-two',
      '+TWO',
      ' three',
      'diff --git a/add.txt b/add.txt',
      'new file mode 100644',
      `index ${Z}..${await blob('add.txt', br)}`,
      '--- /dev/null',
      '+++ b/add.txt',
      '@@ -0,0 +1,2 @@',
      '+added',
      '+no newline',
      '\\ No newline at end of file',
      'diff --git a/bin.dat b/bin.dat',
      'new file mode 100644',
      `index ${Z}..${await blob('bin.dat', br)}`,
      'Binary files /dev/null and b/bin.dat differ',
      'diff --git a/both.sh b/both.sh',
      'old mode 100644',
      'new mode 100755',
      `index ${await blob('both.sh', 'main')}..${await blob('both.sh', br)}`,
      '--- a/both.sh',
      '+++ b/both.sh',
      '@@ -1 +1,2 @@',
      ' y',
      '+z',
      '\\ No newline at end of file',
      'diff --git a/del.txt b/del.txt',
      'deleted file mode 100644',
      `index ${await blob('del.txt', 'main')}..${Z}`,
      '--- a/del.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-gone',
      'diff --git a/exe.sh b/exe.sh',
      'old mode 100644',
      'new mode 100755',
      'diff --git a/old.txt b/new.txt',
      'similarity index 100%',
      'rename from old.txt',
      'rename to new.txt',
      '',
    ].join('\n');
    const res = await api(`/projects/${s.pid}/merge_requests/${m.body.iid}/raw_diffs`, { token: reporter.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.headers.get('content-disposition')).toBe('inline');
    expect(res.headers.get('cache-control')).toContain('no-store');
    expect(res.text).toBe(expected);
  });

  it('follows the newest version, and is empty for a merge request that adds nothing', async () => {
    const s = await setup();
    const res = await api(`${s.base}/raw_diffs`, { token: owner.token });
    expect(res.text).toContain('diff --git a/b.txt b/b.txt\nnew file mode 100644\n');
    await commit(s.pid, s.branch, dev.token, [create('c.txt', 'c\n')]);
    expect((await api(`${s.base}/raw_diffs`, { token: owner.token })).text).toContain('diff --git a/c.txt b/c.txt\n');
    const same = unique('same');
    expect((await api(`/projects/${s.pid}/repository/branches`, { token: owner.token, body: { branch: same, ref: 'main' } })).status).toBe(201);
    const m = await api(`/projects/${s.pid}/merge_requests`, { token: owner.token, body: { source_branch: same, target_branch: 'main', title: 'nothing' } });
    const empty = await api(`/projects/${s.pid}/merge_requests/${m.body.iid}/raw_diffs`, { token: owner.token });
    expect(empty.status).toBe(200);
    expect(empty.text).toBe('');
  });

  it('is refused as the other merge request reads are', async () => {
    const s = await setup();
    expect(await api(`${s.base}/raw_diffs`)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await api(`${s.base}/raw_diffs`, { token: guest.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    const pub = await setup('public');
    const anon = await api(`${pub.base}/raw_diffs`);
    expect(anon.status).toBe(200);
    expect(anon.text).toContain('diff --git a/b.txt b/b.txt');
  });
});

describe('POST /projects/:id/merge_requests/:merge_request_iid/todo', () => {
  it('marks the merge request as a to-do of the caller (201), then 304 while it is pending', async () => {
    const s = await setup();
    const res = await api(`${s.base}/todo`, { method: 'POST', token: reporter.token });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      project: { id: s.pid, path_with_namespace: s.path },
      author: { id: reporter.id, username: reporter.username },
      action_name: 'marked',
      target_type: 'MergeRequest',
      target: { id: s.mr.id, iid: s.mr.iid, project_id: s.pid, title: s.mr.title, subscribed: false, user: { can_merge: false } },
      body: s.mr.title,
      state: 'pending',
    });
    expect(res.body.target_url).toMatch(new RegExp(`/${s.path}/-/merge_requests/${s.mr.iid}$`));
    expect(res.body.created_at).toMatch(ISO);

    const again = await api(`${s.base}/todo`, { method: 'POST', token: reporter.token });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');

    const list = await api('/todos?type=MergeRequest', { token: reporter.token });
    expect(list.status).toBe(200);
    expect(list.body.map((t: any) => t.id)).toEqual([res.body.id]);
    // Another user's to-do is their own.
    expect((await api(`${s.base}/todo`, { method: 'POST', token: owner.token })).status).toBe(201);
    expect((await api('/todos?type=MergeRequest', { token: reporter.token })).body).toHaveLength(1);

    // Done, it can be marked again.
    expect((await api(`/todos/${res.body.id}/mark_as_done`, { method: 'POST', token: reporter.token })).status).toBe(201);
    const third = await api(`${s.base}/todo`, { method: 'POST', token: reporter.token });
    expect(third.status).toBe(201);
    expect(third.body.id).not.toBe(res.body.id);
  });

  it('a pending to-do of another action (review requested) is enough for 304', async () => {
    const s = await setup();
    expect((await api(s.base, { method: 'PUT', token: dev.token, body: { reviewer_ids: [reporter.id] } })).status).toBe(200);
    expect((await api(`${s.base}/todo`, { method: 'POST', token: reporter.token })).status).toBe(304);
  });

  it('needs a signed-in caller who may read the merge request', async () => {
    const s = await setup();
    expect(await api(`${s.base}/todo`, { method: 'POST' })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await api(`${s.base}/todo`, { method: 'POST', token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await api(`${s.base}/todo`, { method: 'POST', token: guest.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await api(`/projects/${s.pid}/merge_requests/9999/todo`, { method: 'POST', token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect((await api('/todos', { token: guest.token })).body).toEqual([]);
  });
});

describe('/projects/:id/merge_requests/:merge_request_iid/pipelines', () => {
  it('GET lists no pipelines, with pagination headers', async () => {
    const s = await setup();
    const res = await api(`${s.base}/pipelines`, { token: reporter.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.get('x-total')).toBe('0');
    expect(res.headers.get('x-page')).toBe('1');
    expect(res.headers.get('x-per-page')).toBe('20');
    expect(res.headers.get('link')).toContain('rel="first"');
    expect(await api(`${s.base}/pipelines`, { token: guest.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await api(`${s.base}/pipelines`)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });

  it('POST answers as GitLab does without a CI configuration', async () => {
    const s = await setup();
    // Developers and the administrator reach Chain::Config::Content.
    for (const token of [dev.token, owner.token, rootToken])
      expect(await api(`${s.base}/pipelines`, { method: 'POST', token })).toMatchObject({ status: 400, body: { message: { base: ['Missing CI config file'] } } });
    expect(await api(`${s.base}/pipelines`, { method: 'POST', token: reporter.token })).toMatchObject({
      status: 400,
      body: { message: { base: ['Insufficient permissions to create a new pipeline'] } },
    });
    expect(await api(`${s.base}/pipelines`, { method: 'POST', token: guest.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await api(`${s.base}/pipelines`, { method: 'POST' })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    // async: 202 before any check of the merge request's pipeline.
    const queued = await api(`${s.base}/pipelines`, { method: 'POST', token: reporter.token, body: { async: true } });
    expect(queued.status).toBe(202);
    expect(queued.body).toBe(202);
    expect((await api(`${s.base}/pipelines`, { token: owner.token })).body).toEqual([]);
  });

  it('POST: 405 without commits, "Pipelines are disabled!" with CI off, and a protected source branch', async () => {
    const s = await setup();
    const same = unique('same');
    expect((await api(`/projects/${s.pid}/repository/branches`, { token: owner.token, body: { branch: same, ref: 'main' } })).status).toBe(201);
    const m = await api(`/projects/${s.pid}/merge_requests`, { token: owner.token, body: { source_branch: same, target_branch: 'main', title: 'nothing' } });
    expect(await api(`/projects/${s.pid}/merge_requests/${m.body.iid}/pipelines`, { method: 'POST', token: owner.token })).toMatchObject({
      status: 405,
      body: { message: '405 Method Not Allowed' },
    });

    const pb = await api(`/projects/${s.pid}/protected_branches`, { token: owner.token, body: { name: s.branch, push_access_level: 40, merge_access_level: 40 } });
    expect(pb.status).toBe(201);
    expect(await api(`${s.base}/pipelines`, { method: 'POST', token: dev.token })).toMatchObject({
      status: 400,
      body: { message: { base: [`You do not have sufficient permission to run a pipeline on '${s.branch}'. Please select a different branch or contact your administrator for assistance.`] } },
    });
    expect((await api(`${s.base}/pipelines`, { method: 'POST', token: owner.token })).body).toEqual({ message: { base: ['Missing CI config file'] } });

    expect((await api(`/projects/${s.pid}`, { method: 'PUT', token: owner.token, body: { builds_access_level: 'disabled' } })).status).toBe(200);
    expect(await api(`${s.base}/pipelines`, { method: 'POST', token: owner.token })).toMatchObject({ status: 400, body: { message: { base: ['Pipelines are disabled!'] } } });
  });
});
