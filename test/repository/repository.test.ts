/** Commits, branches, files, trees and compare written and read through the API (lib/api/commits.rb, branches.rb, files.rb, repositories.rb). */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let maintainer: TestUser;
let developer: TestUser;
let reporter: TestUser;
let guest: TestUser;
let outsider: TestUser;

async function newProject() {
  const res = await api('/projects', { token: owner.token, body: { name: unique('repo'), visibility: 'private' } });
  expect(res.status).toBe(201);
  const project = res.body as { id: number; path_with_namespace: string };
  for (const [u, level] of [[maintainer, 40], [developer, 30], [reporter, 20], [guest, 10]] as const) {
    expect((await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
  }
  return project;
}

const commit = (projectId: number, token: string, body: Record<string, unknown>) => api(`/projects/${projectId}/repository/commits`, { token, body });
const b64 = (s: string) => btoa(s);

beforeAll(async () => {
  [owner, maintainer, developer, reporter, guest, outsider] = await Promise.all([createUser(), createUser(), createUser(), createUser(), createUser(), createUser()]);
});

describe('POST /projects/:id/repository/commits', () => {
  it('creates the first commit with real git ids, makes its branch the default and protects it', async () => {
    const p = await newProject();
    expect((await api(`/projects/${p.id}`, { token: owner.token })).body.empty_repo).toBe(true);
    const res = await commit(p.id, owner.token, {
      branch: 'main',
      commit_message: 'Initial commit\n\nWith a body',
      author_name: 'Ann Author',
      author_email: 'ann@example.com',
      actions: [
        { action: 'create', file_path: 'README.md', content: 'hello\n' },
        { action: 'create', file_path: 'src/app.ts', content: b64('export {};\n'), encoding: 'base64' },
      ],
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual([
      'id', 'short_id', 'created_at', 'parent_ids', 'title', 'message', 'author_name', 'author_email', 'authored_date',
      'committer_name', 'committer_email', 'committed_date', 'trailers', 'extended_trailers', 'web_url', 'stats', 'status', 'project_id', 'last_pipeline',
    ]);
    expect(res.body).toMatchObject({
      parent_ids: [],
      title: 'Initial commit',
      message: 'Initial commit\n\nWith a body',
      author_name: 'Ann Author',
      author_email: 'ann@example.com',
      committer_email: owner.email,
      stats: { additions: 2, deletions: 0, total: 2 },
      status: null,
      project_id: p.id,
    });
    expect(res.body.id).toMatch(/^[0-9a-f]{40}$/);
    expect(res.body.short_id).toBe(res.body.id.slice(0, 8));
    expect(res.body.web_url).toMatch(new RegExp(`/${p.path_with_namespace}/-/commit/${res.body.id}$`));
    expect((await api(`/projects/${p.id}`, { token: owner.token })).body).toMatchObject({ default_branch: 'main', empty_repo: false });
    const listed = await api(`/projects?membership=true&search=${encodeURIComponent((await api(`/projects/${p.id}`, { token: owner.token })).body.name)}`, { token: owner.token });
    expect(listed.body.map((x: { empty_repo: boolean }) => x.empty_repo)).toEqual([false]);
    // The file's blob id is git's: `git hash-object` of "hello\n".
    const file = await api(`/projects/${p.id}/repository/files/README.md?ref=main`, { token: reporter.token });
    expect(file.status).toBe(200);
    expect(file.body).toMatchObject({ file_name: 'README.md', file_path: 'README.md', size: 6, encoding: 'base64', ref: 'main', blob_id: 'ce013625030ba8dba906f756967f9e9ca394464a', commit_id: res.body.id, last_commit_id: res.body.id, execute_filemode: false });
    expect(atob(file.body.content)).toBe('hello\n');
    const raw = await api(`/projects/${p.id}/repository/files/src%2Fapp.ts/raw?ref=main`, { token: reporter.token });
    expect(raw.status).toBe(200);
    expect(raw.text).toBe('export {};\n');
    // default_branch_protection (2): the default branch is protected; developers no longer push to it.
    const branch = await api(`/projects/${p.id}/repository/branches/main`, { token: developer.token });
    expect(branch.body).toMatchObject({ name: 'main', protected: true, default: true, merged: false, can_push: false, developers_can_push: false });
    const denied = await commit(p.id, developer.token, { branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'x', content: 'x' }] });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ message: '403 Forbidden - You are not allowed to push into this branch' });
  });

  it('applies update, move, chmod and delete on top of the branch, with parents and a history', async () => {
    const p = await newProject();
    const first = await commit(p.id, owner.token, { branch: 'main', commit_message: 'one', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\nb\nc\n' }, { action: 'create', file_path: 'run.sh', content: '#!/bin/sh\n' }] });
    const second = await commit(p.id, maintainer.token, {
      branch: 'main',
      commit_message: 'two',
      actions: [
        { action: 'update', file_path: 'a.txt', content: 'a\nB\nc\n', last_commit_id: first.body.id },
        { action: 'move', previous_path: 'run.sh', file_path: 'bin/run.sh' },
        { action: 'chmod', file_path: 'bin/run.sh', execute_filemode: true },
      ],
    });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ parent_ids: [first.body.id], stats: { additions: 1, deletions: 1, total: 2 } });
    const third = await commit(p.id, maintainer.token, { branch: 'main', commit_message: 'three', actions: [{ action: 'delete', file_path: 'a.txt' }] });
    expect(third.body.parent_ids).toEqual([second.body.id]);

    const list = await api(`/projects/${p.id}/repository/commits`, { token: reporter.token });
    expect(list.status).toBe(200);
    expect(list.body.map((x: { id: string }) => x.id)).toEqual([third.body.id, second.body.id, first.body.id]);
    expect(list.headers.get('x-total')).toBe('3');
    const byPath = await api(`/projects/${p.id}/repository/commits?path=bin/run.sh`, { token: reporter.token });
    expect(byPath.body.map((x: { id: string }) => x.id)).toEqual([second.body.id]);
    const tree = await api(`/projects/${p.id}/repository/tree?recursive=true`, { token: reporter.token });
    expect(tree.body.map((e: { path: string; type: string; mode: string }) => [e.path, e.type, e.mode])).toEqual([['bin', 'tree', '040000'], ['bin/run.sh', 'blob', '100755']]);
    const one = await api(`/projects/${p.id}/repository/commits/${second.body.short_id}`, { token: reporter.token });
    expect(one.body).toMatchObject({ id: second.body.id, title: 'two' });
    const diff = await api(`/projects/${p.id}/repository/commits/${second.body.id}/diff`, { token: reporter.token });
    expect(diff.body).toEqual([
      { diff: '@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n', collapsed: false, too_large: false, new_path: 'a.txt', old_path: 'a.txt', a_mode: '100644', b_mode: '100644', new_file: false, renamed_file: false, deleted_file: false, generated_file: false },
      { diff: '', collapsed: false, too_large: false, new_path: 'bin/run.sh', old_path: 'run.sh', a_mode: '100644', b_mode: '100755', new_file: false, renamed_file: true, deleted_file: false, generated_file: false },
    ]);
    expect((await api(`/projects/${p.id}/repository/commits/${'0'.repeat(40)}`, { token: reporter.token })).body).toEqual({ message: '404 Commit Not Found' });
  });

  it('refuses what Files::MultiService refuses, writing nothing', async () => {
    const p = await newProject();
    const first = await commit(p.id, owner.token, { branch: 'main', commit_message: 'one', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] });
    const cases: [Record<string, unknown>, number, unknown][] = [
      [{ branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'a.txt', content: 'x' }] }, 400, { message: 'A file with this name already exists' }],
      [{ branch: 'main', commit_message: 'x', actions: [{ action: 'update', file_path: 'nope.txt', content: 'x' }] }, 400, { message: "A file with this name doesn't exist" }],
      [{ branch: 'main', commit_message: 'x', actions: [{ action: 'delete', file_path: 'nope.txt' }] }, 400, { message: "A file with this name doesn't exist" }],
      [{ branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: '../etc/passwd', content: 'x' }] }, 400, { message: 'Path cannot include directory traversal' }],
      [{ branch: 'main', commit_message: 'x', actions: [{ action: 'explode', file_path: 'a' }] }, 400, { error: 'actions[0][action] does not have a valid value' }],
      [{ branch: 'main', commit_message: 'x', actions: [{ action: 'update', file_path: 'a.txt' }] }, 400, { error: 'actions[0][content] is missing' }],
      [{ branch: 'main', commit_message: 'x' }, 400, { error: 'actions is missing' }],
      [{ branch: 'feature', start_branch: 'nope', commit_message: 'x', actions: [{ action: 'create', file_path: 'b', content: 'b' }] }, 400, { message: 'You can only create or edit files when you are on a branch' }],
      [{ branch: 'main', start_branch: 'main', start_sha: first.body.id, commit_message: 'x', actions: [] }, 400, { error: 'start_branch, start_sha are mutually exclusive' }],
      [{ branch: 'bad..name', commit_message: 'x', actions: [{ action: 'create', file_path: 'b', content: 'b' }] }, 400, { message: 'Branch name is invalid' }],
    ];
    for (const [body, status, error] of cases) {
      const res = await commit(p.id, owner.token, body);
      expect([body, res.status, res.body]).toEqual([body, status, error]);
    }
    const edited = await commit(p.id, owner.token, { branch: 'main', commit_message: 'two', actions: [{ action: 'update', file_path: 'a.txt', content: 'b' }] });
    const stale = await commit(p.id, owner.token, { branch: 'main', commit_message: 'x', actions: [{ action: 'update', file_path: 'a.txt', content: 'c', last_commit_id: first.body.id }] });
    expect(stale).toMatchObject({ status: 400, body: { message: 'The file has changed since you started editing it: a.txt' } });
    const list = await api(`/projects/${p.id}/repository/commits`, { token: owner.token });
    expect(list.body.map((x: { id: string }) => x.id)).toEqual([edited.body.id, first.body.id]);
  });

  it('lets exactly one of two concurrent commits on a branch win', async () => {
    const p = await newProject();
    const base = await commit(p.id, owner.token, { branch: 'main', commit_message: 'base', actions: [{ action: 'create', file_path: 'a', content: '0' }] });
    const results = await Promise.all(
      [1, 2, 3].map((n) => commit(p.id, owner.token, { branch: 'main', commit_message: `c${n}`, actions: [{ action: 'create', file_path: `f${n}`, content: String(n) }] })),
    );
    const won = results.filter((r) => r.status === 201);
    expect(won.length).toBeGreaterThanOrEqual(1);
    for (const r of results.filter((r) => r.status !== 201)) expect(r.body.message).toMatch(/^Could not update refs\/heads\/main/);
    const head = await api(`/projects/${p.id}/repository/branches/main`, { token: owner.token });
    const history = await api(`/projects/${p.id}/repository/commits`, { token: owner.token });
    // Every accepted commit is in the branch's history: none was overwritten.
    expect(history.body.map((x: { id: string }) => x.id).sort()).toEqual([base.body.id, ...won.map((w) => w.body.id)].sort());
    expect(won.map((w) => w.body.id)).toContain(head.body.commit.id);
  });
});

