import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const ADMIN_ONLY = ['email', 'is_admin', 'note', 'namespace_id', 'created_by', 'current_sign_in_ip', 'last_sign_in_ip', 'highest_role', 'sign_in_count', 'identities', 'plan', 'trial'];

describe('GET /users/:id', () => {
  it('answers 403 "Not authorized!" to anonymous callers', async () => {
    const res = await api('/users/1');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden - Not authorized!' });
  });

  it('answers 404 User Not Found for an unknown id', async () => {
    const res = await api('/users/987654321', { token: rootToken });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 User Not Found' });
  });

  it('treats a non-numeric id as a route miss', async () => {
    const res = await api('/users/abc', { token: rootToken });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: '404 Not Found' });
    const put = await api('/users/abc', { method: 'PUT', token: rootToken, body: { name: 'x' } });
    expect(put.status).toBe(404);
    expect(put.body).toEqual({ error: '404 Not Found' });
  });

  it('shows the User entity to other users: no email, admin fields or IPs', async () => {
    const viewer = await createUser();
    const target = await createUser({ attrs: { bio: 'about me', note: 'private note', location: 'Paris', job_title: 'Dev', organization: 'ACME' } });
    const res = await api(`/users/${target.id}`, { token: viewer.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual([
      'id', 'username', 'name', 'state', 'avatar_url', 'web_url', 'created_at', 'bio', 'location', 'public_email', 'skype', 'linkedin',
      'twitter', 'discord', 'website_url', 'organization', 'job_title', 'pronouns', 'bot', 'work_information', 'followers', 'following',
      'is_followed', 'local_time',
    ]);
    expect(res.body).toMatchObject({ id: target.id, bio: 'about me', location: 'Paris', work_information: 'Dev at ACME', bot: false, followers: 0, following: 0 });
    for (const k of ADMIN_ONLY) expect(res.body).not.toHaveProperty(k);
  });

  it('answers location null when unset (nullable in the spec)', async () => {
    const target = await createUser();
    const res = await api(`/users/${target.id}`, { token: target.token });
    expect(res.body.location).toBeNull();
    expect(res.body.bio).toBe('');
  });

  it('hides created_at and follow counts of private profiles, except to the owner and administrators', async () => {
    const viewer = await createUser();
    const target = await createUser({ attrs: { private_profile: true } });
    const other = await api(`/users/${target.id}`, { token: viewer.token });
    expect(other.status).toBe(200);
    for (const k of ['created_at', 'followers', 'following', 'is_followed']) expect(other.body).not.toHaveProperty(k);
    const own = await api(`/users/${target.id}`, { token: target.token });
    expect(own.body).toHaveProperty('created_at');
    expect(own.body).toHaveProperty('followers');
    const admin = await api(`/users/${target.id}`, { token: rootToken });
    expect(admin.body).toHaveProperty('created_at');
    expect(admin.body.private_profile).toBe(true);
  });

  it('shows UserDetailsWithAdmin to administrators', async () => {
    const target = await createUser({ attrs: { note: 'n1' } });
    const res = await api(`/users/${target.id}`, { token: rootToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: target.id, email: target.email, is_admin: false, note: 'n1', highest_role: 0, sign_in_count: 0, plan: null, trial: false });
    for (const k of ['current_sign_in_ip', 'last_sign_in_ip', 'namespace_id', 'created_by', 'identities']) expect(res.body).toHaveProperty(k);
    const keys = Object.keys(res.body);
    expect(keys.slice(-6)).toEqual(['highest_role', 'current_sign_in_ip', 'last_sign_in_ip', 'sign_in_count', 'plan', 'trial']);
  });

  it('includes custom attributes with with_custom_attributes=true for administrators only', async () => {
    const target = await createUser();
    await api(`/users/${target.id}/custom_attributes/team`, { method: 'PUT', token: rootToken, body: { value: 'blue' } });
    const admin = await api(`/users/${target.id}?with_custom_attributes=true`, { token: rootToken });
    expect(admin.body.custom_attributes).toEqual([{ key: 'team', value: 'blue' }]);
    // The nested created_by (root) is a plain UserBasic: the target's attributes are not copied into it.
    expect(admin.body.created_by).toMatchObject({ id: 1 });
    expect(admin.body.created_by).not.toHaveProperty('custom_attributes');
    const plain = await api(`/users/${target.id}`, { token: rootToken });
    expect(plain.body).not.toHaveProperty('custom_attributes');
    const other = await api(`/users/${target.id}?with_custom_attributes=true`, { token: target.token });
    expect(other.body).not.toHaveProperty('custom_attributes');
  });

  it('accepts the read_user scope', async () => {
    const viewer = await createUser({ scopes: ['read_user'] });
    const res = await api(`/users/${viewer.id}`, { token: viewer.token });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(viewer.id);
  });
});

describe('GET /user', () => {
  it('shows UserPublic to the user: own email and settings, no admin fields', async () => {
    const u = await createUser();
    const res = await api('/user', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: u.id, email: u.email, private_profile: false, can_create_project: true });
    for (const k of ['is_admin', 'note', 'namespace_id', 'created_by', 'current_sign_in_ip', 'last_sign_in_ip', 'highest_role']) expect(res.body).not.toHaveProperty(k);
  });

  it('shows UserWithAdmin to administrators (no sign-in IPs)', async () => {
    const res = await api('/user', { token: rootToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 1, is_admin: true });
    expect(res.body).toHaveProperty('namespace_id');
    expect(res.body).not.toHaveProperty('current_sign_in_ip');
    expect(res.body).not.toHaveProperty('highest_role');
  });
});

describe('GET /users/:id highest_role (administrator view)', () => {
  it('is the highest access level of the user’s memberships, 0 without any', async () => {
    const u = await createUser();
    expect((await api(`/users/${u.id}`, { token: rootToken })).body.highest_role).toBe(0);
    const path = unique('hr');
    const group = await api('/groups', { token: rootToken, body: { name: path, path } });
    expect(group.status).toBe(201);
    expect((await api(`/groups/${group.body.id}/members`, { token: rootToken, body: { user_id: u.id, access_level: 30 } })).status).toBe(201);
    expect((await api(`/users/${u.id}`, { token: rootToken })).body.highest_role).toBe(30);
    const project = await api('/projects', { token: rootToken, body: { name: unique('p'), namespace_id: group.body.id } });
    expect(project.status).toBe(201);
    expect((await api(`/projects/${project.body.id}/members`, { token: rootToken, body: { user_id: u.id, access_level: 40 } })).status).toBe(201);
    expect((await api(`/users/${u.id}`, { token: rootToken })).body.highest_role).toBe(40);
  });
});
