/**
 * Issue 13: the first soft delete creates the ghost user at the head of its deleting batch, under the
 * first free candidate name (`ghost`, `ghost1`, …: Gitlab::Utils::Uniquify), with its personal
 * namespace; later deletions find it. Node-only: the test needs a database without a ghost yet
 * (one fresh database file per test file there).
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

describe('the ghost user made in the deleting batch', () => {
  it('takes the first free name, gets its namespace, and is reused', async () => {
    const squatter = await api('/users', { token: rootToken, body: { email: 'ghost@example.com', name: 'Not a ghost', username: 'ghost', password: 'a-long-password-1', skip_confirmation: true } });
    expect(squatter.status).toBe(201);
    const first = await createUser();
    const p = (await api('/projects', { token: first.token, body: { name: 'kept', visibility: 'public' } })).body;
    const other = await createUser();
    const issue = await api(`/projects/${p.id}/issues`, { token: other.token, body: { title: 'by other' } });
    await api('/user', { token: rootToken });
    const del = await api(`/users/${other.id}`, { method: 'DELETE', token: rootToken });
    expect(del.status).toBe(204);
    expect(trips(del)).toBeLessThanOrEqual(2);
    const ghosts = await api('/users?username=ghost1', { token: rootToken });
    expect(ghosts.body).toEqual([expect.objectContaining({ username: 'ghost1', name: 'Ghost User' })]);
    expect((await api('/namespaces/ghost1', { token: rootToken })).body).toMatchObject({ kind: 'user', path: 'ghost1' });
    expect((await api(`/projects/${p.id}/issues/${issue.body.iid}`, { token: first.token })).body.author).toMatchObject({ username: 'ghost1' });

    const again = await createUser();
    await api(`/projects/${p.id}/issues`, { token: again.token, body: { title: 'by again' } });
    const del2 = await api(`/users/${again.id}`, { method: 'DELETE', token: rootToken });
    expect(del2.status).toBe(204);
    expect(trips(del2)).toBeLessThanOrEqual(2);
    const authors = (await api(`/projects/${p.id}/issues`, { token: first.token })).body.map((i: { author: { username: string } }) => i.author.username);
    expect(authors).toEqual(['ghost1', 'ghost1']);
  });
});
