/**
 * Issue 13: a deletion is one batch (platform/cascade.ts): the doomed rows are named by sub-selects,
 * the blob keys of their files are read at the head of the same batch, and a user's ghost is created
 * there when it does not exist yet. With the caller cached: the lookup, then the batch.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

async function projectWithContent(token: string, namespaceId?: number) {
  const p = await api('/projects', { token, body: { name: unique('p'), ...(namespaceId ? { namespace_id: namespaceId } : {}) } });
  expect(p.status).toBe(201);
  const commit = await api(`/projects/${p.body.id}/repository/commits`, { token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] } });
  expect(commit.status).toBe(201);
  expect((await api(`/projects/${p.body.id}/issues`, { token, body: { title: 'an issue' } })).status).toBe(201);
  return p.body as { id: number };
}

describe('deletions in one batch', () => {
  it('DELETE /projects/:id: the project, its repository and issues go in one round trip after the lookup', async () => {
    const owner = await createUser();
    const p = await projectWithContent(owner.token);
    const del = await api(`/projects/${p.id}`, { method: 'DELETE', token: owner.token });
    expect(del.status).toBe(202);
    expect(trips(del)).toBeLessThanOrEqual(2);
    expect((await api(`/projects/${p.id}`, { token: owner.token })).status).toBe(404);
    expect((await api(`/projects/${p.id}/repository/files/a.txt?ref=main`, { token: rootToken })).status).toBe(404);
  });

  it('DELETE /groups/:id: the group, its subgroups and their projects go in one round trip after the lookup', async () => {
    const owner = await createUser();
    const gp = unique('dg');
    const g = (await api('/groups', { token: owner.token, body: { name: gp, path: gp } })).body;
    const sub = (await api('/groups', { token: owner.token, body: { name: 'sub', path: 'sub', parent_id: g.id } })).body;
    const p = await projectWithContent(owner.token, sub.id);
    const del = await api(`/groups/${g.id}`, { method: 'DELETE', token: owner.token });
    expect(del.status).toBe(202);
    expect(trips(del)).toBeLessThanOrEqual(2);
    for (const path of [`/groups/${g.id}`, `/groups/${sub.id}`, `/projects/${p.id}`]) expect((await api(path, { token: rootToken })).status).toBe(404);
  });

  it('DELETE /users/:id: the reads, then one batch that hands contributions to the ghost user', async () => {
    const owner = await createUser();
    const doomed = await createUser();
    const p = await projectWithContent(owner.token);
    await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: doomed.id, access_level: 30 } });
    const issue = await api(`/projects/${p.id}/issues`, { token: doomed.token, body: { title: 'by the doomed' } });
    expect(issue.status).toBe(201);
    await api('/user', { token: rootToken });
    const del = await api(`/users/${doomed.id}`, { method: 'DELETE', token: rootToken });
    expect(del.status).toBe(204);
    expect(trips(del)).toBeLessThanOrEqual(2);
    expect((await api(`/users/${doomed.id}`, { token: rootToken })).status).toBe(404);
    const kept = await api(`/projects/${p.id}/issues/${issue.body.iid}`, { token: owner.token });
    expect(kept.body.author).toMatchObject({ name: 'Ghost User' });
  });

  it('DELETE /users/:id?hard_delete=true: the groups the user alone owns go in the same batch', async () => {
    const doomed = await createUser();
    const gp = unique('hd');
    const g = (await api('/groups', { token: doomed.token, body: { name: gp, path: gp } })).body;
    const p = await projectWithContent(doomed.token, g.id);
    await api('/user', { token: rootToken });
    const soft = await api(`/users/${doomed.id}`, { method: 'DELETE', token: rootToken });
    expect(soft.status).toBe(409);
    const del = await api(`/users/${doomed.id}?hard_delete=true`, { method: 'DELETE', token: rootToken });
    expect(del.status).toBe(204);
    expect(trips(del)).toBeLessThanOrEqual(2);
    expect((await api(`/groups/${g.id}`, { token: rootToken })).status).toBe(404);
    expect((await api(`/projects/${p.id}`, { token: rootToken })).status).toBe(404);
  });
});
