/**
 * Issue 16 item 2 (start): deployments (lib/api/deployments.rb): create against this server's
 * repository (environment found or created by name), the status machine on update as a table, the
 * list's filters, orderings and the finder's 400s, get, and delete with its refusals.
 */
import { describe, expect, it } from 'vitest';
import { api, rootToken } from '../support';
import { commit, createEnvironment, deployWorld, type DeployWorld } from './fixtures';

const rt = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

async function deploy(w: DeployWorld, sha: string, body: Record<string, unknown> = {}) {
  const res = await api(`/projects/${w.project.id}/deployments`, { token: w.developer.token, body: { environment: 'production', sha, ref: 'main', tag: false, ...body } });
  if (res.status !== 201) throw new Error(`deploy: ${res.status} ${res.text}`);
  return res.body as { id: number; iid: number; status: string; environment: { id: number; name: string } };
}

describe('POST /projects/:id/deployments', () => {
  it('creates a deployment, creating the environment by name, with the caller as user', async () => {
    const w = await deployWorld();
    const sha = await commit(w);
    const res = await api(`/projects/${w.project.id}/deployments`, { token: w.developer.token, body: { environment: 'review/app', sha, ref: 'main', tag: false, status: 'running' } });
    expect(res.status).toBe(201);
    expect(rt(res)).toBeLessThanOrEqual(3);
    expect(res.body).toMatchObject({ iid: 1, ref: 'main', sha, status: 'running', deployable: null, user: { id: w.developer.id, username: w.developer.username }, environment: { name: 'review/app' } });
    expect(res.body.pending_approval_count).toBe(0);
    expect(res.body.approvals).toEqual([]);
    const envs = await api(`/projects/${w.project.id}/environments?name=review/app`, { token: w.developer.token });
    expect(envs.body.map((e: { id: number; tier: string }) => [e.id, e.tier])).toEqual([[res.body.environment.id, 'development']]);
    // The next deployment reuses the environment and takes the next iid; without a status it is `created` (spec).
    const second = await deploy(w, sha.slice(0, 8), { environment: 'review/app' });
    expect([second.iid, second.status, second.environment.id]).toEqual([2, 'created', res.body.environment.id]);
    // Deployments::CreateService: the same successful deployment again is the environment's last one, not a new one.
    const done = await deploy(w, sha, { environment: 'review/app', status: 'success' });
    const same = await deploy(w, sha, { environment: 'review/app', status: 'success' });
    expect([same.id, same.iid]).toEqual([done.id, 3]);
    expect((await deploy(w, sha, { environment: 'review/app', status: 'success', tag: true })).iid).toBe(4);
  });

  it("checks sha and ref against the repository with GitLab's bodies", async () => {
    const w = await deployWorld();
    const sha = await commit(w);
    const P = `/projects/${w.project.id}/deployments`;
    const t = w.developer.token;
    const noSha = await api(P, { token: t, body: { environment: 'production', sha: 'f'.repeat(40), ref: 'main', tag: false } });
    expect([noSha.status, noSha.body]).toEqual([400, { message: { sha: ['The commit does not exist'] } }]);
    expect((await api(P, { token: t, body: { environment: 'production', sha, ref: 'nope', tag: false } })).body).toEqual({ message: { ref: ['The branch or tag does not exist'] } });
    // The environment was found or created before the deployment failed (find_or_create_by_name).
    expect((await api(`/projects/${w.project.id}/environments?name=production`, { token: t })).body).toHaveLength(1);
    expect((await api(P, { token: t, body: { environment: '/bad', sha, ref: 'main', tag: false } })).body.message.name).toHaveLength(1);
    expect((await api(P, { token: t, body: { environment: 'production', sha, ref: 'main' } })).body).toEqual({ error: 'tag is missing' });
    expect((await api(P, { token: t, body: { environment: 'production', sha, ref: 'main', tag: false, status: 'blocked' } })).body).toEqual({ error: 'status does not have a valid value' });
    expect((await api(P, { token: t, body: { environment: ' ', sha, ref: 'main', tag: false } })).body).toEqual({ error: 'environment is empty' });
    expect((await api(P, { token: w.reporter.token, body: { environment: 'production', sha, ref: 'main', tag: false } })).body).toEqual({ message: '403 Forbidden' });
    expect((await api(P, { token: w.stranger.token, body: { environment: 'production', sha, ref: 'main', tag: false } })).body).toEqual({ message: '404 Project Not Found' });
  });
});

