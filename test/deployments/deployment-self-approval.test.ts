/**
 * Issue 16 item 2: self-approval of deployments (EE Deployments::ApprovalService#validate and its
 * spec). The user who made the deployment may not approve it, even when an approval rule admits
 * them (the project setting `allow_pipeline_trigger_approve_deployment` that would allow it is not
 * offered here, so it is off); the refusal comes before the configuration and "waiting" checks;
 * the same user may reject it, which fails the deployment. Refusals record nothing.
 */
import { describe, expect, it } from 'vitest';
import { api } from '../support';
import { commit, deployWorld, type DeployWorld } from './fixtures';

const SELF = 'You cannot approve your own deployment. This configuration can be adjusted in the protected environment settings.';

async function protect(w: DeployWorld, name: string, rules: Record<string, unknown>[]) {
  const res = await api(`/projects/${w.project.id}/protected_environments`, { token: w.maintainer.token, body: { name, deploy_access_levels: [{ access_level: 30 }], approval_rules: rules } });
  if (res.status !== 201) throw new Error(`protect: ${res.status} ${res.text}`);
}

async function deploy(w: DeployWorld, token: string, environment = 'production') {
  const res = await api(`/projects/${w.project.id}/deployments`, { token, body: { environment, sha: await commit(w), ref: 'main', tag: false, status: 'running' } });
  if (res.status !== 201) throw new Error(`deploy: ${res.status} ${res.text}`);
  return res.body as { id: number; status: string };
}

const approve = (w: DeployWorld, id: number, token: string, status: string, comment?: string) =>
  api(`/projects/${w.project.id}/deployments/${id}/approval`, { token, body: { status, ...(comment ? { comment } : {}) } });
const get = async (w: DeployWorld, id: number) => (await api(`/projects/${w.project.id}/deployments/${id}`, { token: w.reporter.token })).body;

describe('self-approval of a deployment', () => {
  it('is refused to the deployer whom a rule admits; another approver unblocks it', async () => {
    const w = await deployWorld();
    await protect(w, 'production', [{ access_level: 30, required_approvals: 1 }]);
    const d = await deploy(w, w.developer.token);
    expect(d.status).toBe('blocked');
    const own = await approve(w, d.id, w.developer.token, 'approved');
    expect([own.status, own.body]).toEqual([400, { message: SELF }]);
    expect(await get(w, d.id)).toMatchObject({ status: 'blocked', pending_approval_count: 1, approvals: [] });
    // Anyone else the rule admits may approve.
    expect((await approve(w, d.id, w.maintainer.token, 'approved')).status).toBe(201);
    expect(await get(w, d.id)).toMatchObject({ status: 'created', pending_approval_count: 0 });
    // Checked before "not waiting": the deployer still hears it is her own.
    expect((await approve(w, d.id, w.developer.token, 'approved')).body).toEqual({ message: SELF });
    expect((await approve(w, d.id, w.maintainer.token, 'approved')).body).toEqual({ message: 'This deployment is not waiting for approvals.' });
  });

  it('is refused to the project owner too (no role is exempt), before the configuration check', async () => {
    const w = await deployWorld();
    await protect(w, 'production', [{ access_level: 40, required_approvals: 1 }]);
    await protect(w, 'staging', []);
    const mine = await deploy(w, w.owner.token);
    expect((await approve(w, mine.id, w.owner.token, 'approved')).body).toEqual({ message: SELF });
    // An environment protected without approvals: the self-approval refusal still comes first.
    const unconfigured = await deploy(w, w.owner.token, 'staging');
    expect(unconfigured.status).toBe('running');
    expect((await approve(w, unconfigured.id, w.owner.token, 'approved')).body).toEqual({ message: SELF });
    expect((await approve(w, unconfigured.id, w.maintainer.token, 'approved')).body).toEqual({ message: 'Deployment approvals is not configured for this environment.' });
    // The maintainer's approval counts.
    const ok = await approve(w, mine.id, w.maintainer.token, 'approved');
    expect([ok.status, ok.body.user.id]).toEqual([201, w.maintainer.id]);
  });

  it('lets the deployer reject her own deployment, which fails it', async () => {
    const w = await deployWorld();
    await protect(w, 'production', [{ access_level: 30, required_approvals: 2 }]);
    const d = await deploy(w, w.developer.token);
    const no = await approve(w, d.id, w.developer.token, 'rejected', 'wrong build');
    expect(no.status).toBe(201);
    expect(no.body).toMatchObject({ user: { id: w.developer.id }, status: 'rejected', comment: 'wrong build' });
    expect(await get(w, d.id)).toMatchObject({ status: 'failed', pending_approval_count: 0, approvals: [no.body] });
  });
});
