/**
 * Issue 18: protected environments' group entries now that projects can be shared. An entry naming a
 * group is kept only for a group the project is shared with (BaseService#valid_attribute?,
 * `project.invited_groups`, whatever the link's access), and lets in the group's members
 * (Authorizable#check_access: direct members, or with `group_inheritance_type` 1 inherited ones
 * too) to deploy, update a deployment, stop and approve.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, type TestUser, unique } from '../support';
import { commit, createEnvironment, deployWorld, type DeployWorld } from './fixtures';

const rt = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

/** A private group made by `owner` (optionally below `parent_id`). */
async function group(owner: TestUser, extra: Record<string, unknown> = {}) {
  const path = unique('g');
  const res = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private', ...extra } });
  if (res.status !== 201) throw new Error(`group: ${res.status} ${res.text}`);
  return res.body as { id: number; name: string };
}
async function addMember(owner: TestUser, groupId: number, user: TestUser, level: number) {
  const res = await api(`/groups/${groupId}/members`, { token: owner.token, body: { user_id: user.id, access_level: level } });
  if (res.status !== 201) throw new Error(`member: ${res.status} ${res.text}`);
}
async function share(w: DeployWorld, groupId: number, access: number) {
  const res = await api(`/projects/${w.project.id}/share`, { token: w.owner.token, body: { group_id: groupId, group_access: access } });
  if (res.status !== 201) throw new Error(`share: ${res.status} ${res.text}`);
}
const protect = (w: DeployWorld, body: Record<string, unknown>) => api(`/projects/${w.project.id}/protected_environments`, { token: w.maintainer.token, body });
const deploy = async (w: DeployWorld, who: TestUser, environment: string) =>
  api(`/projects/${w.project.id}/deployments`, { token: who.token, body: { environment, sha: await commit(w), ref: 'main', tag: false, status: 'running' } });

/**
 * A project shared at Developer with `shared` (a subgroup of `parent`): `direct` is a developer of
 * `shared`, `inherited` a developer of `parent` only, both developers in the project through the share.
 */
async function sharedWorld() {
  const w = await deployWorld();
  const [direct, inherited] = await Promise.all([createUser(), createUser()]);
  const parent = await group(w.owner);
  const shared = await group(w.owner, { parent_id: parent.id });
  const unshared = await group(w.owner);
  await addMember(w.owner, shared.id, direct, 30);
  await addMember(w.owner, parent.id, inherited, 30);
  await addMember(w.owner, unshared.id, w.developer, 30);
  await share(w, shared.id, 30);
  // Signed in once, so round trips are measured warm (as deployWorld's users).
  await Promise.all([direct, inherited].map((u) => api('/user', { token: u.token })));
  return { w, direct, inherited, parent, shared, unshared };
}

