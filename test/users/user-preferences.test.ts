import { describe, expect, it } from 'vitest';
import { api, createToken, createUser, rootToken } from '../support';

const KEYS = ['id', 'user_id', 'view_diffs_file_by_file', 'show_whitespace_in_diffs', 'pass_user_identities_to_ci_jwt'];

describe('GET /user/preferences', () => {
  it("answers the caller's defaults with a stable id, in the entity order", async () => {
    const u = await createUser();
    const res = await api('/user/preferences', { token: u.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(KEYS);
    expect(res.body).toMatchObject({ user_id: u.id, view_diffs_file_by_file: false, show_whitespace_in_diffs: true, pass_user_identities_to_ci_jwt: false });
    expect(Number.isInteger(res.body.id)).toBe(true);
    expect((await api('/user/preferences', { token: u.token })).body).toEqual(res.body);
    const other = await createUser();
    expect((await api('/user/preferences', { token: other.token })).body.id).not.toBe(res.body.id);
  });

  it('reflects view_diffs_file_by_file given when the user was created', async () => {
    const u = await createUser({ attrs: { view_diffs_file_by_file: true } });
    expect((await api('/user/preferences', { token: u.token })).body.view_diffs_file_by_file).toBe(true);
  });

  it('requires authentication', async () => {
    const res = await api('/user/preferences');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: '401 Unauthorized' });
  });
});

describe('PUT /user/preferences', () => {
  it('updates the preferences and reads them back', async () => {
    const u = await createUser();
    const before = (await api('/user/preferences', { token: u.token })).body;
    const res = await api('/user/preferences', { method: 'PUT', token: u.token, body: { view_diffs_file_by_file: true, show_whitespace_in_diffs: false } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(KEYS);
    expect(res.body).toEqual({ ...before, view_diffs_file_by_file: true, show_whitespace_in_diffs: false });
    expect((await api('/user/preferences', { token: u.token })).body).toEqual(res.body);
    const pass = await api('/user/preferences', { method: 'PUT', token: u.token, form: { view_diffs_file_by_file: 'false', show_whitespace_in_diffs: 'true', pass_user_identities_to_ci_jwt: 'true' } });
    expect(pass.body).toEqual({ ...before, view_diffs_file_by_file: false, show_whitespace_in_diffs: true, pass_user_identities_to_ci_jwt: true });
    expect((await api('/user/preferences', { token: u.token })).body).toEqual(pass.body);
  });

  it('works on the first call without a prior GET', async () => {
    const u = await createUser();
    const res = await api('/user/preferences', { method: 'PUT', token: u.token, body: { view_diffs_file_by_file: true, show_whitespace_in_diffs: true } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user_id: u.id, view_diffs_file_by_file: true, show_whitespace_in_diffs: true, pass_user_identities_to_ci_jwt: false });
    expect((await api('/user/preferences', { token: u.token })).body).toEqual(res.body);
  });

  it('requires both booleans (spec) and refuses non-booleans, writing nothing', async () => {
    const u = await createUser();
    const missing = await api('/user/preferences', { method: 'PUT', token: u.token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'view_diffs_file_by_file is missing, show_whitespace_in_diffs is missing' });
    const one = await api('/user/preferences', { method: 'PUT', token: u.token, body: { view_diffs_file_by_file: true } });
    expect(one.body).toEqual({ error: 'show_whitespace_in_diffs is missing' });
    const bad = await api('/user/preferences', { method: 'PUT', token: u.token, body: { view_diffs_file_by_file: 'maybe', show_whitespace_in_diffs: false } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'view_diffs_file_by_file is invalid' });
    expect((await api('/user/preferences', { token: u.token })).body).toMatchObject({ view_diffs_file_by_file: false, show_whitespace_in_diffs: true });
  });

  it("changes only the caller's own preferences", async () => {
    const u = await createUser();
    const other = await createUser();
    await api('/user/preferences', { method: 'PUT', token: u.token, body: { view_diffs_file_by_file: true, show_whitespace_in_diffs: false } });
    expect((await api('/user/preferences', { token: other.token })).body).toMatchObject({ user_id: other.id, view_diffs_file_by_file: false, show_whitespace_in_diffs: true });
    // Through sudo an administrator acts as the user.
    const sudo = await api(`/user/preferences?sudo=${other.id}`, { token: rootToken });
    expect(sudo.body.user_id).toBe(other.id);
  });

  it('requires authentication', async () => {
    expect((await api('/user/preferences', { method: 'PUT', body: { view_diffs_file_by_file: true, show_whitespace_in_diffs: true } })).status).toBe(401);
  });

  it('refuses read_user tokens, which only serve GET', async () => {
    const u = await createUser();
    const readUser = await createToken(u.id, ['read_user']);
    expect((await api('/user/preferences', { token: readUser })).status).toBe(200);
    const res = await api('/user/preferences', { method: 'PUT', token: readUser, body: { view_diffs_file_by_file: true, show_whitespace_in_diffs: false } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('insufficient_scope');
    expect((await api('/user/preferences', { token: u.token })).body.view_diffs_file_by_file).toBe(false);
  });
});
