/** PUT /projects/:id/transfer (GitLab projects.rb, Projects::TransferService). */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const failed = (message: string) => ({ message: `Failed to transfer project {:new_namespace=>[${JSON.stringify(message)}]}` });

describe('PUT /projects/:id/transfer', () => {
  it('moves a personal project into a group (by path), the former owner keeping their membership; paths follow', async () => {
    const [u, dev] = await Promise.all([createUser(), createUser()]);
    const path = unique('tg');
    const group = (await api('/groups', { token: u.token, body: { name: path, path, visibility: 'private' } })).body;
    const project = (await api('/projects', { token: u.token, body: { path: 'moved', visibility: 'public' } })).body;
    const res = await api(`/projects/${project.id}/transfer`, { method: 'PUT', token: u.token, body: { namespace: path } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: project.id, path_with_namespace: `${path}/moved`, namespace: { id: group.id, kind: 'group' }, visibility: 'private' });
    expect((await api(`/projects/${encodeURIComponent(`${path}/moved`)}`, { token: u.token })).body.id).toBe(project.id);
    expect((await api(`/projects/${encodeURIComponent(`${u.username}/moved`)}`, { token: u.token })).status).toBe(404);
    const members = (await api(`/projects/${project.id}/members`, { token: u.token })).body;
    expect(members.map((m: { id: number; access_level: number }) => [m.id, m.access_level])).toContainEqual([u.id, 50]);
    // Back to a personal namespace, by id, as an administrator.
    const dns = (await api(`/namespaces/${dev.username}`, { token: rootToken })).body;
    const back = await api(`/projects/${project.id}/transfer`, { method: 'PUT', token: rootToken, form: { namespace: String(dns.id) } });
    expect([back.status, back.body.path_with_namespace]).toEqual([200, `${dev.username}/moved`]);
    // ensure_personal_project_owner_membership: the new personal owner is the project's Owner member.
    const after = (await api(`/projects/${project.id}/members`, { token: rootToken })).body;
    expect(after.map((m: { id: number; access_level: number }) => [m.id, m.access_level])).toContainEqual([dev.id, 50]);
    expect((await api(`/projects/${project.id}`, { token: dev.token })).status).toBe(200);
  });

  it("answers TransferService's errors: same namespace, no right to the target, a sibling of the same path", async () => {
    const [u, other] = await Promise.all([createUser(), createUser()]);
    const path = unique('tg');
    const group = (await api('/groups', { token: u.token, body: { name: path, path } })).body;
    const project = (await api('/projects', { token: u.token, body: { path: 'same' } })).body;
    expect((await api('/projects', { token: u.token, body: { path: 'same', namespace_id: group.id } })).status).toBe(201);
    const put = (namespace: string | number, token = u.token) => api(`/projects/${project.id}/transfer`, { method: 'PUT', token, body: { namespace } });
    expect(await put(u.username).then((r) => [r.status, r.body])).toEqual([400, failed('Project is already in this namespace.')]);
    expect(await put(group.id).then((r) => [r.status, r.body])).toEqual([400, failed('Project with same name or path in target namespace already exists')]);
    // A group the caller only reports in: visible, but no right to move projects into it.
    const theirs = unique('tg');
    const foreign = (await api('/groups', { token: other.token, body: { name: theirs, path: theirs } })).body;
    await api(`/groups/${foreign.id}/members`, { token: other.token, body: { user_id: u.id, access_level: 20 } });
    expect(await put(foreign.id).then((r) => [r.status, r.body])).toEqual([400, failed("You don't have permission to transfer projects into that namespace.")]);
    // A namespace the caller does not belong to is not found; nor is a missing one.
    expect(await put(other.username).then((r) => [r.status, r.body])).toEqual([404, { message: '404 Namespace Not Found' }]);
    expect(await put('no/such/group').then((r) => [r.status, r.body])).toEqual([404, { message: '404 Namespace Not Found' }]);
    expect(await api(`/projects/${project.id}/transfer`, { method: 'PUT', token: u.token, body: {} }).then((r) => [r.status, r.body])).toEqual([400, { error: 'namespace is missing' }]);
    // Nothing moved.
    expect((await api(`/projects/${project.id}`, { token: u.token })).body.path_with_namespace).toBe(`${u.username}/same`);
  });

  it('needs the Owner role: a maintainer gets 403', async () => {
    const [u, m] = await Promise.all([createUser(), createUser()]);
    const path = unique('tg');
    const group = (await api('/groups', { token: u.token, body: { name: path, path } })).body;
    const project = (await api('/projects', { token: u.token, body: { path: 'p', namespace_id: group.id } })).body;
    await api(`/groups/${group.id}/members`, { token: u.token, body: { user_id: m.id, access_level: 40 } });
    const res = await api(`/projects/${project.id}/transfer`, { method: 'PUT', token: m.token, body: { namespace: m.username } });
    expect([res.status, res.body]).toEqual([403, { message: '403 Forbidden' }]);
  });
});