describe('group entries of protected environments', () => {
  it('keeps a group entry only for a group the project is shared with, at any access, dropping the others', async () => {
    const { w, shared, unshared, parent } = await sharedWorld();
    // A link at Guest qualifies too (invited_groups looks at no level, unlike protected branches).
    const guestShared = await group(w.owner);
    await share(w, guestShared.id, 10);
    const res = await protect(w, {
      name: 'production',
      deploy_access_levels: [{ group_id: shared.id }, { group_id: unshared.id }, { group_id: parent.id }, { group_id: guestShared.id, group_inheritance_type: 1 }],
      approval_rules: [{ group_id: unshared.id }, { group_id: shared.id, required_approvals: 2 }],
    });
    expect(res.status).toBe(201);
    expect(rt(res)).toBeLessThanOrEqual(3);
    expect(res.body.deploy_access_levels).toEqual([
      { id: expect.any(Number), access_level: null, access_level_description: shared.name, user_id: null, group_id: shared.id, group_inheritance_type: 0 },
      { id: expect.any(Number), access_level: null, access_level_description: guestShared.name, user_id: null, group_id: guestShared.id, group_inheritance_type: 1 },
    ]);
    expect(res.body.approval_rules).toEqual([
      { id: expect.any(Number), user_id: null, group_id: shared.id, access_level: null, access_level_description: shared.name, required_approvals: 2, group_inheritance_type: 0 },
    ]);
    // Stored as answered.
    expect((await api(`/projects/${w.project.id}/protected_environments/production`, { token: w.maintainer.token })).body).toEqual(res.body);

    // Only unshared groups: nothing left to deploy with.
    const none = await protect(w, { name: 'staging', deploy_access_levels: [{ group_id: unshared.id }] });
    expect([none.status, none.body]).toEqual([422, { message: ['Deploy access levels is too short (minimum is 1 character)'] }]);
    expect((await api(`/projects/${w.project.id}/protected_environments/staging`, { token: w.maintainer.token })).status).toBe(404);

    // Update: the same rule for new entries; the answer names the group added.
    const put = await api(`/projects/${w.project.id}/protected_environments/production`, {
      method: 'PUT',
      token: w.maintainer.token,
      body: { deploy_access_levels: [{ group_id: unshared.id }, { group_id: parent.id, group_inheritance_type: 1 }], approval_rules: [{ group_id: guestShared.id }] },
    });
    expect(put.status).toBe(200);
    expect(rt(put)).toBeLessThanOrEqual(3);
    expect(put.body.deploy_access_levels.map((e: { group_id: number }) => e.group_id)).toEqual([shared.id, guestShared.id]);
    expect(put.body.approval_rules.map((e: { group_id: number; access_level_description: string }) => [e.group_id, e.access_level_description])).toEqual([
      [shared.id, shared.name],
      [guestShared.id, guestShared.name],
    ]);

    // Once unshared, the group is no longer accepted.
    expect((await api(`/projects/${w.project.id}/share/${guestShared.id}`, { method: 'DELETE', token: w.owner.token })).status).toBe(204);
    const after = await protect(w, { name: 'staging', deploy_access_levels: [{ group_id: guestShared.id }, { access_level: 40 }] });
    expect(after.status).toBe(201);
    expect(after.body.deploy_access_levels.map((e: { group_id: number | null }) => e.group_id)).toEqual([null]);
  });

  it("lets the named group's direct members deploy, update deployments and stop; a non-member cannot", async () => {
    const { w, direct, inherited, shared } = await sharedWorld();
    expect((await protect(w, { name: 'production', deploy_access_levels: [{ group_id: shared.id }] })).status).toBe(201);

    const byMember = await deploy(w, direct, 'production');
    expect(byMember.status).toBe(201);
    expect(rt(byMember)).toBeLessThanOrEqual(3);
    // A project developer outside the group, and an inherited member of a DIRECT entry's group, are refused.
    for (const u of [w.developer, inherited]) {
      const refused = await deploy(w, u, 'production');
      expect([refused.status, refused.body]).toEqual([403, { message: '403 Forbidden' }]);
    }
    // The maintainer's role is no entry here either.
    expect((await deploy(w, w.maintainer, 'production')).status).toBe(403);

    const U = `/projects/${w.project.id}/deployments/${byMember.body.id}`;
    expect((await api(U, { method: 'PUT', token: w.developer.token, body: { status: 'success' } })).status).toBe(403);
    const updated = await api(U, { method: 'PUT', token: direct.token, body: { status: 'success' } });
    expect([updated.status, updated.body.status]).toEqual([200, 'success']);

    const env = (await api(`/projects/${w.project.id}/environments?name=production`, { token: w.developer.token })).body[0];
    const S = `/projects/${w.project.id}/environments/${env.id}/stop`;
    // StopService's refusal is ignored by the API: the environment answers unchanged.
    const notStopped = await api(S, { method: 'POST', token: w.developer.token });
    expect([notStopped.status, notStopped.body.state]).toEqual([200, 'available']);
    const stopped = await api(S, { method: 'POST', token: direct.token });
    expect([stopped.status, stopped.body.state]).toEqual([200, 'stopped']);
    expect(rt(stopped)).toBeLessThanOrEqual(3);
    expect((await api(`/projects/${w.project.id}/environments/${env.id}`, { token: w.developer.token })).body.state).toBe('stopped');
  });

  it('lets inherited members in when the entry inherits (group_inheritance_type 1), and no longer one who left the group', async () => {
    const { w, direct, inherited, shared } = await sharedWorld();
    await createEnvironment(w, { name: 'production' });
    expect((await protect(w, { name: 'production', deploy_access_levels: [{ group_id: shared.id, group_inheritance_type: 1 }] })).status).toBe(201);
    expect((await deploy(w, inherited, 'production')).status).toBe(201);
    expect((await deploy(w, direct, 'production')).status).toBe(201);
    expect((await deploy(w, w.developer, 'production')).status).toBe(403);
    // A project developer in their own right who leaves the group keeps the project but not the entry.
    expect((await api(`/projects/${w.project.id}/members`, { token: w.owner.token, body: { user_id: direct.id, access_level: 30 } })).status).toBe(201);
    expect((await api(`/groups/${shared.id}/members/${direct.id}`, { method: 'DELETE', token: w.owner.token })).status).toBe(204);
    expect((await deploy(w, direct, 'production')).status).toBe(403);
  });

  it('lets a member of the group an approval rule names approve, as that group; a non-member cannot', async () => {
    const { w, direct, inherited, shared } = await sharedWorld();
    const rules = (await protect(w, { name: 'production', deploy_access_levels: [{ access_level: 30 }], approval_rules: [{ group_id: shared.id }] })).body.approval_rules;
    const d = (await deploy(w, w.developer, 'production')).body;
    expect([d.status, d.pending_approval_count]).toEqual(['blocked', 1]);
    const A = `/projects/${w.project.id}/deployments/${d.id}/approval`;

    const refused = await api(A, { token: w.maintainer.token, body: { status: 'approved' } });
    expect([refused.status, refused.body]).toEqual([400, { message: "You don't have permission to approve this deployment. Contact the project or group owner for help." }]);
    // An inherited member does not count for a rule without inheritance (the owner made the group: a direct member).
    expect((await api(A, { token: inherited.token, body: { status: 'approved' } })).body).toEqual(refused.body);

    const ok = await api(A, { token: direct.token, body: { status: 'approved', represented_as: shared.name } });
    expect([ok.status, ok.body.status, ok.body.user.id]).toEqual([201, 'approved', direct.id]);
    expect(rt(ok)).toBeLessThanOrEqual(3);
    const after = (await api(`/projects/${w.project.id}/deployments/${d.id}`, { token: w.developer.token })).body;
    expect([after.status, after.pending_approval_count]).toEqual(['created', 0]);
    expect(after.approval_summary.rules).toEqual([
      expect.objectContaining({ id: rules[0].id, group_id: shared.id, access_level_description: shared.name, deployment_approvals: [ok.body] }),
    ]);
  });

  it('drops the entries naming a group when the project stops being shared with it, keeping an approval rule that is the last', async () => {
    const { w, direct, shared } = await sharedWorld();
    await createEnvironment(w, { name: 'staging' });
    const P = `/projects/${w.project.id}/protected_environments`;
    expect((await protect(w, { name: 'production', deploy_access_levels: [{ group_id: shared.id }, { access_level: 40 }], approval_rules: [{ group_id: shared.id }, { access_level: 40 }] })).status).toBe(201);
    const staging = await protect(w, { name: 'staging', deploy_access_levels: [{ group_id: shared.id }], approval_rules: [{ group_id: shared.id }] });
    expect(staging.status).toBe(201);
    // Not found: nothing changes.
    expect((await api(`/projects/${w.project.id}/share/${shared.id + 1000000}`, { method: 'DELETE', token: w.owner.token })).status).toBe(404);
    expect((await api(`${P}/staging`, { token: w.maintainer.token })).body).toEqual(staging.body);

    expect((await api(`/projects/${w.project.id}/share/${shared.id}`, { method: 'DELETE', token: w.owner.token })).status).toBe(204);
    const production = (await api(`${P}/production`, { token: w.maintainer.token })).body;
    expect(production.deploy_access_levels.map((e: { group_id: number | null; access_level: number | null }) => [e.group_id, e.access_level])).toEqual([[null, 40]]);
    expect(production.approval_rules.map((e: { group_id: number | null; access_level: number | null }) => [e.group_id, e.access_level])).toEqual([[null, 40]]);
    // The last approval rule stays; the deploy entries go, leaving the environment protected from everyone.
    const after = (await api(`${P}/staging`, { token: w.maintainer.token })).body;
    expect([after.deploy_access_levels, after.approval_rules]).toEqual([[], staging.body.approval_rules]);
    expect((await deploy(w, w.maintainer, 'staging')).status).toBe(403);
    expect((await deploy(w, w.owner, 'staging')).status).toBe(403);
    // Administrators too (`accessible_to?` is an `any?` over no entry); elsewhere they pass.
    expect((await deploy(w, { token: rootToken } as TestUser, 'staging')).status).toBe(403);
    expect((await deploy(w, { token: rootToken } as TestUser, 'production')).status).toBe(201);
    const env = (await api(`/projects/${w.project.id}/environments?name=staging`, { token: w.developer.token })).body[0];
    expect((await api(`/projects/${w.project.id}/environments/${env.id}/stop`, { method: 'POST', token: w.owner.token })).body.state).toBe('available');
    // The group's members lost the project with the share.
    expect((await deploy(w, direct, 'production')).status).toBe(404);
  });
});
