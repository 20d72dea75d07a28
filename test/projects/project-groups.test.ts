/** GET /projects/:id/groups (GitLab projects.rb, Projects::GroupsFinder): the project's group and its ancestors. */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';

describe('GET /projects/:id/groups', () => {
  it('lists the group and its ancestors, newest id first, as PublicGroupDetails; search and skip_groups filter', async () => {
    const u = await createUser();
    const path = unique('pg');
    const top = (await api('/groups', { token: u.token, body: { name: `Top ${path}`, path } })).body;
    const mid = (await api('/groups', { token: u.token, body: { name: 'Middle', path: 'mid', parent_id: top.id } })).body;
    const leaf = (await api('/groups', { token: u.token, body: { name: 'Leaf', path: 'leaf', parent_id: mid.id } })).body;
    // A sibling of the chain is no ancestor.
    expect((await api('/groups', { token: u.token, body: { name: 'Other', path: 'other', parent_id: top.id } })).status).toBe(201);
    const project = (await api('/projects', { token: u.token, body: { path: 'p', namespace_id: leaf.id } })).body;

    const res = await api(`/projects/${project.id}/groups`, { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body.map((g: { id: number }) => g.id)).toEqual([leaf.id, mid.id, top.id]);
    expect(Object.keys(res.body[0])).toEqual(['id', 'web_url', 'name', 'avatar_url', 'full_name', 'full_path']);
    expect(res.body[0]).toMatchObject({ name: 'Leaf', full_name: `Top ${path} / Middle / Leaf`, full_path: `${path}/mid/leaf`, avatar_url: null });
    expect(res.body[0].web_url).toMatch(new RegExp(`/groups/${path}/mid/leaf$`));
    expect(res.headers.get('x-total')).toBe('3');
    expect((await api(`/projects/${project.id}/groups?search=midd`, { token: u.token })).body.map((g: { id: number }) => g.id)).toEqual([mid.id]);
    expect((await api(`/projects/${project.id}/groups?skip_groups=${leaf.id},${top.id}`, { token: u.token })).body.map((g: { id: number }) => g.id)).toEqual([mid.id]);
    expect((await api(`/projects/${encodeURIComponent(`${path}/mid/leaf/p`)}/groups?with_shared=true`, { token: u.token })).body).toHaveLength(3);
  });

  it('is empty for a personal project, and 404 for a project the caller may not read', async () => {
    const [u, other] = await Promise.all([createUser(), createUser()]);
    const project = (await api('/projects', { token: u.token, body: { path: unique('p'), visibility: 'private' } })).body;
    expect(await api(`/projects/${project.id}/groups`, { token: u.token }).then((r) => [r.status, r.body])).toEqual([200, []]);
    expect(await api(`/projects/${project.id}/groups`, { token: other.token }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 Project Not Found' }]);
  });
});
