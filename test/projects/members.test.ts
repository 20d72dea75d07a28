import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

async function group(token: string, extra: Record<string, unknown> = {}) {
  const path = unique('g');
  const res = await api('/groups', { token, body: { name: path, path, ...extra } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body;
}

describe('members', () => {
  it('adds, reads, updates and removes a project member; Member entity order', async () => {
    const owner = await createUser();
    const dev = await createUser();
    const p = (await api('/projects', { token: owner.token, body: { path: unique('p') } })).body;
    const add = await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30, expires_at: '2999-01-01' } });
    expect(add.status).toBe(201);
    expect(Object.keys(add.body)).toEqual(['id', 'username', 'name', 'state', 'avatar_url', 'web_url', 'access_level', 'created_at', 'created_by', 'expires_at']);
    expect(add.body).toMatchObject({ id: dev.id, username: dev.username, access_level: 30, expires_at: '2999-01-01', created_by: { id: owner.id } });
    const again = await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: 'Member already exists' });
    const bad = await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: (await createUser()).id, access_level: 35 } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: { access_level: ['is not included in the list'] } });
    const noUser = await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: 999999999, access_level: 30 } });
    expect(noUser.body).toEqual({ message: '404 User Not Found' });
    expect((await api(`/projects/${p.id}/members/${dev.id}`, { token: dev.token })).body.access_level).toBe(30);
    const ownerGone = await api(`/projects/${p.id}/members/${owner.id}`, { method: 'DELETE', token: owner.token });
    expect(ownerGone.status).toBe(403);
    expect((await api(`/projects/${p.id}/members/${owner.id}`, { token: owner.token })).body.access_level).toBe(50);
    const put = await api(`/projects/${p.id}/members/${dev.id}`, { method: 'PUT', token: owner.token, body: { access_level: 40 } });
    expect(put.status).toBe(200);
    expect(put.body.access_level).toBe(40);
    const del = await api(`/projects/${p.id}/members/${dev.id}`, { method: 'DELETE', token: owner.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await api(`/projects/${p.id}/members/${dev.id}`, { token: owner.token })).status).toBe(404);
    expect((await api(`/projects/${p.id}`, { token: dev.token })).status).toBe(404);
  });

  it('inherits group membership down subgroups and projects; members/all shows the highest level', async () => {
    const owner = await createUser();
    const rep = await createUser();
    const g = await group(owner.token);
    const sub = (await api('/groups', { token: owner.token, body: { name: 'Sub', path: 'sub', parent_id: g.id } })).body;
    const p = (await api('/projects', { token: owner.token, body: { path: 'proj', namespace_id: sub.id } })).body;
    await api(`/groups/${g.id}/members`, { token: owner.token, body: { user_id: rep.id, access_level: 20 } });
    const got = await api(`/projects/${p.id}`, { token: rep.token });
    expect(got.status).toBe(200);
    expect(got.body.permissions).toEqual({ project_access: null, group_access: { access_level: 20, notification_level: 3 } });
    expect((await api(`/groups/${sub.id}`, { token: rep.token })).status).toBe(200);
    const all = await api(`/projects/${p.id}/members/all`, { token: rep.token });
    expect(all.body.map((m: any) => [m.id, m.access_level]).sort()).toEqual([[owner.id, 50], [rep.id, 20]].sort());
    const direct = await api(`/projects/${p.id}/members`, { token: rep.token });
    expect(direct.body.map((m: any) => m.id)).not.toContain(rep.id);
    // A project level below the inherited one is refused.
    const low = await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: rep.id, access_level: 10 } });
    expect(low.status).toBe(400);
    expect(low.body).toEqual({ message: { access_level: [`should be greater than or equal to Reporter inherited membership from group ${g.name}`] } });
    // Reporter cannot manage members.
    const denied = await api(`/projects/${p.id}/members`, { token: rep.token, body: { user_id: owner.id, access_level: 30 } });
    expect(denied.status).toBe(403);
  });

  it('owner rules: only owners grant owner; the last owner of a group cannot be demoted or removed', async () => {
    const owner = await createUser();
    const maint = await createUser();
    const other = await createUser();
    const p = (await api('/projects', { token: owner.token, body: { path: unique('p') } })).body;
    await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: maint.id, access_level: 40 } });
    const grant = await api(`/projects/${p.id}/members`, { token: maint.token, body: { user_id: other.id, access_level: 50 } });
    expect(grant.status).toBe(403);
    expect((await api(`/projects/${p.id}/members`, { token: maint.token, body: { user_id: other.id, access_level: 30 } })).status).toBe(201);

    const g = await group(owner.token);
    const demote = await api(`/groups/${g.id}/members/${owner.id}`, { method: 'PUT', token: owner.token, body: { access_level: 40 } });
    expect(demote.status).toBe(403);
    const remove = await api(`/groups/${g.id}/members/${owner.id}`, { method: 'DELETE', token: owner.token });
    expect(remove.status).toBe(403);
    expect((await api(`/groups/${g.id}/members`, { token: owner.token, body: { user_id: other.id, access_level: 50 } })).status).toBe(201);
    expect((await api(`/groups/${g.id}/members/${owner.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await api(`/groups/${g.id}/members`, { token: other.token })).body.map((m: any) => m.id)).toEqual([other.id]);
  });
});

describe('user deletion and groups', () => {
  it('409 while the sole owner of a group; hard_delete removes the group; personal projects go with the user', async () => {
    const user = await createUser();
    const g = await group(user.token);
    const p = (await api('/projects', { token: user.token, body: { path: unique('p'), visibility: 'public' } })).body;
    const soft = await api(`/users/${user.id}`, { method: 'DELETE', token: rootToken });
    expect(soft.status).toBe(409);
    expect(soft.body).toEqual({ message: 'User cannot be removed while is the sole-owner of a group' });
    expect((await api(`/users/${user.id}`, { token: rootToken })).status).toBe(200);
    const hard = await api(`/users/${user.id}?hard_delete=true`, { method: 'DELETE', token: rootToken });
    expect(hard.status).toBe(204);
    expect((await api(`/groups/${g.id}`, { token: rootToken })).status).toBe(404);
    expect((await api(`/projects/${p.id}`, { token: rootToken })).status).toBe(404);
  });

  it('a co-owned group does not block deletion and keeps the other owner; memberships end', async () => {
    const user = await createUser();
    const other = await createUser();
    const g = await group(other.token);
    await api(`/groups/${g.id}/members`, { token: other.token, body: { user_id: user.id, access_level: 50 } });
    expect((await api(`/users/${user.id}`, { method: 'DELETE', token: rootToken })).status).toBe(204);
    const members = await api(`/groups/${g.id}/members`, { token: other.token });
    expect(members.body.map((m: any) => m.id)).toEqual([other.id]);
  });

  it('without_projects lists only users without any project access (administrators)', async () => {
    const withProject = await createUser();
    const without = await createUser();
    await api('/projects', { token: withProject.token, body: { path: unique('p') } });
    const res = await api(`/users?without_projects=true&per_page=100&search=${withProject.username}`, { token: rootToken });
    expect(res.body).toEqual([]);
    const res2 = await api(`/users?without_projects=true&search=${without.username}`, { token: rootToken });
    expect(res2.body.map((u: any) => u.id)).toEqual([without.id]);
  });
});
