/**
 * PUT /projects/:id default_branch: Projects::UpdateService#validate_default_branch_change calls
 * Project#change_head, which refuses a branch the repository does not have (400 with the model's
 * `base` message) and changes nothing else of the request.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;

beforeAll(async () => {
  owner = await createUser();
});

describe('changing the default branch', () => {
  it('refuses a branch that does not exist and keeps the project as it was', async () => {
    const p = (await api('/projects', { token: owner.token, body: { name: unique('defb'), visibility: 'private' } })).body;
    const c = await api(`/projects/${p.id}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'one', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] } });
    expect(c.status).toBe(201);

    const res = await api(`/projects/${p.id}`, { method: 'PUT', token: owner.token, body: { default_branch: 'nope', description: 'changed' } });
    expect(res).toMatchObject({ status: 400, body: { message: { base: ["Could not change HEAD: branch 'nope' does not exist"] } } });
    expect((await api(`/projects/${p.id}`, { token: owner.token })).body).toMatchObject({ default_branch: 'main', description: p.description });

    // The current default is accepted as it is; an existing branch becomes the default.
    expect((await api(`/projects/${p.id}`, { method: 'PUT', token: owner.token, body: { default_branch: 'main' } })).status).toBe(200);
    expect((await api(`/projects/${p.id}/repository/branches`, { token: owner.token, body: { branch: 'next', ref: 'main' } })).status).toBe(201);
    const moved = await api(`/projects/${p.id}`, { method: 'PUT', token: owner.token, body: { default_branch: 'next' } });
    expect(moved).toMatchObject({ status: 200, body: { default_branch: 'next' } });
  });

  it('refuses any other name on an empty repository, as change_head does', async () => {
    const p = (await api('/projects', { token: owner.token, body: { name: unique('defe'), visibility: 'private' } })).body;
    const res = await api(`/projects/${p.id}`, { method: 'PUT', token: owner.token, body: { default_branch: 'trunk' } });
    expect(res).toMatchObject({ status: 400, body: { message: { base: ["Could not change HEAD: branch 'trunk' does not exist"] } } });
    expect((await api(`/projects/${p.id}`, { token: owner.token })).body.default_branch).toBe(p.default_branch);
  });
});
