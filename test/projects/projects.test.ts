import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const linkPath = (link: string) => link.slice(link.indexOf('/api/v4'), link.indexOf('>'));

describe('projects', () => {
  it('creates a personal project (owner member, owner object) and reads it by id and encoded full path', async () => {
    const user = await createUser();
    const name = unique('Proj');
    const res = await api('/projects', { token: user.token, body: { name, description: 'desc', visibility: 'private', topics: 'b,a' } });
    expect(res.status).toBe(201);
    const path = name.toLowerCase();
    expect(Object.keys(res.body).slice(0, 8)).toEqual(['id', 'description', 'name', 'name_with_namespace', 'path', 'path_with_namespace', 'created_at', 'default_branch']);
    expect(res.body).toMatchObject({
      name,
      path,
      description: 'desc',
      path_with_namespace: `${user.username}/${path}`,
      name_with_namespace: `${user.name} / ${name}`,
      visibility: 'private',
      topics: ['a', 'b'],
      tag_list: ['a', 'b'],
      namespace: { kind: 'user', full_path: user.username, parent_id: null },
      owner: { id: user.id, username: user.username },
      creator_id: user.id,
      archived: false,
    });
    expect(res.body.web_url).toMatch(new RegExp(`/${user.username}/${path}$`));
    expect(res.body.http_url_to_repo).toMatch(new RegExp(`/${user.username}/${path}\\.git$`));
    expect(res.body._links.self).toMatch(new RegExp(`/api/v4/projects/${res.body.id}$`));
    expect(res.body.open_issues_count).toBe(0);

    const byPath = await api(`/projects/${encodeURIComponent(`${user.username}/${path}`)}`, { token: user.token });
    expect(byPath.status).toBe(200);
    expect(byPath.body.id).toBe(res.body.id);
    expect(byPath.body.permissions).toEqual({ project_access: { access_level: 50, notification_level: 3 }, group_access: null });
    expect((await api(`/projects/${path}`, { token: user.token })).body).toEqual({ message: '404 Project Not Found' });
    const members = await api(`/projects/${res.body.id}/members`, { token: user.token });
    expect(members.body.map((m: any) => [m.id, m.access_level])).toEqual([[user.id, 50]]);
  });

  it('private project: 404 for non-members and anonymous, indistinguishable from a missing one', async () => {
    const user = await createUser();
    const other = await createUser();
    const p = await api('/projects', { token: user.token, body: { path: unique('p') } });
    for (const token of [other.token, null]) {
      const res = await api(`/projects/${p.body.id}`, { token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: '404 Project Not Found' });
    }
    expect((await api('/projects/999999999', { token: other.token })).body).toEqual({ message: '404 Project Not Found' });
    expect((await api(`/projects/${p.body.id}`, { token: rootToken })).status).toBe(200);
    const list = await api(`/projects?search=${p.body.path}`, { token: other.token });
    expect(list.body).toEqual([]);
    expect(list.headers.get('x-total')).toBe('0');
  });

  it('creates in a group per project_creation_level, validates names, paths and visibility', async () => {
    const owner = await createUser();
    const guest = await createUser();
    const gp = unique('g');
    const g = await api('/groups', { token: owner.token, body: { name: gp, path: gp, visibility: 'internal' } });
    await api(`/groups/${g.body.id}/members`, { token: owner.token, body: { user_id: guest.id, access_level: 10 } });
    const ok = await api('/projects', { token: owner.token, body: { name: 'Alpha', namespace_id: g.body.id } });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ path: 'alpha', path_with_namespace: `${gp}/alpha`, name_with_namespace: `${gp} / Alpha`, namespace: { id: g.body.id, kind: 'group' } });
    expect(ok.body.owner).toBeUndefined();
    const dup = await api('/projects', { token: owner.token, body: { name: 'Alpha', namespace_id: g.body.id } });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ message: { name: ['has already been taken'], path: ['has already been taken'] } });
    const vis = await api('/projects', { token: owner.token, body: { name: 'Beta', namespace_id: g.body.id, visibility: 'public' } });
    expect(vis.body).toEqual({ message: { visibility_level: ['public is not allowed in a internal group.'] } });
    const denied = await api('/projects', { token: guest.token, body: { name: 'Gamma', namespace_id: g.body.id } });
    expect(denied.status).toBe(400);
    expect(denied.body).toEqual({ message: { namespace: ['is not valid'] } });
    const missing = await api('/projects', { token: owner.token, body: { description: 'x' } });
    expect(missing.body).toEqual({ error: 'name, path are missing, at least one parameter must be provided' });
    const groupList = await api(`/groups/${g.body.id}/projects`, { token: guest.token });
    expect(groupList.body.map((p: any) => p.id)).toEqual([ok.body.id]);
  });

  it('updates (maintainer+, visibility owner) and deletes (owner) with 202', async () => {
    const owner = await createUser();
    const dev = await createUser();
    const p = await api('/projects', { token: owner.token, body: { path: unique('p') } });
    await api(`/projects/${p.body.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } });
    const denied = await api(`/projects/${p.body.id}`, { method: 'PUT', token: dev.token, body: { description: 'x' } });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ message: '403 Forbidden' });
    const put = await api(`/projects/${p.body.id}`, { method: 'PUT', token: owner.token, body: { description: 'new', visibility: 'public', issues_access_level: 'private' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ description: 'new', visibility: 'public', issues_access_level: 'private' });
    expect((await api(`/projects/${p.body.id}`)).body.visibility).toBe('public');
    expect((await api(`/projects/${p.body.id}`, { method: 'DELETE', token: dev.token })).status).toBe(403);
    const del = await api(`/projects/${p.body.id}`, { method: 'DELETE', token: owner.token });
    expect(del.status).toBe(202);
    expect(del.body).toEqual({ message: '202 Accepted' });
    expect((await api(`/projects/${p.body.id}`, { token: rootToken })).status).toBe(404);
  });

  it('keyset pagination by id: id_before links, only rel=next, empty page without Link at the end', async () => {
    const user = await createUser();
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api('/projects', { token: user.token, body: { path: unique('k'), visibility: 'public' } })).body.id);
    const first = await api(`/users/${user.id}/projects?pagination=keyset&order_by=id&per_page=2`, { token: user.token });
    expect(first.status).toBe(200);
    expect(first.body.map((p: any) => p.id)).toEqual([ids[2], ids[1]]);
    const link = first.headers.get('link')!;
    expect(link).toContain(`id_before=${ids[1]}`);
    expect(link).toMatch(/rel="next"$/);
    expect(first.headers.get('x-total')).toBeNull();
    const second = await api(linkPath(link), { token: user.token });
    expect(second.body.map((p: any) => p.id)).toEqual([ids[0]]);
    const third = await api(linkPath(second.headers.get('link')!), { token: user.token });
    expect(third.body).toEqual([]);
    expect(third.headers.get('link')).toBeNull();
    expect((await api('/projects?pagination=keyset&order_by=name')).status).toBe(405);
    const anon = await api(`/users/${user.id}/projects?pagination=keyset&order_by=id&sort=asc&per_page=1`);
    expect(anon.body.map((p: any) => p.id)).toEqual([ids[0]]);
    expect(anon.headers.get('link')).toContain(`id_after=${ids[0]}`);
  });

  it('lists with membership, owned, min_access_level and simple', async () => {
    const user = await createUser();
    const other = await createUser();
    const mine = await api('/projects', { token: user.token, body: { path: unique('m') } });
    const theirs = await api('/projects', { token: other.token, body: { path: unique('t') } });
    await api(`/projects/${theirs.body.id}/members`, { token: other.token, body: { user_id: user.id, access_level: 20 } });
    const membership = await api('/projects?membership=true&order_by=id&sort=asc', { token: user.token });
    expect(membership.body.map((p: any) => p.id)).toEqual([mine.body.id, theirs.body.id]);
    const owned = await api('/projects?owned=true', { token: user.token });
    expect(owned.body.map((p: any) => p.id)).toEqual([mine.body.id]);
    const maint = await api('/projects?min_access_level=40', { token: user.token });
    expect(maint.body.map((p: any) => p.id)).toEqual([mine.body.id]);
    const simple = await api('/projects?simple=true&owned=true', { token: user.token });
    expect(simple.body[0].visibility).toBeUndefined();
    expect(simple.body[0].namespace.full_path).toBe(user.username);
  });

  it('POST /projects/user/:user_id is for administrators', async () => {
    const user = await createUser();
    expect((await api(`/projects/user/${user.id}`, { token: user.token, body: { name: 'x' } })).status).toBe(403);
    const res = await api(`/projects/user/${user.id}`, { token: rootToken, body: { name: 'Made' } });
    expect(res.status).toBe(201);
    expect(res.body.namespace.full_path).toBe(user.username);
    expect((await api(`/projects/${res.body.id}`, { token: user.token })).body.permissions.project_access.access_level).toBe(50);
  });

  it('personal project limit: 403 with GitLab\'s array message', async () => {
    const ext = await createUser({ attrs: { external: true } });
    const none = await api('/projects', { token: ext.token, body: { name: 'x' } });
    expect(none.status).toBe(403);
    expect(none.body).toEqual({ message: ['Personal project creation is not allowed. Please contact your administrator with questions'] });
    const one = await createUser({ attrs: { projects_limit: 1 } });
    expect((await api('/projects', { token: one.token, body: { name: 'first' } })).status).toBe(201);
    const second = await api('/projects', { token: one.token, body: { name: 'second' } });
    expect(second.status).toBe(403);
    expect(second.body).toEqual({ message: ['Your project limit is 1 projects! Please contact your administrator to increase it'] });
    expect((await api(`/users/${one.id}/projects`, { token: one.token })).body.map((p: any) => p.name)).toEqual(['first']);
  });

  it('offset pagination of projects stops at the offset limit with 405', async () => {
    const res = await api('/projects?page=501&per_page=100');
    expect(res.status).toBe(405);
    expect(res.body).toEqual({
      error: 'Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Project. Remaining records can be retrieved using keyset pagination.',
    });
    expect((await api('/projects?page=500&per_page=100')).status).toBe(200);
  });

  it('a developer who creates a project in a group becomes its maintainer; a group owner gets no extra row', async () => {
    const owner = await createUser();
    const dev = await createUser();
    const gp = unique('g');
    const g = (await api('/groups', { token: owner.token, body: { name: gp, path: gp } })).body;
    await api(`/groups/${g.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } });
    const p = (await api('/projects', { token: dev.token, body: { path: 'byDev', namespace_id: g.id } })).body;
    expect((await api(`/projects/${p.id}/members`, { token: dev.token })).body.map((m: any) => [m.id, m.access_level])).toEqual([[dev.id, 40]]);
    const q = (await api('/projects', { token: owner.token, body: { path: 'byOwner', namespace_id: g.id } })).body;
    expect((await api(`/projects/${q.id}/members`, { token: owner.token })).body).toEqual([]);
    expect((await api(`/projects/${q.id}`, { token: owner.token })).body.permissions).toEqual({ project_access: null, group_access: { access_level: 50, notification_level: 3 } });
  });
});
