/**
 * Administrator-only user endpoints answer 401 to anonymous callers and 403 to everyone else
 * before anything is looked up (reference B §7: "checked before existence"), so the answer never
 * tells whether a user, key or token id exists. Each row sends a valid request, so parameter
 * validation (which Grape runs first) cannot mask the authorization answer.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser } from '../support';
import { freshGpgKey, freshSshKey } from '../fixtures/keys';

const MISSING = 987654321;
type Row = [method: string, path: (id: number) => string, body?: () => Record<string, unknown>, forbidden?: string];
const rows: Row[] = [
  ['PUT', (id) => `/users/${id}`, () => ({ name: 'Renamed' })],
  ['DELETE', (id) => `/users/${id}`],
  ['DELETE', (id) => `/users/${id}/identities/github`],
  ['POST', (id) => `/users/${id}/keys`, () => ({ title: 'k', key: freshSshKey().key })],
  ['DELETE', (id) => `/users/${id}/keys/1`],
  ['POST', (id) => `/users/${id}/gpg_keys`, () => ({ key: freshGpgKey().key })],
  ['DELETE', (id) => `/users/${id}/gpg_keys/1`],
  ['POST', (id) => `/users/${id}/gpg_keys/1/revoke`],
  ['GET', (id) => `/users/${id}/impersonation_tokens`],
  ['POST', (id) => `/users/${id}/impersonation_tokens`, () => ({ name: 't', scopes: ['api'] })],
  ['GET', (id) => `/users/${id}/impersonation_tokens/1`],
  ['DELETE', (id) => `/users/${id}/impersonation_tokens/1`],
  ['POST', (id) => `/users/${id}/personal_access_tokens`, () => ({ name: 't', scopes: ['api'] })],
  ['GET', (id) => `/users/${id}/custom_attributes`],
  ['GET', (id) => `/users/${id}/custom_attributes/k`],
  ['PUT', (id) => `/users/${id}/custom_attributes/k`, () => ({ value: 'v' })],
  ['DELETE', (id) => `/users/${id}/custom_attributes/k`],
  ...['block', 'unblock', 'deactivate', 'activate', 'ban', 'unban'].map((a): Row => ['POST', (id) => `/users/${id}/${a}`]),
  // Users::ApproveService / RejectService refuse in their own words.
  ['POST', (id) => `/users/${id}/approve`, undefined, 'You are not allowed to approve a user'],
  ['POST', (id) => `/users/${id}/reject`, undefined, 'You are not allowed to reject a user'],
];

let user: TestUser;
let target: TestUser;
beforeAll(async () => {
  [user, target] = await Promise.all([createUser(), createUser()]);
});

describe('administrator-only user endpoints decide before looking anything up', () => {
  it.each(rows.map((r) => [`${r[0]} ${r[1](0).replace('/0', '/:id')}`, r] as const))('%s: 401 anonymous, 403 for a user, for an existing and a missing id', async (_name, [method, path, body, forbidden = '403 Forbidden']) => {
    for (const id of [target.id, MISSING]) {
      const anon = await api(path(id), { method, body: body?.() });
      expect([anon.status, anon.body]).toEqual([401, { message: '401 Unauthorized' }]);
      const res = await api(path(id), { method, token: user.token, body: body?.() });
      expect([res.status, res.body]).toEqual([403, { message: forbidden }]);
    }
    // Nothing happened to the target.
    expect((await api(`/users/${target.id}`, { token: user.token })).body).toMatchObject({ id: target.id, state: 'active' });
  });
});
