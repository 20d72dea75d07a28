import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken } from '../support';

const post = (path: string, token: string | null = rootToken) => api(path, { method: 'POST', token });
const stateOf = async (id: number) => (await api(`/users/${id}`, { token: rootToken })).body.state;

async function ghostId(): Promise<number> {
  const doomed = await createUser();
  await api(`/users/${doomed.id}`, { method: 'DELETE', token: rootToken });
  const res = await api('/users?search=Ghost%20User&per_page=100', { token: rootToken });
  return res.body.find((u: any) => u.name === 'Ghost User').id;
}

describe('POST /users/:id/block and /unblock', () => {
  it('blocks a user (201 true); the blocked user gets 403 on every request', async () => {
    const u = await createUser();
    const res = await post(`/users/${u.id}/block`);
    expect(res.status).toBe(201);
    expect(res.body).toBe(true);
    expect(await stateOf(u.id)).toBe('blocked');
    const me = await api('/user', { token: u.token });
    expect(me.status).toBe(403);
    expect(me.body).toEqual({ message: '403 Forbidden - Your account has been blocked.' });
    // Blocking again is a no-op success with GitLab's `break` body.
    const again = await post(`/users/${u.id}/block`);
    expect(again.status).toBe(201);
    expect(again.text).toBe('null');
    // Users::BlockService records who blocked the user.
    const attrs = await api(`/users/${u.id}/custom_attributes`, { token: rootToken });
    expect(attrs.body).toEqual([{ key: 'blocked_by', value: expect.stringMatching(/^root\/1\+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/) }]);
  });

  it('unblocks a blocked user (201 true) and answers false for an active one', async () => {
    const u = await createUser();
    await post(`/users/${u.id}/block`);
    const res = await post(`/users/${u.id}/unblock`);
    expect(res.status).toBe(201);
    expect(res.body).toBe(true);
    expect(await stateOf(u.id)).toBe('active');
    expect((await api('/user', { token: u.token })).status).toBe(200);
    const active = await post(`/users/${u.id}/unblock`);
    expect(active.status).toBe(201);
    expect(active.body).toBe(false);
  });

  it('refuses to block the calling administrator', async () => {
    const admin = await createUser({ admin: true });
    const res = await post(`/users/${admin.id}/block`, admin.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden - The API initiating user cannot be blocked by the API' });
    expect(await stateOf(admin.id)).toBe('active');
  });

  it('refuses to block internal users and to unblock deactivated users', async () => {
    const ghost = await ghostId();
    const res = await post(`/users/${ghost}/block`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: 'An internal user cannot be blocked' });
    const u = await createUser();
    expect((await post(`/users/${u.id}/deactivate`)).status).toBe(201);
    const unblock = await post(`/users/${u.id}/unblock`);
    expect(unblock.status).toBe(403);
    expect(unblock.body).toEqual({ message: '403 Forbidden - Deactivated users cannot be unblocked by the API' });
    expect(await stateOf(u.id)).toBe('deactivated');
  });

  it('is refused to non-administrators (403 before the existence check) and anonymous callers (401); 404 for unknown users', async () => {
    const u = await createUser();
    const other = await createUser();
    for (const action of ['block', 'unblock', 'deactivate', 'activate', 'ban', 'unban']) {
      const res = await post(`/users/${other.id}/${action}`, u.token);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: '403 Forbidden' });
      expect((await post(`/users/987654321/${action}`, u.token)).status).toBe(403);
      expect((await post(`/users/${other.id}/${action}`, null)).status).toBe(401);
      const missing = await post(`/users/987654321/${action}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ message: '404 User Not Found' });
    }
    expect(await stateOf(other.id)).toBe('active');
  });
});

describe('POST /users/:id/deactivate and /activate', () => {
  it('deactivates a dormant user and activates it again', async () => {
    const u = await createUser();
    const res = await post(`/users/${u.id}/deactivate`);
    expect(res.status).toBe(201);
    expect(res.body).toBe(true);
    expect(await stateOf(u.id)).toBe('deactivated');
    const me = await api('/user', { token: u.token });
    expect(me.status).toBe(403);
    expect(me.body.message).toMatch(/^403 Forbidden - Your account has been deactivated by your administrator/);
    const again = await post(`/users/${u.id}/deactivate`);
    expect(again.status).toBe(201);
    expect(again.text).toBe('null');
    const act = await post(`/users/${u.id}/activate`);
    expect(act.status).toBe(201);
    expect(act.body).toBe(true);
    expect(await stateOf(u.id)).toBe('active');
    expect((await api('/user', { token: u.token })).status).toBe(200);
  });

  it('refuses to deactivate blocked and internal users, and to activate blocked users', async () => {
    const u = await createUser();
    await post(`/users/${u.id}/block`);
    const deact = await post(`/users/${u.id}/deactivate`);
    expect(deact.status).toBe(403);
    expect(deact.body).toEqual({ message: 'Error occurred. A blocked user cannot be deactivated' });
    const act = await post(`/users/${u.id}/activate`);
    expect(act.status).toBe(403);
    expect(act.body).toEqual({ message: '403 Forbidden - A blocked user must be unblocked to be activated' });
    expect(await stateOf(u.id)).toBe('blocked');
    const ghost = await ghostId();
    const internal = await post(`/users/${ghost}/deactivate`);
    expect(internal.status).toBe(403);
    expect(internal.body).toEqual({ message: 'Internal users cannot be deactivated' });
  });
});

describe('POST /users/:id/ban and /unban', () => {
  it('bans an active user, hides it from non-administrators, and unbans it', async () => {
    const u = await createUser();
    const viewer = await createUser();
    const res = await post(`/users/${u.id}/ban`);
    expect(res.status).toBe(201);
    expect(res.body).toBe(true);
    expect(await stateOf(u.id)).toBe('banned');
    expect((await api('/user', { token: u.token })).status).toBe(403);
    expect((await api(`/users?username=${u.username}`, { token: viewer.token })).body).toEqual([]);
    expect((await api(`/users?username=${u.username}`, { token: rootToken })).body).toHaveLength(1);
    const twice = await post(`/users/${u.id}/ban`);
    expect(twice.status).toBe(403);
    expect(twice.body).toEqual({ message: 'You cannot ban banned users.' });
    const unban = await post(`/users/${u.id}/unban`);
    expect(unban.status).toBe(201);
    expect(unban.body).toBe(true);
    expect(await stateOf(u.id)).toBe('active');
    const again = await post(`/users/${u.id}/unban`);
    expect(again.status).toBe(403);
    expect(again.body).toEqual({ message: 'You cannot unban active users.' });
  });

  it('refuses to ban a blocked user', async () => {
    const u = await createUser();
    await post(`/users/${u.id}/block`);
    const res = await post(`/users/${u.id}/ban`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: 'You cannot ban blocked users.' });
    expect(await stateOf(u.id)).toBe('blocked');
  });
});

describe('POST /users/:id/approve and /reject', () => {
  it('answers 409 for users that are not pending approval', async () => {
    const u = await createUser();
    const approve = await post(`/users/${u.id}/approve`);
    expect(approve.status).toBe(409);
    expect(approve.body).toEqual({ message: 'The user you are trying to approve is not pending approval' });
    const reject = await post(`/users/${u.id}/reject`);
    expect(reject.status).toBe(409);
    expect(reject.body).toEqual({ message: 'This user does not have a pending request' });
    expect(await stateOf(u.id)).toBe('active');
  });

  it('answers the services\' 403 to non-administrators, 401 to anonymous callers, 404 for unknown users', async () => {
    const u = await createUser();
    const other = await createUser();
    const approve = await post(`/users/${other.id}/approve`, u.token);
    expect(approve.status).toBe(403);
    expect(approve.body).toEqual({ message: 'You are not allowed to approve a user' });
    const reject = await post(`/users/${other.id}/reject`, u.token);
    expect(reject.status).toBe(403);
    expect(reject.body).toEqual({ message: 'You are not allowed to reject a user' });
    expect((await post(`/users/${other.id}/approve`, null)).status).toBe(401);
    const missing = await post('/users/987654321/approve');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 User Not Found' });
    expect(await stateOf(other.id)).toBe('active');
  });
});

describe('custom attributes (/users/:id/custom_attributes)', () => {
  it('sets, reads, lists, updates and deletes attributes', async () => {
    const u = await createUser();
    expect((await api(`/users/${u.id}/custom_attributes`, { token: rootToken })).body).toEqual([]);
    const set = await api(`/users/${u.id}/custom_attributes/zeta`, { method: 'PUT', token: rootToken, body: { value: 'one' } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ key: 'zeta', value: 'one' });
    await api(`/users/${u.id}/custom_attributes/alpha`, { method: 'PUT', token: rootToken, form: { value: 'two' } });
    const upd = await api(`/users/${u.id}/custom_attributes/zeta`, { method: 'PUT', token: rootToken, body: { value: 'three' } });
    expect(upd.body).toEqual({ key: 'zeta', value: 'three' });
    const list = await api(`/users/${u.id}/custom_attributes`, { token: rootToken });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      { key: 'zeta', value: 'three' },
      { key: 'alpha', value: 'two' },
    ]);
    const one = await api(`/users/${u.id}/custom_attributes/alpha`, { token: rootToken });
    expect(one.body).toEqual({ key: 'alpha', value: 'two' });
    const del = await api(`/users/${u.id}/custom_attributes/alpha`, { method: 'DELETE', token: rootToken });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const gone = await api(`/users/${u.id}/custom_attributes/alpha`, { token: rootToken });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: '404 Not found' });
    const delAgain = await api(`/users/${u.id}/custom_attributes/alpha`, { method: 'DELETE', token: rootToken });
    expect(delAgain.status).toBe(404);
    expect((await api(`/users/${u.id}/custom_attributes`, { token: rootToken })).body).toEqual([{ key: 'zeta', value: 'three' }]);
  });

  it('validates value: missing is a Grape 400, blank a model 400', async () => {
    const u = await createUser();
    const missing = await api(`/users/${u.id}/custom_attributes/k`, { method: 'PUT', token: rootToken, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'value is missing' });
    const blank = await api(`/users/${u.id}/custom_attributes/k`, { method: 'PUT', token: rootToken, body: { value: '' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ message: { value: ["can't be blank"] } });
    expect((await api(`/users/${u.id}/custom_attributes`, { token: rootToken })).body).toEqual([]);
  });

  it('is for administrators only: 403 for users, 401 for anonymous callers (before any lookup), 404 for unknown users', async () => {
    const u = await createUser();
    for (const [method, path] of [
      ['GET', `/users/${u.id}/custom_attributes`],
      ['GET', `/users/${u.id}/custom_attributes/k`],
      ['PUT', `/users/${u.id}/custom_attributes/k`],
      ['DELETE', `/users/${u.id}/custom_attributes/k`],
    ]) {
      const res = await api(path, { method, token: u.token, body: method === 'PUT' ? { value: 'v' } : undefined });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: '403 Forbidden' });
    }
    expect((await api(`/users/${u.id}/custom_attributes/k`, { method: 'PUT', body: { value: 'v' } })).status).toBe(401);
    expect(await api(`/users/${u.id}/custom_attributes`)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await api('/users/987654321/custom_attributes', { token: u.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    const missing = await api('/users/987654321/custom_attributes', { token: rootToken });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Not Found' });
    expect((await api(`/users/${u.id}/custom_attributes`, { token: rootToken })).body).toEqual([]);
  });
});
