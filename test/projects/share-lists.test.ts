/**
 * Lists that follow sharing links (GitLab groups.rb `:id/projects/shared`, `:id/groups/shared`,
 * `:id/invited_groups`; projects.rb `:id/invited_groups`) and `members/all` with the members of
 * shared groups (members_helpers.rb find_all_members: MembersFinder, GroupMembersFinder).
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

type Named = { id: number; full_path: string; name: string; path: string };
const group = async (owner: TestUser, extra: Record<string, unknown> = {}) => {
  const path = unique('g');
  const res = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private', ...extra } });
  expect(res.status).toBe(201);
  return res.body as Named;
};
const project = async (owner: TestUser, extra: Record<string, unknown> = {}) => {
  const res = await api('/projects', { token: owner.token, body: { path: unique('p'), visibility: 'private', ...extra } });
  expect(res.status).toBe(201);
  return res.body as Named & { path_with_namespace: string };
};
const addMember = async (owner: TestUser, kind: 'groups' | 'projects', id: number, user: TestUser, level: number) =>
  expect((await api(`/${kind}/${id}/members`, { token: owner.token, body: { user_id: user.id, access_level: level } })).status).toBe(201);
const share = async (owner: TestUser, kind: 'groups' | 'projects', id: number, groupId: number, level: number, extra: Record<string, unknown> = {}) =>
  expect((await api(`/${kind}/${id}/share`, { token: owner.token, body: { group_id: groupId, group_access: level, ...extra } })).status).toBe(201);
const ids = (body: { id: number }[]) => body.map((x) => x.id);
const tomorrow = () => new Date(Date.now() + 86400000).toISOString().slice(0, 10);

describe('GET /groups/:id/projects/shared', () => {
  it('lists the projects shared with the group, with the project filters and pagination', async () => {
    const [owner, viewer] = await Promise.all([createUser(), createUser()]);
    const invited = await group(owner);
    const own = await project(owner, { namespace_id: invited.id });
    const a = await project(owner, { name: unique('alpha') });
    const b = await project(owner, { name: unique('beta'), issues_access_level: 'disabled' });
    const c = await project(owner, { name: unique('gamma') });
    for (const p of [a, b, c]) await share(owner, 'projects', p.id, invited.id, 30);
    await api(`/projects/${c.id}`, { method: 'PUT', token: owner.token, body: { archived: true } });

    const res = await api(`/groups/${invited.id}/projects/shared`, { token: owner.token });
    expect(res.status).toBe(200);
    // Newest first (created_at desc), the group's own project left out.
    expect(ids(res.body)).toEqual([c.id, b.id, a.id]);
    expect(ids(res.body)).not.toContain(own.id);
    expect(res.body[0]).toMatchObject({ id: c.id, path_with_namespace: c.path_with_namespace, archived: true });
    expect(res.headers.get('x-total')).toBe('3');

    const page = await api(`/groups/${invited.id}/projects/shared?per_page=2&page=2&order_by=id&sort=asc`, { token: owner.token });
    expect(ids(page.body)).toEqual([c.id]);
    expect([page.headers.get('x-total'), page.headers.get('x-total-pages'), page.headers.get('x-page'), page.headers.get('x-prev-page')]).toEqual(['3', '2', '2', '1']);
    const link = page.headers.get('link')!;
    expect(link).toContain(`/groups/${invited.id}/projects/shared?`);
    expect(link).toContain('order_by=id');
    expect(link).not.toContain('owned=');

    const q = (query: string) => api(`/groups/${invited.id}/projects/shared?${query}`, { token: owner.token }).then((r) => ids(r.body));
    expect(await q('archived=false&order_by=id&sort=asc')).toEqual([a.id, b.id]);
    expect(await q(`search=${a.name}`)).toEqual([a.id]);
    expect(await q('with_issues_enabled=true&order_by=id&sort=asc')).toEqual([a.id, c.id]);
    expect(await q('starred=true')).toEqual([]);
    expect(await q('visibility=public')).toEqual([]);
    expect(await q('min_access_level=50&order_by=id&sort=asc')).toEqual([a.id, b.id, c.id]);

    const simple = await api(`/groups/${invited.id}/projects/shared?simple=true&search=${a.name}`, { token: owner.token });
    expect(Object.keys(simple.body[0])).not.toContain('permissions');
    expect(simple.body[0]).not.toHaveProperty('issues_enabled');

    // Invalid values answer Grape's 400.
    expect((await api(`/groups/${invited.id}/projects/shared?order_by=similarity`, { token: owner.token })).body).toEqual({ error: 'order_by does not have a valid value' });

    // A member of the invited group sees the shared projects through the share; a stranger sees only the public ones.
    await addMember(owner, 'groups', invited.id, viewer, 10);
    expect(ids((await api(`/groups/${invited.id}/projects/shared?order_by=id&sort=asc`, { token: viewer.token })).body)).toEqual([a.id, b.id, c.id]);
    const stranger = await createUser();
    expect((await api(`/groups/${invited.id}/projects/shared`, { token: stranger.token })).status).toBe(404);
  });

  it('leaves out expired links and links ended by unsharing', async () => {
    const owner = await createUser();
    const invited = await group(owner);
    const a = await project(owner);
    const b = await project(owner);
    await share(owner, 'projects', a.id, invited.id, 30, { expires_at: tomorrow() });
    await share(owner, 'projects', b.id, invited.id, 30);
    expect(ids((await api(`/groups/${invited.id}/projects/shared`, { token: owner.token })).body)).toEqual([b.id, a.id]);
    expect((await api(`/projects/${b.id}/share/${invited.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect(ids((await api(`/groups/${invited.id}/projects/shared`, { token: owner.token })).body)).toEqual([a.id]);
  });
});

describe('GET /groups/:id/groups/shared', () => {
  it('lists the groups the group was invited to, filtered and ordered as groups are', async () => {
    const [owner, other, stranger] = await Promise.all([createUser(), createUser(), createUser()]);
    const invited = await group(owner, { visibility: 'public' });
    const x = await group(owner, { name: unique('zz') });
    const y = await group(owner, { name: unique('aa'), visibility: 'public' });
    const theirs = await group(other);
    for (const target of [x, y]) await share(owner, 'groups', target.id, invited.id, 30);
    // Another group's owner invites `invited` too (sharing needs the invited group to be readable only).
    await share(other, 'groups', theirs.id, invited.id, 10);

    const res = await api(`/groups/${invited.id}/groups/shared`, { token: owner.token });
    expect(res.status).toBe(200);
    // Name ascending (the share makes `theirs` readable to the invited group's members).
    expect(ids(res.body)).toEqual([y.id, theirs.id, x.id]);
    expect(res.headers.get('x-total')).toBe('3');
    expect(Object.keys(res.body[0]).slice(0, 3)).toEqual(['id', 'name', 'path']);
    expect(res.body[0]).toMatchObject({ id: y.id, full_path: y.full_path, full_name: y.name, visibility: 'public' });
    // Someone who reads the invited group but is not in it sees only the shared groups they may read.
    expect(ids((await api(`/groups/${invited.id}/groups/shared`, { token: stranger.token })).body)).toEqual([y.id]);
    expect(ids((await api(`/groups/${invited.id}/groups/shared`)).body)).toEqual([y.id]);
    expect((await api(`/groups/${theirs.id}/share/${invited.id}`, { method: 'DELETE', token: other.token })).status).toBe(204);
    expect(ids((await api(`/groups/${invited.id}/groups/shared`, { token: owner.token })).body)).toEqual([y.id, x.id]);

    const q = (query: string) => api(`/groups/${invited.id}/groups/shared?${query}`, { token: owner.token }).then((r) => ids(r.body));
    expect(await q('sort=desc')).toEqual([x.id, y.id]);
    expect(await q('order_by=id')).toEqual([x.id, y.id]);
    expect(await q('visibility=public')).toEqual([y.id]);
    expect(await q(`skip_groups=${y.id}`)).toEqual([x.id]);
    expect(await q(`search=${x.path}`)).toEqual([x.id]);
    expect(await q('min_access_level=50')).toEqual([y.id, x.id]);
    const page = await api(`/groups/${invited.id}/groups/shared?per_page=1`, { token: owner.token });
    expect([ids(page.body), page.headers.get('x-next-page'), page.headers.get('x-total-pages')]).toEqual([[y.id], '2', '2']);
    expect((await api(`/groups/${invited.id}/groups/shared?visibility=secret`, { token: owner.token })).body).toEqual({ error: 'visibility does not have a valid value' });
    const hidden = await group(other);
    expect((await api(`/groups/${hidden.id}/groups/shared`, { token: owner.token })).status).toBe(404);
  });
});

describe('GET /groups/:id/invited_groups', () => {
  it("lists the groups invited to the group and to its ancestors, by relation, newest first", async () => {
    const owner = await createUser();
    const parent = await group(owner);
    const child = await group(owner, { parent_id: parent.id });
    const [g1, g2, g3] = [await group(owner), await group(owner), await group(owner)];
    await share(owner, 'groups', parent.id, g1.id, 20);
    await share(owner, 'groups', child.id, g2.id, 30);
    await share(owner, 'groups', child.id, g3.id, 40, { expires_at: tomorrow() });

    const res = await api(`/groups/${child.id}/invited_groups`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([g3.id, g2.id, g1.id]);
    expect(res.body[0]).toMatchObject({ id: g3.id, full_path: g3.full_path, web_url: expect.stringContaining(`/groups/${g3.full_path}`) });
    expect(res.headers.get('x-total')).toBe('3');
    const q = (query: string) => api(`/groups/${child.id}/invited_groups?${query}`, { token: owner.token }).then((r) => ids(r.body));
    expect(await q('relation=direct')).toEqual([g3.id, g2.id]);
    expect(await q('relation[]=inherited')).toEqual([g1.id]);
    expect(await q('relation=direct,inherited')).toEqual([g3.id, g2.id, g1.id]);
    expect(await q(`search=${g2.path}`)).toEqual([g2.id]);
    expect(await q('per_page=1&page=3')).toEqual([g1.id]);
    expect((await api(`/groups/${child.id}/invited_groups?relation=sideways`, { token: owner.token })).body).toEqual({ error: 'relation does not have a valid value' });
    expect((await api(`/groups/${child.id}/invited_groups?min_access_level=7`, { token: owner.token })).body).toEqual({ error: 'min_access_level does not have a valid value' });
  });

  it("leaves out invited groups the caller may not read, and filters by the caller's level in them", async () => {
    const [owner, other, viewer] = await Promise.all([createUser(), createUser(), createUser()]);
    const shared = await group(owner, { visibility: 'public' });
    const secret = await group(other);
    const open = await group(other, { visibility: 'public' });
    await addMember(other, 'groups', secret.id, owner, 10);
    await share(owner, 'groups', shared.id, secret.id, 30);
    await share(owner, 'groups', shared.id, open.id, 30);
    await addMember(other, 'groups', open.id, viewer, 30);
    expect(ids((await api(`/groups/${shared.id}/invited_groups`, { token: owner.token })).body)).toEqual([open.id, secret.id]);
    expect(ids((await api(`/groups/${shared.id}/invited_groups`, { token: viewer.token })).body)).toEqual([open.id]);
    expect(ids((await api(`/groups/${shared.id}/invited_groups`)).body)).toEqual([open.id]);
    expect(ids((await api(`/groups/${shared.id}/invited_groups?min_access_level=30`, { token: viewer.token })).body)).toEqual([open.id]);
    expect(ids((await api(`/groups/${shared.id}/invited_groups?min_access_level=40`, { token: viewer.token })).body)).toEqual([]);
  });
});

describe('GET /projects/:id/invited_groups', () => {
  it("lists the groups the project and its groups are shared with, as PublicGroupDetails", async () => {
    const owner = await createUser();
    const home = await group(owner);
    const p = await project(owner, { namespace_id: home.id });
    const [direct, viaGroup] = [await group(owner), await group(owner)];
    await share(owner, 'projects', p.id, direct.id, 30);
    await share(owner, 'groups', home.id, viaGroup.id, 20);
    const res = await api(`/projects/${p.id}/invited_groups`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: viaGroup.id, web_url: expect.stringMatching(new RegExp(`/groups/${viaGroup.full_path}$`)), name: viaGroup.name, avatar_url: null, full_name: viaGroup.name, full_path: viaGroup.full_path },
      { id: direct.id, web_url: expect.any(String), name: direct.name, avatar_url: null, full_name: direct.name, full_path: direct.full_path },
    ]);
    expect(res.headers.get('x-total')).toBe('2');
    expect(ids((await api(`/projects/${p.id}/invited_groups?relation=direct`, { token: owner.token })).body)).toEqual([direct.id]);
    expect(ids((await api(`/projects/${p.id}/invited_groups?relation=inherited`, { token: owner.token })).body)).toEqual([viaGroup.id]);
    expect(ids((await api(`/projects/${encodeURIComponent(p.path_with_namespace)}/invited_groups?search=${direct.path}`, { token: owner.token })).body)).toEqual([direct.id]);
    const page = await api(`/projects/${p.id}/invited_groups?per_page=1`, { token: owner.token });
    expect([ids(page.body), page.headers.get('x-next-page')]).toEqual([[viaGroup.id], '2']);
    expect((await api(`/projects/${p.id}/invited_groups`, { token: (await createUser()).token })).status).toBe(404);
  });
});

describe('GET /:source/:id/members/all with shares', () => {
  it("lists a project's members through its shares at min(their level, the link's), each user once at their highest", async () => {
    const [owner, other, dev, inherited, both, hiddenDev, member] = await Promise.all([createUser(), createUser(), createUser(), createUser(), createUser(), createUser(), createUser()]);
    const home = await group(owner);
    const p = await project(owner, { namespace_id: home.id });
    const parent = await group(other);
    const invited = await group(other, { parent_id: parent.id });
    await addMember(other, 'groups', invited.id, dev, 40);
    await addMember(other, 'groups', parent.id, inherited, 30);
    await addMember(other, 'groups', invited.id, both, 50);
    await addMember(other, 'groups', invited.id, owner, 10);
    await addMember(owner, 'projects', p.id, both, 10);
    await share(owner, 'projects', p.id, invited.id, 20);
    // A group shared with the project's group: its members count at min(level, 30) too.
    const viaGroup = await group(other);
    await addMember(other, 'groups', viaGroup.id, hiddenDev, 40);
    await addMember(other, 'groups', viaGroup.id, owner, 10);
    await share(owner, 'groups', home.id, viaGroup.id, 30);
    await addMember(owner, 'projects', p.id, member, 30);

    const res = await api(`/projects/${p.id}/members/all`, { token: owner.token });
    expect(res.status).toBe(200);
    const levels = Object.fromEntries(res.body.map((m: { id: number; access_level: number }) => [m.id, m.access_level]));
    // `other` owns both shared groups: min(50, 20) through one link, min(50, 30) through the other.
    expect(levels).toEqual({ [owner.id]: 50, [other.id]: 30, [dev.id]: 20, [inherited.id]: 20, [both.id]: 20, [hiddenDev.id]: 30, [member.id]: 30 });
    expect(res.headers.get('x-total')).toBe('7');
    // Ordered by user id, one row per user.
    expect(ids(res.body)).toEqual([owner.id, other.id, dev.id, inherited.id, both.id, hiddenDev.id, member.id].sort((a, b) => a - b));
    // The project membership is the row shown for a user who has one (its created_by), at the highest level.
    const bothRow = res.body.find((m: { id: number }) => m.id === both.id);
    expect(bothRow).toMatchObject({ access_level: 20, created_by: { id: owner.id } });

    // By path too (the source as a sub-select: the statement must stay within SQLite's parser limits).
    const byPath = await api(`/projects/${encodeURIComponent(p.path_with_namespace)}/members/all`, { token: owner.token });
    expect([byPath.status, byPath.body]).toEqual([200, res.body]);
    const one = await api(`/projects/${p.id}/members/all/${dev.id}`, { token: owner.token });
    expect([one.status, one.body.id, one.body.access_level]).toEqual([200, dev.id, 20]);
    const page = await api(`/projects/${p.id}/members/all?per_page=2&page=3`, { token: owner.token });
    expect([page.body.length, page.headers.get('x-total-pages')]).toEqual([2, '4']);
    expect(ids((await api(`/projects/${p.id}/members/all?query=${hiddenDev.username}`, { token: owner.token })).body)).toEqual([hiddenDev.id]);

    // Gone with the link.
    expect((await api(`/projects/${p.id}/share/${invited.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    const after = await api(`/projects/${p.id}/members/all`, { token: owner.token });
    expect(ids(after.body)).not.toContain(dev.id);
    expect(after.body.find((m: { id: number }) => m.id === both.id).access_level).toBe(10);
    expect((await api(`/projects/${p.id}/members/all/${dev.id}`, { token: owner.token })).body).toEqual({ message: '404 Not found' });
  });

  it("lists a group's members through groups shared into it or its ancestors, not their ancestors' members", async () => {
    const [owner, other, dev, aboveInvited, viewer] = await Promise.all([createUser(), createUser(), createUser(), createUser(), createUser()]);
    const top = await group(owner);
    const child = await group(owner, { parent_id: top.id });
    const invitedParent = await group(other);
    const invited = await group(other, { parent_id: invitedParent.id, visibility: 'private' });
    await addMember(other, 'groups', invited.id, dev, 40);
    await addMember(other, 'groups', invitedParent.id, aboveInvited, 40);
    await addMember(other, 'groups', invited.id, owner, 10);
    await share(owner, 'groups', top.id, invited.id, 30);
    await addMember(owner, 'groups', child.id, viewer, 10);

    const res = await api(`/groups/${child.id}/members/all`, { token: owner.token });
    expect(res.status).toBe(200);
    const levels = Object.fromEntries(res.body.map((m: { id: number; access_level: number }) => [m.id, m.access_level]));
    // The owner: Owner of top beats Guest-through-the-share; `aboveInvited` is a member of the invited group's parent only.
    expect(levels).toEqual({ [owner.id]: 50, [other.id]: 30, [dev.id]: 30, [viewer.id]: 10 });
    const byPath = await api(`/groups/${encodeURIComponent(`${top.path}/${child.path}`)}/members/all/${dev.id}`, { token: owner.token });
    expect([byPath.status, byPath.body.access_level]).toEqual([200, 30]);
    // A member of the group sees the invited group's members even without reading that group.
    expect(ids((await api(`/groups/${child.id}/members/all`, { token: viewer.token })).body)).toContain(dev.id);
    expect((await api(`/groups/${child.id}/members/all/${dev.id}`, { token: viewer.token })).body.access_level).toBe(30);
    // Direct members are unchanged.
    expect(ids((await api(`/groups/${child.id}/members`, { token: owner.token })).body)).toEqual([owner.id, viewer.id]);
  });
});
