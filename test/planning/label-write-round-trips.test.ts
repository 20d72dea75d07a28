/**
 * Issue 13: label writes in at most 3 round trips (the parent, what the decision needs, the write
 * with its answer read back in the same batch), with the answer showing the state just written.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

let owner: TestUser;
let planner: TestUser;
let guest: TestUser;
let group: { id: number; name: string };
let project: { id: number };

beforeAll(async () => {
  [owner, planner, guest] = await Promise.all([createUser(), createUser(), createUser()]);
  const path = unique('g');
  group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } })).body;
  project = (await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.id } })).body;
  for (const [u, level] of [[planner, 15], [guest, 10]] as const) expect((await api(`/groups/${group.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
  await api('/user', { token: owner.token }); // the caller is cached from here on
});

describe('label writes in few round trips', () => {
  it('create and update answer the written label, its priority and title conflicts in 3 round trips', async () => {
    const name = unique('l');
    const created = await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name, color: '#FF0000', priority: 4 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name, priority: 4, subscribed: false, is_project_label: true });
    expect(trips(created)).toBeLessThanOrEqual(3);

    const renamed = await api(`/projects/${project.id}/labels/${created.body.id}`, { method: 'PUT', token: owner.token, body: { new_name: `${name}-x`, priority: null } });
    expect(renamed.body).toMatchObject({ id: created.body.id, name: `${name}-x`, priority: null });
    expect(trips(renamed)).toBeLessThanOrEqual(3);

    const other = await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name: unique('o'), color: '#00FF00' } });
    const taken = await api(`/projects/${project.id}/labels/${other.body.id}`, { method: 'PUT', token: owner.token, body: { new_name: `${name}-x` } });
    expect(taken.status).toBe(400);
    expect(taken.body).toEqual({ message: { title: ['has already been taken'] } });

    const gl = await api(`/groups/${group.id}/labels`, { token: owner.token, body: { name: unique('gl'), color: '#0000FF' } });
    expect(gl.status).toBe(201);
    expect(trips(gl)).toBeLessThanOrEqual(3);
    const atGroup = await api(`/projects/${project.id}/labels/${other.body.id}`, { method: 'PUT', token: owner.token, body: { new_name: gl.body.name } });
    expect(atGroup.body).toEqual({ message: { title: [`already exists at group level for ${group.name}. Please choose another one.`] } });
    expect((await api(`/projects/${project.id}/labels/${other.body.id}`, { token: owner.token })).body.name).toBe(other.body.name);
  });

  it('a group label changed through the project is governed by the caller level in the group', async () => {
    const gl = await api(`/groups/${group.id}/labels`, { token: owner.token, body: { name: unique('gl'), color: '#0000FF' } });
    await api('/user', { token: planner.token });
    const ok = await api(`/projects/${project.id}/labels/${gl.body.id}`, { method: 'PUT', token: planner.token, body: { description: 'by planner' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ description: 'by planner', is_project_label: false });
    expect(trips(ok)).toBeLessThanOrEqual(3);
    const refused = await api(`/projects/${project.id}/labels/${gl.body.id}`, { method: 'PUT', token: guest.token, body: { description: 'by guest' } });
    expect(refused.status).toBe(403);
  });

  it('subscribe and unsubscribe answer the new state in 3 round trips, for project and group labels alike', async () => {
    const pl = await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name: unique('s'), color: '#FF0000' } });
    const gl = await api(`/groups/${group.id}/labels`, { token: owner.token, body: { name: unique('gs'), color: '#0000FF' } });
    for (const base of [`/projects/${project.id}/labels/${pl.body.id}`, `/groups/${group.id}/labels/${gl.body.id}`]) {
      // Twice over: the second round updates the row the first one inserted (a group label's row has no project).
      for (let round = 0; round < 2; round++) {
        const on = await api(`${base}/subscribe`, { method: 'POST', token: owner.token });
        expect(on.status).toBe(201);
        expect(on.body.subscribed).toBe(true);
        expect(trips(on)).toBeLessThanOrEqual(3);
        expect((await api(`${base}/subscribe`, { method: 'POST', token: owner.token })).status).toBe(304);
        const off = await api(`${base}/unsubscribe`, { method: 'POST', token: owner.token });
        expect(off.status).toBe(201);
        expect(off.body.subscribed).toBe(false);
        expect(trips(off)).toBeLessThanOrEqual(3);
        expect((await api(`${base}/unsubscribe`, { method: 'POST', token: owner.token })).status).toBe(304);
      }
      expect((await api(base, { token: owner.token })).body.subscribed).toBe(false);
    }
  });

  it('promote merges into the group label of the same title, in 3 round trips', async () => {
    const name = unique('pm');
    // The project label first: a project label may not take a title its group already has.
    const pl = await api(`/projects/${project.id}/labels`, { token: owner.token, body: { name, color: '#FF0000' } });
    const gl = await api(`/groups/${group.id}/labels`, { token: owner.token, body: { name, color: '#0000FF' } });
    expect([pl.status, gl.status]).toEqual([201, 201]);
    await api(`/groups/${group.id}/labels/${gl.body.id}/subscribe`, { method: 'POST', token: owner.token });
    const res = await api(`/projects/${project.id}/labels/${pl.body.id}/promote`, { method: 'PUT', token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: gl.body.id, name, color: '#0000FF', subscribed: true });
    expect(trips(res)).toBeLessThanOrEqual(3);
    expect((await api(`/projects/${project.id}/labels/${name}`, { token: owner.token })).body).toMatchObject({ id: gl.body.id, is_project_label: false });
    const refused = await api(`/projects/${project.id}/labels/${gl.body.id}/promote`, { method: 'PUT', token: planner.token });
    expect(refused.status).toBe(400);
  });
});
