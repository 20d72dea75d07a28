import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

async function newApp(body: Record<string, unknown> = {}) {
  const res = await api('/applications', { token: rootToken, body: { name: unique('app'), redirect_uri: 'https://example.com/cb', scopes: 'api read_user', ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: number; application_id: string; application_name: string; callback_url: string; confidential: boolean; secret: string };
}

const grant = (form: Record<string, string>, headers: Record<string, string> = {}) => api('/oauth/token', { form, headers });

describe('/api/v4/applications (administrators)', () => {
  it('creates an application (ApplicationWithSecret), lists it without the secret, renews and deletes it', async () => {
    const res = await api('/applications', { token: rootToken, body: { name: 'CI app', redirect_uri: 'https://example.com/cb', scopes: 'api' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'application_id', 'application_name', 'callback_url', 'confidential', 'secret']);
    expect(res.body).toMatchObject({ application_name: 'CI app', callback_url: 'https://example.com/cb', confidential: true });
    expect(res.body.application_id).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.secret).toMatch(/^[0-9a-f]{64}$/);
    const list = await api('/applications', { token: rootToken });
    expect(list.status).toBe(200);
    const listed = list.body.find((a: any) => a.id === res.body.id);
    expect(Object.keys(listed)).toEqual(['id', 'application_id', 'application_name', 'callback_url', 'confidential']);
    expect(list.text).not.toContain(res.body.secret);
    const renewed = await api(`/applications/${res.body.id}/renew-secret`, { method: 'POST', token: rootToken });
    expect(renewed.status).toBe(201);
    expect(renewed.body.secret).not.toBe(res.body.secret);
    const del = await api(`/applications/${res.body.id}`, { method: 'DELETE', token: rootToken });
    expect(del.status).toBe(204);
    expect((await api('/applications', { token: rootToken })).body.some((a: any) => a.id === res.body.id)).toBe(false);
    const again = await api(`/applications/${res.body.id}`, { method: 'DELETE', token: rootToken });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: '404 Application Not Found' });
  });

  it('validates like Doorkeeper and is refused to non-administrators before parameters', async () => {
    const bad = await api('/applications', { token: rootToken, body: { name: 'x', redirect_uri: 'not a uri', scopes: 'api coffee' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: { redirect_uri: ['must be an absolute URI.'], scopes: ["doesn't match configured on the server."] } });
    const blank = await api('/applications', { token: rootToken, body: { name: 'x', redirect_uri: 'https://e.com', scopes: '' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ error: 'scopes is empty' });
    const u = await createUser();
    const res = await api('/applications', { token: u.token, body: {} });
    expect(res.status).toBe(403);
    expect((await api('/applications')).status).toBe(401);
  });
});

describe('client credentials at the token endpoint', () => {
  it('password grant with client_id/client_secret (params or HTTP Basic) ties the token to the application', async () => {
    const app = await newApp();
    const u = await createUser();
    const res = await grant({ grant_type: 'password', username: u.username, password: u.password, client_id: app.application_id, client_secret: app.secret });
    expect(res.status).toBe(200);
    const info = await api(`/oauth/token/info?access_token=${res.body.access_token}`);
    expect(info.body.application).toEqual({ uid: app.application_id });
    const basic = await grant({ grant_type: 'password', username: u.username, password: u.password, scope: 'read_user' }, { Authorization: `Basic ${btoa(`${app.application_id}:${app.secret}`)}` });
    expect(basic.status).toBe(200);
    expect(basic.body.scope).toBe('read_user');
    // Only the application's scopes may be asked for.
    const wider = await grant({ grant_type: 'password', username: u.username, password: u.password, scope: 'sudo', client_id: app.application_id, client_secret: app.secret });
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe('invalid_scope');
  });

  it('a wrong secret is invalid_client (401); after renew-secret the old secret stops working', async () => {
    const app = await newApp();
    const u = await createUser();
    const wrong = await grant({ grant_type: 'password', username: u.username, password: u.password, client_id: app.application_id, client_secret: 'wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    await api(`/applications/${app.id}/renew-secret`, { method: 'POST', token: rootToken });
    expect((await grant({ grant_type: 'password', username: u.username, password: u.password, client_id: app.application_id, client_secret: app.secret })).status).toBe(401);
  });

  it("refreshing an application's token needs that application's credentials", async () => {
    const app = await newApp();
    const u = await createUser();
    const first = (await grant({ grant_type: 'password', username: u.username, password: u.password, client_id: app.application_id, client_secret: app.secret })).body;
    const without = await grant({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(without.status).toBe(400);
    expect(without.body.error).toBe('invalid_grant');
    const ok = await grant({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: app.application_id, client_secret: app.secret });
    expect(ok.status).toBe(200);
  });

  it("a confidential application's token is revoked only with its credentials (403 otherwise)", async () => {
    const app = await newApp();
    const u = await createUser();
    const t = (await grant({ grant_type: 'password', username: u.username, password: u.password, client_id: app.application_id, client_secret: app.secret })).body;
    const anon = await api('/oauth/revoke', { form: { token: t.access_token } });
    expect(anon.status).toBe(403);
    expect(anon.body).toEqual({ error: 'unauthorized_client', error_description: 'You are not authorized to revoke this token' });
    expect((await api('/api/v4/user', { headers: { Authorization: `Bearer ${t.access_token}` } })).status).toBe(200);
    const ok = await api('/oauth/revoke', { form: { token: t.access_token, client_id: app.application_id, client_secret: app.secret } });
    expect(ok.status).toBe(200);
    expect((await api('/api/v4/user', { headers: { Authorization: `Bearer ${t.access_token}` } })).status).toBe(401);
  });

  it("deleting an application deletes its tokens", async () => {
    const app = await newApp();
    const u = await createUser();
    const t = (await grant({ grant_type: 'password', username: u.username, password: u.password, client_id: app.application_id, client_secret: app.secret })).body;
    expect((await api(`/applications/${app.id}`, { method: 'DELETE', token: rootToken })).status).toBe(204);
    const res = await api('/api/v4/user', { headers: { Authorization: `Bearer ${t.access_token}` } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: '401 Unauthorized' });
  });
});
