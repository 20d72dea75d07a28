/**
 * Issue 13: the repository's reads (history, files, tree, compare) in one round trip after
 * authentication, two when a file list is not known to the isolate yet, whatever the page size,
 * with the ref resolved inside the statements (a branch, a full or short id, or the default branch).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));
const ids = (res: { body: { id: string }[] }) => res.body.map((x) => x.id);

describe('repository reads in few round trips', () => {
  let pid: number;
  let token: string;
  const sha: Record<string, string> = {};
  const get = (path: string) => api(`/projects/${pid}${path}`, { token });

  beforeAll(async () => {
    const owner = await createUser();
    token = owner.token;
    pid = (await api('/projects', { token, body: { name: unique('hist'), visibility: 'private' } })).body.id;
    const commit = async (key: string, body: Record<string, unknown>) => {
      const res = await api(`/projects/${pid}/repository/commits`, { token, body });
      expect(res.status).toBe(201);
      sha[key] = res.body.id;
    };
    await commit('c1', { branch: 'main', commit_message: 'one', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }, { action: 'create', file_path: 'dir/x.txt', content: 'x\n' }] });
    await commit('f1', { branch: 'feature', start_branch: 'main', commit_message: 'feature', actions: [{ action: 'create', file_path: 'dir/z.txt', content: 'z\n' }] });
    await commit('c2', { branch: 'main', commit_message: 'two', actions: [{ action: 'update', file_path: 'dir/x.txt', content: 'x2\n' }] });
    await commit('c3', { branch: 'main', commit_message: 'three', actions: [{ action: 'create', file_path: 'b.txt', content: 'b\n' }] });
    await api('/user', { token }); // the caller is cached from here on
  });

  it('lists a history page and its total in one round trip, whatever the page size', async () => {
    const all = await get('/repository/commits?per_page=100');
    expect(ids(all)).toEqual([sha.c3, sha.c2, sha.c1]);
    expect(all.headers.get('x-total')).toBe('3');
    const second = await get('/repository/commits?per_page=1&page=2');
    expect(ids(second)).toEqual([sha.c2]);
    expect(second.headers.get('x-total')).toBe('3');
    expect(second.headers.get('x-next-page')).toBe('3');
    expect(trips(all)).toBe(1);
    expect(trips(second)).toBe(1);
  });

  it('filters by ref, path (file or directory), every branch, time and author', async () => {
    expect(ids(await get('/repository/commits?ref_name=feature'))).toEqual([sha.f1, sha.c1]);
    expect(ids(await get(`/repository/commits?ref_name=${sha.c2.slice(0, 8)}`))).toEqual([sha.c2, sha.c1]);
    const unknown = await get('/repository/commits?ref_name=nothere');
    expect([unknown.status, unknown.body, unknown.headers.get('x-total')]).toEqual([200, [], '0']);
    expect(ids(await get('/repository/commits?path=dir'))).toEqual([sha.c2, sha.c1]);
    expect(ids(await get('/repository/commits?path=dir/'))).toEqual([sha.c2, sha.c1]);
    expect(ids(await get('/repository/commits?path=b.txt'))).toEqual([sha.c3]);
    expect(ids(await get('/repository/commits?path=dir/x.txt&ref_name=feature'))).toEqual([sha.c1]);
    expect(ids(await get('/repository/commits?path=nothing'))).toEqual([]);
    expect(ids(await get('/repository/commits?first_parent=true'))).toEqual([sha.c3, sha.c2, sha.c1]);
    const everything = await get('/repository/commits?all=true');
    expect([...ids(everything)].sort()).toEqual([sha.c1, sha.c2, sha.c3, sha.f1].sort());
    expect(everything.headers.get('x-total')).toBe('4');
    expect([...ids(await get('/repository/commits?all=true&path=dir'))].sort()).toEqual([sha.c1, sha.c2, sha.f1].sort());
    expect(ids(await get('/repository/commits?since=2999-01-01T00:00:00Z'))).toEqual([]);
    expect(ids(await get('/repository/commits?until=2000-01-01T00:00:00Z'))).toEqual([]);
    const author = (await get('/repository/commits')).body[0].author_name as string;
    const byAuthor = await get(`/repository/commits?author=${encodeURIComponent(author.toUpperCase())}&per_page=2`);
    expect(ids(byAuthor)).toEqual([sha.c3, sha.c2]);
    expect(byAuthor.headers.get('x-total')).toBe('3');
    expect(trips(byAuthor)).toBe(1);
    expect(ids(await get('/repository/commits?author=nobody-at-all'))).toEqual([]);
  });

  it('reads a file, its last commit and its raw content in one round trip', async () => {
    const file = await get('/repository/files/dir%2Fx.txt?ref=main');
    expect(file.body).toMatchObject({ file_path: 'dir/x.txt', ref: 'main', commit_id: sha.c3, last_commit_id: sha.c2 });
    expect(atob(file.body.content)).toBe('x2\n');
    expect(trips(file)).toBe(1);
    const old = await get(`/repository/files/dir%2Fx.txt?ref=${sha.c1.slice(0, 10)}`);
    expect(old.body).toMatchObject({ commit_id: sha.c1, last_commit_id: sha.c1 });
    expect(atob(old.body.content)).toBe('x\n');
    const raw = await get('/repository/files/b.txt/raw');
    expect([raw.status, raw.text]).toEqual([200, 'b\n']);
    expect(trips(raw)).toBe(1);
    expect((await get('/repository/files/b.txt/raw?ref=feature')).body).toEqual({ message: '404 File Not Found' });
    // files.rb assign_file_vars!: a ref that names no commit is `not_found!('Commit')`, before the file is looked for.
    expect((await get('/repository/files/b.txt?ref=nothere')).body).toEqual({ message: '404 Commit Not Found' });
    expect((await get('/repository/files/b.txt')).body).toEqual({ error: 'ref is missing' });
  });

  it('lists a tree in at most two round trips (one once its commit is known to the isolate)', async () => {
    const tree = await get('/repository/tree?ref=feature&recursive=true');
    expect(tree.body.map((e: { path: string }) => e.path)).toEqual(['dir', 'a.txt', 'dir/x.txt', 'dir/z.txt'].sort((a, b) => (a === 'dir' ? -1 : b === 'dir' ? 1 : a < b ? -1 : 1)));
    expect(trips(tree)).toBeLessThanOrEqual(2);
    const again = await get('/repository/tree?ref=feature&path=dir');
    expect(again.body.map((e: { name: string }) => e.name)).toEqual(['x.txt', 'z.txt']);
    expect(trips(again)).toBe(1);
    expect((await get('/repository/tree?ref=nothere')).body).toEqual({ message: '404 Tree Not Found' });
  });

  it('compares from the merge base in two round trips', async () => {
    const cmp = await get('/repository/compare?from=feature&to=main');
    expect(cmp.status).toBe(200);
    expect(cmp.body.commits.map((k: { id: string }) => k.id)).toEqual([sha.c2, sha.c3]);
    expect(cmp.body.diffs.map((d: { new_path: string }) => d.new_path)).toEqual(['b.txt', 'dir/x.txt']);
    expect(trips(cmp)).toBeLessThanOrEqual(2);
    const straight = await get('/repository/compare?from=feature&to=main&straight=true');
    expect(straight.body.diffs.map((d: { new_path: string; deleted_file: boolean }) => [d.new_path, d.deleted_file])).toEqual([
      ['b.txt', false],
      ['dir/x.txt', false],
      ['dir/z.txt', true],
    ]);
    expect(trips(straight)).toBeLessThanOrEqual(2);
  });
});
