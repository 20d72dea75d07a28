/**
 * Issue 14: POST /user/runners (lib/api/user_runners.rb, Ci::Runners::CreateRunnerService): runners
 * created by a signed-in user get a `glrt-` token, which gitlab-runner verifies instead of
 * registering, then polls with like any other.
 */
import { describe, expect, it } from 'vitest';
import { api, createToken, createUser, rootToken, unique } from '../support';

const create = (token: string | undefined, body: Record<string, unknown>) => api('/user/runners', { method: 'POST', token, body });
const runner = (path: string, body: Record<string, unknown>) => api(path, { method: 'POST', body });
const INSUFFICIENT = { message: '403 Forbidden - Insufficient permissions' };

async function groupAndProject() {
  const owner = await createUser();
  const maintainer = await createUser();
  const developer = await createUser();
  const group = (await api('/groups', { token: owner.token, body: { name: unique('g'), path: unique('g') } })).body;
  const project = (await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.id } })).body;
  await api(`/groups/${group.id}/members`, { token: owner.token, body: { user_id: maintainer.id, access_level: 40 } });
  await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: developer.id, access_level: 30 } });
  return { owner, maintainer, developer, group, project };
}

describe('POST /user/runners', () => {
  it('creates an instance runner for an administrator: 201 with a glrt- token the runner verifies and polls with', async () => {
    const res = await create(rootToken, { runner_type: 'instance_type', description: 'made by hand', tag_list: 'docker, linux', run_untagged: false, maximum_timeout: 3600 });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'token', 'token_expires_at']);
    expect(res.body).toEqual({ id: expect.any(Number), token: expect.stringMatching(/^glrt-[A-Za-z0-9_-]{20}$/), token_expires_at: null });
    // gitlab-runner register --token glrt-…: no POST /runners, a verify that must answer the id.
    const verified = await runner('/runners/verify', { token: res.body.token, system_id: 's_0123456789ab' });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ id: res.body.id, token: res.body.token, token_expires_at: null });
    expect((await runner('/jobs/request', { token: res.body.token })).status).toBe(204);
    // Reset keeps the glrt- form of a created runner's token.
    const reset = await runner('/runners/reset_authentication_token', { token: res.body.token });
    expect(reset.status).toBe(201);
    expect(reset.body.token).toMatch(/^glrt-/);
  });

  it('refuses an instance runner to everyone but administrators, and anonymous callers with 401', async () => {
    const user = await createUser();
    expect(await create(user.token, { runner_type: 'instance_type' })).toMatchObject({ status: 403, body: INSUFFICIENT });
    expect((await create(undefined, { runner_type: 'instance_type' })).body).toEqual({ message: '401 Unauthorized' });
  });

  it('creates a group runner for the group owner (403 for a maintainer), a project runner for a maintainer (403 for a developer)', async () => {
    const { owner, maintainer, developer, group, project } = await groupAndProject();
    const byOwner = await create(owner.token, { runner_type: 'group_type', group_id: group.id, paused: true, locked: true, access_level: 'ref_protected' });
    expect(byOwner.status).toBe(201);
    expect(byOwner.body.token).toMatch(/^glrt-/);
    expect(await create(maintainer.token, { runner_type: 'group_type', group_id: group.id })).toMatchObject({ status: 403, body: INSUFFICIENT });
    const byMaintainer = await create(maintainer.token, { runner_type: 'project_type', project_id: project.id });
    expect(byMaintainer.status).toBe(201);
    expect(await create(developer.token, { runner_type: 'project_type', project_id: project.id })).toMatchObject({ status: 403, body: INSUFFICIENT });
    // A stranger is told "Insufficient permissions" too: Group.find_by_id sees every group.
    const stranger = await createUser();
    expect(await create(stranger.token, { runner_type: 'project_type', project_id: project.id })).toMatchObject({ status: 403, body: INSUFFICIENT });
    expect((await create(rootToken, { runner_type: 'project_type', project_id: project.id })).status).toBe(201);
    // The created runners go with their group and project: deleting them removes the runners.
    expect((await runner('/runners/verify', { token: byMaintainer.body.token })).status).toBe(200);
    expect((await api(`/groups/${group.id}`, { method: 'DELETE', token: owner.token })).status).toBe(202);
  });

  it("answers the service's errors for a missing or unknown scope", async () => {
    const { owner } = await groupAndProject();
    expect((await create(owner.token, { runner_type: 'group_type' })).body).toEqual({ error: 'group_id is missing' });
    expect((await create(owner.token, { runner_type: 'project_type' })).body).toEqual({ error: 'project_id is missing' });
    expect(await create(owner.token, { runner_type: 'group_type', group_id: 999_999_999 })).toMatchObject({ status: 400, body: { message: '400 Bad request - Missing/invalid group' } });
    // A user's namespace is no group.
    const personal = (await api(`/namespaces/${owner.username}`, { token: owner.token })).body;
    expect(personal.kind).toBe('user');
    expect((await create(owner.token, { runner_type: 'group_type', group_id: personal.id })).body).toEqual({ message: '400 Bad request - Missing/invalid group' });
    expect((await create(owner.token, { runner_type: 'project_type', project_id: 999_999_999 })).body).toEqual({ message: '400 Bad request - Missing/invalid project' });
    expect((await create(owner.token, { runner_type: 'specific' })).body).toEqual({ error: 'runner_type does not have a valid value' });
    // Grape's values validator runs on the missing value too (GitLab's user_runners_spec expects both).
    expect((await create(owner.token, {})).body).toEqual({ error: 'runner_type is missing, runner_type does not have a valid value' });
    expect((await create(owner.token, { runner_type: null })).body).toEqual({ error: 'runner_type does not have a valid value' });
    expect((await create(owner.token, { runner_type: 'group_type', group_id: 'abc' })).body).toEqual({ error: 'group_id is invalid' });
  });

  it('refuses a group or project id the runner type does not take with 400 Unexpected scope, before the permission check', async () => {
    const { owner, group, project } = await groupAndProject();
    const UNEXPECTED = { message: '400 Bad request - Unexpected scope' };
    expect(await create(rootToken, { runner_type: 'instance_type', group_id: group.id })).toMatchObject({ status: 400, body: UNEXPECTED });
    expect(await create(rootToken, { runner_type: 'instance_type', project_id: project.id })).toMatchObject({ status: 400, body: UNEXPECTED });
    expect(await create(owner.token, { runner_type: 'instance_type', group_id: group.id })).toMatchObject({ status: 400, body: UNEXPECTED });
    expect(await create(owner.token, { runner_type: 'group_type', group_id: group.id, project_id: project.id })).toMatchObject({ status: 400, body: UNEXPECTED });
    expect(await create(owner.token, { runner_type: 'project_type', project_id: project.id, group_id: group.id })).toMatchObject({ status: 400, body: UNEXPECTED });
    // Blank ids are no ids (attributes_for_keys keeps present values only).
    expect((await api('/user/runners', { method: 'POST', token: rootToken, form: { runner_type: 'instance_type', group_id: '' } })).status).toBe(201);
    // Nothing was created for the refused requests: the group has only the runner made now.
    expect((await create(owner.token, { runner_type: 'group_type', group_id: group.id })).status).toBe(201);
    expect((await api(`/groups/${group.id}/runners?type=group_type`, { token: owner.token })).body).toHaveLength(1);
  });

  it("answers the model's validation errors as full messages in one sentence", async () => {
    expect(await create(rootToken, { runner_type: 'instance_type', run_untagged: false })).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Tags list can not be empty when runner is not allowed to pick untagged jobs' },
    });
    expect((await create(rootToken, { runner_type: 'instance_type', maximum_timeout: 599 })).body).toEqual({ message: '400 Bad request - Maximum timeout needs to be at least 10 minutes' });
    expect((await create(rootToken, { runner_type: 'instance_type', run_untagged: false, maximum_timeout: 10 })).body).toEqual({
      message: '400 Bad request - Tags list can not be empty when runner is not allowed to pick untagged jobs and Maximum timeout needs to be at least 10 minutes',
    });
    expect((await create(rootToken, { runner_type: 'instance_type', description: 'x'.repeat(1025), run_untagged: false, maximum_timeout: 10 })).body).toEqual({
      message:
        '400 Bad request - Description is too long (maximum is 1024 characters), Tags list can not be empty when runner is not allowed to pick untagged jobs, and Maximum timeout needs to be at least 10 minutes',
    });
    expect((await create(rootToken, { runner_type: 'instance_type', access_level: 'all' })).body).toEqual({ error: 'access_level does not have a valid value' });
  });

  it('accepts a token with only the create_runner scope; read_api is not enough', async () => {
    const { owner, group } = await groupAndProject();
    const createRunner = await createToken(owner.id, ['create_runner']);
    expect((await create(createRunner, { runner_type: 'group_type', group_id: group.id })).status).toBe(201);
    const readApi = await createToken(owner.id, ['read_api']);
    const refused = await create(readApi, { runner_type: 'group_type', group_id: group.id });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'insufficient_scope', scope: 'create_runner api read_api' });
  });
});
