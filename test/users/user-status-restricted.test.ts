import { afterAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken } from '../support';

// Changes an instance setting: lives in its own file and restores it.
describe('GET /users/:id_or_username/status with the public visibility level restricted', () => {
  let before: unknown;
  afterAll(async () => {
    if (before === undefined) return;
    await api('/application/settings', { method: 'PUT', token: rootToken, body: { restricted_visibility_levels: before ?? [] } });
  });

  it('answers 404 User Not Found to anonymous callers (UserPolicy read_user) but not to signed-in users', async () => {
    const u = await createUser();
    await api('/user/status', { method: 'PUT', token: u.token, body: { emoji: 'coffee', message: 'hi' } });
    expect((await api(`/users/${u.username}/status`)).status).toBe(200);
    const current = await api('/application/settings', { token: rootToken });
    expect(current.status).toBe(200);
    before = current.body.restricted_visibility_levels;
    const set = await api('/application/settings', { method: 'PUT', token: rootToken, body: { restricted_visibility_levels: ['public'] } });
    expect(set.status).toBe(200);
    const anon = await api(`/users/${u.username}/status`);
    expect(anon.status).toBe(404);
    expect(anon.body).toEqual({ message: '404 User Not Found' });
    const signedIn = await api(`/users/${u.username}/status`, { token: u.token });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({ emoji: 'coffee', message: 'hi' });
  });
});
