/**
 * Issue 16 item 1: protected environments (ee/lib/api/protected_environments.rb, Premium): protect
 * with deploy access levels and approval rules, list, get, update with nested entries, unprotect,
 * for maintainers only, with GitLab's 409/422/404 bodies.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken } from '../support';
import { commit, createEnvironment, deployWorld } from './fixtures';

const rt = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

describe('POST /projects/:id/protected_environments', () => {
  it('protects an environment with role, user and approval entries', async () => {
    const w = await deployWorld();
    const res = await api(`/projects/${w.project.id}/protected_environments`, {
      token: w.maintainer.token,
      body: {
        name: 'production',
        deploy_access_levels: [{ access_level: 40 }, { user_id: w.developer.id }],
        approval_rules: [{ access_level: 30, required_approvals: 2 }, { user_id: w.maintainer.id }],
      },
    });
    expect(res.status).toBe(201);
    expect(rt(res)).toBeLessThanOrEqual(3);
    const d = res.body.deploy_access_levels;
    expect(res.body).toMatchObject({ name: 'production', required_approval_count: 0 });
    expect(d).toEqual([
      { id: expect.any(Number), access_level: 40, access_level_description: 'Maintainers', user_id: null, group_id: null, group_inheritance_type: 0 },
      { id: expect.any(Number), access_level: null, access_level_description: `User ${w.developer.username}`, user_id: w.developer.id, group_id: null, group_inheritance_type: 0 },
    ]);
    expect(res.body.approval_rules).toEqual([
      { id: expect.any(Number), user_id: null, group_id: null, access_level: 30, access_level_description: 'Developers + Maintainers', required_approvals: 2, group_inheritance_type: 0 },
      { id: expect.any(Number), user_id: w.maintainer.id, group_id: null, access_level: null, access_level_description: `User ${w.maintainer.username}`, required_approvals: 1, group_inheritance_type: 0 },
    ]);
    const again = await api(`/projects/${w.project.id}/protected_environments`, { token: w.maintainer.token, body: { name: 'production', deploy_access_levels: [{ access_level: 40 }] } });
    expect([again.status, again.body]).toEqual([409, { message: "Environment 'production' is already protected" }]);
  });

  it("drops users below developer and groups the project is not shared with (BaseService#valid_attribute?), then needs one deploy level", async () => {
    const w = await deployWorld();
    const P = `/projects/${w.project.id}/protected_environments`;
    const outsider = await createUser();
    const dropped = await api(P, { token: w.maintainer.token, body: { name: 'staging', deploy_access_levels: [{ user_id: w.reporter.id }, { user_id: outsider.id }, { group_id: 1 }] } });
    expect([dropped.status, dropped.body]).toEqual([422, { message: ['Deploy access levels is too short (minimum is 1 character)'] }]);
    const kept = await api(P, { token: w.maintainer.token, body: { name: 'staging', deploy_access_levels: [{ user_id: w.reporter.id }, { access_level: 30 }] } });
    expect(kept.status).toBe(201);
    expect(kept.body.deploy_access_levels.map((e: { access_level: number }) => e.access_level)).toEqual([30]);
  });

  it("answers GitLab's parameter errors and refuses the deprecated approval count", async () => {
    const w = await deployWorld();
    const P = `/projects/${w.project.id}/protected_environments`;
    const t = w.maintainer.token;
    expect((await api(P, { token: t, body: { name: 'x' } })).body).toEqual({ error: 'deploy_access_levels is missing' });
    expect((await api(P, { token: t, body: { name: 'x', deploy_access_levels: [{ access_level: 50 }] } })).body).toEqual({ error: 'deploy_access_levels[0][access_level] does not have a valid value' });
    expect((await api(P, { token: t, body: { name: 'x', deploy_access_levels: [{ access_level: 40 }], approval_rules: [{ required_approvals: 2 }] } })).body).toEqual({
      error: 'approval_rules[0][access_level], approval_rules[0][user_id], approval_rules[0][group_id] are missing, at least one parameter must be provided',
    });
    const deprecated = await api(P, { token: t, body: { name: 'x', required_approval_count: 2, deploy_access_levels: [{ access_level: 40 }] } });
    expect(deprecated.status).toBe(422);
    expect(deprecated.body.message).toContain("Parameter 'required_approval_count' is deprecated");
  });

  it('is for maintainers: developers 403, strangers and anonymous callers 404', async () => {
    const w = await deployWorld();
    const P = `/projects/${w.project.id}/protected_environments`;
    const body = { name: 'production', deploy_access_levels: [{ access_level: 40 }] };
    expect((await api(P, { token: w.developer.token, body })).body).toEqual({ message: '403 Forbidden' });
    expect((await api(P, { token: w.developer.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await api(P, { token: w.stranger.token })).body).toEqual({ message: '404 Project Not Found' });
    expect((await api(P, { body })).body).toEqual({ message: '404 Project Not Found' });
    expect((await api(P, { token: rootToken, body })).status).toBe(201);
  });
});

describe('GET /projects/:id/protected_environments and /:name', () => {
  it('lists by name with pagination, and shows one (404 for an unprotected name)', async () => {
    const w = await deployWorld();
    const P = `/projects/${w.project.id}/protected_environments`;
    for (const name of ['staging', 'production', 'review/app']) {
      expect((await api(P, { token: w.maintainer.token, body: { name, deploy_access_levels: [{ access_level: 30 }, { user_id: w.developer.id }] } })).status).toBe(201);
    }
    const list = await api(P, { token: w.maintainer.token });
    expect(list.status).toBe(200);
    expect(rt(list)).toBeLessThanOrEqual(2);
    expect(list.body.map((x: { name: string }) => x.name)).toEqual(['production', 'review/app', 'staging']);
    expect(list.body[2].deploy_access_levels.map((e: { access_level_description: string }) => e.access_level_description)).toEqual(['Developers + Maintainers', `User ${w.developer.username}`]);
    expect(list.headers.get('x-total')).toBe('3');
    const page = await api(`${P}?per_page=1&page=2`, { token: w.maintainer.token });
    expect(page.body.map((x: { name: string }) => x.name)).toEqual(['review/app']);
    expect(page.body[0].deploy_access_levels).toHaveLength(2);
    const one = await api(`${P}/${encodeURIComponent('review/app')}`, { token: w.maintainer.token });
    expect(one.status).toBe(200);
    expect(rt(one)).toBeLessThanOrEqual(2);
    expect(one.body.name).toBe('review/app');
    expect(one.body.deploy_access_levels[1].access_level_description).toBe(`User ${w.developer.username}`);
    expect((await api(`${P}/nothing`, { token: w.maintainer.token })).body).toEqual({ message: '404 Not found' });
  });
});

describe('PUT /projects/:id/protected_environments/:name', () => {
  it('adds, changes and removes entries by id (nested attributes), keeping at least one deploy level', async () => {
    const w = await deployWorld();
    const P = `/projects/${w.project.id}/protected_environments`;
    const made = (await api(P, { token: w.maintainer.token, body: { name: 'production', deploy_access_levels: [{ access_level: 40 }], approval_rules: [{ access_level: 40 }] } })).body;
    const [deploy] = made.deploy_access_levels;
    const [rule] = made.approval_rules;
    const res = await api(`${P}/production`, {
      method: 'PUT',
      token: w.maintainer.token,
      body: { deploy_access_levels: [{ user_id: w.developer.id }, { id: deploy.id, access_level: 30 }], approval_rules: [{ id: rule.id, access_level: 40, required_approvals: 3 }] },
    });
    expect(res.status).toBe(200);
    expect(rt(res)).toBeLessThanOrEqual(3);
    expect(res.body.deploy_access_levels.map((e: { id: number; access_level: number | null; user_id: number | null }) => [e.id === deploy.id, e.access_level, e.user_id])).toEqual([
      [true, 30, null],
      [false, null, w.developer.id],
    ]);
    expect(res.body.approval_rules).toEqual([{ ...rule, required_approvals: 3 }]);
    const removed = await api(`${P}/production`, { method: 'PUT', token: w.maintainer.token, body: { deploy_access_levels: [{ id: deploy.id, _destroy: true }], approval_rules: [{ id: rule.id, _destroy: true }] } });
    expect(removed.status).toBe(200);
    expect(removed.body.deploy_access_levels.map((e: { user_id: number }) => e.user_id)).toEqual([w.developer.id]);
    expect(removed.body.approval_rules).toEqual([]);
    const last = removed.body.deploy_access_levels[0].id;
    const empty = await api(`${P}/production`, { method: 'PUT', token: w.maintainer.token, body: { deploy_access_levels: [{ id: last, _destroy: true }] } });
    expect([empty.status, empty.body]).toEqual([422, { message: ['Deploy access levels is too short (minimum is 1 character)'] }]);
    expect((await api(`${P}/production`, { method: 'PUT', token: w.maintainer.token, body: { deploy_access_levels: [{ id: 999999999, access_level: 30 }] } })).body).toEqual({ message: '404 Not found' });
    expect((await api(`${P}/production`, { method: 'PUT', token: w.maintainer.token, body: { required_approval_count: 1 } })).status).toBe(422);
    expect((await api(`${P}/missing`, { method: 'PUT', token: w.maintainer.token, body: {} })).body).toEqual({ message: '404 Not found' });
    expect((await api(`${P}/production`, { method: 'PUT', token: w.developer.token, body: {} })).body).toEqual({ message: '403 Forbidden' });
  });
});

describe('DELETE /projects/:id/protected_environments/:name', () => {
  it('unprotects (204), then the name is free again', async () => {
    const w = await deployWorld();
    const P = `/projects/${w.project.id}/protected_environments`;
    const body = { name: 'production', deploy_access_levels: [{ access_level: 40 }] };
    expect((await api(P, { token: w.maintainer.token, body })).status).toBe(201);
    expect((await api(`${P}/production`, { method: 'DELETE', token: w.developer.token })).body).toEqual({ message: '403 Forbidden' });
    const del = await api(`${P}/production`, { method: 'DELETE', token: w.maintainer.token });
    expect(del.status).toBe(204);
    expect((await api(`${P}/production`, { token: w.maintainer.token })).body).toEqual({ message: '404 Not found' });
    expect((await api(`${P}/production`, { method: 'DELETE', token: w.maintainer.token })).body).toEqual({ message: '404 Not found' });
    expect((await api(P, { token: w.maintainer.token, body })).status).toBe(201);
  });
});

describe('a protected environment guards deployments, stops and deletion (EE EnvironmentPolicy: protected_from?)', () => {
  it('lets only its deployers deploy, update deployments, stop and delete', async () => {
    const w = await deployWorld();
    const sha = await commit(w);
    const P = `/projects/${w.project.id}`;
    expect((await api(`${P}/protected_environments`, { token: w.maintainer.token, body: { name: 'production', deploy_access_levels: [{ access_level: 40 }] } })).status).toBe(201);
    expect((await api(`${P}/protected_environments`, { token: w.maintainer.token, body: { name: 'staging', deploy_access_levels: [{ user_id: w.developer.id }] } })).status).toBe(201);
    const env = await createEnvironment(w, { name: 'production' });
    const body = { environment: 'production', sha, ref: 'main', tag: false };
    expect((await api(`${P}/deployments`, { token: w.developer.token, body })).body).toEqual({ message: '403 Forbidden' });
    const made = await api(`${P}/deployments`, { token: w.maintainer.token, body });
    expect(made.status).toBe(201);
    // A user entry lets that developer in.
    expect((await api(`${P}/deployments`, { token: w.developer.token, body: { ...body, environment: 'staging' } })).status).toBe(201);
    expect((await api(`${P}/deployments/${made.body.id}`, { method: 'PUT', token: w.developer.token, body: { status: 'success' } })).body).toEqual({ message: '403 Forbidden' });
    expect((await api(`${P}/deployments/${made.body.id}`, { method: 'PUT', token: w.maintainer.token, body: { status: 'running' } })).status).toBe(200);
    const byDeveloper = await api(`${P}/environments/${env.id}/stop`, { method: 'POST', token: w.developer.token });
    expect([byDeveloper.status, byDeveloper.body.state]).toEqual([200, 'available']);
    expect((await api(`${P}/environments/${env.id}/stop`, { method: 'POST', token: w.maintainer.token })).body.state).toBe('stopped');
    expect((await api(`${P}/environments/${env.id}`, { method: 'DELETE', token: w.developer.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await api(`${P}/environments/${env.id}`, { method: 'DELETE', token: rootToken })).status).toBe(204);
  });
});
