/**
 * Issue 13: project and group reads cost few storage round trips whatever the page size, and the
 * one-batch reads show what the per-row reads showed (nested namespace names, counts, owners).
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

describe('project and group reads in few round trips', () => {
  it('GET /projects/:id and /groups/:id: the lookup, full names, counts, memberships and projects in one batch after authentication', async () => {
    const owner = await createUser();
    const gp = unique('g');
    const g = await api('/groups', { token: owner.token, body: { name: `Top ${gp}`, path: gp, visibility: 'private' } });
    const sub = await api('/groups', { token: owner.token, body: { name: 'Sub', path: 'sub', parent_id: g.body.id, visibility: 'private' } });
    expect(sub.status).toBe(201);
    const pr = await api('/projects', { token: owner.token, body: { name: 'Deep', namespace_id: sub.body.id } });
    expect(pr.status).toBe(201);
    await api(`/projects/${pr.body.id}/issues`, { token: owner.token, body: { title: 'open one' } });
    await api(`/projects/${pr.body.id}/issues`, { token: owner.token, body: { title: 'secret', confidential: true } });

    const one = await api(`/projects/${pr.body.id}`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ name_with_namespace: `Top ${gp} / Sub / Deep`, open_issues_count: 2, empty_repo: true });
    // The creator owns the group: no project membership of their own, the group's level inherited.
    expect(one.body.permissions).toEqual({ project_access: null, group_access: { access_level: 50, notification_level: 3 } });
    expect(trips(one)).toBeLessThanOrEqual(2);
    const byPath = await api(`/projects/${encodeURIComponent(`${gp}/sub/deep`)}`, { token: owner.token });
    expect(byPath.body).toMatchObject({ id: pr.body.id, name_with_namespace: `Top ${gp} / Sub / Deep` });

    const group = await api(`/groups/${sub.body.id}`, { token: owner.token });
    expect(group.body).toMatchObject({ full_name: `Top ${gp} / Sub`, projects: [{ id: pr.body.id, name_with_namespace: `Top ${gp} / Sub / Deep`, open_issues_count: 2 }] });
    expect(trips(group)).toBeLessThanOrEqual(2);
    const groupByPath = await api(`/groups/${encodeURIComponent(`${gp}/sub`)}`, { token: owner.token });
    expect(groupByPath.body).toMatchObject({ id: sub.body.id, projects: [{ id: pr.body.id }] });
  });

  it('a page of projects: page, count and extras in one round trip, the same for one row and for many', async () => {
    const owner = await createUser();
    const stranger = await createUser();
    for (const n of ['A', 'B', 'C']) await api('/projects', { token: owner.token, body: { name: `${n}${unique('p')}`, visibility: 'public' } });
    const mine = await api(`/users/${owner.id}/projects?per_page=2`, { token: owner.token });
    expect(mine.body).toHaveLength(2);
    expect(mine.headers.get('x-total')).toBe('3');
    expect(mine.body[0]).toMatchObject({ owner: { id: owner.id }, name_with_namespace: expect.stringMatching(new RegExp(`^${owner.name} / `)) });
    await api(`/users/${owner.id}/projects`, { token: stranger.token }); // the caller is cached from here on
    const oneRow = await api(`/users/${owner.id}/projects?per_page=1`, { token: stranger.token });
    const all = await api(`/users/${owner.id}/projects?per_page=100`, { token: stranger.token });
    expect(all.body).toHaveLength(3);
    expect(trips(all)).toBe(trips(oneRow));
    const simple = await api(`/users/${owner.id}/projects?simple=true`, { token: stranger.token });
    expect(simple.body[0].open_issues_count).toBeUndefined();
    expect(simple.body[0].name_with_namespace).toMatch(new RegExp(`^${owner.name} / `));
  });

  it('POST and PUT /projects: checks in one round trip, the write and its answer in another', async () => {
    const owner = await createUser();
    const gp = unique('g');
    const g = await api('/groups', { token: owner.token, body: { name: gp, path: gp } });
    await api('/groups', { token: owner.token, body: { name: 'Taken', path: 'taken', parent_id: g.body.id } });
    const made = await api('/projects', { token: owner.token, body: { name: 'Made', namespace_id: `${gp}` } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ path_with_namespace: `${gp}/made`, name_with_namespace: `${gp} / Made`, open_issues_count: 0, empty_repo: true });
    expect(trips(made)).toBeLessThanOrEqual(3);
    // A subgroup's path is taken for a project, as are a sibling project's name and path.
    const clash = await api('/projects', { token: owner.token, body: { name: 'Other', path: 'taken', namespace_id: g.body.id } });
    expect(clash.body).toEqual({ message: { path: ['has already been taken'] } });
    const other = await api('/projects', { token: owner.token, body: { name: 'Other', namespace_id: g.body.id } });
    const rename = await api(`/projects/${other.body.id}`, { method: 'PUT', token: owner.token, body: { name: 'made' } });
    expect(rename.body).toEqual({ message: { name: ['has already been taken'] } });
    // Renaming to its own name is no conflict.
    const same = await api(`/projects/${encodeURIComponent(`${gp}/other`)}`, { method: 'PUT', token: owner.token, body: { name: 'Other', description: 'd' } });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ id: other.body.id, description: 'd', name_with_namespace: `${gp} / Other` });
    expect(trips(same)).toBeLessThanOrEqual(3);
    const admin = await api(`/projects/user/${owner.id}`, { token: rootToken, body: { name: 'Given' } });
    expect(admin.status).toBe(201);
    expect(admin.body).toMatchObject({ owner: { id: owner.id }, path_with_namespace: `${owner.username}/given` });
    expect(trips(admin)).toBeLessThanOrEqual(3);
    expect((await api('/projects/user/999999999', { token: rootToken, body: { name: 'Nobody' } })).body).toEqual({ message: '404 User Not Found' });
  });

  it('GET /namespaces: levels, member counts and owners with the page, the same round trips for any page size', async () => {
    const owner = await createUser();
    const member = await createUser();
    for (const n of ['a', 'b']) {
      const path = unique(`ns${n}`);
      const g = await api('/groups', { token: owner.token, body: { name: path, path } });
      await api(`/groups/${g.body.id}/members`, { token: owner.token, body: { user_id: member.id, access_level: 30 } });
    }
    await api('/namespaces', { token: owner.token }); // the caller is cached from here on
    const one = await api('/namespaces?per_page=1', { token: owner.token });
    const all = await api('/namespaces?per_page=100', { token: owner.token });
    expect(all.body.map((n: { kind: string; members_count_with_descendants?: number }) => [n.kind, n.members_count_with_descendants])).toEqual([
      ['user', undefined],
      ['group', 2],
      ['group', 2],
    ]);
    expect(all.body[0].avatar_url === null || typeof all.body[0].avatar_url === 'string').toBe(true);
    expect(trips(all)).toBe(trips(one));
    // A developer sees the groups but not their member counts (owners and administrators only).
    const asMember = await api('/namespaces', { token: member.token });
    expect(asMember.body.filter((n: { kind: string }) => n.kind === 'group').map((n: { members_count_with_descendants?: number }) => n.members_count_with_descendants)).toEqual([undefined, undefined]);
    const single = await api(`/namespaces/${all.body[1].id}`, { token: owner.token });
    expect(single.body).toMatchObject({ id: all.body[1].id, members_count_with_descendants: 2 });
    expect(trips(single)).toBeLessThanOrEqual(2);
  });
});
