/**
 * Issue 13: protected branch reads ride in the project lookup's batch (the page or the branch, its
 * access levels and the names of their users and groups), writes read their answer in the writing
 * batch: a read costs one round trip with the caller cached, whatever the page size.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

describe('protected branches in few round trips', () => {
  it('lists, reads, creates, updates and unprotects with user entries named', async () => {
    const owner = await createUser();
    const dev = await createUser();
    const gp = unique('pbr');
    const g = (await api('/groups', { token: owner.token, body: { name: gp, path: gp } })).body;
    const p = (await api('/projects', { token: owner.token, body: { path: 'repo', namespace_id: g.id } })).body;
    await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } });
    const pb = (path = '') => `/projects/${p.id}/protected_branches${path}`;

    const created = await api(pb(), { token: owner.token, body: { name: 'rel-*', allowed_to_push: [{ user_id: dev.id }], allowed_to_merge: [{ access_level: 30 }] } });
    expect(created.status).toBe(201);
    expect(created.body.push_access_levels).toContainEqual(expect.objectContaining({ user_id: dev.id, access_level_description: dev.name }));
    expect(created.body.merge_access_levels).toEqual([expect.objectContaining({ access_level: 30, access_level_description: 'Developers + Maintainers' })]);
    expect(trips(created)).toBeLessThanOrEqual(3);
    for (const name of ['main', 'stable']) expect((await api(pb(), { token: owner.token, body: { name } })).status).toBe(201);
    const plain = await api(pb(), { token: owner.token, body: { name: 'plain' } });
    expect(trips(plain)).toBeLessThanOrEqual(2);

    const all = await api(pb(), { token: owner.token });
    expect(all.body.map((b: { name: string }) => b.name)).toEqual(['rel-*', 'main', 'stable', 'plain']);
    expect(all.body[0].push_access_levels).toContainEqual(expect.objectContaining({ access_level_description: dev.name }));
    expect(all.headers.get('x-total')).toBe('4');
    expect(trips(all)).toBe(1);
    const one = await api(`${pb()}?per_page=1&page=2`, { token: owner.token });
    expect(one.body.map((b: { name: string }) => b.name)).toEqual(['main']);
    expect(one.headers.get('x-total')).toBe('4');
    expect(trips(one)).toBe(trips(all));
    const search = await api(`${pb()}?search=stab`, { token: owner.token });
    expect(search.body.map((b: { name: string }) => b.name)).toEqual(['stable']);
    expect(search.headers.get('x-total')).toBe('1');
    expect(trips(search)).toBe(1);

    const single = await api(pb(`/${encodeURIComponent('rel-*')}`), { token: owner.token });
    expect(single.body).toMatchObject({ name: 'rel-*', push_access_levels: [expect.objectContaining({ user_id: dev.id, access_level_description: dev.name })] });
    expect(trips(single)).toBe(1);
    expect((await api(pb('/nope'), { token: owner.token })).status).toBe(404);

    const patched = await api(pb('/main'), { method: 'PATCH', token: owner.token, body: { allow_force_push: true } });
    expect(patched.body).toMatchObject({ name: 'main', allow_force_push: true });
    expect(trips(patched)).toBeLessThanOrEqual(2);

    const del = await api(pb('/stable'), { method: 'DELETE', token: owner.token });
    expect(del.status).toBe(204);
    expect(trips(del)).toBeLessThanOrEqual(2);
    expect((await api(pb('/stable'), { token: owner.token })).status).toBe(404);
  });

  it('DELETE /projects/:id/repository/branches/:branch: the branch and the rules read with the project, then the delete', async () => {
    const owner = await createUser();
    const p = (await api('/projects', { token: owner.token, body: { path: unique('bd') } })).body;
    const init = await api(`/projects/${p.id}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] } });
    expect(init.status).toBe(201);
    for (const branch of ['feat', 'rel-1']) expect((await api(`/projects/${p.id}/repository/branches`, { token: owner.token, body: { branch, ref: 'main' } })).status).toBe(201);
    expect((await api(`/projects/${p.id}/protected_branches`, { token: owner.token, body: { name: 'rel-*' } })).status).toBe(201);
    const branch = (name: string) => `/projects/${p.id}/repository/branches/${name}`;

    const del = await api(branch('feat'), { method: 'DELETE', token: owner.token });
    expect(del.status).toBe(204);
    expect(trips(del)).toBeLessThanOrEqual(2);
    expect((await api(branch('feat'), { token: owner.token })).status).toBe(404);
    const prot = await api(branch('rel-1'), { method: 'DELETE', token: owner.token });
    expect([prot.status, prot.body]).toEqual([405, { message: 'Protected branch cant be deleted' }]);
    expect(trips(prot)).toBe(1);
    const missing = await api(branch('nope'), { method: 'DELETE', token: owner.token });
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Branch Not Found' }]);
  });
});
