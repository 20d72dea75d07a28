/**
 * Issue 13: notes and award emoji of merge requests, of their notes and of epics within the
 * round-trip budget (X-Storage-Round-Trips; GET <= 2 once the caller is cached, write <= 3): the
 * noteable, its parent, the note or award and the users their entities show are read in the
 * lookup's own round trip, and a page of one costs what a page of a hundred costs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

let owner: TestUser;
let dev: TestUser;
let group: { id: number };
let project: { id: number };
let mrBase: string;

beforeAll(async () => {
  [owner, dev] = await Promise.all([createUser(), createUser()]);
  const path = unique('g');
  group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } })).body;
  expect((await api(`/groups/${group.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } })).status).toBe(201);
  project = (await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.id, visibility: 'private' } })).body;
  const commit = (branch: string, file: string) =>
    api(`/projects/${project.id}/repository/commits`, { token: owner.token, body: { branch, commit_message: file, actions: [{ action: 'create', file_path: file, content: 'x\n' }] } });
  expect((await commit('main', 'README.md')).status).toBe(201);
  expect((await api(`/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch: 'feat', ref: 'main' } })).status).toBe(201);
  expect((await commit('feat', 'feat.txt')).status).toBe(201);
  const mr = await api(`/projects/${project.id}/merge_requests`, { token: owner.token, body: { title: unique('mr'), source_branch: 'feat', target_branch: 'main' } });
  expect(mr.status, mr.text).toBe(201);
  mrBase = `/projects/${project.id}/merge_requests/${mr.body.iid}`;
}, 60_000);

describe('merge request notes and award emoji round trips', () => {
  it('lists, reads, edits and deletes notes within the budget, the authors read with them', async () => {
    for (const [u, body] of [[dev, 'from dev'], [owner, 'from owner'], [dev, 'dev again']] as const)
      expect((await api(`${mrBase}/notes`, { token: u.token, body: { body } })).status).toBe(201);
    await api('/user', { token: owner.token }); // the caller is cached from here on
    const one = await api(`${mrBase}/notes?per_page=1&sort=asc`, { token: owner.token });
    const all = await api(`${mrBase}/notes?per_page=100&sort=asc`, { token: owner.token });
    expect(all.body.map((n: { body: string; author: { id: number } }) => [n.body, n.author.id])).toEqual([
      ['from dev', dev.id],
      ['from owner', owner.id],
      ['dev again', dev.id],
    ]);
    expect(one.body).toHaveLength(1);
    expect(trips(all)).toBe(trips(one));
    expect(trips(all)).toBeLessThanOrEqual(2);

    const noteId = all.body[0].id;
    const note = await api(`${mrBase}/notes/${noteId}`, { token: owner.token });
    expect(note.body).toMatchObject({ id: noteId, body: 'from dev', author: { id: dev.id, username: dev.username }, noteable_type: 'MergeRequest' });
    expect(trips(note)).toBeLessThanOrEqual(2);
    const edited = await api(`${mrBase}/notes/${noteId}`, { method: 'PUT', token: owner.token, body: { body: 'edited by owner' } });
    expect(edited.body).toMatchObject({ id: noteId, body: 'edited by owner', author: { id: dev.id } });
    expect(trips(edited)).toBeLessThanOrEqual(3);
    const gone = await api(`${mrBase}/notes/${noteId}`, { method: 'DELETE', token: owner.token });
    expect(gone.status).toBe(204);
    expect(trips(gone)).toBeLessThanOrEqual(3);
    expect((await api(`${mrBase}/notes/${noteId}`, { token: owner.token })).status).toBe(404);
  });

  it('awards on the merge request and on its notes within the budget, the awarders read with them', async () => {
    const note = (await api(`${mrBase}/notes`, { token: owner.token, body: { body: unique('n') } })).body;
    for (const base of [mrBase, `${mrBase}/notes/${note.id}`]) {
      for (const [u, name] of [[dev, 'thumbsup'], [owner, 'rocket'], [dev, 'tada']] as const)
        expect((await api(`${base}/award_emoji`, { token: u.token, body: { name } })).status).toBe(201);
      await api('/user', { token: owner.token });
      const one = await api(`${base}/award_emoji?per_page=1`, { token: owner.token });
      const all = await api(`${base}/award_emoji?per_page=100`, { token: owner.token });
      expect(all.body.map((a: { name: string; user: { id: number } }) => [a.name, a.user.id])).toEqual([
        ['thumbsup', dev.id],
        ['rocket', owner.id],
        ['tada', dev.id],
      ]);
      expect(trips(all)).toBe(trips(one));
      expect(trips(all)).toBeLessThanOrEqual(2);
      const award = await api(`${base}/award_emoji/${all.body[0].id}`, { token: owner.token });
      expect(award.body).toMatchObject({ name: 'thumbsup', user: { id: dev.id } });
      expect(trips(award)).toBeLessThanOrEqual(2);
      const created = await api(`${base}/award_emoji`, { token: owner.token, body: { name: 'heart' } });
      expect(created.status).toBe(201);
      expect(trips(created)).toBeLessThanOrEqual(3);
      const removed = await api(`${base}/award_emoji/${created.body.id}`, { method: 'DELETE', token: owner.token });
      expect(removed.status).toBe(204);
      expect(trips(removed)).toBeLessThanOrEqual(3);
    }
    // The merge request's upvotes follow its own thumbsup (not the note's), recounted in the award's batch.
    expect((await api(mrBase, { token: owner.token })).body.upvotes).toBe(1);
  });
});

describe('epic notes round trips', () => {
  it('lists, reads, edits and deletes notes within the budget', async () => {
    const epic = (await api(`/groups/${group.id}/epics`, { token: owner.token, body: { title: unique('epic') } })).body;
    const url = `/groups/${group.id}/epics/${epic.id}/notes`;
    for (const [u, body] of [[dev, 'e1'], [owner, 'e2']] as const) expect((await api(url, { token: u.token, body: { body } })).status).toBe(201);
    await api('/user', { token: owner.token });
    const one = await api(`${url}?per_page=1&sort=asc`, { token: owner.token });
    const all = await api(`${url}?per_page=100&sort=asc`, { token: owner.token });
    const comments = all.body.filter((n: { system: boolean }) => !n.system);
    expect(comments.map((n: { body: string; author: { id: number } }) => [n.body, n.author.id])).toEqual([
      ['e1', dev.id],
      ['e2', owner.id],
    ]);
    expect(trips(all)).toBe(trips(one));
    expect(trips(all)).toBeLessThanOrEqual(2);
    const got = await api(`${url}/${comments[0].id}`, { token: owner.token });
    expect(got.body).toMatchObject({ body: 'e1', author: { id: dev.id }, noteable_type: 'Epic', noteable_iid: null });
    expect(trips(got)).toBeLessThanOrEqual(2);
    const edited = await api(`${url}/${comments[0].id}`, { method: 'PUT', token: dev.token, body: { body: 'e1 edited' } });
    expect(edited.body).toMatchObject({ body: 'e1 edited', author: { id: dev.id } });
    expect(trips(edited)).toBeLessThanOrEqual(3);
    const gone = await api(`${url}/${comments[0].id}`, { method: 'DELETE', token: owner.token });
    expect(gone.status).toBe(204);
    expect(trips(gone)).toBeLessThanOrEqual(3);
    // An epic of another group is not found through this one.
    const path = unique('g');
    const other = (await api('/groups', { token: owner.token, body: { name: path, path } })).body;
    expect((await api(`/groups/${other.id}/epics/${epic.id}/notes/${comments[1].id}`, { token: owner.token })).body).toEqual({ message: '404 Epic Not Found' });
  });
});
