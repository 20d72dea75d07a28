/**
 * Group entries of protected branches (EE ProtectedRefAccess): a group may be named only when the
 * project is shared with it at Developer or more, and it lets in its direct members of Developer
 * or more, for push (files API, Branch `can_push`) and merge rights alike.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;
let pusher: TestUser;
let developer: TestUser;
let projectId: number;
let team: number;
let readers: number;

const group = async (name: string) => {
  const path = unique(name);
  const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } });
  expect(g.status).toBe(201);
  return g.body.id as number;
};

beforeAll(async () => {
  [owner, pusher, developer] = await Promise.all([createUser(), createUser(), createUser()]);
  const p = await api('/projects', { token: owner.token, body: { path: unique('pbg'), visibility: 'private' } });
  projectId = p.body.id;
  expect((await api(`/projects/${projectId}/members`, { token: owner.token, body: { user_id: developer.id, access_level: 30 } })).status).toBe(201);
  [team, readers] = await Promise.all([group('team'), group('readers')]);
  expect((await api(`/groups/${team}/members`, { token: owner.token, body: { user_id: pusher.id, access_level: 30 } })).status).toBe(201);
  expect((await api(`/projects/${projectId}/share`, { token: owner.token, body: { group_id: team, group_access: 30 } })).status).toBe(201);
  expect((await api(`/projects/${projectId}/share`, { token: owner.token, body: { group_id: readers, group_access: 20 } })).status).toBe(201);
  const file = await api(`/projects/${projectId}/repository/files/README.md`, { token: owner.token, body: { branch: 'main', content: 'x', commit_message: 'init' } });
  expect(file.status).toBe(201);
  expect((await api(`/projects/${projectId}/repository/branches`, { token: owner.token, body: { branch: 'rel', ref: 'main' } })).status).toBe(201);
});

describe('protected branch group entries', () => {
  it('take only groups the project is shared with at Developer or more', async () => {
    const bad = await api(`/projects/${projectId}/protected_branches`, { token: owner.token, body: { name: unique('x'), allowed_to_push: [{ group_id: readers }] } });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ message: ['Push access levels group does not have access to the project'] });
    expect((await api(`/projects/${projectId}/protected_branches?search=x`, { token: owner.token })).body).toEqual([]);
  });

  it("let the group's direct Developer members push, and nobody else the entry does not name", async () => {
    const res = await api(`/projects/${projectId}/protected_branches`, { token: owner.token, body: { name: 'rel', allowed_to_push: [{ group_id: team }], allowed_to_merge: [{ group_id: team }] } });
    expect([res.status, res.body.message]).toEqual([201, undefined]);
    expect(res.body.push_access_levels).toEqual([{ id: expect.any(Number), access_level: 40, access_level_description: expect.any(String), user_id: null, group_id: team }]);

    const canPush = async (u: TestUser) => (await api(`/projects/${projectId}/repository/branches/rel`, { token: u.token })).body.can_push;
    expect(await canPush(pusher)).toBe(true);
    expect(await canPush(developer)).toBe(false);
    // The project's owner created the group, so is its direct Owner: in through the group too.
    expect(await canPush(owner)).toBe(true);

    const write = (u: TestUser) => api(`/projects/${projectId}/repository/files/${unique('f')}.txt`, { token: u.token, body: { branch: 'rel', content: 'y', commit_message: 'c' } });
    expect((await write(pusher)).status).toBe(201);
    const refused = await write(developer);
    // Files::CreateService#validate_permissions!: GitLab's 400 for a protected branch.
    expect([refused.status, refused.body]).toEqual([400, { message: 'You are not allowed to push into this branch' }]);

    // A Reporter of the group is no Developer: the entry does not let them in.
    expect((await api(`/groups/${team}/members/${pusher.id}`, { method: 'PUT', token: owner.token, body: { access_level: 20 } })).status).toBe(200);
    expect(await canPush(pusher)).toBe(false);
  });

  it('unsharing the project removes the entries that name the group (ProjectGroupLink#delete_related_access_levels)', async () => {
    const name = unique('gone');
    const res = await api(`/projects/${projectId}/protected_branches`, { token: owner.token, body: { name, allowed_to_push: [{ group_id: team }, { access_level: 40 }], allowed_to_merge: [{ group_id: team }] } });
    expect(res.status).toBe(201);
    expect((await api(`/projects/${projectId}/share/${team}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    const after = (await api(`/projects/${projectId}/protected_branches/${name}`, { token: owner.token })).body;
    expect([after.push_access_levels.map((l: { group_id: number | null; access_level: number }) => [l.group_id, l.access_level]), after.merge_access_levels]).toEqual([[[null, 40]], []]);
  });
});
