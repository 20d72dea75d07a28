import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

describe('groups', () => {
  it('creates a group with the creator as owner, a subgroup, and reads both by id and full path', async () => {
    const owner = await createUser();
    const path = unique('g');
    const res = await api('/groups', { token: owner.token, body: { name: `Group ${path}`, path, visibility: 'private', description: 'd' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).slice(0, 5)).toEqual(['id', 'name', 'path', 'description', 'visibility']);
    expect(res.body).toMatchObject({ name: `Group ${path}`, path, full_path: path, full_name: `Group ${path}`, parent_id: null, visibility: 'private', request_access_enabled: true, lfs_enabled: true });
    expect(res.body.web_url).toMatch(new RegExp(`/groups/${path}$`));
    const members = await api(`/groups/${res.body.id}/members`, { token: owner.token });
    expect(members.status).toBe(200);
    expect(members.body.map((m: any) => [m.username, m.access_level])).toEqual([[owner.username, 50]]);

    const sub = await api('/groups', { token: owner.token, body: { name: 'Sub', path: 'sub', parent_id: res.body.id } });
    expect(sub.status).toBe(201);
    expect(sub.body).toMatchObject({ full_path: `${path}/sub`, full_name: `Group ${path} / Sub`, parent_id: res.body.id, visibility: 'private' });
    const byPath = await api(`/groups/${encodeURIComponent(`${path}/sub`)}`, { token: owner.token });
    expect(byPath.status).toBe(200);
    expect(byPath.body.id).toBe(sub.body.id);
    const subgroups = await api(`/groups/${res.body.id}/subgroups`, { token: owner.token });
    expect(subgroups.body.map((g: any) => g.id)).toEqual([sub.body.id]);
    const desc = await api(`/groups/${res.body.id}/descendant_groups`, { token: owner.token });
    expect(desc.body.map((g: any) => g.id)).toEqual([sub.body.id]);
  });

  it('hides a private group from strangers and anonymous callers as 404', async () => {
    const owner = await createUser();
    const other = await createUser();
    const path = unique('g');
    const g = await api('/groups', { token: owner.token, body: { name: path, path } });
    for (const token of [other.token, null]) {
      const res = await api(`/groups/${g.body.id}`, { token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: '404 Group Not Found' });
    }
    expect((await api(`/groups/${g.body.id}`, { token: rootToken })).status).toBe(200);
  });

  it('a member of a project or subgroup below a private group can read the group (GroupPolicy has_projects)', async () => {
    const owner = await createUser();
    const viaProject = await createUser();
    const viaSub = await createUser();
    const path = unique('g');
    const g = (await api('/groups', { token: owner.token, body: { name: path, path } })).body;
    const sub = (await api('/groups', { token: owner.token, body: { name: 'Sub', path: 'sub', parent_id: g.id } })).body;
    const p = (await api('/projects', { token: owner.token, body: { path: 'p', namespace_id: g.id } })).body;
    await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: viaProject.id, access_level: 10 } });
    await api(`/groups/${sub.id}/members`, { token: owner.token, body: { user_id: viaSub.id, access_level: 10 } });
    expect((await api(`/groups/${g.id}`, { token: viaProject.token })).status).toBe(200);
    expect((await api(`/groups/${g.id}`, { token: viaSub.token })).status).toBe(200);
    // Membership below does not reach sideways: the subgroup member cannot read the project.
    expect((await api(`/projects/${p.id}`, { token: viaSub.token })).status).toBe(404);
  });

  it('validates: duplicate path, visibility above the parent, subgroup creation rights', async () => {
    const owner = await createUser();
    const dev = await createUser();
    const path = unique('g');
    const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'internal' } });
    const dup = await api('/groups', { token: owner.token, body: { name: path, path } });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ message: 'Failed to save group {:path=>["has already been taken"]}' });
    const vis = await api('/groups', { token: owner.token, body: { name: 'x', path: 'x', parent_id: g.body.id, visibility: 'public' } });
    expect(vis.status).toBe(400);
    expect(vis.body).toEqual({ message: 'Failed to save group {:visibility_level=>["public is not allowed since the parent group has a internal visibility."]}' });
    await api('/projects', { token: owner.token, body: { path: 'taken', namespace_id: g.body.id } });
    const clash = await api('/groups', { token: owner.token, body: { name: 'taken', path: 'taken', parent_id: g.body.id } });
    expect(clash.body).toEqual({ message: 'Failed to save group {:path=>["has already been taken"]}' });
    expect((await api(`/groups/${g.body.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } })).status).toBe(201);
    const denied = await api('/groups', { token: dev.token, body: { name: 'y', path: 'y', parent_id: g.body.id } });
    expect(denied.status).toBe(403);
    const missing = await api('/groups', { token: owner.token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'name is missing, path is missing' });
  });

  it('updates a path (descendants follow) and deletes with 202 and the subtree', async () => {
    const owner = await createUser();
    const path = unique('g');
    const g = await api('/groups', { token: owner.token, body: { name: path, path } });
    const sub = await api('/groups', { token: owner.token, body: { name: 'Sub', path: 'sub', parent_id: g.body.id } });
    const renamed = `${path}-new`;
    const put = await api(`/groups/${g.body.id}`, { method: 'PUT', token: owner.token, body: { path: renamed, description: 'new' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ path: renamed, full_path: renamed, description: 'new' });
    expect((await api(`/groups/${sub.body.id}`, { token: owner.token })).body.full_path).toBe(`${renamed}/sub`);
    const del = await api(`/groups/${g.body.id}`, { method: 'DELETE', token: owner.token });
    expect(del.status).toBe(202);
    expect(del.body).toEqual({ message: '202 Accepted' });
    expect((await api(`/groups/${sub.body.id}`, { token: rootToken })).status).toBe(404);
    expect((await api(`/groups/${g.body.id}`, { token: rootToken })).status).toBe(404);
  });

  it('keyset pagination: cursor for anonymous name-asc, 405 otherwise', async () => {
    const owner = await createUser();
    const prefix = unique('ks');
    for (const n of ['a', 'b', 'c']) await api('/groups', { token: owner.token, body: { name: `${prefix}${n}`, path: `${prefix}${n}`, visibility: 'public' } });
    const first = await api(`/groups?pagination=keyset&order_by=name&sort=asc&per_page=2&search=${prefix}`);
    expect(first.status).toBe(200);
    expect(first.body.map((g: any) => g.name)).toEqual([`${prefix}a`, `${prefix}b`]);
    const link = first.headers.get('link')!;
    expect(link).toMatch(/rel="next"$/);
    const next = await api(link.slice(link.indexOf('/api/v4'), link.indexOf('>')));
    expect(next.body.map((g: any) => g.name)).toEqual([`${prefix}c`]);
    expect(next.headers.get('link')).toBeNull();
    const authed = await api('/groups?pagination=keyset&order_by=name&sort=asc', { token: owner.token });
    expect(authed.status).toBe(405);
    expect(authed.body).toEqual({ error: 'Keyset pagination is not yet available for this type of request' });
    expect((await api('/groups?pagination=keyset&order_by=id')).status).toBe(405);
  });
});
