/**
 * Issue 13: member reads and writes cost few storage round trips whatever the page size. The
 * member reads ride in the batch that finds the project or group (addressed by id or by path), the
 * inherited memberships come from the traversal path in the same statement, and the creators
 * (`created_by`) hang off the page.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

describe('members in few round trips', () => {
  it('project and group member lists, inherited included, by id and by path, with creators', async () => {
    const owner = await createUser();
    const dev = await createUser();
    const rep = await createUser();
    const gp = unique('mg');
    const g = (await api('/groups', { token: owner.token, body: { name: gp, path: gp, visibility: 'private' } })).body;
    const sub = (await api('/groups', { token: owner.token, body: { name: 'Sub', path: 'sub', parent_id: g.id, visibility: 'private' } })).body;
    const p = (await api('/projects', { token: owner.token, body: { name: 'Deep', namespace_id: sub.id } })).body;
    expect((await api(`/groups/${g.id}/members`, { token: owner.token, body: { user_id: rep.id, access_level: 20 } })).status).toBe(201);
    expect((await api(`/groups/${sub.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } })).status).toBe(201);
    const add = await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: rep.id, access_level: 40 } });
    expect(add.status).toBe(201);
    expect(add.body).toMatchObject({ id: rep.id, access_level: 40, created_by: { id: owner.id, username: owner.username } });
    expect(trips(add)).toBeLessThanOrEqual(2);

    const own = await api(`/projects/${p.id}/members`, { token: owner.token });
    expect(own.body.map((m: { id: number }) => m.id)).toEqual([rep.id]);
    expect(own.body[0].created_by).toMatchObject({ id: owner.id });
    expect(own.headers.get('x-total')).toBe('1');
    expect(trips(own)).toBe(1);

    const path = encodeURIComponent(`${gp}/sub/deep`);
    const all = await api(`/projects/${path}/members/all`, { token: owner.token });
    expect(all.status).toBe(200);
    // The group owner (inherited from the top group), the subgroup's developer and the project's maintainer, each once at their highest level.
    expect(all.body.map((m: { id: number; access_level: number }) => [m.id, m.access_level]).sort((a: number[], b: number[]) => a[0] - b[0])).toEqual(
      [
        [owner.id, 50],
        [dev.id, 30],
        [rep.id, 40],
      ].sort((a, b) => a[0] - b[0]),
    );
    expect(all.headers.get('x-total')).toBe('3');
    expect(trips(all)).toBe(1);
    const one = await api(`/projects/${path}/members/all?per_page=1`, { token: owner.token });
    expect(one.body).toHaveLength(1);
    expect(one.headers.get('x-total')).toBe('3');
    expect(trips(one)).toBe(trips(all));

    const subAll = await api(`/groups/${encodeURIComponent(`${gp}/sub`)}/members/all`, { token: owner.token });
    expect(subAll.body.map((m: { id: number; access_level: number }) => [m.id, m.access_level]).sort((a: number[], b: number[]) => a[0] - b[0])).toEqual(
      [
        [owner.id, 50],
        [dev.id, 30],
        [rep.id, 20],
      ].sort((a, b) => a[0] - b[0]),
    );
    expect(trips(subAll)).toBe(1);
    const subOwn = await api(`/groups/${sub.id}/members`, { token: owner.token });
    // The subgroup's creator is its owner (Groups::CreateService), then the developer.
    expect(subOwn.body.map((m: { id: number }) => m.id)).toEqual([owner.id, dev.id]);
    expect(trips(subOwn)).toBe(1);

    const single = await api(`/groups/${sub.id}/members/${dev.id}`, { token: owner.token });
    expect(single.body).toMatchObject({ id: dev.id, access_level: 30, created_by: { id: owner.id } });
    expect(trips(single)).toBe(1);
    expect((await api(`/groups/${sub.id}/members/${rep.id}`, { token: owner.token })).status).toBe(404);
    const inherited = await api(`/projects/${p.id}/members/all/${dev.id}`, { token: owner.token });
    expect(inherited.body).toMatchObject({ id: dev.id, access_level: 30 });
    expect(trips(inherited)).toBe(1);
    expect((await api(`/projects/${p.id}/members/all/${rep.id}`, { token: owner.token })).body).toMatchObject({ access_level: 40 });
  });

  it('adding, editing and removing members: the rules read in the lookup, the write and its answer in one batch', async () => {
    const owner = await createUser();
    const dev = await createUser();
    const gp = unique('mw');
    const g = (await api('/groups', { token: owner.token, body: { name: gp, path: gp } })).body;
    const p = (await api('/projects', { token: owner.token, body: { name: 'P', namespace_id: g.id } })).body;
    await api(`/groups/${g.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } });

    // Adding by username below the inherited level fails validation; at the level it is added.
    const low = await api(`/projects/${p.id}/members`, { token: owner.token, body: { username: dev.username, access_level: 20 } });
    expect(low.status).toBe(400);
    expect(low.body).toEqual({ message: { access_level: [`should be greater than or equal to Developer inherited membership from group ${gp}`] } });
    expect((await api(`/projects/${p.id}/members`, { token: owner.token, body: { username: 'no-such-user-here', access_level: 30 } })).status).toBe(404);
    const added = await api(`/projects/${p.id}/members`, { token: owner.token, body: { username: dev.username, access_level: 30 } });
    expect(added.status).toBe(201);
    expect((await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: String(dev.id), access_level: 30 } })).status).toBe(409);

    const edit = await api(`/projects/${p.id}/members/${dev.id}`, { method: 'PUT', token: owner.token, body: { access_level: 40, expires_at: '2999-12-31' } });
    expect(edit.status).toBe(200);
    expect(edit.body).toMatchObject({ id: dev.id, access_level: 40, expires_at: '2999-12-31', created_by: { id: owner.id } });
    expect(trips(edit)).toBeLessThanOrEqual(2);
    const below = await api(`/projects/${p.id}/members/${dev.id}`, { method: 'PUT', token: owner.token, body: { access_level: 20 } });
    expect(below.status).toBe(400);

    // The group's last owner cannot be demoted; with a second owner they can.
    const demote = await api(`/groups/${g.id}/members/${owner.id}`, { method: 'PUT', token: owner.token, body: { access_level: 40 } });
    expect(demote.status).toBe(403);
    const promote = await api(`/groups/${g.id}/members/${dev.id}`, { method: 'PUT', token: owner.token, body: { access_level: 50 } });
    expect(promote.body).toMatchObject({ id: dev.id, access_level: 50 });
    expect(trips(promote)).toBeLessThanOrEqual(2);

    const removed = await api(`/projects/${p.id}/members/${dev.id}`, { method: 'DELETE', token: owner.token });
    expect(removed.status).toBe(204);
    expect(trips(removed)).toBeLessThanOrEqual(2);
    expect((await api(`/projects/${p.id}/members/${dev.id}`, { token: owner.token })).status).toBe(404);
  });
});
