/**
 * Issue 13: lists under a user cost one round trip for the user and the page (impersonation tokens:
 * paginateWith) or one for the user and their namespace then one for the page (projects).
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

describe('lists under a user in few round trips', () => {
  it('GET /users/:user_id/impersonation_tokens: the user, the page and the count in one batch', async () => {
    const user = await createUser();
    for (const name of ['one', 'two', 'three']) expect((await api(`/users/${user.id}/impersonation_tokens`, { token: rootToken, body: { name, scopes: ['api'] } })).status).toBe(201);
    await api('/user', { token: rootToken });
    const all = await api(`/users/${user.id}/impersonation_tokens`, { token: rootToken });
    expect(all.body.map((t: { name: string }) => t.name)).toEqual(['one', 'two', 'three']);
    expect(all.headers.get('x-total')).toBe('3');
    expect(trips(all)).toBe(1);
    const one = await api(`/users/${user.id}/impersonation_tokens?per_page=1&page=2`, { token: rootToken });
    expect(one.body.map((t: { name: string }) => t.name)).toEqual(['two']);
    expect(trips(one)).toBe(1);
    const missing = await api('/users/999999999/impersonation_tokens', { token: rootToken });
    expect([missing.status, missing.body]).toEqual([404, { message: '404 User Not Found' }]);
    expect(missing.headers.get('x-total')).toBeNull();
  });

  it('GET /users/:user_id/projects: the user with their namespace, then the page, by id or username', async () => {
    const user = await createUser();
    for (const name of ['alpha', 'beta']) expect((await api('/projects', { token: user.token, body: { name, visibility: 'public' } })).status).toBe(201);
    await api('/user', { token: rootToken });
    for (const who of [String(user.id), user.username.toUpperCase()]) {
      const res = await api(`/users/${encodeURIComponent(who)}/projects?order_by=id&sort=asc`, { token: rootToken });
      expect(res.body.map((pr: { name: string }) => pr.name)).toEqual(['alpha', 'beta']);
      expect(trips(res)).toBeLessThanOrEqual(2);
    }
    expect((await api('/users/no-such-user-anywhere/projects', { token: rootToken })).status).toBe(404);
  });
});
