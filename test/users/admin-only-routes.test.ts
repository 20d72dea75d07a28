import { describe, expect, it } from 'vitest';
import { api, createUser } from '../support';

/**
 * Administrator-only routes of the users and auth domains (`authenticated_as_admin!`): anonymous
 * callers get 401 and other users 403 before anything is looked up, so the answer is the same
 * for an existing and a missing target (issue 12; reference B section 7).
 */
const ROUTES: [method: string, path: (id: number) => string, forbidden?: string][] = [
  ['POST', () => '/users'],
  ['PUT', (id) => `/users/${id}`],
  ['DELETE', (id) => `/users/${id}`],
  ['DELETE', (id) => `/users/${id}/identities/github`],
  ['POST', (id) => `/users/${id}/keys`],
  ['DELETE', (id) => `/users/${id}/keys/1`],
  ['POST', (id) => `/users/${id}/gpg_keys`],
  ['DELETE', (id) => `/users/${id}/gpg_keys/1`],
  ['POST', (id) => `/users/${id}/gpg_keys/1/revoke`],
  ['GET', (id) => `/users/${id}/custom_attributes`],
  ['GET', (id) => `/users/${id}/custom_attributes/team`],
  ['PUT', (id) => `/users/${id}/custom_attributes/team`],
  ['DELETE', (id) => `/users/${id}/custom_attributes/team`],
  ['POST', (id) => `/users/${id}/block`],
  ['POST', (id) => `/users/${id}/unblock`],
  ['POST', (id) => `/users/${id}/deactivate`],
  ['POST', (id) => `/users/${id}/activate`],
  ['POST', (id) => `/users/${id}/ban`],
  ['POST', (id) => `/users/${id}/unban`],
  // Users::ApproveService / RejectService answer 403 with their own message.
  ['POST', (id) => `/users/${id}/approve`, 'You are not allowed to approve a user'],
  ['POST', (id) => `/users/${id}/reject`, 'You are not allowed to reject a user'],
  ['GET', (id) => `/users/${id}/impersonation_tokens`],
  ['POST', (id) => `/users/${id}/impersonation_tokens`],
  ['GET', (id) => `/users/${id}/impersonation_tokens/1`],
  ['DELETE', (id) => `/users/${id}/impersonation_tokens/1`],
  ['POST', (id) => `/users/${id}/personal_access_tokens`],
];

describe('administrator-only routes answer 401/403 before looking anything up', () => {
  it.each(ROUTES.map(([method, path, msg]) => [`${method} ${path(0).replace('/0', '/:id')}`, method, path, msg] as const))('%s', async (_name, method, path, msg) => {
    const plain = await createUser();
    const target = await createUser();
    const missing = 987_654_321;
    for (const id of [target.id, missing]) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : { value: 'v', key: 'k', name: 'n', scopes: ['api'] };
      const anon = await api(path(id), { method, body });
      expect({ id, status: anon.status, body: anon.body }).toEqual({ id, status: 401, body: { message: '401 Unauthorized' } });
      const user = await api(path(id), { method, body, token: plain.token });
      const forbidden = msg ? { message: msg } : { message: '403 Forbidden' };
      expect({ id, status: user.status, body: user.body }).toEqual({ id, status: 403, body: forbidden });
    }
  });
});
