/**
 * Issue 16 item 2: deployment approvals (ee/lib/ee/api/deployments.rb, Deployments::ApprovalService).
 * A deployment to an environment whose protection asks for approvals starts `blocked`; approvals
 * (upserted per user and rule) unblock it to `created`, a rejection fails it; the service's
 * refusals come in GitLab's order; DeploymentExtended shows approvals, pending count and summary.
 */
import { describe, expect, it } from 'vitest';
import { api } from '../support';
import { commit, deployWorld, type DeployWorld } from './fixtures';

const rt = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

async function protect(w: DeployWorld, name: string, body: Record<string, unknown>) {
  const res = await api(`/projects/${w.project.id}/protected_environments`, { token: w.maintainer.token, body: { name, deploy_access_levels: [{ access_level: 30 }], ...body } });
  if (res.status !== 201) throw new Error(`protect: ${res.status} ${res.text}`);
  return res.body as { approval_rules: { id: number }[] };
}

/** A deployment by the developer (the deployment's user). */
async function deploy(w: DeployWorld, environment: string, status = 'running') {
  const res = await api(`/projects/${w.project.id}/deployments`, { token: w.developer.token, body: { environment, sha: await commit(w), ref: 'main', tag: false, status } });
  if (res.status !== 201) throw new Error(`deploy: ${res.status} ${res.text}`);
  return res.body;
}

const approve = (w: DeployWorld, id: number, token: string, body: Record<string, unknown>) => api(`/projects/${w.project.id}/deployments/${id}/approval`, { token, body });

