/**
 * The groups of an approval rule are GitLab's full Group entity (EE ApprovalRule `expose :groups,
 * using: Entities::Group`): what a group inherits from the instance settings (project_creation_level,
 * default_branch_protection) reads the same there as on GET /groups/:id. Restores what it changed:
 * the suite shares one instance.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

describe('an approval rule group', () => {
  it('shows the values the group inherits from the instance settings', async () => {
    const owner = await createUser();
    const path = unique('arg');
    const g = (await api('/groups', { token: owner.token, body: { name: path, path } })).body;
    const p = (await api('/projects', { token: owner.token, body: { name: unique('argp'), namespace_id: g.id } })).body;
    const before = (await api('/application/settings', { token: rootToken })).body;
    const changes = { default_project_creation: 1, default_branch_protection: 0 };
    expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: changes })).status).toBe(200);
    try {
      const rule = await api(`/projects/${p.id}/approval_rules`, { token: owner.token, body: { name: 'g', approvals_required: 1, group_ids: [g.id] } });
      expect(rule.status).toBe(201);
      const shown = (await api(`/groups/${g.id}`, { token: owner.token })).body;
      expect(shown).toMatchObject({ project_creation_level: 'maintainer', default_branch_protection: 0 });
      const inRule = rule.body.groups[0];
      expect(inRule).toMatchObject({ id: g.id, project_creation_level: 'maintainer', default_branch_protection: 0 });
      const listed = (await api(`/projects/${p.id}/approval_rules`, { token: owner.token })).body[0].groups[0];
      for (const key of Object.keys(inRule)) expect([key, listed[key]]).toEqual([key, shown[key]]);
    } finally {
      const restore = Object.fromEntries(Object.keys(changes).map((k) => [k, before[k]]));
      expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: restore })).status).toBe(200);
    }
  });
});
