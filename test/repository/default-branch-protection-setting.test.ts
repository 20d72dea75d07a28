/**
 * default_branch_protection, changed through PUT /application/settings: the protection the first
 * commit gives a new project's default branch (Projects::ProtectDefaultBranchService, levels 0..2 of
 * Gitlab::Access::BranchProtection: the spec's range; PUT refuses 3 and 4) and whether a developer may make that first push.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

async function projectWithDeveloper() {
  const [owner, developer] = await Promise.all([createUser(), createUser()]);
  const p = await api('/projects', { token: owner.token, body: { name: unique('dbp') } });
  expect(p.status).toBe(201);
  expect((await api(`/projects/${p.body.id}/members`, { token: owner.token, body: { user_id: developer.id, access_level: 30 } })).status).toBe(201);
  return { owner, developer, id: p.body.id as number };
}

const commit = (id: number, token: string) =>
  api(`/projects/${id}/repository/commits`, { token, body: { branch: 'main', commit_message: 'first', actions: [{ action: 'create', file_path: 'a.txt', content: 'x' }] } });

const levels = (rule: any) => [rule.push_access_levels.map((l: any) => l.access_level), rule.merge_access_levels.map((l: any) => l.access_level)];

describe('default_branch_protection', () => {
  // [setting, developer may make the first push, [push levels, merge levels] of the rule or null]
  const cases: [number, boolean, number[][] | null][] = [
    [0, true, null],
    [1, true, [[30], [40]]],
    [2, false, [[40], [40]]],
  ];
  for (const [setting, developerFirst, rule] of cases) {
    it(`${setting}: first push by a developer ${developerFirst ? 'allowed' : 'refused'}, rule ${JSON.stringify(rule)}`, async () => {
      const before = (await api('/application/settings', { token: rootToken })).body.default_branch_protection;
      expect(before).toBe(2);
      const put = await api('/application/settings', { method: 'PUT', token: rootToken, body: { default_branch_protection: setting } });
      expect([put.status, put.body.default_branch_protection]).toEqual([200, setting]);
      try {
        const { owner, developer, id } = await projectWithDeveloper();
        const first = await commit(id, developer.token);
        if (developerFirst) expect(first.status).toBe(201);
        else {
          expect([first.status, first.body]).toEqual([403, { message: '403 Forbidden - You are not allowed to push into this branch' }]);
          expect((await commit(id, owner.token)).status).toBe(201);
        }
        const list = await api(`/projects/${id}/protected_branches`, { token: owner.token });
        expect(list.status).toBe(200);
        if (rule === null) expect(list.body).toEqual([]);
        else {
          expect(list.body.map((r: any) => r.name)).toEqual(['main']);
          expect(levels(list.body[0])).toEqual(rule);
        }
      } finally {
        await api('/application/settings', { method: 'PUT', token: rootToken, body: { default_branch_protection: before } });
      }
    });
  }
});
