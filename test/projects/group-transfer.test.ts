/** POST /groups/:id/transfer (GitLab groups.rb, Groups::TransferService). */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';

const failed = (message: string) => ({ message: `Transfer failed: ${message}` });

async function tree(token: string, visibility = 'public') {
  const path = unique('gt');
  const top = (await api('/groups', { token, body: { name: path, path, visibility } })).body;
  const sub = (await api('/groups', { token, body: { name: 'Sub', path: 'sub', parent_id: top.id, visibility } })).body;
  const leaf = (await api('/groups', { token, body: { name: 'Leaf', path: 'leaf', parent_id: sub.id, visibility } })).body;
  const project = (await api('/projects', { token, body: { path: 'p', namespace_id: leaf.id, visibility } })).body;
  return { path, top, sub, leaf, project };
}

describe('POST /groups/:id/transfer', () => {
  it('moves a subtree under another group: full paths, traversal (access) and visibility follow', async () => {
    const [u, member] = await Promise.all([createUser(), createUser()]);
    const a = await tree(u.token);
    const targetPath = unique('gt');
    const target = (await api('/groups', { token: u.token, body: { name: targetPath, path: targetPath, visibility: 'internal' } })).body;
    await api(`/groups/${target.id}/members`, { token: u.token, body: { user_id: member.id, access_level: 30 } });

    const res = await api(`/groups/${a.sub.id}/transfer`, { method: 'POST', token: u.token, body: { group_id: target.id } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: a.sub.id, full_path: `${targetPath}/sub`, parent_id: target.id, visibility: 'internal' });
    const leaf = (await api(`/groups/${a.leaf.id}`, { token: u.token })).body;
    expect([leaf.full_path, leaf.visibility]).toEqual([`${targetPath}/sub/leaf`, 'internal']);
    const project = (await api(`/projects/${encodeURIComponent(`${targetPath}/sub/leaf/p`)}`, { token: u.token })).body;
    expect([project.id, project.visibility]).toEqual([a.project.id, 'internal']);
    // Members of the new parent now reach the moved subtree (the traversal paths moved too).
    expect((await api(`/projects/${a.project.id}/members/all/${member.id}`, { token: u.token })).body.access_level).toBe(30);
    expect((await api(`/projects/${a.project.id}/issues`, { method: 'POST', token: member.token, body: { title: 'reachable' } })).status).toBe(201);
    // The old parent lists it no more.
    expect((await api(`/groups/${a.top.id}/subgroups`, { token: u.token })).body).toEqual([]);
  });

  it('makes a subgroup top-level without group_id', async () => {
    const u = await createUser();
    const a = await tree(u.token);
    const res = await api(`/groups/${a.leaf.id}/transfer`, { method: 'POST', token: u.token });
    // `leaf` is free at the top level only if nobody took it: the usual case is a clash.
    if (res.status === 201) expect(res.body).toMatchObject({ full_path: 'leaf', parent_id: null });
    else expect([res.status, res.body]).toEqual([400, failed('The parent group already has a subgroup or a project with the same path.')]);
    const own = (await api('/groups', { token: u.token, body: { name: 'Own', path: unique('own'), parent_id: a.top.id } })).body;
    const moved = await api(`/groups/${own.id}/transfer`, { method: 'POST', token: u.token });
    expect([moved.status, moved.body.full_path, moved.body.parent_id]).toEqual([201, own.path, null]);
  });

  it("answers TransferService's errors in GitLab's order", async () => {
    const u = await createUser();
    const a = await tree(u.token);
    const post = (id: number, body: Record<string, unknown> = {}) => api(`/groups/${id}/transfer`, { method: 'POST', token: u.token, body }).then((r) => [r.status, r.body]);
    expect(await post(a.top.id)).toEqual([400, failed('Group is already a root group.')]);
    expect(await post(a.leaf.id, { group_id: a.sub.id })).toEqual([400, failed('Group is already associated to the parent group.')]);
    expect(await post(a.top.id, { group_id: a.leaf.id })).toEqual([400, failed('Cannot transfer group to one of its subgroup.')]);
    const clash = (await api('/groups', { token: u.token, body: { name: 'x', path: 'leaf', parent_id: a.top.id } })).body;
    expect(clash.id).toBeGreaterThan(0);
    expect(await post(a.leaf.id, { group_id: a.top.id })).toEqual([400, failed('The parent group already has a subgroup or a project with the same path.')]);
    expect(await post(a.leaf.id, { group_id: 999999999 })).toEqual([404, { message: '404 Group Not Found' }]);
  });

  it("needs Owner of the group, and the right to create subgroups in the target", async () => {
    const [u, other] = await Promise.all([createUser(), createUser()]);
    const a = await tree(u.token, 'private');
    await api(`/groups/${a.top.id}/members`, { token: u.token, body: { user_id: other.id, access_level: 40 } });
    expect(await api(`/groups/${a.leaf.id}/transfer`, { method: 'POST', token: other.token }).then((r) => [r.status, r.body])).toEqual([403, { message: '403 Forbidden' }]);
    const theirs = unique('gt');
    const foreign = (await api('/groups', { token: other.token, body: { name: theirs, path: theirs, visibility: 'public' } })).body;
    expect(await api(`/groups/${a.leaf.id}/transfer`, { method: 'POST', token: u.token, body: { group_id: foreign.id } }).then((r) => [r.status, r.body])).toEqual([
      400,
      failed("You don't have enough permissions."),
    ]);
    expect((await api(`/groups/${a.leaf.id}/transfer`, { method: 'POST' })).status).toBe(401);
  });
});
