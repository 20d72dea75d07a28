/**
 * The access a share gives follows every write that changes it (src/projects/share-grants.ts keeps
 * `share_grants` in the batch of each): memberships of the invited group added, changed and removed
 * after the share, a transfer of the invited group under a new parent, deletion of the invited
 * group, and what reads that access besides the project itself (lists, approval rule users).
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

const group = async (owner: TestUser, extra: Record<string, unknown> = {}) => {
  const path = unique('g');
  const res = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private', ...extra } });
  expect(res.status).toBe(201);
  return res.body as { id: number; full_path: string; name: string };
};
const project = async (owner: TestUser, namespaceId?: number) => {
  const res = await api('/projects', { token: owner.token, body: { path: unique('p'), visibility: 'private', ...(namespaceId ? { namespace_id: namespaceId } : {}) } });
  expect(res.status).toBe(201);
  return res.body as { id: number; path: string };
};
const member = async (owner: TestUser, groupId: number, user: TestUser, level: number) =>
  expect((await api(`/groups/${groupId}/members`, { token: owner.token, body: { user_id: user.id, access_level: level } })).status).toBe(201);
/** The caller's level in a project as the API shows it: 0 when it cannot read it, else the highest `min_access_level` that still lists it. */
const levelIn = async (user: TestUser, p: { id: number; path: string }) => {
  if ((await api(`/projects/${p.id}`, { token: user.token })).status !== 200) return 0;
  let best = 0;
  for (const lv of [10, 20, 30, 40, 50]) {
    const listed = (await api(`/projects?min_access_level=${lv}&search=${p.path}`, { token: user.token })).body as { id: number }[];
    if (listed.some((x) => x.id === p.id)) best = lv;
  }
  return best;
};

describe('share grants follow the invited group', () => {
  it("a membership added, changed and removed after the share gives, changes and ends the project's access", async () => {
    const [owner, other, dev, parentMember] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
    const p = await project(owner);
    const parent = await group(other);
    const invited = await group(other, { parent_id: parent.id });
    await member(other, invited.id, owner, 10);
    expect((await api(`/projects/${p.id}/share`, { token: owner.token, body: { group_id: invited.id, group_access: 30 } })).status).toBe(201);

    expect(await levelIn(dev, p)).toBe(0);
    await member(other, invited.id, dev, 40);
    // Capped at the link's Developer.
    expect(await levelIn(dev, p)).toBe(30);
    expect((await api(`/groups/${invited.id}/members/${dev.id}`, { method: 'PUT', token: other.token, body: { access_level: 20 } })).status).toBe(200);
    expect(await levelIn(dev, p)).toBe(20);
    expect((await api(`/groups/${invited.id}/members/${dev.id}`, { method: 'DELETE', token: other.token })).status).toBe(204);
    expect(await levelIn(dev, p)).toBe(0);

    // A member of the invited group's parent joining later is an inherited member of it.
    await member(other, parent.id, parentMember, 20);
    expect(await levelIn(parentMember, p)).toBe(20);
    // Expiry of the membership is the grant's too: a membership that ends tomorrow still counts today.
    const tomorrow = new Date(Date.now() + 86400000).toISOString().slice(0, 10);
    expect((await api(`/groups/${parent.id}/members/${parentMember.id}`, { method: 'PUT', token: other.token, body: { access_level: 30, expires_at: tomorrow } })).status).toBe(200);
    expect(await levelIn(parentMember, p)).toBe(30);
  });

  it('a transfer of the invited group under a new parent gives its members access, and moving it out takes it away', async () => {
    const [owner, other, newcomer] = await Promise.all([createUser(), createUser(), createUser()]);
    const shared = await group(owner);
    const sub = await group(owner, { parent_id: shared.id });
    const p = await project(owner, sub.id);
    const invited = await group(other);
    await member(other, invited.id, owner, 10);
    expect((await api(`/groups/${shared.id}/share`, { token: owner.token, body: { group_id: invited.id, group_access: 30 } })).status).toBe(201);
    const newParent = await group(other);
    await member(other, newParent.id, newcomer, 40);
    expect(await levelIn(newcomer, p)).toBe(0);

    const moved = await api(`/groups/${invited.id}/transfer`, { method: 'POST', token: other.token, body: { group_id: newParent.id } });
    expect(moved.status).toBe(201);
    // The group share reaches the shared group's subgroup and its project, capped at 30.
    expect(await levelIn(newcomer, p)).toBe(30);
    expect((await api(`/groups/${sub.id}`, { token: newcomer.token })).status).toBe(200);

    expect((await api(`/groups/${invited.id}/transfer`, { method: 'POST', token: other.token })).status).toBe(201);
    expect(await levelIn(newcomer, p)).toBe(0);
    expect((await api(`/groups/${sub.id}`, { token: newcomer.token })).status).toBe(404);
    // The invited group's own members keep theirs.
    expect(await levelIn(owner, p)).toBe(50);
    expect(await levelIn(other, p)).toBe(30);
  });

  it('deleting the invited group ends the shares and the access they gave', async () => {
    const [owner, other, dev] = await Promise.all([createUser(), createUser(), createUser()]);
    const p = await project(owner);
    const invited = await group(other);
    await member(other, invited.id, owner, 10);
    await member(other, invited.id, dev, 30);
    expect((await api(`/projects/${p.id}/share`, { token: owner.token, body: { group_id: invited.id, group_access: 30 } })).status).toBe(201);
    expect(await levelIn(dev, p)).toBe(30);
    expect((await api(`/groups/${invited.id}`, { method: 'DELETE', token: other.token })).status).toBe(202);
    expect(await levelIn(dev, p)).toBe(0);
    expect((await api(`/projects/${p.id}`, { token: owner.token })).body.shared_with_groups).toEqual([]);
  });

  it('members through a share are project members for lists and approval rule users', async () => {
    const [owner, dev] = await Promise.all([createUser(), createUser()]);
    const p = await project(owner);
    const team = await group(owner);
    await member(owner, team.id, dev, 30);
    const rule = async () =>
      (await api(`/projects/${p.id}/approval_rules`, { token: owner.token, body: { name: unique('r'), approvals_required: 1, user_ids: [dev.id] } })).body.users.map((u: { id: number }) => u.id);
    // Project#members_among: not a member yet, so the rule drops the user.
    expect(await rule()).toEqual([]);
    expect((await api(`/groups/${team.id}`, { token: dev.token })).body.shared_projects).toEqual([]);
    expect((await api(`/projects?membership=true&search=${p.path}`, { token: dev.token })).body).toEqual([]);
    expect((await api(`/projects/${p.id}/share`, { token: owner.token, body: { group_id: team.id, group_access: 30 } })).status).toBe(201);
    expect(await rule()).toEqual([dev.id]);
    // GroupDetail's shared_projects: the projects shared with the group that the caller may read.
    expect((await api(`/groups/${team.id}`, { token: dev.token })).body.shared_projects.map((x: { id: number }) => x.id)).toEqual([p.id]);
    expect((await api(`/groups/${team.id}?with_projects=false`, { token: dev.token })).body.shared_projects).toBeUndefined();
    expect((await api(`/projects?membership=true&search=${p.path}`, { token: dev.token })).body.map((x: { id: number }) => x.id)).toEqual([p.id]);
  });
});