describe('branches and compare', () => {
  it('creates, lists, compares, merges state and deletes branches', async () => {
    const p = await newProject();
    const first = await commit(p.id, owner.token, { branch: 'main', commit_message: 'one', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] });
    const created = await api(`/projects/${p.id}/repository/branches`, { token: developer.token, body: { branch: 'feature/x', ref: 'main' } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(['name', 'commit', 'merged', 'protected', 'developers_can_push', 'developers_can_merge', 'can_push', 'default', 'web_url']);
    // merged_to_root_ref? is `!same_head && ancestor?`: a branch at the default branch's head is not merged.
    expect(created.body).toMatchObject({ name: 'feature/x', commit: { id: first.body.id }, merged: false, protected: false, can_push: true, default: false });
    expect((await api(`/projects/${p.id}/repository/branches`, { token: developer.token, body: { branch: 'feature/x', ref: 'main' } })).body).toEqual({ message: 'Branch already exists' });
    expect((await api(`/projects/${p.id}/repository/branches`, { token: developer.token, body: { branch: 'y', ref: 'nope' } })).body).toEqual({ message: 'Invalid reference name: nope' });
    expect((await api(`/projects/${p.id}/repository/branches`, { token: reporter.token, body: { branch: 'z', ref: 'main' } })).status).toBe(403);

    const second = await commit(p.id, developer.token, { branch: 'feature/x', commit_message: 'feature work', actions: [{ action: 'update', file_path: 'a.txt', content: 'a\nmore\n' }] });
    expect(second.body.parent_ids).toEqual([first.body.id]);
    const one = await api(`/projects/${p.id}/repository/branches/feature%2Fx`, { token: reporter.token });
    expect(one.body).toMatchObject({ name: 'feature/x', commit: { id: second.body.id }, merged: false });
    const list = await api(`/projects/${p.id}/repository/branches?search=feat`, { token: reporter.token });
    expect(list.body.map((b: { name: string }) => b.name)).toEqual(['feature/x']);
    expect(list.headers.get('x-total')).toBe('1');

    const cmp = await api(`/projects/${p.id}/repository/compare?from=main&to=feature%2Fx`, { token: reporter.token });
    expect(cmp.status).toBe(200);
    expect(cmp.body).toMatchObject({ commit: { id: second.body.id }, compare_same_ref: false, compare_timeout: false });
    expect(cmp.body.commits.map((x: { id: string }) => x.id)).toEqual([second.body.id]);
    expect(cmp.body.diffs).toMatchObject([{ new_path: 'a.txt', diff: '@@ -1 +1,2 @@\n a\n+more\n' }]);

    expect((await api(`/projects/${p.id}/repository/branches/main`, { method: 'DELETE', token: owner.token })).body).toEqual({ message: 'The default branch of a project cannot be deleted.' });
    expect((await api(`/projects/${p.id}/repository/branches/feature%2Fx`, { method: 'DELETE', token: reporter.token })).status).toBe(403);
    expect((await api(`/projects/${p.id}/repository/branches/feature%2Fx`, { method: 'DELETE', token: developer.token })).status).toBe(204);
    expect((await api(`/projects/${p.id}/repository/branches/feature%2Fx`, { token: developer.token })).body).toEqual({ message: '404 Branch Not Found' });
    // The commit stays readable by id after its branch is gone.
    expect((await api(`/projects/${p.id}/repository/commits/${second.body.id}`, { token: reporter.token })).status).toBe(200);
  });
});

describe('history through merges', () => {
  it('marks a branch behind the default branch merged, and finds the commit that last changed a file across a merge', async () => {
    const p = await newProject();
    const first = await commit(p.id, owner.token, { branch: 'main', commit_message: 'one', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] });
    expect((await api(`/projects/${p.id}/repository/branches`, { token: owner.token, body: { branch: 'old', ref: 'main' } })).status).toBe(201);
    const feature = await commit(p.id, owner.token, { branch: 'feature', start_branch: 'main', commit_message: 'feature', actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }] });
    await commit(p.id, owner.token, { branch: 'main', commit_message: 'two', actions: [{ action: 'update', file_path: 'a.txt', content: 'b' }] });
    expect((await api(`/projects/${p.id}/repository/branches/old`, { token: owner.token })).body).toMatchObject({ commit: { id: first.body.id }, merged: true });
    const mr = await api(`/projects/${p.id}/merge_requests`, { token: owner.token, body: { source_branch: 'feature', target_branch: 'main', title: 'Feature' } });
    const merged = await api(`/projects/${p.id}/merge_requests/${mr.body.iid}/merge`, { method: 'PUT', token: owner.token });
    expect(merged.body.state).toBe('merged');
    // git log -1 -- f.txt on main: the feature commit, not the merge commit that took it unchanged.
    const file = await api(`/projects/${p.id}/repository/files/f.txt?ref=main`, { token: owner.token });
    expect(file.body).toMatchObject({ commit_id: merged.body.merge_commit_sha, last_commit_id: feature.body.id });
    const byPath = await api(`/projects/${p.id}/repository/commits?path=a.txt`, { token: owner.token });
    expect(byPath.body.map((x: { title: string }) => x.title)).toEqual(['two', 'one']);
    const byFeaturePath = await api(`/projects/${p.id}/repository/commits?path=f.txt`, { token: owner.token });
    expect(byFeaturePath.body.map((x: { id: string }) => x.id)).toEqual([feature.body.id]);
    expect((await api(`/projects/${p.id}/repository/branches/feature`, { token: owner.token })).body.merged).toBe(true);
  });
});

