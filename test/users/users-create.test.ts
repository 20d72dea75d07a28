import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

describe('POST /users', () => {
  it('creates a user with the administrator view and a personal namespace', async () => {
    const username = unique('create');
    const res = await api('/users', { token: rootToken, body: { email: `${username}@example.com`, name: 'Created', username, password: 'secret-pass-123', skip_confirmation: true } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ username, name: 'Created', email: `${username}@example.com`, is_admin: false, private_profile: false, bio: '', external: false, projects_limit: 100000, state: 'active' });
    expect(res.body.namespace_id).toEqual(expect.any(Number));
    expect(res.body.created_by).toMatchObject({ id: 1, username: 'root' });
    expect(res.body).not.toHaveProperty('password');
    const get = await api('/user', { token: rootToken, headers: { Sudo: username } });
    expect(get.status).toBe(200);
    expect(get.body.username).toBe(username);
  });

  it('gives external users no project or group creation, whatever the request says', async () => {
    const username = unique('ext');
    const res = await api('/users', {
      token: rootToken,
      body: { email: `${username}@example.com`, name: 'Ext', username, password: 'secret-pass-123', external: true, projects_limit: 10, can_create_group: true },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ external: true, projects_limit: 0, can_create_group: false, can_create_project: false });
    const get = await api(`/users/${res.body.id}`, { token: rootToken });
    expect(get.body).toMatchObject({ external: true, projects_limit: 0, can_create_group: false });
  });

  it('answers 400 in Grape wording when required attributes are missing', async () => {
    const res = await api('/users', { token: rootToken, body: { name: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'email is missing, username is missing, password, reset_password, force_random_password are missing, at least one parameter must be provided' });
  });

  it('answers 409 for a taken email or username, case-insensitively, and creates nothing', async () => {
    const u = await createUser();
    const dupEmail = await api('/users', { token: rootToken, body: { email: u.email.toUpperCase(), name: 'x', username: unique('x'), password: 'secret-pass-123' } });
    expect(dupEmail.status).toBe(409);
    expect(dupEmail.body).toEqual({ message: 'Email has already been taken' });
    const dupName = await api('/users', { token: rootToken, body: { email: `${unique('e')}@example.com`, name: 'x', username: u.username.toUpperCase(), password: 'secret-pass-123' } });
    expect(dupName.status).toBe(409);
    expect(dupName.body).toEqual({ message: 'Username has already been taken' });
  });

  it('answers 400 with model messages for a short password and a bad username', async () => {
    const res = await api('/users', { token: rootToken, body: { email: `${unique('e')}@example.com`, name: 'x', username: '-bad', password: 'short' } });
    expect(res.status).toBe(400);
    expect(res.body.message.password).toEqual(['is too short (minimum is 8 characters)']);
    expect(res.body.message.username[0]).toContain("can contain only letters, digits, '_', '-' and '.'");
  });

  it('is refused to non-administrators (403) and anonymous callers (401)', async () => {
    const u = await createUser();
    const body = { email: `${unique('e')}@example.com`, name: 'x', username: unique('x'), password: 'secret-pass-123' };
    expect((await api('/users', { token: u.token, body })).status).toBe(403);
    expect((await api('/users', { body })).status).toBe(401);
  });
});
