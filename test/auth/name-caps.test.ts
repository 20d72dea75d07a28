/**
 * Name caps on tokens and OAuth applications (`string(255)` columns; a token description is held to
 * 255 by a check constraint): GitLab's error for each route, and nothing created.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const LONG = 'n'.repeat(256);

async function tokenNames(userId: number): Promise<string[]> {
  const res = await api(`/personal_access_tokens?user_id=${userId}&per_page=100`, { token: rootToken });
  expect(res.status).toBe(200);
  return res.body.map((t: { name: string }) => t.name);
}

describe('personal access token names', () => {
  it('refuses a name over 255 characters with 422 and the full message, and mints nothing', async () => {
    const u = await createUser();
    const before = await tokenNames(u.id);
    const res = await api(`/users/${u.id}/personal_access_tokens`, { token: rootToken, body: { name: LONG, scopes: ['api'] } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'Name is too long (maximum is 255 characters)' });
    expect(await tokenNames(u.id)).toEqual(before);
  });

  it('refuses a description over 255 characters', async () => {
    const u = await createUser();
    const res = await api(`/users/${u.id}/personal_access_tokens`, { token: rootToken, body: { name: 'ok', description: LONG, scopes: ['api'] } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'Description is too long (maximum is 255 characters)' });
    expect(await tokenNames(u.id)).not.toContain('ok');
  });

  it('accepts a name of exactly 255 characters', async () => {
    const u = await createUser();
    const res = await api(`/users/${u.id}/personal_access_tokens`, { token: rootToken, body: { name: 'm'.repeat(255), scopes: ['api'] } });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('m'.repeat(255));
  });
});

describe('impersonation token names', () => {
  it('refuses a name over 255 characters with the model-validation body', async () => {
    const u = await createUser();
    const res = await api(`/users/${u.id}/impersonation_tokens`, { token: rootToken, body: { name: LONG, scopes: ['api'] } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { name: ['is too long (maximum is 255 characters)'] } });
    const list = await api(`/users/${u.id}/impersonation_tokens`, { token: rootToken });
    expect(list.body).toEqual([]);
  });
});

describe('OAuth application names', () => {
  it('refuses a name over 255 characters and creates no application', async () => {
    const name = `${unique('app')}${LONG}`;
    const res = await api('/applications', { token: rootToken, body: { name, redirect_uri: 'https://example.com/cb', scopes: 'api' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { name: ['is too long (maximum is 255 characters)'] } });
    const list = await api('/applications?per_page=100', { token: rootToken });
    expect(list.body.map((a: { application_name: string }) => a.application_name)).not.toContain(name);
  });
});