describe('POST /projects/:id/deployments/:deployment_id/approval', () => {
  it('blocks a deployment until its rules have their approvals, upserting each approver', async () => {
    const w = await deployWorld();
    const rules = (await protect(w, 'production', { approval_rules: [{ access_level: 30, required_approvals: 2 }] })).approval_rules;
    const d = await deploy(w, 'production', 'success');
    // Asked for `success`, it waits for approvals instead.
    expect([d.status, d.pending_approval_count, d.approvals]).toEqual(['blocked', 2, []]);
    expect(d.approval_summary).toEqual({
      rules: [{ id: rules[0].id, user_id: null, group_id: null, access_level: 30, access_level_description: 'Developers + Maintainers', required_approvals: 2, group_inheritance_type: 0, deployment_approvals: [] }],
    });
    const U = `/projects/${w.project.id}/deployments/${d.id}`;
    // A blocked deployment does not run (`run` leaves from created only).
    expect((await api(U, { method: 'PUT', token: w.developer.token, body: { status: 'running' } })).body).toEqual({ message: { status: ['cannot transition via "run"'] } });

    const first = await approve(w, d.id, w.maintainer.token, { status: 'approved', comment: 'ok' });
    expect(first.status).toBe(201);
    expect(rt(first)).toBeLessThanOrEqual(3);
    expect(first.body).toEqual({ user: expect.objectContaining({ id: w.maintainer.id, username: w.maintainer.username }), status: 'approved', created_at: expect.any(String), comment: 'ok' });
    // The same status again answers the approval as it stands (the new comment is not taken).
    const again = await approve(w, d.id, w.maintainer.token, { status: 'approved', comment: 'changed' });
    expect([again.status, again.body]).toEqual([201, first.body]);
    const mid = await api(U, { token: w.reporter.token });
    expect(rt(mid)).toBeLessThanOrEqual(2);
    expect([mid.body.status, mid.body.pending_approval_count, mid.body.approvals]).toEqual(['blocked', 1, [first.body]]);
    expect(mid.body.approval_summary.rules[0].deployment_approvals).toEqual([first.body]);

    const second = await approve(w, d.id, w.owner.token, { status: 'approved' });
    expect([second.status, second.body.status, second.body.comment]).toEqual([201, 'approved', null]);
    const done = await api(U, { token: w.reporter.token });
    expect([done.body.status, done.body.pending_approval_count, done.body.approvals.map((a: { user: { id: number } }) => a.user.id)]).toEqual(['created', 0, [w.maintainer.id, w.owner.id]]);
    // Unblocked, it runs; no longer waiting, it takes no more approvals.
    expect((await api(U, { method: 'PUT', token: w.developer.token, body: { status: 'running' } })).body.status).toBe('running');
    expect((await approve(w, d.id, w.maintainer.token, { status: 'rejected' })).body).toEqual({ message: 'This deployment is not waiting for approvals.' });
  });

  it('fails the deployment on a rejection, a changed mind updating the approval', async () => {
    const w = await deployWorld();
    await protect(w, 'production', { approval_rules: [{ access_level: 30, required_approvals: 2 }] });
    const d = await deploy(w, 'production');
    const yes = await approve(w, d.id, w.maintainer.token, { status: 'approved', comment: 'fine' });
    const no = await approve(w, d.id, w.maintainer.token, { status: 'rejected', comment: 'not now' });
    expect(no.status).toBe(201);
    expect(rt(no)).toBeLessThanOrEqual(3);
    expect(no.body).toEqual({ ...yes.body, status: 'rejected', comment: 'not now' });
    const got = await api(`/projects/${w.project.id}/deployments/${d.id}`, { token: w.developer.token });
    expect([got.body.status, got.body.pending_approval_count, got.body.approvals]).toEqual(['failed', 0, [no.body]]);
  });

  it('unblocks when the last approvals arrive together', async () => {
    const w = await deployWorld();
    await protect(w, 'production', { approval_rules: [{ access_level: 40, required_approvals: 2 }] });
    const d = await deploy(w, 'production');
    const both = await Promise.all([approve(w, d.id, w.maintainer.token, { status: 'approved' }), approve(w, d.id, w.owner.token, { status: 'approved' })]);
    expect(both.map((r) => r.status)).toEqual([201, 201]);
    const got = await api(`/projects/${w.project.id}/deployments/${d.id}`, { token: w.developer.token });
    expect([got.body.status, got.body.pending_approval_count, got.body.approvals.length]).toEqual(['created', 0, 2]);
  });

  it('counts an approval for the rule it represents', async () => {
    const w = await deployWorld();
    const rules = (await protect(w, 'production', { approval_rules: [{ access_level: 40 }, { user_id: w.maintainer.id }] })).approval_rules;
    const d = await deploy(w, 'production');
    const bad = await approve(w, d.id, w.maintainer.token, { status: 'approved', represented_as: 'Owners' });
    expect([bad.status, bad.body]).toEqual([400, { message: 'There are no approval rules for the given `represent_as` parameter. Use a valid User/Group/Role name instead.' }]);
    expect((await approve(w, d.id, w.maintainer.token, { status: 'approved', represented_as: w.maintainer.name })).status).toBe(201);
    const mid = await api(`/projects/${w.project.id}/deployments/${d.id}`, { token: w.developer.token });
    expect(mid.body.approval_summary.rules.map((r: { id: number; deployment_approvals: unknown[] }) => [r.id, r.deployment_approvals.length])).toEqual([
      [rules[0].id, 0],
      [rules[1].id, 1],
    ]);
    expect(mid.body.pending_approval_count).toBe(1);
    // Without `represented_as` the approval counts for the first rule admitting the caller: a second approval by the same user.
    expect((await approve(w, d.id, w.maintainer.token, { status: 'approved' })).status).toBe(201);
    const done = await api(`/projects/${w.project.id}/deployments/${d.id}`, { token: w.developer.token });
    expect([done.body.status, done.body.pending_approval_count, done.body.approvals.length]).toEqual(['created', 0, 2]);
  });

  it("refuses in the service's order", async () => {
    const w = await deployWorld();
    await protect(w, 'production', { approval_rules: [{ access_level: 40 }] });
    await protect(w, 'staging', {});
    const open = await deploy(w, 'review');
    const unconfigured = await deploy(w, 'staging');
    const d = await deploy(w, 'production');
    expect(open.status).toBe('running');
    expect(unconfigured.status).toBe('running');
    const msg = async (id: number, token: string, body: Record<string, unknown>) => {
      const res = await approve(w, id, token, body);
      expect(res.status).toBe(400);
      return res.body;
    };
    // Grape checks the status against the approval statuses first.
    expect(await msg(d.id, w.maintainer.token, { status: 'maybe' })).toEqual({ error: 'status does not have a valid value' });
    expect(await msg(d.id, w.maintainer.token, {})).toEqual({ error: 'status is missing, status does not have a valid value' });
    expect(await msg(open.id, w.maintainer.token, { status: 'approved' })).toEqual({ message: 'This environment is not protected.' });
    // Self-approval is refused before the environment's configuration is looked at.
    expect(await msg(unconfigured.id, w.developer.token, { status: 'approved' })).toEqual({
      message: 'You cannot approve your own deployment. This configuration can be adjusted in the protected environment settings.',
    });
    expect(await msg(unconfigured.id, w.maintainer.token, { status: 'approved' })).toEqual({ message: 'Deployment approvals is not configured for this environment.' });
    // A rejection by the deployment's user is not self-approval: the permission check answers.
    expect(await msg(d.id, w.developer.token, { status: 'rejected' })).toEqual({ message: "You don't have permission to approve this deployment. Contact the project or group owner for help." });
    expect(await msg(d.id, w.reporter.token, { status: 'approved' })).toEqual({ message: "You don't have permission to approve this deployment. Contact the project or group owner for help." });
    // read_deployment first (reporters), then the deployment.
    expect((await approve(w, d.id, w.guest.token, { status: 'approved' })).body).toEqual({ message: '403 Forbidden' });
    expect((await approve(w, 999999999, w.maintainer.token, { status: 'approved' })).body).toEqual({ message: '404 Not found' });
    expect((await approve(w, d.id, w.stranger.token, { status: 'approved' })).body).toEqual({ message: '404 Project Not Found' });
    expect((await api(`/projects/${w.project.id}/deployments/${d.id}/approval`, { body: { status: 'approved' } })).body).toEqual({ message: '401 Unauthorized' });
    // None of the refusals recorded anything.
    const got = await api(`/projects/${w.project.id}/deployments/${d.id}`, { token: w.developer.token });
    expect([got.body.status, got.body.approvals, got.body.pending_approval_count]).toEqual(['blocked', [], 1]);
  });
});
