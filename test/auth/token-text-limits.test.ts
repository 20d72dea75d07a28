/** Token and OAuth application names are `string(255)` columns; token descriptions are held to 255 characters. */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, type TestUser, unique } from '../support';

let user: TestUser;

beforeAll(async () => {
  user = await createUser();
});

const tokenNames = async () => ((await api(`/personal_access_tokens?user_id=${user.id}`, { token: rootToken })).body as { name: string }[]).map((t) => t.name);

describe('personal access tokens', () => {
  it('refuses a name over 255 characters (422, full-messages sentence) and mints nothing', async () => {
    const before = await tokenNames();
    const name = 'n'.repeat(256);
    const res = await api(`/users/${user.id}/personal_access_tokens`, { token: rootToken, body: { name, scopes: ['api'] } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'Name is too long (maximum is 255 characters)' });
    expect(await tokenNames()).toEqual(before);
  });

  it('refuses a description over 255 characters', async () => {
    const res = await api(`/users/${user.id}/personal_access_tokens`, { token: rootToken, body: { name: unique('t'), description: 'd'.repeat(256), scopes: ['api'] } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'Description is too long (maximum is 255 characters)' });
  });
});

describe('impersonation tokens', () => {
  it('refuses a name over 255 characters with the validation body', async () => {
    const res = await api(`/users/${user.id}/impersonation_tokens`, { token: rootToken, body: { name: 'n'.repeat(256), scopes: ['api'] } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { name: ['is too long (maximum is 255 characters)'] } });
    const list = await api(`/users/${user.id}/impersonation_tokens`, { token: rootToken });
    expect(list.body.filter((t: { name: string }) => t.name.length > 255)).toEqual([]);
  });
});

describe('OAuth applications', () => {
  it('refuses a name over 255 characters and registers nothing', async () => {
    const name = `${unique('app')}${'n'.repeat(255)}`;
    const res = await api('/applications', { token: rootToken, body: { name, redirect_uri: 'https://example.com/cb', scopes: 'api' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { name: ['is too long (maximum is 255 characters)'] } });
    const list = await api('/applications', { token: rootToken });
    expect(list.body.some((a: { application_name: string }) => a.application_name === name)).toBe(false);
  });
});
