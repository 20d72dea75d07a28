/** GitLab wire conventions shared by every endpoint (spec: Endpoints 'General', Errors, Versioning). */
import { describe, expect, it } from 'vitest';
import { api, createUser, fetchApi, rootToken, unique } from '../support';

const newUserBody = () => {
  const username = unique('wire');
  return { email: `${username}@example.com`, name: `Wire ${username}`, username, password: 'secret-pass-123', skip_confirmation: 'true' };
};

describe('parameters from every place Grape reads them', () => {
  it('accepts a form-encoded body with GitLab boolean words', async () => {
    const b = newUserBody();
    const res = await api('/users', { token: rootToken, form: { ...b, admin: 'yes', external: 'f' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ username: b.username, is_admin: true, external: false });
  });
  it('accepts a multipart body', async () => {
    const b = newUserBody();
    const fd = new FormData();
    for (const [k, v] of Object.entries(b)) fd.append(k, v);
    fd.append('projects_limit', '7');
    const res = await api('/users', { token: rootToken, multipart: fd });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ username: b.username, projects_limit: 7 });
  });
  it('accepts parameters in the query string of a POST', async () => {
    const b = newUserBody();
    const qs = new URLSearchParams(b).toString();
    const res = await api(`/users?${qs}`, { token: rootToken, method: 'POST' });
    expect(res.status).toBe(201);
    expect(res.body.username).toBe(b.username);
  });
  it('reads `a[]=` arrays from form bodies and JSON arrays alike', async () => {
    const u = await createUser();
    const form = await api(`/users/${u.id}/personal_access_tokens`, { token: rootToken, form: { name: 'f', 'scopes[]': ['read_api', 'read_user'] } });
    expect(form.status).toBe(201);
    expect(form.body.scopes).toEqual(['read_api', 'read_user']);
    const json = await api(`/users/${u.id}/personal_access_tokens`, { token: rootToken, body: { name: 'j', scopes: ['api'] } });
    expect(json.body.scopes).toEqual(['api']);
  });
  it('answers Grape errors for a wrong type and for malformed JSON, and creates nothing', async () => {
    const b = newUserBody();
    const bad = await api('/users', { token: rootToken, body: { ...b, projects_limit: 'many', admin: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'admin is invalid, projects_limit is invalid' });
    const malformed = await fetchApi('/api/v4/users', { method: 'POST', headers: { 'PRIVATE-TOKEN': rootToken, 'Content-Type': 'application/json' }, body: '{"email":' });
    expect(malformed.status).toBe(400);
    expect((await malformed.json<any>()).error).toContain('message body does not match declared format');
    const after = await api('/user', { token: rootToken, headers: { Sudo: b.username } });
    expect(after.status).toBe(404);
    expect(after.body).toEqual({ message: `404 User with ID or username '${b.username}' Not Found` });
  });
});

describe('token scopes registered per API class', () => {
  it('names read_user first on every Users API route, writes included (lib/api/users.rb)', async () => {
    const u = await createUser();
    const { createToken } = await import('../support');
    const readApi = await createToken(u.id, ['read_api']);
    const write = await api('/user/keys', { token: readApi, body: { title: 't', key: 'ssh-ed25519 AAAA' } });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'read_user api read_api',
    });
    const readUser = await createToken(u.id, ['read_user']);
    expect((await api('/user/keys', { token: readUser })).status).toBe(200);
    expect((await api('/user/keys', { token: readUser, body: { title: 't', key: 'ssh-ed25519 AAAA' } })).status).toBe(403);
  });
});

describe('routing conventions', () => {
  it('tolerates a .json suffix', async () => {
    const res = await api('/api/v4/user.json', { token: rootToken });
    expect(res.status).toBe(200);
    expect(res.body.username).toBe('root');
  });
  it('answers unknown routes with the catch-all 404 for any method', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
      const res = await api('/no/such/route', { token: rootToken, method });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: '404 Not Found' });
    }
  });
  it('answers 405 with Allow for a wrong method on a known route', async () => {
    const res = await api('/user', { token: rootToken, method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ error: '405 Not Allowed' });
    expect(res.headers.get('allow')).toContain('GET');
  });
  it('answers API v3 requests as removed', async () => {
    const res = await api('/api/v3/users', { token: rootToken });
    expect(res.status).toBe(410);
    expect(res.body).toEqual({ error: 'API V3 is no longer supported. Use API V4 instead.' });
  });
  it('answers 414 to an over-long request line', async () => {
    const res = await api(`/users?search=${'a'.repeat(9000)}`, { token: rootToken });
    expect(res.status).toBe(414);
  });
  it('sends GitLab security headers and a request id on every response', async () => {
    const res = await api('/user', { token: rootToken });
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{26}$/);
  });
  it('formats timestamps as ISO 8601 with milliseconds and Z', async () => {
    const res = await api('/user', { token: rootToken });
    expect(res.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});
