/**
 * Protected branches as the repository API applies them: the first commit protects the default
 * branch per the instance's default_branch_protection (2, full protection, on a fresh instance:
 * ProtectDefaultBranchService), developers cannot push to an empty repository then, pushes to a
 * protected branch need a matching push level (wildcards included), and the Branch entity reports
 * protected / developers_can_push / developers_can_merge / can_push from the rules.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;
let developer: TestUser;
let projectId: number;

const commit = (token: string, branch: string, extra: Record<string, unknown> = {}) =>
  api(`/projects/${projectId}/repository/commits`, {
    token,
    body: { branch, commit_message: `on ${branch}`, actions: [{ action: 'create', file_path: `${unique('f')}.txt`, content: 'x' }], ...extra },
  });

beforeAll(async () => {
  [owner, developer] = await Promise.all([createUser(), createUser()]);
  const path = unique('pbrg');
  const g = await api('/groups', { token: owner.token, body: { name: path, path } });
  if (g.status !== 201) throw new Error(g.text);
  const p = await api('/projects', { token: owner.token, body: { path: 'repo', namespace_id: g.body.id } });
  if (p.status !== 201) throw new Error(p.text);
  projectId = p.body.id;
  const m = await api(`/projects/${projectId}/members`, { token: owner.token, body: { user_id: developer.id, access_level: 30 } });
  if (m.status !== 201) throw new Error(m.text);
});

describe('protected branches in the repository', () => {
  it('protects the default branch on the first commit and enforces the push levels', async () => {
    // Empty repository, full protection: only maintainers (and above) create the default branch.
    const early = await commit(developer.token, 'main');
    expect([early.status, early.body]).toEqual([403, { message: '403 Forbidden - You are not allowed to push into this branch' }]);
    expect((await api(`/projects/${projectId}/protected_branches`, { token: owner.token })).body).toEqual([]);

    expect((await commit(owner.token, 'main')).status).toBe(201);
    const rule = await api(`/projects/${projectId}/protected_branches/main`, { token: owner.token });
    expect(rule.status).toBe(200);
    expect(rule.body.push_access_levels.map((l: any) => [l.access_level, l.access_level_description])).toEqual([[40, 'Maintainers']]);
    expect(rule.body.merge_access_levels.map((l: any) => [l.access_level, l.access_level_description])).toEqual([[40, 'Maintainers']]);
    expect(rule.body.allow_force_push).toBe(false);
    // ProtectDefaultBranchService gives no unprotect levels (only the API adds the Maintainer default).
    expect(rule.body.unprotect_access_levels).toEqual([]);

    expect((await commit(developer.token, 'main')).status).toBe(403);
    expect((await commit(owner.token, 'main')).status).toBe(201);
    // An unprotected branch takes push_code.
    expect((await api(`/projects/${projectId}/repository/branches`, { token: developer.token, body: { branch: 'feature', ref: 'main' } })).status).toBe(201);
    expect((await commit(developer.token, 'feature')).status).toBe(201);
  });

  it('applies wildcard rules and reports them on branches', async () => {
    expect((await api(`/projects/${projectId}/protected_branches`, { token: owner.token, body: { name: 'release/*', push_access_level: 30, merge_access_level: 0 } })).status).toBe(201);
    expect((await api(`/projects/${projectId}/repository/branches`, { token: developer.token, body: { branch: 'release/1', ref: 'main' } })).status).toBe(201);
    expect((await commit(developer.token, 'release/1')).status).toBe(201);

    const branches = await api(`/projects/${projectId}/repository/branches`, { token: developer.token });
    expect(branches.status).toBe(200);
    const flags = Object.fromEntries(branches.body.map((b: any) => [b.name, [b.protected, b.developers_can_push, b.developers_can_merge, b.can_push]]));
    expect(flags).toEqual({
      feature: [false, false, false, true],
      main: [true, false, false, false],
      'release/1': [true, true, false, true],
    });
  });

  it('unprotecting the default branch opens it to developers', async () => {
    expect((await api(`/projects/${projectId}/protected_branches/main`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await commit(developer.token, 'main')).status).toBe(201);
    const main = await api(`/projects/${projectId}/repository/branches/main`, { token: developer.token });
    expect([main.body.protected, main.body.can_push]).toEqual([false, true]);
  });
});
