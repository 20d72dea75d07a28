/**
 * Issue 13: POST /projects/:id/repository/commits decides in one round trip after authentication
 * (the project, the branches, the protected branches, the start commit with its files, the last
 * commits of checked paths, the commits a forced push brings and the open merge requests from the
 * branch) and writes in one more, reading the stored commit back in the write's batch. Every action,
 * every way to start (start_branch, start_sha, start_project, force) and the 400 answers.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

let owner: TestUser;
let pid: number;
const commit = (body: Record<string, unknown>) => api(`/projects/${pid}/repository/commits`, { token: owner.token, body });
const tree = async (ref: string) =>
  ((await api(`/projects/${pid}/repository/tree?ref=${ref}&recursive=true&per_page=100`, { token: owner.token })).body as { path: string; mode: string; type: string }[])
    .filter((e) => e.type === 'blob')
    .map((e) => `${e.path}:${e.mode}`)
    .sort();
const raw = async (ref: string, path: string) => (await api(`/projects/${pid}/repository/files/${encodeURIComponent(path)}/raw?ref=${ref}`, { token: owner.token })).text;

beforeAll(async () => {
  owner = await createUser();
  const pr = await api('/projects', { token: owner.token, body: { name: unique('commits'), visibility: 'private' } });
  pid = pr.body.id;
  const first = await commit({ branch: 'main', commit_message: 'root', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }, { action: 'create', file_path: 'dir/b.txt', content: 'b\n' }] });
  expect(first.status).toBe(201);
});

describe('a commit in two round trips', () => {
  it('applies two actions in one read and one write, answering the stored commit', async () => {
    const res = await commit({ branch: 'main', commit_message: 'two actions', actions: [{ action: 'update', file_path: 'a.txt', content: 'A\n' }, { action: 'create', file_path: 'c.sh', content: 'echo\n', execute_filemode: true }] });
    expect(res.status).toBe(201);
    expect(trips(res)).toBeLessThanOrEqual(2);
    expect(res.body).toMatchObject({ title: 'two actions', stats: { additions: 2, deletions: 1, total: 3 } });
    expect(res.body.parent_ids).toHaveLength(1);
    expect(await tree('main')).toEqual(['a.txt:100644', 'c.sh:100755', 'dir/b.txt:100644']);
    expect(await raw('main', 'a.txt')).toBe('A\n');
    const head = await api(`/projects/${pid}/repository/branches/main`, { token: owner.token });
    expect(head.body.commit.id).toBe(res.body.id);
  });

  it('moves (with and without content), chmods and deletes, checking last_commit_id in the same read', async () => {
    const main = (await api(`/projects/${pid}/repository/branches/main`, { token: owner.token })).body.commit.id as string;
    const lastOfB = (await api(`/projects/${pid}/repository/files/dir%2Fb.txt?ref=main`, { token: owner.token })).body.last_commit_id as string;
    const res = await commit({
      branch: 'main',
      commit_message: 'reshape',
      actions: [
        { action: 'move', previous_path: 'dir/b.txt', file_path: 'b.txt', last_commit_id: lastOfB.slice(0, 10) },
        { action: 'move', previous_path: 'c.sh', file_path: 'bin/c.sh', content: 'echo hi\n' },
        { action: 'chmod', file_path: 'a.txt', execute_filemode: true },
      ],
    });
    expect(res.status).toBe(201);
    expect(trips(res)).toBeLessThanOrEqual(2);
    expect(res.body.parent_ids).toEqual([main]);
    expect(await tree('main')).toEqual(['a.txt:100755', 'b.txt:100644', 'bin/c.sh:100755']);
    expect(await raw('main', 'b.txt')).toBe('b\n');
    expect(await raw('main', 'bin/c.sh')).toBe('echo hi\n');

    // A stale last_commit_id: the file changed since (the last commit of a.txt is the one above).
    const stale = await commit({ branch: 'main', commit_message: 'x', actions: [{ action: 'delete', file_path: 'a.txt', last_commit_id: main }] });
    expect(stale).toMatchObject({ status: 400, body: { message: 'The file has changed since you started editing it: a.txt' } });
    const del = await commit({ branch: 'main', commit_message: 'delete', actions: [{ action: 'delete', file_path: 'a.txt', last_commit_id: res.body.id }] });
    expect(del.status).toBe(201);
    expect(trips(del)).toBeLessThanOrEqual(2);
    expect(await tree('main')).toEqual(['b.txt:100644', 'bin/c.sh:100755']);
  });

  it('answers 400 for actions that do not apply, writing nothing', async () => {
    const before = (await api(`/projects/${pid}/repository/branches/main`, { token: owner.token })).body.commit.id;
    const cases: [Record<string, unknown>, string][] = [
      [{ action: 'create', file_path: 'b.txt', content: 'x' }, 'A file with this name already exists'],
      [{ action: 'create', file_path: 'bin', content: 'x' }, 'A directory with this name already exists'],
      [{ action: 'update', file_path: 'none.txt', content: 'x' }, "A file with this name doesn't exist"],
      [{ action: 'delete', file_path: 'none.txt' }, "A file with this name doesn't exist"],
      [{ action: 'chmod', file_path: 'none.txt', execute_filemode: true }, "A file with this name doesn't exist"],
      [{ action: 'move', previous_path: 'none.txt', file_path: 'z.txt' }, "A file with this name doesn't exist"],
      [{ action: 'move', previous_path: 'b.txt', file_path: 'bin/c.sh' }, 'A file with this name already exists'],
      [{ action: 'create', file_path: '../up.txt', content: 'x' }, 'Path cannot include directory traversal'],
    ];
    for (const [action, message] of cases) expect(await commit({ branch: 'main', commit_message: 'x', actions: [action] }), message).toMatchObject({ status: 400, body: { message } });
    expect((await api(`/projects/${pid}/repository/branches/main`, { token: owner.token })).body.commit.id).toBe(before);
  });
});

describe('where a commit starts', () => {
  it('start_branch and start_sha (full, short, unknown, a branch name) in two round trips', async () => {
    const main = (await api(`/projects/${pid}/repository/branches/main`, { token: owner.token })).body.commit.id as string;
    const fromBranch = await commit({ branch: unique('sb'), start_branch: 'main', commit_message: 'from branch', actions: [{ action: 'create', file_path: 'n1.txt', content: '1' }] });
    expect(fromBranch.status).toBe(201);
    expect(trips(fromBranch)).toBeLessThanOrEqual(2);
    expect(fromBranch.body.parent_ids).toEqual([main]);

    const shaBranch = unique('ss');
    const fromSha = await commit({ branch: shaBranch, start_sha: main.slice(0, 8).toUpperCase(), commit_message: 'from sha', actions: [{ action: 'update', file_path: 'b.txt', content: 'b2\n' }] });
    expect(fromSha.status).toBe(201);
    expect(trips(fromSha)).toBeLessThanOrEqual(2);
    expect(fromSha.body.parent_ids).toEqual([main]);
    expect(await raw(shaBranch, 'b.txt')).toBe('b2\n');
    expect(await tree(shaBranch)).toEqual(['b.txt:100644', 'bin/c.sh:100755']);

    expect(await commit({ branch: unique('ss'), start_sha: 'deadbeef', commit_message: 'x', actions: [{ action: 'create', file_path: 'q', content: 'q' }] })).toMatchObject({ status: 400, body: { message: 'Invalid start sha: deadbeef' } });
    // A branch is resolved first, as git resolves refs; its head does not start with the name given.
    expect(await commit({ branch: unique('ss'), start_sha: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'q', content: 'q' }] })).toMatchObject({ status: 400, body: { message: 'Invalid start sha: main' } });
    expect(await commit({ branch: unique('ss'), start_branch: 'nope', commit_message: 'x', actions: [{ action: 'create', file_path: 'q', content: 'q' }] })).toMatchObject({ status: 400, body: { message: 'You can only create or edit files when you are on a branch' } });
  });

  it('start_project may only name the project itself', async () => {
    const ns = (await api(`/projects/${pid}`, { token: owner.token })).body.path_with_namespace as string;
    for (const start of [String(pid), ns]) {
      const res = await commit({ branch: unique('sp'), start_branch: 'main', start_project: start, commit_message: 'x', actions: [{ action: 'create', file_path: 'sp.txt', content: 's' }] });
      expect(res.status).toBe(201);
    }
    const other = await commit({ branch: unique('sp'), start_branch: 'main', start_project: String(pid + 1000), commit_message: 'x', actions: [{ action: 'create', file_path: 'sp.txt', content: 's' }] });
    expect(other).toMatchObject({ status: 400, body: { error: 'start_project is not supported: commits start from the same project' } });
  });

  it('overwrites an existing branch from elsewhere only with force, bringing the start commits into its merge requests', async () => {
    const main = (await api(`/projects/${pid}/repository/branches/main`, { token: owner.token })).body.commit.id as string;
    const branch = unique('force');
    const old = await commit({ branch, start_branch: 'main', commit_message: 'old side', actions: [{ action: 'create', file_path: 'old.txt', content: 'o' }] });
    const side = await commit({ branch: unique('side'), start_branch: 'main', commit_message: 'side', actions: [{ action: 'create', file_path: 'side.txt', content: 's' }] });
    const mr = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title: 'force' } });
    expect(mr.status).toBe(201);
    const refused = await commit({ branch, start_sha: side.body.id, commit_message: 'x', actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }] });
    expect(refused).toMatchObject({ status: 400, body: { message: `A branch called '${branch}' already exists. Switch to that branch in order to make changes` } });

    const forced = await commit({ branch, start_sha: side.body.id, force: true, commit_message: 'forced', actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }] });
    expect(forced.status).toBe(201);
    // The merge request's new merge base (with a start this isolate never saw), its files and its approvals: one more read.
    expect(trips(forced)).toBeLessThanOrEqual(3);
    expect(forced.body.parent_ids).toEqual([side.body.id]);
    expect(await tree(branch)).toEqual(['b.txt:100644', 'bin/c.sh:100755', 'f.txt:100644', 'side.txt:100644']);
    // The merge request's "added commits" note lists the side commit the branch lacked and the new one.
    const notes = (await api(`/projects/${pid}/merge_requests/${mr.body.iid}/notes?sort=asc`, { token: owner.token })).body as { body: string; system: boolean }[];
    const added = notes.filter((n) => n.system && n.body.startsWith('added')).pop()!;
    expect(added.body).toContain('added 2 commits');
    expect(added.body).toContain(side.body.id.slice(0, 8));
    expect(added.body).toContain(forced.body.id.slice(0, 8));
    expect(added.body).toContain(`start_sha=${old.body.id}`);
    const changes = await api(`/projects/${pid}/merge_requests/${mr.body.iid}/changes`, { token: owner.token });
    expect(changes.body.changes.map((c: { new_path: string }) => c.new_path).sort()).toEqual(['f.txt', 'side.txt']);
    expect(changes.body.diff_refs).toMatchObject({ head_sha: forced.body.id, base_sha: main });
  });

  it('a push to the branch of an open merge request refreshes it within the write budget', async () => {
    const branch = unique('mr');
    await commit({ branch, start_branch: 'main', commit_message: 'one', actions: [{ action: 'create', file_path: 'm.txt', content: '1' }] });
    const mr = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title: 'pushed' } });
    const pushed = await commit({ branch, commit_message: 'two', actions: [{ action: 'update', file_path: 'm.txt', content: '2' }, { action: 'create', file_path: 'm2.txt', content: '2' }] });
    expect(pushed.status).toBe(201);
    expect(trips(pushed)).toBeLessThanOrEqual(3);
    const got = await api(`/projects/${pid}/merge_requests/${mr.body.iid}`, { token: owner.token });
    expect(got.body.sha).toBe(pushed.body.id);
    const versions = await api(`/projects/${pid}/merge_requests/${mr.body.iid}/versions`, { token: owner.token });
    expect(versions.body[0]).toMatchObject({ head_commit_sha: pushed.body.id });
    expect(versions.body).toHaveLength(2);
  });
});
