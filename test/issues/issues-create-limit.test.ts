/**
 * issues_create_limit (application setting): issue creations per user and project per minute;
 * over the limit GitLab answers 429 with the ApplicationRateLimiter body and writes nothing.
 * Changes instance settings, so it lives in its own file and restores them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let before: number;
let user: TestUser;
let other: TestUser;
let projectA: { id: number };
let projectB: { id: number };

beforeAll(async () => {
  before = (await api('/application/settings', { token: rootToken })).body.issues_create_limit;
  [user, other] = await Promise.all([createUser(), createUser()]);
  projectA = (await api('/projects', { token: user.token, body: { name: unique('a'), visibility: 'public' } })).body;
  projectB = (await api('/projects', { token: user.token, body: { name: unique('b'), visibility: 'public' } })).body;
  const set = await api('/application/settings', { method: 'PUT', token: rootToken, body: { issues_create_limit: 2 } });
  expect(set.status).toBe(200);
  expect(set.body.issues_create_limit).toBe(2);
});

afterAll(async () => {
  await api('/application/settings', { method: 'PUT', token: rootToken, body: { issues_create_limit: before } });
});

describe('issues_create_limit', () => {
  it('answers 429 past the limit per user and project, and creates nothing', async () => {
    const create = (token: string, projectId: number) => api(`/projects/${projectId}/issues`, { token, body: { title: unique('t') } });
    expect((await create(user.token, projectA.id)).status).toBe(201);
    expect((await create(user.token, projectA.id)).status).toBe(201);
    const third = await create(user.token, projectA.id);
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ message: { error: 'This endpoint has been requested too many times. Try again later.' } });
    expect(third.headers.get('retry-after')).toBeNull();
    const list = await api(`/projects/${projectA.id}/issues?scope=all`, { token: user.token });
    expect(list.body.length).toBe(2);
    // Another project and another user have their own counters.
    expect((await create(user.token, projectB.id)).status).toBe(201);
    expect((await create(other.token, projectA.id)).status).toBe(201);
  });
});
