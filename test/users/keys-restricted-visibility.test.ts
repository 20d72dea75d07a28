import { afterAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken } from '../support';
import { freshGpgKey, freshSshKey } from '../fixtures/keys';

// Changes an instance setting: lives in its own file and restores it.
describe('public key reads with the public visibility level restricted', () => {
  let before: unknown;
  afterAll(async () => {
    if (before === undefined) return;
    await api('/application/settings', { method: 'PUT', token: rootToken, body: { restricted_visibility_levels: before ?? [] } });
  });

  it('answers 404 User Not Found to anonymous callers (UserPolicy read_user) but not to signed-in users', async () => {
    const u = await createUser();
    const ssh = await api('/user/keys', { token: u.token, body: { title: 't', key: freshSshKey().key } });
    const gpg = await api('/user/gpg_keys', { token: u.token, body: { key: freshGpgKey().key } });
    expect([ssh.status, gpg.status]).toEqual([201, 201]);
    const paths = [`/users/${u.id}/keys`, `/users/${u.username}/keys`, `/users/${u.id}/keys/${ssh.body.id}`, `/users/${u.id}/gpg_keys`, `/users/${u.id}/gpg_keys/${gpg.body.id}`];
    for (const path of paths) expect((await api(path)).status, path).toBe(200);
    const current = await api('/application/settings', { token: rootToken });
    expect(current.status).toBe(200);
    before = current.body.restricted_visibility_levels;
    const set = await api('/application/settings', { method: 'PUT', token: rootToken, body: { restricted_visibility_levels: ['public'] } });
    expect(set.status).toBe(200);
    for (const path of paths) {
      expect(await api(path), path).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
      expect((await api(path, { token: u.token })).status, path).toBe(200);
    }
  });
});
