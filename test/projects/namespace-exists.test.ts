/** GET /namespaces/:id/exists (GitLab lib/api/namespaces.rb, Namespace.clean_path): taken or free, and a free path suggested. */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';

describe('GET /namespaces/:id/exists', () => {
  it('tells a taken top-level path (any case) from a free one, suggesting path1, path2, …', async () => {
    const u = await createUser();
    const path = unique('ns');
    expect((await api('/groups', { token: u.token, body: { name: path, path } })).status).toBe(201);
    const free = await api(`/namespaces/${path}x/exists`, { token: u.token });
    expect([free.status, free.body]).toEqual([200, { exists: false, suggests: [] }]);
    expect((await api(`/namespaces/${path.toUpperCase()}/exists`, { token: u.token })).body).toEqual({ exists: true, suggests: [`${path.toUpperCase()}1`] });
    expect((await api(`/namespaces/${path}/exists`, { token: u.token })).body).toEqual({ exists: true, suggests: [`${path}1`] });
    // A group named like the next candidate takes it too (find_by_path_or_name).
    expect((await api('/groups', { token: u.token, body: { name: `${path}1`, path: `${path}-other` } })).status).toBe(201);
    expect((await api(`/namespaces/${path}/exists`, { token: u.token })).body).toEqual({ exists: true, suggests: [`${path}2`] });
    // Usernames are namespaces too.
    expect((await api(`/namespaces/${u.username}/exists`, { token: u.token })).body).toEqual({ exists: true, suggests: [`${u.username}1`] });
  });

  it('looks among the children of parent_id only, and at the top level without it', async () => {
    const u = await createUser();
    const path = unique('ns');
    const parent = (await api('/groups', { token: u.token, body: { name: path, path } })).body;
    expect((await api('/groups', { token: u.token, body: { name: 'sub', path: 'sub', parent_id: parent.id } })).status).toBe(201);
    expect((await api(`/namespaces/sub/exists?parent_id=${parent.id}`, { token: u.token })).body).toEqual({ exists: true, suggests: ['sub1'] });
    expect((await api(`/namespaces/other/exists?parent_id=${parent.id}`, { token: u.token })).body).toEqual({ exists: false, suggests: [] });
    expect((await api(`/namespaces/${path}/exists?parent_id=${parent.id}`, { token: u.token })).body).toEqual({ exists: false, suggests: [] });
    expect(await api('/namespaces/sub/exists?parent_id=x', { token: u.token }).then((r) => [r.status, r.body])).toEqual([400, { error: 'parent_id is invalid' }]);
  });

  it('needs a signed-in caller', async () => {
    expect((await api('/namespaces/anything/exists')).status).toBe(401);
  });
});