describe('access', () => {
  it('hides private repositories from non-members and guests, and lets only developers write', async () => {
    const p = await newProject();
    await commit(p.id, owner.token, { branch: 'main', commit_message: 'one', actions: [{ action: 'create', file_path: 'a', content: 'a' }] });
    const paths = ['/repository/commits', '/repository/branches', '/repository/branches/main', '/repository/files/a?ref=main', '/repository/tree'];
    for (const path of paths) {
      expect([path, (await api(`/projects/${p.id}${path}`)).status]).toEqual([path, 404]);
      expect([path, (await api(`/projects/${p.id}${path}`, { token: outsider.token })).status]).toEqual([path, 404]);
      expect([path, (await api(`/projects/${p.id}${path}`, { token: guest.token })).status]).toEqual([path, 403]);
      expect([path, (await api(`/projects/${p.id}${path}`, { token: reporter.token })).status]).toEqual([path, 200]);
    }
    const write = { branch: 'dev', start_branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'b', content: 'b' }] };
    expect((await commit(p.id, reporter.token, write)).status).toBe(403);
    expect((await commit(p.id, guest.token, write)).status).toBe(403);
    expect((await api(`/projects/${p.id}/repository/commits`, { body: write })).status).toBe(401);
    expect((await commit(p.id, developer.token, write)).status).toBe(201);
  });
});
