import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const del = (path: string, token: string | null = rootToken, headers?: Record<string, string>) => api(path, { method: 'DELETE', token, headers });
const GHOST_BIO = 'This is a "Ghost User", created to hold all issues authored by users that have since been deleted. This user cannot be removed.';

async function findGhost() {
  const res = await api('/users?search=Ghost%20User&per_page=100', { token: rootToken });
  return res.body.find((u: any) => u.name === 'Ghost User' && /^ghost\d*$/.test(u.username));
}

describe('DELETE /users/:id', () => {
  it('is refused to non-administrators (403) and anonymous callers (401)', async () => {
    const u = await createUser();
    const res = await del(`/users/${u.id}`, u.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden' });
    expect((await del(`/users/${u.id}`, null)).status).toBe(401);
    expect((await api(`/users/${u.id}`, { token: rootToken })).status).toBe(200);
  });

  it('answers 404 for an unknown user', async () => {
    const res = await del('/users/987654321');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 User Not Found' });
  });

  it('deletes the user with 204 and an empty body; the user, namespace, tokens and identities are gone', async () => {
    const u = await createUser({ attrs: { provider: 'github', extern_uid: unique('gh') } });
    await api(`/users/${u.id}/custom_attributes/k`, { method: 'PUT', token: rootToken, body: { value: 'v' } });
    const res = await del(`/users/${u.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api(`/users/${u.id}`, { token: rootToken })).status).toBe(404);
    expect((await api(`/users?username=${u.username}`)).body).toEqual([]);
    // Its token no longer authenticates.
    expect((await api('/user', { token: u.token })).status).toBe(401);
    // Username, email and namespace path are free again.
    const again = await api('/users', { token: rootToken, body: { email: u.email, name: 'again', username: u.username, password: 'secret-pass-123' } });
    expect(again.status).toBe(201);
    expect(again.body.identities).toEqual([]);
    const attrs = await api(`/users/${again.body.id}/custom_attributes`, { token: rootToken });
    expect(attrs.body).toEqual([]);
  });

  it('creates the ghost user on a soft delete, which cannot itself be deleted', async () => {
    const u = await createUser();
    expect((await del(`/users/${u.id}`)).status).toBe(204);
    const ghost = await findGhost();
    expect(ghost).toBeTruthy();
    const full = await api(`/users/${ghost.id}`, { token: rootToken });
    expect(full.body).toMatchObject({ name: 'Ghost User', bio: GHOST_BIO, state: 'active' });
    expect(full.body.email).toMatch(/^ghost\d*@example\.com$/);
    // A second delete reuses the same ghost.
    const v = await createUser();
    expect((await del(`/users/${v.id}`)).status).toBe(204);
    const all = await api('/users?search=Ghost%20User&per_page=100', { token: rootToken });
    expect(all.body.filter((x: any) => x.name === 'Ghost User' && /^ghost\d*$/.test(x.username))).toHaveLength(1);
    const refuse = await del(`/users/${ghost.id}`);
    expect(refuse.status).toBe(403);
    expect(refuse.body).toEqual({ message: '403 Forbidden' });
    expect((await api(`/users/${ghost.id}`, { token: rootToken })).status).toBe(200);
  });

  it('accepts hard_delete=true', async () => {
    const u = await createUser();
    const res = await api(`/users/${u.id}?hard_delete=true`, { method: 'DELETE', token: rootToken });
    expect(res.status).toBe(204);
    expect((await api(`/users/${u.id}`, { token: rootToken })).status).toBe(404);
  });

  it('answers 412 when If-Unmodified-Since is older than updated_at, deleting nothing', async () => {
    const u = await createUser();
    const res = await del(`/users/${u.id}`, rootToken, { 'If-Unmodified-Since': 'Mon, 01 Jan 2001 00:00:00 GMT' });
    expect(res.status).toBe(412);
    expect(res.body).toEqual({ message: '412 Precondition Failed' });
    expect((await api(`/users/${u.id}`, { token: rootToken })).status).toBe(200);
    const later = await del(`/users/${u.id}`, rootToken, { 'If-Unmodified-Since': new Date(Date.now() + 60_000).toUTCString() });
    expect(later.status).toBe(204);
  });
});

describe('DELETE /users/:id/identities/:provider', () => {
  it('deletes one identity with 204', async () => {
    const u = await createUser({ attrs: { provider: 'github', extern_uid: unique('gh') } });
    const res = await del(`/users/${u.id}/identities/github`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api(`/users/${u.id}`, { token: rootToken })).body.identities).toEqual([]);
  });

  it('answers 412 when If-Unmodified-Since is older than the identity', async () => {
    const u = await createUser({ attrs: { provider: 'github', extern_uid: unique('gh') } });
    const res = await del(`/users/${u.id}/identities/github`, rootToken, { 'If-Unmodified-Since': 'Mon, 01 Jan 2001 00:00:00 GMT' });
    expect(res.status).toBe(412);
    expect((await api(`/users/${u.id}`, { token: rootToken })).body.identities).toHaveLength(1);
  });

  it('answers 404 User Not Found and 404 Identity Not Found', async () => {
    const u = await createUser();
    const noUser = await del('/users/987654321/identities/github');
    expect(noUser.status).toBe(404);
    expect(noUser.body).toEqual({ message: '404 User Not Found' });
    const noIdentity = await del(`/users/${u.id}/identities/github`);
    expect(noIdentity.status).toBe(404);
    expect(noIdentity.body).toEqual({ message: '404 Identity Not Found' });
  });

  it('is refused to non-administrators', async () => {
    const u = await createUser({ attrs: { provider: 'github', extern_uid: unique('gh') } });
    const res = await del(`/users/${u.id}/identities/github`, u.token);
    expect(res.status).toBe(403);
    expect((await api(`/users/${u.id}`, { token: rootToken })).body.identities).toHaveLength(1);
  });
});
