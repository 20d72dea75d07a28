// Changes the instance-global restricted_visibility_levels: its own file, restored in afterAll.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

beforeAll(async () => {
  const res = await api('/application/settings', { method: 'PUT', token: rootToken, body: { restricted_visibility_levels: ['public'] } });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await api('/application/settings', { method: 'PUT', token: rootToken, body: { restricted_visibility_levels: [] } });
});

describe('restricted visibility levels', () => {
  it('refuses a restricted level to non-administrators for projects and groups; administrators may use it', async () => {
    const user = await createUser();
    const p = await api('/projects', { token: user.token, body: { name: 'x', visibility: 'public' } });
    expect(p.status).toBe(400);
    expect(p.body).toEqual({ message: { visibility_level: ['public has been restricted by your GitLab administrator'] } });
    const path = unique('g');
    const g = await api('/groups', { token: user.token, body: { name: path, path, visibility: 'public' } });
    expect(g.status).toBe(400);
    expect(g.body).toEqual({ message: 'Failed to save group {:visibility_level=>["public has been restricted by your GitLab administrator"]}' });
    const admin = await api('/projects', { token: rootToken, body: { name: unique('adm'), visibility: 'public' } });
    expect(admin.status).toBe(201);
    expect(admin.body.visibility).toBe('public');
  });
});
