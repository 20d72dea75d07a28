/**
 * Issue 13: branch reads and branch creation in few storage round trips, whatever the page size,
 * with the entity facts (merged, protected, can_push, default) the per-branch reads gave.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

describe('branches in few round trips', () => {
  it('lists, gets and creates branches in one round trip after authentication (a write in two)', async () => {
    const owner = await createUser();
    const developer = await createUser();
    const pr = await api('/projects', { token: owner.token, body: { name: unique('repo'), visibility: 'private' } });
    const pid = pr.body.id;
    await api(`/projects/${pid}/members`, { token: owner.token, body: { user_id: developer.id, access_level: 30 } });
    const commit = (body: Record<string, unknown>) => api(`/projects/${pid}/repository/commits`, { token: owner.token, body });
    const first = await commit({ branch: 'main', commit_message: 'one', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] });
    expect(first.status).toBe(201);

    const created = await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: 'old', ref: 'main' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'old', commit: { id: first.body.id }, merged: false, default: false, protected: false, can_push: true });
    expect(trips(created)).toBeLessThanOrEqual(3);
    const byId = await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: 'by-sha', ref: first.body.id.slice(0, 8) } });
    expect(byId.body).toMatchObject({ name: 'by-sha', commit: { id: first.body.id } });
    expect((await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: 'nope', ref: 'missing' } })).body).toEqual({ message: 'Invalid reference name: missing' });
    expect((await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: 'old', ref: 'main' } })).body).toEqual({ message: 'Branch already exists' });

    await commit({ branch: 'main', commit_message: 'two', actions: [{ action: 'update', file_path: 'a.txt', content: 'b' }] });
    for (const name of ['f1', 'f2', 'f3']) await commit({ branch: name, start_branch: 'main', commit_message: name, actions: [{ action: 'create', file_path: `${name}.txt`, content: name }] });

    const one = await api(`/projects/${pid}/repository/branches/old`, { token: developer.token });
    expect(one.body).toMatchObject({ name: 'old', merged: true, default: false });
    const main = await api(`/projects/${pid}/repository/branches/main`, { token: developer.token });
    // The first commit's branch is the default and protected (developers may not push to it).
    expect(main.body).toMatchObject({ name: 'main', merged: false, default: true, protected: true, can_push: false });
    expect(trips(main)).toBeLessThanOrEqual(2);
    expect((await api(`/projects/${pid}/repository/branches/none`, { token: developer.token })).status).toBe(404);

    const small = await api(`/projects/${pid}/repository/branches?per_page=1`, { token: developer.token });
    const all = await api(`/projects/${pid}/repository/branches?per_page=100`, { token: developer.token });
    expect(small.headers.get('x-total')).toBe('6');
    expect(all.body.map((b: { name: string; merged: boolean }) => [b.name, b.merged])).toEqual([
      ['by-sha', true],
      ['f1', false],
      ['f2', false],
      ['f3', false],
      ['main', false],
      ['old', true],
    ]);
    expect(trips(all)).toBe(trips(small));
    expect(trips(all)).toBeLessThanOrEqual(2);
    const sorted = await api(`/projects/${pid}/repository/branches?sort=updated_desc&regex=${encodeURIComponent('^f')}&per_page=2`, { token: developer.token });
    expect(sorted.body.map((b: { name: string }) => b.name)).toEqual(['f3', 'f2']);
    expect(sorted.headers.get('x-total')).toBe('3');
  });

  it('GET a commit (by branch, full or short id) and compare resolve their refs with the project, in the same round trip', async () => {
    const owner = await createUser();
    const pr = await api('/projects', { token: owner.token, body: { name: unique('repo'), visibility: 'private' } });
    const pid = pr.body.id;
    const commit = (body: Record<string, unknown>) => api(`/projects/${pid}/repository/commits`, { token: owner.token, body });
    const first = await commit({ branch: 'main', commit_message: 'one', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] });
    const second = await commit({ branch: 'feature', start_branch: 'main', commit_message: 'two', actions: [{ action: 'create', file_path: 'b.txt', content: 'b' }] });
    await api(`/projects/${pid}/repository/commits/main`, { token: owner.token }); // the caller is cached from here on
    const byBranch = await api(`/projects/${pid}/repository/commits/feature`, { token: owner.token });
    expect(byBranch.body).toMatchObject({ id: second.body.id, message: 'two' });
    expect(trips(byBranch)).toBeLessThanOrEqual(2);
    expect((await api(`/projects/${pid}/repository/commits/${first.body.id}`, { token: owner.token })).body).toMatchObject({ id: first.body.id });
    expect((await api(`/projects/${pid}/repository/commits/${first.body.id.slice(0, 7).toUpperCase()}`, { token: owner.token })).body).toMatchObject({ id: first.body.id });
    expect((await api(`/projects/${pid}/repository/commits/nothere`, { token: owner.token })).body).toEqual({ message: '404 Commit Not Found' });
    const diff = await api(`/projects/${pid}/repository/commits/feature/diff`, { token: owner.token });
    expect(diff.body.map((d: { new_path: string }) => d.new_path)).toEqual(['b.txt']);
    const cmp = await api(`/projects/${pid}/repository/compare?from=main&to=${second.body.id.slice(0, 8)}`, { token: owner.token });
    expect(cmp.body.commits.map((x: { id: string }) => x.id)).toEqual([second.body.id]);
    expect(cmp.body.diffs.map((d: { new_path: string }) => d.new_path)).toEqual(['b.txt']);
    expect((await api(`/projects/${pid}/repository/compare?from=main&to=nothere`, { token: owner.token })).body).toEqual({ message: '404 Ref Not Found' });
  });
});