describe('PUT /projects/:id/deployments/:deployment_id: the status machine', () => {
  // [from (reached through the API), to, allowed]
  const table: [string[], string, boolean][] = [
    [[], 'running', true],
    [[], 'success', true],
    [[], 'failed', true],
    [[], 'canceled', true],
    [[], 'created', false],
    [['running'], 'running', false],
    [['running'], 'success', true],
    [['success'], 'success', false],
    [['success'], 'created', false],
    [['success'], 'failed', true],
    [['failed'], 'failed', false],
    [['failed'], 'success', true],
    [['canceled'], 'canceled', false],
    [['canceled'], 'running', false],
  ];
  it.each(table)('from %j to %s: allowed %s', async (path, to, allowed) => {
    const w = await deployWorld();
    const d = await deploy(w, await commit(w));
    const U = `/projects/${w.project.id}/deployments/${d.id}`;
    for (const s of path) expect((await api(U, { method: 'PUT', token: w.developer.token, body: { status: s } })).status).toBe(200);
    const res = await api(U, { method: 'PUT', token: w.developer.token, body: { status: to } });
    if (allowed) {
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(to);
      expect(rt(res)).toBeLessThanOrEqual(3);
    } else {
      const event = { running: 'run', success: 'succeed', failed: 'drop', canceled: 'cancel', created: 'create' }[to];
      expect([res.status, res.body]).toEqual([400, { message: { status: [`cannot transition via "${event}"`] } }]);
    }
  });

  it('needs a developer', async () => {
    const w = await deployWorld();
    const d = await deploy(w, await commit(w));
    const U = `/projects/${w.project.id}/deployments/${d.id}`;
    expect((await api(U, { method: 'PUT', token: w.reporter.token, body: { status: 'success' } })).body).toEqual({ message: '403 Forbidden' });
    expect((await api(`/projects/${w.project.id}/deployments/999999999`, { method: 'PUT', token: w.developer.token, body: { status: 'success' } })).body).toEqual({ message: '404 Not found' });
    // The deployment is looked up before the caller is authorized for it.
    expect((await api(`/projects/${w.project.id}/deployments/999999999`, { method: 'PUT', token: w.guest.token, body: { status: 'success' } })).body).toEqual({ message: '404 Not found' });
    expect((await api(U, { method: 'PUT', token: w.guest.token, body: { status: 'success' } })).body).toEqual({ message: '403 Forbidden' });
  });
});

