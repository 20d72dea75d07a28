/**
 * The repository files API (lib/api/files.rb, doc/api/repository_files.md): reads with their
 * X-Gitlab-* headers, HEAD, raw, blame, and writes (create, update, delete), each one commit that
 * runs the push hooks; and a branch created in an empty repository (Branches::CreateService).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';
import { PACKAGE_LOCK_V3 } from '../dependencies/lockfiles';

let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;

async function newProject() {
  const res = await api('/projects', { token: owner.token, body: { name: unique('files'), visibility: 'private' } });
  expect(res.status).toBe(201);
  const project = res.body as { id: number; path_with_namespace: string };
  for (const [u, level] of [[developer, 30], [reporter, 20]] as const) {
    expect((await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
  }
  return project;
}

const F = (pid: number, path: string) => `/projects/${pid}/repository/files/${encodeURIComponent(path)}`;
const write = (method: 'POST' | 'PUT' | 'DELETE', pid: number, path: string, body: Record<string, unknown>, token = owner.token) => api(F(pid, path), { method, token, body });
const head = async (pid: number, branch = 'main') => (await api(`/projects/${pid}/repository/branches/${branch}`, { token: owner.token })).body.commit as { id: string; message: string; parent_ids: string[]; author_name: string; author_email: string; committer_email: string };
const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));
const text = async (pid: number, path: string, ref = 'main') => (await api(`${F(pid, path)}/raw?ref=${ref}`, { token: owner.token })).text;

beforeAll(async () => {
  [owner, developer, reporter] = await Promise.all([createUser(), createUser(), createUser()]);
});

describe('POST /projects/:id/repository/files/:file_path', () => {
  it('creates the first commit of an empty repository, then files in one commit each, with author fields and encodings', async () => {
    const p = await newProject();
    const first = await write('POST', p.id, 'lib/a.rb', { branch: 'main', commit_message: 'add a', content: 'puts 1\n' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ file_path: 'lib/a.rb', branch: 'main' });
    const c1 = await head(p.id);
    expect(c1.message).toBe('add a');
    expect(c1.parent_ids).toEqual([]);
    expect(await text(p.id, 'lib/a.rb')).toBe('puts 1\n');
    // base64, a name with dots, the author given, the executable bit.
    const second = await write('POST', p.id, 'bin/run.tar.gz.sh', { branch: 'main', commit_message: 'add run', content: btoa('#!/bin/sh\n'), encoding: 'base64', author_name: 'Ann', author_email: 'ann@example.com', execute_filemode: true });
    expect(second.status).toBe(201);
    const c2 = await head(p.id);
    expect(c2.parent_ids).toEqual([c1.id]);
    expect([c2.author_name, c2.author_email, c2.committer_email]).toEqual(['Ann', 'ann@example.com', owner.email]);
    const file = await api(`${F(p.id, 'bin/run.tar.gz.sh')}?ref=main`, { token: reporter.token });
    expect(file.status).toBe(200);
    expect(file.body).toMatchObject({ file_name: 'run.tar.gz.sh', file_path: 'bin/run.tar.gz.sh', execute_filemode: true, last_commit_id: c2.id, commit_id: c2.id });
    expect(atob(file.body.content)).toBe('#!/bin/sh\n');
    // The path may come as `lib%2Fb.rb` (python-gitlab) or with the slash encoded twice by nobody: both reach one file.
    expect((await api(`/projects/${p.id}/repository/files/lib%2Fb.rb`, { token: owner.token, body: { branch: 'main', commit_message: 'b', content: 'b' } })).status).toBe(201);
    expect(await text(p.id, 'lib/b.rb')).toBe('b');
  });

  it('decodes base64 as Ruby does: characters outside the alphabet are skipped, never refused', async () => {
    const p = await newProject();
    const res = await write('POST', p.id, 'x.txt', { branch: 'main', commit_message: 'x', content: 'aGV$sbG8=!!', encoding: 'base64' });
    expect(res.status).toBe(201);
    expect(await text(p.id, 'x.txt')).toBe('hello');
  });

  it("answers GitLab's refusals, and none of them writes anything", async () => {
    const p = await newProject();
    expect((await write('POST', p.id, 'a.txt', { branch: 'main', commit_message: 'a', content: 'a' })).status).toBe(201);
    const before = await head(p.id);
    const cases: [Record<string, unknown>, string, number, unknown][] = [
      [{ branch: 'main', commit_message: 'again', content: 'x' }, 'a.txt', 400, { message: 'A file with this name already exists' }],
      [{ branch: 'nope', commit_message: 'm', content: 'x' }, 'n.txt', 400, { message: 'You can only create or edit files when you are on a branch' }],
      [{ branch: 'main', start_branch: 'nope', commit_message: 'm', content: 'x' }, 'n.txt', 400, { message: 'You can only create or edit files when you are on a branch' }],
      [{ branch: 'main', commit_message: 'm', content: 'x' }, '../etc/passwd', 400, { error: 'file_path should be a valid file path' }],
      [{ branch: 'main', commit_message: 'm', content: 'x' }, 'a/../../b', 400, { error: 'file_path should be a valid file path' }],
      [{ branch: 'main', commit_message: 'm', content: 'x' }, '/abs.txt', 400, { error: 'file_path should be a valid file path' }],
      [{ branch: 'main', commit_message: 'm' }, 'c.txt', 400, { error: 'content is missing' }],
      [{ branch: 'main', commit_message: '', content: 'x' }, 'c.txt', 400, { error: 'commit_message is empty' }],
      [{ branch: 'main', commit_message: 'm', content: 'x', encoding: 'hex' }, 'c.txt', 400, { error: 'encoding does not have a valid value' }],
      [{ branch: 'new..name', start_branch: 'main', commit_message: 'm', content: 'x' }, 'c.txt', 400, { message: "Something went wrong when we tried to create 'new..name' for you: Branch name is invalid" }],
      [{ branch: 'main', commit_message: 'm', content: 'x' }, 'a.txt/inside', 400, { message: 'A file with this name already exists' }],
    ];
    for (const [body, path, status, answer] of cases) {
      const res = await write('POST', p.id, path, body);
      expect([path, body, res.status, res.body]).toEqual([path, body, status, answer]);
    }
    // An empty path names no route (GitLab's requirements need a segment).
    const empty = await api(`/projects/${p.id}/repository/files/`, { token: owner.token, body: { branch: 'main', commit_message: 'm', content: 'x' } });
    expect([empty.status, empty.body]).toEqual([404, { error: '404 Not Found' }]);
    expect((await head(p.id)).id).toBe(before.id);
    expect((await api(`/projects/${p.id}/repository/branches`, { token: owner.token })).body.map((b: { name: string }) => b.name)).toEqual(['main']);
  });

  it('a start_branch makes a new branch; an existing one is refused', async () => {
    const p = await newProject();
    await write('POST', p.id, 'a.txt', { branch: 'main', commit_message: 'a', content: 'a' });
    const res = await write('POST', p.id, 'f.txt', { branch: 'feature', start_branch: 'main', commit_message: 'f', content: 'f' });
    expect(res.status).toBe(201);
    expect((await head(p.id, 'feature')).parent_ids).toEqual([(await head(p.id)).id]);
    const again = await write('POST', p.id, 'g.txt', { branch: 'feature', start_branch: 'main', commit_message: 'g', content: 'g' });
    expect(again.body).toEqual({ message: "A branch called 'feature' already exists. Switch to that branch in order to make changes" });
  });

  it('refuses reporters (403) and developers on a protected branch (400 from the service)', async () => {
    const p = await newProject();
    await write('POST', p.id, 'a.txt', { branch: 'main', commit_message: 'a', content: 'a' });
    const asReporter = await write('POST', p.id, 'r.txt', { branch: 'main', commit_message: 'r', content: 'r' }, reporter.token);
    expect([asReporter.status, asReporter.body]).toEqual([403, { message: '403 Forbidden' }]);
    // default_branch_protection 2: main is protected by the first push.
    const asDeveloper = await write('POST', p.id, 'd.txt', { branch: 'main', commit_message: 'd', content: 'd' }, developer.token);
    expect([asDeveloper.status, asDeveloper.body]).toEqual([400, { message: 'You are not allowed to push into this branch' }]);
    const onBranch = await write('POST', p.id, 'd.txt', { branch: 'dev', start_branch: 'main', commit_message: 'd', content: 'd' }, developer.token);
    expect(onBranch.status).toBe(201);
  });

  it('runs the push hooks: a lockfile written through the files API shows up in the dependency list', async () => {
    const p = await newProject();
    await write('POST', p.id, 'README.md', { branch: 'main', commit_message: 'r', content: '# r\n' });
    const res = await write('POST', p.id, 'package-lock.json', { branch: 'main', commit_message: 'lock', content: PACKAGE_LOCK_V3 });
    expect(res.status).toBe(201);
    const deps = await api(`/projects/${p.id}/dependencies?per_page=100`, { token: owner.token });
    expect(deps.status).toBe(200);
    expect((deps.body as { name: string; dependency_file_path: string }[]).map((d) => `${d.dependency_file_path} ${d.name}`)).toContain('package-lock.json lodash');
    // Deleting it empties the list again, in the delete's own commit.
    expect((await write('DELETE', p.id, 'package-lock.json', { branch: 'main', commit_message: 'rm lock' })).status).toBe(204);
    expect((await api(`/projects/${p.id}/dependencies`, { token: owner.token })).body).toEqual([]);
  });
});

describe('concurrent file writes', () => {
  it('each lands whole as one commit or is refused as a moved ref, never lost', async () => {
    const p = await newProject();
    await write('POST', p.id, 'base.txt', { branch: 'main', commit_message: 'base', content: 'b' });
    const results = await Promise.all([0, 1, 2, 3, 4].map((i) => write('POST', p.id, `c${i}.txt`, { branch: 'main', commit_message: `c${i}`, content: `${i}` })));
    for (const r of results) expect([201, 400]).toContain(r.status);
    for (const r of results.filter((x) => x.status === 400)) expect(r.body).toEqual({ message: 'Could not update refs/heads/main. Please refresh and try again.' });
    const landed = results.flatMap((r, i) => (r.status === 201 ? [`c${i}`] : []));
    expect(landed.length).toBeGreaterThan(0);
    const log = (await api(`/projects/${p.id}/repository/commits?per_page=100`, { token: owner.token })).body.map((c: { title: string }) => c.title);
    expect(log.filter((t: string) => t !== 'base').sort()).toEqual(landed.sort());
    const tree = (await api(`/projects/${p.id}/repository/tree?per_page=100`, { token: owner.token })).body.map((e: { path: string }) => e.path);
    expect(tree.filter((x: string) => x !== 'base.txt').sort()).toEqual(landed.map((t) => `${t}.txt`).sort());
  });
});

describe('PUT and DELETE /projects/:id/repository/files/:file_path', () => {
  it('updates a file (200), checks last_commit_id, changes the mode, deletes (204)', async () => {
    const p = await newProject();
    await write('POST', p.id, 'a.txt', { branch: 'main', commit_message: 'a', content: 'one\n' });
    const c1 = await head(p.id);
    await write('POST', p.id, 'other.txt', { branch: 'main', commit_message: 'o', content: 'o' });
    // The file has not changed since c1 (a later commit touched another file): the update goes through.
    const up = await write('PUT', p.id, 'a.txt', { branch: 'main', commit_message: 'two', content: 'two\n', last_commit_id: c1.id });
    expect([up.status, up.body]).toEqual([200, { file_path: 'a.txt', branch: 'main' }]);
    expect(await text(p.id, 'a.txt')).toBe('two\n');
    const stale = await write('PUT', p.id, 'a.txt', { branch: 'main', commit_message: 'three', content: 'three\n', last_commit_id: c1.id });
    expect([stale.status, stale.body]).toEqual([400, { message: 'You are attempting to update a file that has changed since you started editing it.' }]);
    expect(await text(p.id, 'a.txt')).toBe('two\n');
    const chmod = await write('PUT', p.id, 'a.txt', { branch: 'main', commit_message: 'x', content: 'two\n', execute_filemode: true });
    expect(chmod.status).toBe(200);
    expect((await api(`${F(p.id, 'a.txt')}?ref=main`, { token: owner.token })).body.execute_filemode).toBe(true);
    const missing = await write('PUT', p.id, 'nope.txt', { branch: 'main', commit_message: 'x', content: 'x' });
    expect([missing.status, missing.body]).toEqual([400, { message: "A file with this name doesn't exist" }]);
    const del = await write('DELETE', p.id, 'a.txt', { branch: 'main', commit_message: 'rm' });
    expect([del.status, del.text]).toEqual([204, '']);
    expect((await api(`${F(p.id, 'a.txt')}?ref=main`, { token: owner.token })).body).toEqual({ message: '404 File Not Found' });
    const again = await write('DELETE', p.id, 'a.txt', { branch: 'main', commit_message: 'rm' });
    expect([again.status, again.body]).toEqual([400, { message: "A file with this name doesn't exist" }]);
    expect((await head(p.id)).message).toBe('rm');
  });
});

describe('GET, HEAD, raw and blame of /projects/:id/repository/files/:file_path', () => {
  it("sends files.rb's X-Gitlab-* headers with the JSON, the raw file and a HEAD", async () => {
    const p = await newProject();
    await write('POST', p.id, 'lib/a.rb', { branch: 'main', commit_message: 'a', content: 'hello\n' });
    const c = await head(p.id);
    const expected = {
      'x-gitlab-file-name': 'a.rb',
      'x-gitlab-file-path': 'lib/a.rb',
      'x-gitlab-size': '6',
      'x-gitlab-encoding': 'base64',
      'x-gitlab-content-sha256': '5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03',
      'x-gitlab-ref': 'main',
      'x-gitlab-blob-id': 'ce013625030ba8dba906f756967f9e9ca394464a',
      'x-gitlab-commit-id': c.id,
      'x-gitlab-last-commit-id': c.id,
      'x-gitlab-execute-filemode': 'false',
    };
    const pick = (h: Headers) => Object.fromEntries(Object.keys(expected).map((k) => [k, h.get(k)]));
    const get = await api(`${F(p.id, 'lib/a.rb')}?ref=main`, { token: reporter.token });
    expect(Object.keys(get.body)).toEqual(['file_name', 'file_path', 'size', 'encoding', 'content_sha256', 'ref', 'blob_id', 'commit_id', 'last_commit_id', 'execute_filemode', 'content']);
    expect(pick(get.headers)).toEqual(expected);
    const headRes = await api(`${F(p.id, 'lib/a.rb')}?ref=main`, { method: 'HEAD', token: reporter.token });
    expect([headRes.status, headRes.text]).toEqual([200, '']);
    expect(pick(headRes.headers)).toEqual(expected);
    const raw = await api(`${F(p.id, 'lib/a.rb')}/raw?ref=main&lfs=true`, { token: reporter.token });
    expect([raw.status, raw.text]).toEqual([200, 'hello\n']);
    expect(pick(raw.headers)).toEqual(expected);
    expect([raw.headers.get('content-disposition'), raw.headers.get('cache-control')]).toEqual([`inline; filename="a.rb"; filename*=UTF-8''a.rb`, 'no-cache, no-store']);
    // Without `ref` raw reads the default branch and sends no X-Gitlab-Ref (a nil header).
    const noRef = await api(`${F(p.id, 'lib/a.rb')}/raw`, { token: reporter.token });
    expect([noRef.status, noRef.headers.get('x-gitlab-ref'), noRef.headers.get('x-gitlab-blob-id')]).toEqual([200, null, expected['x-gitlab-blob-id']]);
    expect((await api(`${F(p.id, 'lib/a.rb')}?ref=nope`, { token: reporter.token })).body).toEqual({ message: '404 Commit Not Found' });
    expect((await api(`${F(p.id, 'lib/b.rb')}?ref=main`, { token: reporter.token })).body).toEqual({ message: '404 File Not Found' });
    expect((await api(`${F(p.id, 'lib/a.rb')}?ref=`, { token: reporter.token })).body).toEqual({ error: 'ref is empty' });
    expect((await api(`${F(p.id, '../a.rb')}?ref=main`, { token: reporter.token })).body).toEqual({ error: 'file_path should be a valid file path' });
    // doc/api/repository_files.md's own example: `lib%2Fclass%2Erb`; a traversal encoded twice is still one.
    expect((await api(`/projects/${p.id}/repository/files/lib%2Fa%2Erb?ref=main`, { token: reporter.token })).body.blob_id).toBe(expected['x-gitlab-blob-id']);
    expect((await api(`/projects/${p.id}/repository/files/lib%2F%252e%252e%252fx?ref=main`, { token: reporter.token })).body).toEqual({ error: 'file_path should be a valid file path' });
  });

  it('blames each line on the commit that brought it, grouped, within range[start]..range[end]', async () => {
    const p = await newProject();
    await write('POST', p.id, 'f.txt', { branch: 'main', commit_message: 'one', content: 'a\nb\nc\n' });
    const c1 = await head(p.id);
    await write('PUT', p.id, 'f.txt', { branch: 'main', commit_message: 'two', content: 'a\nB\nc\nd\n' });
    const c2 = await head(p.id);
    const blame = await api(`${F(p.id, 'f.txt')}/blame?ref=main`, { token: reporter.token });
    expect(blame.status).toBe(200);
    expect(blame.body.map((g: { commit: { id: string }; lines: string[] }) => [g.commit.id, g.lines])).toEqual([
      [c1.id, ['a']],
      [c2.id, ['B']],
      [c1.id, ['c']],
      [c2.id, ['d']],
    ]);
    expect(Object.keys(blame.body[0].commit)).toEqual(['id', 'parent_ids', 'message', 'authored_date', 'author_name', 'author_email', 'committed_date', 'committer_name', 'committer_email']);
    expect(blame.headers.get('x-gitlab-last-commit-id')).toBe(c2.id);
    const ranged = await api(`${F(p.id, 'f.txt')}/blame?ref=main&range[start]=2&range[end]=3`, { token: reporter.token });
    expect(ranged.body.map((g: { lines: string[] }) => g.lines)).toEqual([['B'], ['c']]);
    // At the first commit, every line is its own.
    const old = await api(`${F(p.id, 'f.txt')}/blame?ref=${c1.id}`, { token: reporter.token });
    expect(old.body.map((g: { commit: { id: string }; lines: string[] }) => [g.commit.id, g.lines])).toEqual([[c1.id, ['a', 'b', 'c']]]);
    const bad = await api(`${F(p.id, 'f.txt')}/blame?ref=main&range[start]=3&range[end]=2`, { token: reporter.token });
    expect([bad.status, bad.body]).toEqual([400, { message: 'range[start] must be less than or equal to range[end]' }]);
    const zero = await api(`${F(p.id, 'f.txt')}/blame?ref=main&range[start]=0&range[end]=2`, { token: reporter.token });
    expect([zero.status, zero.body]).toEqual([400, { error: 'range[start] does not have a valid value' }]);
    const half = await api(`${F(p.id, 'f.txt')}/blame?ref=main&range[start]=1`, { token: reporter.token });
    expect([half.status, half.body]).toEqual([400, { error: 'range[end] is missing' }]);
  });
});

describe('POST /projects/:id/repository/branches on an empty repository', () => {
  it('commits an empty README.md on the default branch first, then creates the branch from it (201)', async () => {
    const p = await newProject();
    const res = await api(`/projects/${p.id}/repository/branches`, { token: owner.token, body: { branch: 'feature', ref: 'main' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'feature', default: false, commit: { message: 'Add README.md', parent_ids: [] } });
    const main = await head(p.id);
    expect(main.id).toBe(res.body.commit.id);
    expect(await text(p.id, 'README.md')).toBe('');
    const project = (await api(`/projects/${p.id}`, { token: owner.token })).body;
    expect([project.default_branch, project.empty_repo]).toEqual(['main', false]);
    // The README is the first push to the default branch: main is protected as after any first push.
    expect((await api(`/projects/${p.id}/protected_branches/main`, { token: owner.token })).status).toBe(200);
  });

  it('refuses, writing nothing, a ref other than the default branch or the default branch itself', async () => {
    const p = await newProject();
    const badRef = await api(`/projects/${p.id}/repository/branches`, { token: owner.token, body: { branch: 'feature', ref: 'develop' } });
    expect([badRef.status, badRef.body]).toEqual([400, { message: 'Invalid reference name: develop' }]);
    const taken = await api(`/projects/${p.id}/repository/branches`, { token: owner.token, body: { branch: 'main', ref: 'main' } });
    expect([taken.status, taken.body]).toEqual([400, { message: 'Branch already exists' }]);
    // The README is a first push to the default branch, which default_branch_protection 2 leaves to maintainers.
    const asDeveloper = await api(`/projects/${p.id}/repository/branches`, { token: developer.token, body: { branch: 'feature', ref: 'main' } });
    expect([asDeveloper.status, asDeveloper.body]).toEqual([403, { message: '403 Forbidden - You are not allowed to push into this branch' }]);
    expect((await api(`/projects/${p.id}`, { token: owner.token })).body.empty_repo).toBe(true);
  });
});

describe('round trips', () => {
  it('a file write costs its reads and one batch; a branch in an empty repository too; blame reads with the project', async () => {
    const p = await newProject();
    // Warm the caller's cache, as the budget counts (issue 13).
    await api(`/projects/${p.id}`, { token: owner.token });
    const branch = await api(`/projects/${p.id}/repository/branches`, { token: owner.token, body: { branch: 'feature', ref: 'main' } });
    expect(branch.status).toBe(201);
    expect(trips(branch)).toBeGreaterThan(0);
    expect(trips(branch)).toBeLessThanOrEqual(3);
    const created = await write('POST', p.id, 'a.txt', { branch: 'main', commit_message: 'a', content: 'a\n' });
    expect(created.status).toBe(201);
    expect(trips(created)).toBeLessThanOrEqual(3);
    const updated = await write('PUT', p.id, 'a.txt', { branch: 'main', commit_message: 'b', content: 'b\n', last_commit_id: (await head(p.id)).id });
    expect(updated.status).toBe(200);
    expect(trips(updated)).toBeLessThanOrEqual(3);
    const deleted = await write('DELETE', p.id, 'a.txt', { branch: 'main', commit_message: 'c' });
    expect(deleted.status).toBe(204);
    expect(trips(deleted)).toBeLessThanOrEqual(3);
    const blame = await api(`${F(p.id, 'README.md')}/blame?ref=main`, { token: owner.token });
    expect(blame.status).toBe(200);
    expect(trips(blame)).toBeLessThanOrEqual(2);
  });
});
