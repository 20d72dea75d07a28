/**
 * Instance settings that govern projects and groups, changed through PUT /application/settings and
 * observed through the API: default_project_creation (groups that set no level of their own follow
 * it), default_project_visibility / default_group_visibility (when POST omits visibility), and
 * default_branch_protection as groups report it. Each test restores what it changed: the suite shares
 * one instance.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, withSettings } from '../support';

describe('default_project_creation', () => {
  it('decides who creates projects in a group without a level of its own; an explicit level wins', async () => {
    const [owner, maintainer, developer] = await Promise.all([createUser(), createUser(), createUser()]);
    const path = unique('dpc');
    const g = await api('/groups', { token: owner.token, body: { name: path, path } });
    expect(g.status).toBe(201);
    const own = unique('dpcx');
    const explicit = await api('/groups', { token: owner.token, body: { name: own, path: own, project_creation_level: 'developer' } });
    expect(explicit.status).toBe(201);
    for (const group of [g.body.id, explicit.body.id]) {
      await api(`/groups/${group}/members`, { token: owner.token, body: { user_id: maintainer.id, access_level: 40 } });
      await api(`/groups/${group}/members`, { token: owner.token, body: { user_id: developer.id, access_level: 30 } });
    }
    const create = (token: string, namespace_id: number) => api('/projects', { token, body: { name: unique('p'), namespace_id } });
    const refused = { message: { namespace: ['is not valid'] } };

    // Fresh instance: 2, developers and maintainers.
    expect(g.body.project_creation_level).toBe('developer');
    expect((await create(developer.token, g.body.id)).status).toBe(201);

    await withSettings({ default_project_creation: 1 }, async () => {
      expect((await api(`/groups/${g.body.id}`, { token: owner.token })).body.project_creation_level).toBe('maintainer');
      const dev = await create(developer.token, g.body.id);
      expect([dev.status, dev.body]).toEqual([400, refused]);
      expect((await create(maintainer.token, g.body.id)).status).toBe(201);
      // The group that chose `developer` keeps it.
      expect((await api(`/groups/${explicit.body.id}`, { token: owner.token })).body.project_creation_level).toBe('developer');
      expect((await create(developer.token, explicit.body.id)).status).toBe(201);
    });

    await withSettings({ default_project_creation: 0 }, async () => {
      const list = await api(`/groups?search=${path}`, { token: owner.token });
      expect(list.body.find((x: any) => x.id === g.body.id).project_creation_level).toBe('noone');
      const m = await create(maintainer.token, g.body.id);
      expect([m.status, m.body]).toEqual([400, refused]);
      const o = await create(owner.token, g.body.id);
      expect([o.status, o.body]).toEqual([400, refused]);
      // Administrators are not bound by it.
      expect((await create(rootToken, g.body.id)).status).toBe(201);
    });

    // Restored: developers create again.
    expect((await create(developer.token, g.body.id)).status).toBe(201);
  });
});

describe('default_project_visibility and default_group_visibility', () => {
  it('give the visibility of a project or group created without one', async () => {
    const user = await createUser();
    await withSettings({ default_project_visibility: 'internal', default_group_visibility: 'public' }, async () => {
      const p = await api('/projects', { token: user.token, body: { name: unique('dpv') } });
      expect([p.status, p.body.visibility]).toEqual([201, 'internal']);
      const path = unique('dgv');
      const g = await api('/groups', { token: user.token, body: { name: path, path } });
      expect([g.status, g.body.visibility]).toEqual([201, 'public']);
      // An explicit visibility still wins.
      const priv = await api('/projects', { token: user.token, body: { name: unique('dpv'), visibility: 'private' } });
      expect(priv.body.visibility).toBe('private');
    });
    const after = await api('/projects', { token: user.token, body: { name: unique('dpv') } });
    expect(after.body.visibility).toBe('private');
  });
});

describe('restricted_visibility_levels on group update', () => {
  it('refuses a non-administrator moving a group to a restricted level', async () => {
    const user = await createUser();
    const path = unique('rvl');
    const g = await api('/groups', { token: user.token, body: { name: path, path } });
    expect(g.status).toBe(201);
    await withSettings({ restricted_visibility_levels: ['internal'] }, async () => {
      const up = await api(`/groups/${g.body.id}`, { method: 'PUT', token: user.token, body: { visibility: 'internal' } });
      const restricted = { message: { visibility_level: ['internal has been restricted by your GitLab administrator'] } };
      expect([up.status, up.body]).toEqual([400, restricted]);
      const p = await api('/projects', { token: user.token, body: { name: unique('rvl') } });
      const pu = await api(`/projects/${p.body.id}`, { method: 'PUT', token: user.token, body: { visibility: 'internal' } });
      expect([pu.status, pu.body]).toEqual([400, restricted]);
      // Administrators may use it.
      expect((await api(`/groups/${g.body.id}`, { method: 'PUT', token: rootToken, body: { visibility: 'internal' } })).body.visibility).toBe('internal');
    });
  });
});

describe('default_branch_protection on groups', () => {
  it('is what a group reports, since groups here set none of their own', async () => {
    const user = await createUser();
    const path = unique('dbp');
    const g = await api('/groups', { token: user.token, body: { name: path, path } });
    expect(g.body.default_branch_protection).toBe(2);
    await withSettings({ default_branch_protection: 0 }, async () => {
      expect((await api(`/groups/${g.body.id}`, { token: user.token })).body.default_branch_protection).toBe(0);
    });
  });
});

describe('default_branch_name', () => {
  it("names a new project's default branch unless the request or the group names one; the first commit there is protected", async () => {
    const user = await createUser();
    const path = unique('dbn');
    const g = await api('/groups', { token: user.token, body: { name: path, path } });
    const own = unique('dbng');
    const named = await api('/groups', { token: user.token, body: { name: own, path: own, default_branch: 'develop' } });
    expect([g.status, named.status]).toEqual([201, 201]);
    await withSettings({ default_branch_name: 'trunk' }, async () => {
      const p = await api('/projects', { token: user.token, body: { name: unique('dbn'), namespace_id: g.body.id } });
      expect([p.status, p.body.default_branch]).toEqual([201, 'trunk']);
      const commit = await api(`/projects/${p.body.id}/repository/commits`, {
        token: user.token,
        body: { branch: 'trunk', commit_message: 'first', actions: [{ action: 'create', file_path: 'a.txt', content: 'x' }] },
      });
      expect(commit.status).toBe(201);
      expect((await api(`/projects/${p.body.id}/protected_branches`, { token: user.token })).body.map((r: any) => r.name)).toEqual(['trunk']);
      expect((await api(`/projects/${p.body.id}`, { token: user.token })).body.default_branch).toBe('trunk');
      // The group's own name wins; the request's wins over both.
      expect((await api('/projects', { token: user.token, body: { name: unique('dbn'), namespace_id: named.body.id } })).body.default_branch).toBe('develop');
      expect((await api('/projects', { token: user.token, body: { name: unique('dbn'), default_branch: 'stable' } })).body.default_branch).toBe('stable');
      expect((await api('/projects', { token: user.token, body: { name: unique('dbn') } })).body.default_branch).toBe('trunk');
    });
    expect((await api('/projects', { token: user.token, body: { name: unique('dbn') } })).body.default_branch).toBe('main');
  });
});