describe('GET /projects/:id/deployments', () => {
  it('filters, orders and refuses the inefficient combinations', async () => {
    const w = await deployWorld();
    const sha = await commit(w);
    const a = await deploy(w, sha, { status: 'success' });
    const b = await deploy(w, sha, { environment: 'staging', status: 'running' });
    const c = await deploy(w, sha, { status: 'failed' });
    const P = `/projects/${w.project.id}/deployments`;
    const ids = async (q: string) => ((await api(`${P}?${q}`, { token: w.reporter.token })).body as { id: number }[]).map((x) => x.id);
    const all = await api(P, { token: w.reporter.token });
    expect(all.status).toBe(200);
    expect(rt(all)).toBeLessThanOrEqual(2);
    expect(all.headers.get('x-total')).toBe('3');
    expect(all.body.map((x: { id: number }) => x.id)).toEqual([a.id, b.id, c.id]);
    expect(all.body[0]).not.toHaveProperty('approvals');
    expect(await ids('sort=desc')).toEqual([c.id, b.id, a.id]);
    expect(await ids('order_by=iid&sort=desc')).toEqual([c.id, b.id, a.id]);
    expect(await ids('environment=staging')).toEqual([b.id]);
    expect(await ids('status=failed')).toEqual([c.id]);
    expect(await ids('order_by=finished_at&status=success&finished_after=2000-01-01T00:00:00Z')).toEqual([a.id]);
    expect(await ids('updated_before=2000-01-01T00:00:00Z')).toEqual([]);
    expect(await ids('per_page=1&page=3')).toEqual([c.id]);
    const bad = async (q: string) => (await api(`${P}?${q}`, { token: w.reporter.token })).body;
    expect(await bad('updated_after=2000-01-01T00:00:00Z&finished_after=2000-01-01T00:00:00Z&order_by=finished_at&status=success')).toEqual({
      message: '400 Bad request - Both `updated_at` filter and `finished_at` filter can not be specified',
    });
    expect(await bad('finished_after=2000-01-01T00:00:00Z&status=success')).toEqual({ message: '400 Bad request - `finished_at` filter and `finished_at` sorting must be paired' });
    expect(await bad('finished_after=2000-01-01T00:00:00Z&order_by=finished_at')).toEqual({ message: '400 Bad request - `finished_at` filter must be combined with `success` status filter.' });
    expect(await bad('order_by=name')).toEqual({ error: 'order_by does not have a valid value' });
    expect((await api(P, { token: w.guest.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await api(P)).status).toBe(401);
  });
});

describe('GET and DELETE /projects/:id/deployments/:deployment_id', () => {
  it('shows one, and deletes only what is neither running nor the current deployment', async () => {
    const w = await deployWorld();
    const sha = await commit(w);
    const old = await deploy(w, sha, { status: 'success' });
    const later = await commit(w);
    const current = await deploy(w, later, { status: 'success' });
    const running = await deploy(w, sha, { status: 'running' });
    const D = (id: number) => `/projects/${w.project.id}/deployments/${id}`;
    const one = await api(D(old.id), { token: w.reporter.token });
    expect(one.status).toBe(200);
    expect(rt(one)).toBeLessThanOrEqual(2);
    expect(one.body).toMatchObject({ id: old.id, status: 'success', environment: { name: 'production' } });
    expect((await api(D(999999999), { token: w.reporter.token })).body).toEqual({ message: '404 Not found' });
    expect((await api(D(old.id), { method: 'DELETE', token: w.developer.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await api(D(running.id), { method: 'DELETE', token: w.maintainer.token })).body).toEqual({ message: 'Cannot destroy running deployment' });
    expect((await api(D(current.id), { method: 'DELETE', token: w.maintainer.token })).body).toEqual({ message: 'Deployment currently deployed to environment' });
    expect((await api(D(old.id), { method: 'DELETE', token: w.maintainer.token })).status).toBe(204);
    // The environment shows its last successful deployment, without the environment inside it.
    const env = await api(`/projects/${w.project.id}/environments/${current.environment.id}`, { token: w.reporter.token });
    expect(env.body.last_deployment).toMatchObject({ id: current.id, iid: current.iid, status: 'success', sha: later, user: { id: w.developer.id } });
    expect(env.body.last_deployment).not.toHaveProperty('environment');
    expect(rt(env)).toBeLessThanOrEqual(2);
    expect((await api(D(old.id), { token: rootToken })).status).toBe(404);
  });

  it('go with their environment', async () => {
    const w = await deployWorld();
    const e = await createEnvironment(w, { name: 'production' });
    const d = await deploy(w, await commit(w));
    expect(d.environment.id).toBe(e.id);
    expect((await api(`/projects/${w.project.id}/environments/${e.id}/stop`, { method: 'POST', token: w.developer.token })).status).toBe(200);
    expect((await api(`/projects/${w.project.id}/environments/${e.id}`, { method: 'DELETE', token: w.developer.token })).status).toBe(204);
    expect((await api(`/projects/${w.project.id}/deployments/${d.id}`, { token: w.developer.token })).status).toBe(404);
  });
});
