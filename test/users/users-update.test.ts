import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const put = (id: number, body: unknown, token: string | null = rootToken) => api(`/users/${id}`, { method: 'PUT', token, body });
const adminView = async (id: number) => (await api(`/users/${id}`, { token: rootToken })).body;

describe('PUT /users/:id', () => {
  it('is refused to non-administrators (403) before the existence check, and to anonymous callers (401)', async () => {
    const u = await createUser();
    const other = await put(u.id, { name: 'x' }, u.token);
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ message: '403 Forbidden' });
    const missingAsUser = await put(987654321, { name: 'x' }, u.token);
    expect(missingAsUser.status).toBe(403);
    expect((await put(u.id, { name: 'x' }, null)).status).toBe(401);
    expect((await adminView(u.id)).name).toBe(u.name);
  });

  it('answers 404 User Not Found for an unknown user', async () => {
    const res = await put(987654321, { name: 'x' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 User Not Found' });
  });

  it('updates every profile attribute and answers UserWithAdmin', async () => {
    const u = await createUser();
    const before = await adminView(u.id);
    await new Promise((r) => setTimeout(r, 5));
    const res = await put(u.id, {
      name: 'New Name',
      bio: 'new bio',
      location: 'Berlin',
      skype: 'sk',
      linkedin: 'li',
      twitter: 'tw',
      discord: '1234',
      website_url: 'https://example.com',
      organization: 'Org',
      job_title: 'Boss',
      pronouns: 'they/them',
      note: 'admin note',
      projects_limit: 7,
      can_create_group: false,
      private_profile: true,
      theme_id: 2,
      color_scheme_id: 4,
      view_diffs_file_by_file: true,
      shared_runners_minutes_limit: 100,
      admin: false,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: u.id,
      name: 'New Name',
      bio: 'new bio',
      location: 'Berlin',
      skype: 'sk',
      linkedin: 'li',
      twitter: 'tw',
      discord: '1234',
      website_url: 'https://example.com',
      organization: 'Org',
      job_title: 'Boss',
      pronouns: 'they/them',
      note: 'admin note',
      projects_limit: 7,
      can_create_group: false,
      external: false,
      private_profile: true,
      theme_id: 2,
      color_scheme_id: 4,
      shared_runners_minutes_limit: 100,
      is_admin: false,
    });
    expect(res.body).not.toHaveProperty('current_sign_in_ip');
    const after = await adminView(u.id);
    expect(after).toMatchObject({ name: 'New Name', bio: 'new bio', projects_limit: 7, can_create_group: false });
    // The user's own view shows updated settings too.
    const own = await api('/user', { token: u.token });
    expect(own.body).toMatchObject({ theme_id: 2, color_scheme_id: 4, private_profile: true });
    expect(before.name).toBe(u.name);
  });

  it('applies external limits when external turns on, and restores the defaults when it turns off', async () => {
    const u = await createUser();
    const on = await put(u.id, { external: true });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ external: true, projects_limit: 0, can_create_group: false, can_create_project: false });
    expect(await adminView(u.id)).toMatchObject({ external: true, projects_limit: 0, can_create_group: false });
    const off = await put(u.id, { external: false });
    expect(off.body).toMatchObject({ external: false, projects_limit: 100000, can_create_group: true, can_create_project: true });
    const offWithLimit = await put(u.id, { external: true });
    expect(offWithLimit.body.projects_limit).toBe(0);
    const explicit = await put(u.id, { external: false, projects_limit: 5, can_create_group: false });
    expect(explicit.body).toMatchObject({ external: false, projects_limit: 5, can_create_group: false });
    // Without a change of `external`, limits are what the request says.
    const same = await put(u.id, { external: false, projects_limit: 9 });
    expect(same.body.projects_limit).toBe(9);
  });

  it('answers 404 (spec quirk) for an email or username taken by another user; own username is fine', async () => {
    const a = await createUser();
    const b = await createUser();
    const email = await put(a.id, { email: b.email.toUpperCase() });
    expect(email.status).toBe(404);
    expect(email.body).toEqual({ message: 'Email has already been taken' });
    const username = await put(a.id, { username: b.username.toUpperCase() });
    expect(username.status).toBe(404);
    expect(username.body).toEqual({ message: 'Username has already been taken' });
    const own = await put(a.id, { username: a.username, name: 'Still Me' });
    expect(own.status).toBe(200);
    expect(own.body.username).toBe(a.username);
    const after = await adminView(a.id);
    expect(after.email).toBe(a.email);
    expect(after.name).toBe('Still Me');
  });

  it('validates like create: 400 with model messages, nothing written', async () => {
    const u = await createUser();
    const res = await put(u.id, { password: 'short', projects_limit: -1, username: '-bad', bio: 'x'.repeat(256) });
    expect(res.status).toBe(400);
    expect(res.body.message.password).toEqual(['is too short (minimum is 8 characters)']);
    expect(res.body.message.projects_limit).toEqual(['must be greater than or equal to 0']);
    expect(res.body.message.bio).toEqual(['is too long (maximum is 255 characters)']);
    expect(res.body.message.username[0]).toContain("can contain only letters, digits, '_', '-' and '.'");
    const after = await adminView(u.id);
    expect(after.username).toBe(u.username);
    expect(after.projects_limit).toBe(100000);
    const long = await put(u.id, { skype: 'x'.repeat(501), job_title: 'j'.repeat(201), pronouns: 'p'.repeat(51), email: `${'e'.repeat(250)}@example.com` });
    expect(long.status).toBe(400);
    expect(long.body.message).toEqual({
      email: ['is too long (maximum is 255 characters)'],
      skype: ['is too long (maximum is 500 characters)'],
      job_title: ['is too long (maximum is 200 characters)'],
      pronouns: ['is too long (maximum is 50 characters)'],
    });
    const theme = await put(u.id, { theme_id: 50 });
    expect(theme.status).toBe(400);
    expect(theme.body).toEqual({ message: { theme_id: ['is not included in the list'] } });
  });

  it('answers 400 for provider without extern_uid, and sets an identity with both', async () => {
    const u = await createUser();
    const one = await put(u.id, { provider: 'github' });
    expect(one.status).toBe(400);
    expect(one.body).toEqual({ error: 'extern_uid, provider provide all or none of parameters' });
    const uid = unique('uid');
    const both = await put(u.id, { provider: 'github', extern_uid: uid });
    expect(both.status).toBe(200);
    expect(both.body.identities).toEqual([{ provider: 'github', extern_uid: uid, saml_provider_id: null }]);
    const again = await put(u.id, { provider: 'github', extern_uid: `${uid}-2` });
    expect(again.body.identities).toEqual([{ provider: 'github', extern_uid: `${uid}-2`, saml_provider_id: null }]);
  });

  it('keeps the primary email and stores unconfirmed_email without skip_reconfirmation', async () => {
    const u = await createUser();
    const newEmail = `${unique('new')}@example.com`;
    const res = await put(u.id, { email: newEmail });
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(u.email);
    expect((await adminView(u.id)).email).toBe(u.email);
    // The pending address is not taken by anyone else yet, and the user still signs in with the old one.
    const lookup = await api(`/users?search=${encodeURIComponent(newEmail)}`, { token: rootToken });
    expect(lookup.body).toEqual([]);
  });

  it('changes the email at once with skip_reconfirmation=true', async () => {
    const u = await createUser();
    const newEmail = `${unique('new')}@example.com`;
    const res = await put(u.id, { email: newEmail, skip_reconfirmation: true });
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(newEmail);
    expect((await adminView(u.id)).email).toBe(newEmail);
  });

  it('renames the personal namespace with the username (the old name becomes free)', async () => {
    const u = await createUser();
    const newName = unique('renamed');
    const res = await put(u.id, { username: newName });
    expect(res.status).toBe(200);
    expect(res.body.username).toBe(newName);
    expect(res.body.web_url).toMatch(new RegExp(`/${newName}$`));
    const found = await api(`/users?username=${newName}`);
    expect(found.body.map((x: any) => x.id)).toEqual([u.id]);
    // The old username (and namespace path) can be taken by a new user now.
    const reuse = await api('/users', { token: rootToken, body: { email: `${unique('e')}@example.com`, name: 'x', username: u.username, password: 'secret-pass-123' } });
    expect(reuse.status).toBe(201);
    // And the new path collides with the renamed user's namespace.
    const clash = await api('/users', { token: rootToken, body: { email: `${unique('e')}@example.com`, name: 'x', username: newName, password: 'secret-pass-123' } });
    expect(clash.status).toBe(409);
  });

  it('stores bio null as an empty string and private_profile null as the instance default', async () => {
    const u = await createUser({ attrs: { bio: 'something', private_profile: true } });
    const res = await put(u.id, { bio: null, private_profile: null });
    expect(res.status).toBe(200);
    expect(res.body.bio).toBe('');
    expect(res.body.private_profile).toBe(false);
    const after = await adminView(u.id);
    expect(after.bio).toBe('');
    expect(after.private_profile).toBe(false);
  });

  it('changes the password: the old one stops working for OAuth password grants', async () => {
    const u = await createUser();
    const newPassword = `Pw-${unique('n')}-long`;
    const res = await put(u.id, { password: newPassword });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('password');
    // Observable once the OAuth password grant exists: the new password works, the old one does not.
    const newGrant = await api('/oauth/token', { form: { grant_type: 'password', username: u.username, password: newPassword } });
    if (newGrant.status === 200) {
      const oldGrant = await api('/oauth/token', { form: { grant_type: 'password', username: u.username, password: u.password } });
      expect(oldGrant.status).not.toBe(200);
    }
  });

  it('refuses a public_email the user does not own', async () => {
    const u = await createUser();
    const res = await put(u.id, { public_email: 'someone-else@example.com' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { public_email: ['is not an email you own'] } });
    const ok = await put(u.id, { public_email: u.email });
    expect(ok.status).toBe(200);
    expect(ok.body.public_email).toBe(u.email);
  });

  it('takes an avatar upload (multipart) and refuses non-image files', async () => {
    const u = await createUser();
    const png = Uint8Array.from(Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex'));
    const form = new FormData();
    form.append('avatar', new File([png], 'me.png', { type: 'image/png' }));
    form.append('projects_limit', '3');
    const res = await api(`/users/${u.id}`, { method: 'PUT', token: rootToken, multipart: form });
    expect(res.status).toBe(200);
    expect(res.body.avatar_url).toMatch(new RegExp(`/uploads/-/system/user/avatar/${u.id}/me\\.png$`));
    expect(res.body.projects_limit).toBe(3);
    expect((await adminView(u.id)).avatar_url).toBe(res.body.avatar_url);
    const bad = new FormData();
    bad.append('avatar', new File(['hello'], 'notes.txt', { type: 'text/plain' }));
    const refused = await api(`/users/${u.id}`, { method: 'PUT', token: rootToken, multipart: bad });
    expect(refused.status).toBe(400);
    expect(refused.body.message.avatar[0]).toMatch(/^file format is not supported/);
    expect((await adminView(u.id)).avatar_url).toBe(res.body.avatar_url);
  });

  it('moves updated_at (seen through If-Unmodified-Since on DELETE)', async () => {
    const u = await createUser();
    // HTTP dates have second precision: the update lands in a later second than the stamp.
    const stamp = new Date().toUTCString();
    await new Promise((r) => setTimeout(r, 1100));
    expect((await put(u.id, { name: 'Touched' })).status).toBe(200);
    const del = await api(`/users/${u.id}`, { method: 'DELETE', token: rootToken, headers: { 'If-Unmodified-Since': stamp } });
    expect(del.status).toBe(412);
    expect((await adminView(u.id)).id).toBe(u.id);
  });
});
