/**
 * Sharing projects and groups with groups (GitLab projects.rb / groups.rb `:id/share`,
 * ProjectGroupLink, GroupGroupLink): the routes, their validations, and the access a link gives
 * members of the invited group (min of their level and the link's), gone after unsharing.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

const group = async (owner: TestUser, extra: Record<string, unknown> = {}) => {
  const path = unique('g');
  const res = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private', ...extra } });
  expect(res.status).toBe(201);
  return res.body as { id: number; full_path: string; name: string };
};
const addMember = async (owner: TestUser, groupId: number, user: TestUser, level: number) =>
  expect((await api(`/groups/${groupId}/members`, { token: owner.token, body: { user_id: user.id, access_level: level } })).status).toBe(201);
const labelStatus = async (user: TestUser, projectId: number) =>
  (await api(`/projects/${projectId}/labels`, { token: user.token, body: { name: unique('l'), color: '#112233' } })).status;
const yesterday = () => new Date(Date.now() - 86400000).toISOString().slice(0, 10);

describe('POST /projects/:id/share', () => {
  it("gives the invited group's members, inherited ones included, min(their level, group_access) until unshared", async () => {
    const [owner, other, dev, inherited] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
    const home = await group(owner);
    const project = (await api('/projects', { token: owner.token, body: { path: unique('p'), namespace_id: home.id, visibility: 'private' } })).body;
    const parent = await group(other);
    const invited = await group(other, { parent_id: parent.id });
    await addMember(other, invited.id, dev, 30);
    // A member of the invited group's parent is an inherited member of the invited group.
    await addMember(other, parent.id, inherited, 40);
    // The project's owner must be able to read the group to share with it.
    await addMember(other, invited.id, owner, 10);

    expect((await api(`/projects/${project.id}`, { token: dev.token })).status).toBe(404);
    expect(await labelStatus(dev, project.id)).toBe(404);
    expect((await api(`/groups/${home.id}`, { token: dev.token })).status).toBe(404);

    const res = await api(`/projects/${project.id}/share`, { token: owner.token, body: { group_id: invited.id, group_access: 20 } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(Number), project_id: project.id, group_id: invited.id, group_access: 20, expires_at: null });

    for (const u of [dev, inherited]) {
      expect((await api(`/projects/${project.id}`, { token: u.token })).status).toBe(200);
      // Reporter through the link (developer and maintainer capped at 20): labels yes, settings no.
      expect(await labelStatus(u, project.id)).toBe(201);
      expect((await api(`/projects/${project.id}`, { method: 'PUT', token: u.token, body: { description: 'x' } })).status).toBe(403);
      // Lists see it too, at the capped level.
      expect((await api(`/projects?min_access_level=20&search=${project.path}`, { token: u.token })).body.map((p: { id: number }) => p.id)).toEqual([project.id]);
      expect((await api(`/projects?min_access_level=30&search=${project.path}`, { token: u.token })).body).toEqual([]);
    }
    // Access to a project of the group lets them read the group (GroupPolicy has_projects).
    expect((await api(`/groups/${home.id}`, { token: dev.token })).status).toBe(200);
    const shown = (await api(`/projects/${project.id}`, { token: owner.token })).body;
    expect(shown.shared_with_groups).toEqual([{ group_id: invited.id, group_name: invited.name, group_full_path: invited.full_path, group_access_level: 20, expires_at: null }]);

    expect((await api(`/projects/${project.id}/share/${invited.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await api(`/projects/${project.id}`, { token: dev.token })).status).toBe(404);
    expect((await api(`/projects/${project.id}`, { token: inherited.token })).status).toBe(404);
    expect((await api(`/groups/${home.id}`, { token: dev.token })).status).toBe(404);
    expect((await api(`/projects/${project.id}/share/${invited.id}`, { method: 'DELETE', token: owner.token })).body).toEqual({ message: '404 Group Link Not Found' });
  });

  it('gives nothing once the link has expired', async () => {
    const [owner, dev] = await Promise.all([createUser(), createUser()]);
    const project = (await api('/projects', { token: owner.token, body: { path: unique('p'), visibility: 'private' } })).body;
    const invited = await group(owner);
    await addMember(owner, invited.id, dev, 30);
    const res = await api(`/projects/${project.id}/share`, { token: owner.token, body: { group_id: invited.id, group_access: 30, expires_at: yesterday() } });
    expect([res.status, res.body.expires_at]).toEqual([201, yesterday()]);
    expect((await api(`/projects/${project.id}`, { token: dev.token })).status).toBe(404);
  });

  it("answers GitLab's errors and changes nothing", async () => {
    const [owner, other, developer] = await Promise.all([createUser(), createUser(), createUser()]);
    const home = await group(owner);
    const project = (await api('/projects', { token: owner.token, body: { path: unique('p'), namespace_id: home.id } })).body;
    const mine = await group(owner);
    const hidden = await group(other);
    const share = (body: Record<string, unknown>, token = owner.token) => api(`/projects/${project.id}/share`, { token, body }).then((r) => [r.status, r.body]);

    expect(await share({ group_id: mine.id, group_access: 25 })).toEqual([400, { error: 'group_access does not have a valid value' }]);
    expect(await share({ group_access: 30 })).toEqual([400, { error: 'group_id is missing' }]);
    expect(await share({ group_id: hidden.id, group_access: 30 })).toEqual([404, { message: 'Not Found' }]);
    expect(await share({ group_id: 999999999, group_access: 30 })).toEqual([404, { message: 'Not Found' }]);
    expect(await share({ group_id: home.id, group_access: 30 })).toEqual([409, { message: 'Project cannot be shared with the group it is in or one of its ancestors.' }]);
    await addMember(owner, home.id, developer, 30);
    expect(await share({ group_id: mine.id, group_access: 30 }, developer.token)).toEqual([403, { message: '403 Forbidden' }]);
    expect((await share({ group_id: mine.id, group_access: 30 }))[0]).toBe(201);
    expect(await share({ group_id: mine.id, group_access: 40 })).toEqual([409, { message: 'Group already shared with this group' }]);
    expect((await api(`/projects/${project.id}`, { token: owner.token })).body.shared_with_groups.map((g: { group_access_level: number }) => g.group_access_level)).toEqual([30]);
    expect((await api(`/projects/${project.id}/share/${mine.id}`, { method: 'DELETE', token: developer.token })).status).toBe(403);

    // share_with_group_lock on the project's group forbids sharing its projects.
    expect((await api(`/groups/${home.id}`, { method: 'PUT', token: owner.token, body: { share_with_group_lock: true } })).status).toBe(200);
    const other2 = await group(owner);
    expect(await share({ group_id: other2.id, group_access: 30 })).toEqual([400, { message: 'The project sharing with group is disabled' }]);
  });
});

describe('POST /groups/:id/share', () => {
  it('gives members of the invited group access to the group, its subgroups and their projects, until unshared', async () => {
    const [owner, other, dev] = await Promise.all([createUser(), createUser(), createUser()]);
    const shared = await group(owner);
    const sub = await group(owner, { parent_id: shared.id });
    const project = (await api('/projects', { token: owner.token, body: { path: unique('p'), namespace_id: sub.id } })).body;
    const invited = await group(other, { visibility: 'internal' });
    await addMember(other, invited.id, dev, 30);
    for (const path of [`/groups/${shared.id}`, `/groups/${sub.id}`, `/projects/${project.id}`]) expect((await api(path, { token: dev.token })).status).toBe(404);

    const res = await api(`/groups/${shared.id}/share`, { token: owner.token, body: { group_id: invited.id, group_access: 10 } });
    expect(res.status).toBe(201);
    expect(res.body.id).toBe(shared.id);
    const entry = { group_id: invited.id, group_name: invited.name, group_full_path: invited.full_path, group_access_level: 10, expires_at: null };
    expect(res.body.shared_with_groups).toEqual([entry]);
    expect((await api(`/groups/${shared.id}?with_projects=false`, { token: owner.token })).body.shared_with_groups).toEqual([entry]);
    expect((await api(`/groups/${shared.id}`, { token: owner.token })).body.shared_with_groups).toEqual([entry]);

    for (const path of [`/groups/${shared.id}`, `/groups/${sub.id}`, `/projects/${project.id}`]) expect((await api(path, { token: dev.token })).status).toBe(200);
    // Guest through the link: no labels.
    expect(await labelStatus(dev, project.id)).toBe(403);
    expect((await api(`/groups?search=${sub.name}`, { token: dev.token })).body.map((g: { id: number }) => g.id)).toEqual([sub.id]);

    expect((await api(`/groups/${shared.id}/share/${invited.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    for (const path of [`/groups/${shared.id}`, `/projects/${project.id}`]) expect((await api(path, { token: dev.token })).status).toBe(404);
    expect((await api(`/groups/${shared.id}/share/${invited.id}`, { method: 'DELETE', token: owner.token })).body).toEqual({ message: '404 Not Found' });
  });

  it('reaches the level the link gives, capped by the member level', async () => {
    const [owner, dev] = await Promise.all([createUser(), createUser()]);
    const shared = await group(owner);
    const project = (await api('/projects', { token: owner.token, body: { path: unique('p'), namespace_id: shared.id } })).body;
    const invited = await group(owner);
    await addMember(owner, invited.id, dev, 20);
    expect((await api(`/groups/${shared.id}/share`, { token: owner.token, body: { group_id: invited.id, group_access: 40 } })).status).toBe(201);
    expect(await labelStatus(dev, project.id)).toBe(201);
    expect((await api(`/projects/${project.id}`, { method: 'PUT', token: dev.token, body: { description: 'x' } })).status).toBe(403);
    // ProjectWithAccess `permissions` name memberships only (Group#highest_group_member), not shares.
    expect((await api(`/projects/${project.id}`, { token: dev.token })).body.permissions).toEqual({ project_access: null, group_access: null });
  });

  it("answers GitLab's errors", async () => {
    const [owner, other, maintainer] = await Promise.all([createUser(), createUser(), createUser()]);
    const shared = await group(owner);
    const invited = await group(owner);
    const hidden = await group(other);
    await addMember(owner, shared.id, maintainer, 40);
    await addMember(owner, invited.id, maintainer, 40);
    const share = (body: Record<string, unknown>, token = owner.token) => api(`/groups/${shared.id}/share`, { token, body }).then((r) => [r.status, r.body]);
    expect(await share({ group_id: invited.id, group_access: 7 })).toEqual([400, { error: 'group_access does not have a valid value' }]);
    expect(await share({ group_id: hidden.id, group_access: 30 })).toEqual([404, { message: '404 Group Not Found' }]);
    // Only owners (admin_group_member) may share: GroupLinkable answers 'Not Found'.
    expect(await share({ group_id: invited.id, group_access: 30 }, maintainer.token)).toEqual([404, { message: 'Not Found' }]);
    expect((await share({ group_id: invited.id, group_access: 30 }))[0]).toBe(201);
    expect(await share({ group_id: invited.id, group_access: 30 })).toEqual([409, { message: 'Shared group The group has already been shared with this group' }]);
    expect((await api(`/groups/${shared.id}/share/${invited.id}`, { method: 'DELETE', token: maintainer.token })).status).toBe(403);
  });
});

describe('GET /projects/:id/groups?with_shared=true', () => {
  it('adds the groups the project is shared with, by shared_min_access_level and shared_visible_only', async () => {
    const [owner, viewer] = await Promise.all([createUser(), createUser()]);
    const home = await group(owner);
    const project = (await api('/projects', { token: owner.token, body: { path: unique('p'), namespace_id: home.id } })).body;
    const [seen, hidden] = [await group(owner), await group(owner)];
    await addMember(owner, home.id, viewer, 30);
    await addMember(owner, seen.id, viewer, 10);
    expect((await api(`/projects/${project.id}/share`, { token: owner.token, body: { group_id: seen.id, group_access: 30 } })).status).toBe(201);
    expect((await api(`/projects/${project.id}/share`, { token: owner.token, body: { group_id: hidden.id, group_access: 10 } })).status).toBe(201);
    const ids = async (query: string) => (await api(`/projects/${project.id}/groups${query}`, { token: viewer.token })).body.map((g: { id: number }) => g.id);
    expect(await ids('')).toEqual([home.id]);
    expect(await ids('?with_shared=true')).toEqual([hidden.id, seen.id, home.id]);
    expect(await ids('?with_shared=true&shared_min_access_level=20')).toEqual([seen.id, home.id]);
    expect(await ids('?with_shared=true&shared_visible_only=true')).toEqual([seen.id, home.id]);
  });
});

describe('GET /groups/:id/projects with_shared', () => {
  it("lists the projects shared with the group by default, not with with_shared=false, and not once the link expired", async () => {
    const [owner, dev] = await Promise.all([createUser(), createUser()]);
    const invited = await group(owner);
    await addMember(owner, invited.id, dev, 30);
    const own = (await api('/projects', { token: owner.token, body: { path: unique('own'), namespace_id: invited.id } })).body;
    const [live, expired] = [
      (await api('/projects', { token: owner.token, body: { path: unique('live'), visibility: 'private' } })).body,
      (await api('/projects', { token: owner.token, body: { path: unique('gone'), visibility: 'private' } })).body,
    ];
    expect((await api(`/projects/${live.id}/share`, { token: owner.token, body: { group_id: invited.id, group_access: 20 } })).status).toBe(201);
    expect((await api(`/projects/${expired.id}/share`, { token: owner.token, body: { group_id: invited.id, group_access: 20, expires_at: yesterday() } })).status).toBe(201);
    const ids = async (query: string) => (await api(`/groups/${invited.id}/projects${query}`, { token: dev.token })).body.map((p: { id: number }) => p.id).sort();
    expect(await ids('')).toEqual([own.id, live.id].sort());
    expect(await ids('?with_shared=false')).toEqual([own.id]);
  });
});

describe('confidential issues through a share', () => {
  it('a planner or above through a project or group share reads and lists confidential issues of the project', async () => {
    const [owner, reporter, guest] = await Promise.all([createUser(), createUser(), createUser()]);
    const viaProject = (await api('/projects', { token: owner.token, body: { path: unique('p'), visibility: 'internal' } })).body;
    const shared = await group(owner, { visibility: 'internal' });
    const viaGroup = (await api('/projects', { token: owner.token, body: { path: unique('q'), namespace_id: shared.id, visibility: 'internal' } })).body;
    const team = await group(owner);
    await addMember(owner, team.id, reporter, 20);
    await addMember(owner, team.id, guest, 10);
    expect((await api(`/projects/${viaProject.id}/share`, { token: owner.token, body: { group_id: team.id, group_access: 30 } })).status).toBe(201);
    expect((await api(`/groups/${shared.id}/share`, { token: owner.token, body: { group_id: team.id, group_access: 30 } })).status).toBe(201);
    for (const p of [viaProject, viaGroup]) {
      const title = unique('secret');
      const issue = (await api(`/projects/${p.id}/issues`, { token: owner.token, body: { title, confidential: true } })).body;
      expect((await api(`/projects/${p.id}/issues/${issue.iid}`, { token: reporter.token })).status).toBe(200);
      expect((await api(`/projects/${p.id}/issues`, { token: reporter.token })).body.map((i: { id: number }) => i.id)).toEqual([issue.id]);
      // A guest (capped by their own level) sees neither.
      expect((await api(`/projects/${p.id}/issues/${issue.iid}`, { token: guest.token })).status).toBe(404);
      expect((await api(`/projects/${p.id}/issues`, { token: guest.token })).body).toEqual([]);
    }
  });
});
