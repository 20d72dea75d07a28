/**
 * Issue 14: runners of a project and of a group (lib/api/ci/runners.rb, 14.x): the lists with their
 * filters, enabling a project runner in another project and disabling it, with GitLab's refusals;
 * a runner's jobs and its token reset by id.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';
import { instanceToken, noToken, register, runnerWorld } from './runner-fixtures';

const ids = (res: { body: { id: number }[] }) => res.body.map((r) => r.id);

describe('GET /projects/:id/runners and /groups/:id/runners', () => {
  it("lists the project's runners, its group's and the instance's, to maintainers", async () => {
    const w = await runnerWorld();
    const mine = await register(w.projectToken, { tag_list: 'docker' });
    const grouped = await register(w.groupToken);
    const inst = await register(await instanceToken(), { tag_list: `t-${unique('x')}` });
    const res = await api(`/projects/${w.project.id}/runners?per_page=100`, { token: w.maintainer.token });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(expect.arrayContaining([mine.id, grouped.id, inst.id]));
    noToken(res, mine.token, grouped.token, inst.token);
    expect(ids(await api(`/projects/${w.project.id}/runners?type=project_type`, { token: w.maintainer.token }))).toEqual([mine.id]);
    expect(ids(await api(`/projects/${w.project.id}/runners?scope=specific`, { token: w.maintainer.token }))).toEqual([mine.id, grouped.id]);
    expect(ids(await api(`/projects/${w.project.id}/runners?tag_list=docker`, { token: w.maintainer.token }))).toEqual([mine.id]);
    expect((await api(`/projects/${w.project.id}/runners?scope=bogus`, { token: w.maintainer.token })).body).toEqual({ error: 'scope does not have a valid value' });
    // Not the other project's runners.
    expect(ids(await api(`/projects/${w.other.id}/runners?type=project_type`, { token: w.owner.token }))).toEqual([]);
    expect((await api(`/projects/${w.project.id}/runners`, { token: w.developer.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await api(`/projects/${w.project.id}/runners`, { token: w.stranger.token })).body).toEqual({ message: '404 Project Not Found' });
  });

  it("lists the group's and its ancestors' runners and the instance's, to owners", async () => {
    const w = await runnerWorld();
    const sub = (await api('/groups', { token: w.owner.token, body: { name: unique('sub'), path: unique('sub'), parent_id: w.group.id } })).body;
    const subToken = (await api(`/groups/${sub.id}/runners/reset_registration_token`, { method: 'POST', token: w.owner.token })).body.token;
    const parent = await register(w.groupToken);
    const child = await register(subToken);
    const project = await register(w.projectToken);
    const res = await api(`/groups/${sub.id}/runners?type=group_type`, { token: w.owner.token });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([parent.id, child.id]);
    expect(ids(await api(`/groups/${w.group.id}/runners?type=group_type`, { token: w.owner.token }))).toEqual([parent.id]);
    // project_type is accepted (deprecated here) and finds none: project runners are not the group's.
    expect(ids(await api(`/groups/${w.group.id}/runners?type=project_type`, { token: w.owner.token }))).not.toContain(project.id);
    expect(ids(await api(`/groups/${w.group.id}/runners?type=instance_type&per_page=1`, { token: w.owner.token }))).toHaveLength(1);
    expect((await api(`/groups/${w.group.id}/runners?status=bogus`, { token: w.owner.token })).body).toEqual({ error: 'status does not have a valid value' });
    await api(`/groups/${w.group.id}/members`, { token: w.owner.token, body: { user_id: w.developer.id, access_level: 40 } });
    expect((await api(`/groups/${w.group.id}/runners`, { token: w.developer.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await api(`/groups/${w.group.id}/runners`, { token: w.stranger.token })).body).toEqual({ message: '404 Group Not Found' });
  });
});

describe('POST /projects/:id/runners', () => {
  it('enables an unlocked project runner the caller owns in another project they maintain (201 Runner)', async () => {
    const w = await runnerWorld();
    const { id, token } = await register(w.projectToken, { description: 'shared box' });
    const res = await api(`/projects/${w.other.id}/runners`, { token: w.owner.token, body: { runner_id: id } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id, description: 'shared box', runner_type: 'project_type', is_shared: false });
    noToken(res, token);
    expect(ids(await api(`/projects/${w.other.id}/runners?type=project_type`, { token: w.owner.token }))).toEqual([id]);
    expect((await api(`/projects/${w.other.id}/runners`, { token: w.owner.token, body: { runner_id: id } })).body).toEqual({ message: { assign_to: ['Validation failed: Runner has already been taken'] } });
  });

  it("refuses group runners, locked runners, runners the caller does not own, missing runners and non-maintainers", async () => {
    const w = await runnerWorld();
    const grouped = await register(w.groupToken);
    const locked = await register(w.projectToken, { locked: true });
    const enable = (runnerId: number, token = w.owner.token, project = w.other.id) => api(`/projects/${project}/runners`, { token, body: { runner_id: runnerId } });
    expect((await enable(grouped.id)).body).toEqual({ message: '403 Forbidden - Runner is a group runner' });
    expect((await enable(grouped.id, rootToken)).body).toEqual({ message: '403 Forbidden - Runner is a group runner' });
    expect((await enable(locked.id)).body).toEqual({ message: '403 Forbidden - Runner is locked' });
    // A stranger's own project: they maintain it but own none of the runners.
    const theirs = (await api('/projects', { token: w.stranger.token, body: { name: unique('s') } })).body;
    const open = await register(w.projectToken);
    expect((await enable(open.id, w.stranger.token, theirs.id)).body).toEqual({ message: '403 Forbidden - No access granted' });
    expect((await enable(999999999)).body).toEqual({ message: '404 Not found' });
    expect((await enable(open.id, w.developer.token, w.project.id)).body).toEqual({ message: '403 Forbidden' });
    expect((await api(`/projects/${w.other.id}/runners`, { token: w.owner.token, body: {} })).body).toEqual({ error: 'runner_id is missing' });
    // Administrators may enable a locked runner; an instance runner they enable becomes a project runner.
    expect((await enable(locked.id, rootToken)).status).toBe(201);
    const inst = await register(await instanceToken());
    const converted = await enable(inst.id, rootToken);
    expect(converted.status).toBe(201);
    expect(converted.body).toMatchObject({ runner_type: 'project_type', is_shared: false });
    // Now a runner of the owner's project: the owner may enable it elsewhere, the stranger may not.
    expect((await enable(inst.id, w.stranger.token, theirs.id)).body).toEqual({ message: '403 Forbidden - No access granted' });
    expect((await enable(inst.id, w.owner.token, w.project.id)).status).toBe(201);
  });
});

describe('DELETE /projects/:id/runners/:runner_id', () => {
  it("disables a runner in one of its projects (204), refuses its only project and runners it does not have", async () => {
    const w = await runnerWorld();
    const { id } = await register(w.projectToken);
    const only = (await api(`/projects/${w.project.id}/runners/${id}`, { method: 'DELETE', token: w.owner.token })).body;
    expect(only).toEqual({ message: '403 Forbidden - Only one project associated with the runner. Please remove the runner instead' });
    expect((await api(`/projects/${w.other.id}/runners`, { token: w.owner.token, body: { runner_id: id } })).status).toBe(201);
    expect((await api(`/projects/${w.project.id}/runners/${id}`, { method: 'DELETE', token: w.developer.token })).body).toEqual({ message: '403 Forbidden' });
    const stale = await api(`/projects/${w.other.id}/runners/${id}`, { method: 'DELETE', token: w.owner.token, headers: { 'If-Unmodified-Since': new Date(Date.now() - 3600_000).toUTCString() } });
    expect(stale.status).toBe(412);
    expect((await api(`/projects/${w.other.id}/runners/${id}`, { method: 'DELETE', token: w.owner.token })).status).toBe(204);
    // The runner stays, in its first project only.
    const detail = await api(`/runners/${id}`, { token: w.owner.token });
    expect(detail.body.projects.map((p: { id: number }) => p.id)).toEqual([w.project.id]);
    expect((await api(`/projects/${w.other.id}/runners/${id}`, { method: 'DELETE', token: w.owner.token })).body).toEqual({ message: '404 Runner Not Found' });
  });
});

describe('GET /runners/:id/jobs', () => {
  it('answers an empty page to owners and administrators, validating status, order_by and sort', async () => {
    const w = await runnerWorld();
    const { id } = await register(w.projectToken);
    const res = await api(`/runners/${id}/jobs?status=running&order_by=id&sort=asc`, { token: w.maintainer.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.get('x-total')).toBe('0');
    expect((await api(`/runners/${id}/jobs`, { token: rootToken })).body).toEqual([]);
    expect((await api(`/runners/${id}/jobs?status=bogus`, { token: w.owner.token })).body).toEqual({ error: 'status does not have a valid value' });
    expect((await api(`/runners/${id}/jobs?order_by=name`, { token: w.owner.token })).body).toEqual({ error: 'order_by does not have a valid value' });
    expect((await api(`/runners/${id}/jobs?sort=up`, { token: w.owner.token })).body).toEqual({ error: 'sort does not have a valid value' });
    expect((await api(`/runners/${id}/jobs`, { token: w.developer.token })).body).toEqual({ message: '403 Forbidden - No access granted' });
    expect((await api('/runners/999999999/jobs', { token: rootToken })).status).toBe(404);
  });
});

describe('POST /runners/:id/reset_authentication_token', () => {
  it('issues a new token once (201): the old one stops working at once, the new one works', async () => {
    const w = await runnerWorld();
    const { id, token } = await register(w.projectToken);
    // The runner is known to this isolate (cached) before the reset.
    expect((await api('/runners/verify', { method: 'POST', body: { token } })).status).toBe(200);
    expect((await api(`/runners/${id}/reset_authentication_token`, { method: 'POST', token: w.developer.token })).body).toEqual({ message: '403 Forbidden - No access granted' });
    const res = await api(`/runners/${id}/reset_authentication_token`, { method: 'POST', token: w.maintainer.token });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['token', 'token_expires_at']);
    expect(res.body.token).not.toBe(token);
    expect((await api('/runners/verify', { method: 'POST', body: { token } })).status).toBe(403);
    expect((await api('/runners/verify', { method: 'POST', body: { token: res.body.token } })).body).toMatchObject({ id });
    // The detail never shows it.
    noToken(await api(`/runners/${id}`, { token: rootToken }), res.body.token);
    expect((await api('/runners/999999999/reset_authentication_token', { method: 'POST', token: rootToken })).status).toBe(404);
    const user = await createUser();
    expect((await api(`/runners/${id}/reset_authentication_token`, { method: 'POST', token: user.token })).status).toBe(403);
  });
});
