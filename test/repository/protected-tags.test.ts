/** Protected tags (lib/api/protected_tags.rb) and what they refuse (Gitlab::Checks::TagCheck, TagPolicy). */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let maintainer: TestUser;
let developer: TestUser;

async function newProject() {
  const res = await api('/projects', { token: owner.token, body: { name: unique('ptags'), visibility: 'private' } });
  expect(res.status).toBe(201);
  const id = res.body.id as number;
  for (const [u, level] of [[maintainer, 40], [developer, 30]] as const) expect((await api(`/projects/${id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
  const c = await api(`/projects/${id}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a', content: 'a' }] } });
  expect(c.status).toBe(201);
  return id;
}

beforeAll(async () => {
  [owner, maintainer, developer] = await Promise.all([createUser(), createUser(), createUser()]);
});

describe('/projects/:id/protected_tags', () => {
  it('protects a wildcard (Maintainers by default), lists, gets and unprotects it; maintainers only', async () => {
    const id = await newProject();
    const P = `/projects/${id}/protected_tags`;
    const created = await api(P, { token: maintainer.token, body: { name: 'release-*' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ name: 'release-*', create_access_levels: [{ id: expect.any(Number), access_level: 40, access_level_description: 'Maintainers' }] });
    const dev = await api(P, { token: maintainer.token, body: { name: 'dev-*', create_access_level: 30 } });
    expect(dev.body.create_access_levels[0]).toMatchObject({ access_level: 30, access_level_description: 'Developers + Maintainers' });
    const again = await api(P, { token: maintainer.token, body: { name: 'release-*' } });
    expect(again.status).toBe(422);
    expect(again.body).toEqual({ message: ['Name has already been taken'] });
    expect((await api(P, { token: maintainer.token, body: { name: 'x', create_access_level: 20 } })).body).toEqual({ error: 'create_access_level does not have a valid value' });
    expect((await api(P, { token: developer.token, body: { name: 'v*' } })).status).toBe(403);
    expect((await api(P, { token: developer.token })).status).toBe(403);
    const list = await api(P, { token: maintainer.token });
    expect(list.body.map((t: { name: string }) => t.name)).toEqual(['release-*', 'dev-*']);
    expect((await api(`${P}/${encodeURIComponent('release-*')}`, { token: maintainer.token })).body.name).toBe('release-*');
    expect((await api(`${P}/release-1`, { token: maintainer.token })).body).toEqual({ message: '404 Not found' });
    expect((await api(`${P}/${encodeURIComponent('dev-*')}`, { token: maintainer.token, method: 'DELETE' })).status).toBe(204);
    expect((await api(`${P}/${encodeURIComponent('dev-*')}`, { token: maintainer.token })).status).toBe(404);
  });

  it('a developer cannot create or delete a protected tag; a maintainer can; tags show `protected`', async () => {
    const id = await newProject();
    expect((await api(`/projects/${id}/protected_tags`, { token: maintainer.token, body: { name: 'v*' } })).status).toBe(201);
    const T = `/projects/${id}/repository/tags`;
    const refused = await api(T, { token: developer.token, body: { tag_name: 'v1.0', ref: 'main' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: 'You are not allowed to create this tag as it is protected.' });
    const free = await api(T, { token: developer.token, body: { tag_name: 'nightly', ref: 'main' } });
    expect(free.status).toBe(201);
    expect(free.body.protected).toBe(false);
    const made = await api(T, { token: maintainer.token, body: { tag_name: 'v1.0', ref: 'main' } });
    expect(made.status).toBe(201);
    expect(made.body.protected).toBe(true);
    expect((await api(`${T}/v1.0`, { token: developer.token, method: 'DELETE' })).status).toBe(403);
    expect((await api(`${T}/v1.0`, { token: developer.token })).body.protected).toBe(true);
    expect((await api(`${T}/v1.0`, { token: maintainer.token, method: 'DELETE' })).status).toBe(204);
  });
});
