/**
 * Issue 16 item 2: CI job tokens on the deployment and environment routes, where GitLab's
 * lib/api/deployments.rb and environments.rb set `job_token_allowed: true` (not on the approval,
 * nor on protected environments). This server has no CI jobs yet, so no job token exists that a
 * client could get: the CI module's lookup (setJobTokenResolver, src/auth/authenticate.ts) is
 * stood in for here by one that knows a single token of a job run by the developer. Node only:
 * the resolver is installed in this file's in-process app.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setJobTokenResolver } from '../../src/auth/authenticate';
import { users } from '../../src/db/schema';
import type { UserRow } from '../../src/platform/context';
import { harnessApp } from '../harness/node';
import { api } from '../support';
import { commit, deployWorld, type DeployWorld } from './fixtures';

const JOB_TOKEN = 'glcbt-64_deploy-job-token-000001';
let w: DeployWorld;

beforeAll(async () => {
  w = await deployWorld();
  const { db } = await harnessApp();
  const row = (await db.select().from(users).where(eq(users.id, w.developer.id)).get()) as UserRow;
  setJobTokenResolver(async (_c, token) => (token === JOB_TOKEN ? { jobId: 1, user: row } : null));
});
afterAll(() => setJobTokenResolver(async () => null));

const job = (path: string, init: { method?: string; body?: Record<string, unknown> } = {}) =>
  api(`/projects/${w.project.id}${path}`, { ...init, headers: { 'JOB-TOKEN': JOB_TOKEN } });

describe('job tokens on deployments and environments', () => {
  it("act as the job's user on every deployment and environment route", async () => {
    const sha = await commit(w);
    const env = await job('/environments', { body: { name: 'review/job' } });
    expect([env.status, env.body.name]).toEqual([201, 'review/job']);
    expect((await job('/environments')).body.map((e: { name: string }) => e.name)).toEqual(['review/job']);
    expect((await job(`/environments/${env.body.id}`, { method: 'PUT', body: { external_url: 'https://job.example.com' } })).body.external_url).toBe('https://job.example.com');

    const d = await job('/deployments', { body: { environment: 'staging', sha, ref: 'main', tag: false, status: 'running' } });
    expect(d.status).toBe(201);
    expect([d.body.user.id, d.body.status]).toEqual([w.developer.id, 'running']);
    expect((await job('/deployments')).body.map((x: { id: number }) => x.id)).toEqual([d.body.id]);
    expect((await job(`/deployments/${d.body.id}`)).body.id).toBe(d.body.id);
    expect((await job(`/deployments/${d.body.id}`, { method: 'PUT', body: { status: 'success' } })).body.status).toBe('success');
    expect((await job(`/deployments/${d.body.id}/merge_requests`)).body).toEqual([]);
    expect((await job(`/environments/${d.body.environment.id}`)).body.last_deployment.id).toBe(d.body.id);

    expect((await job(`/environments/${env.body.id}/stop`, { method: 'POST' })).body.state).toBe('stopped');
    expect((await job('/environments/review_apps?dry_run=true', { method: 'DELETE' })).status).toBe(200);
    expect((await job(`/environments/${env.body.id}`, { method: 'DELETE' })).status).toBe(204);
    // The job's user is a developer: deleting a deployment needs a maintainer, whatever the credential.
    const failed = await job('/deployments', { body: { environment: 'staging', sha, ref: 'main', tag: false, status: 'failed' } });
    expect((await job(`/deployments/${failed.body.id}`, { method: 'DELETE' })).body).toEqual({ message: '403 Forbidden' });
  });

  it('are refused where GitLab takes none (approval, protected environments), and unknown ones everywhere', async () => {
    const d = await api(`/projects/${w.project.id}/deployments`, { token: w.developer.token, body: { environment: 'production', sha: await commit(w), ref: 'main', tag: false, status: 'running' } });
    expect(d.status).toBe(201);
    expect((await job(`/deployments/${d.body.id}/approval`, { body: { status: 'approved' } })).body).toEqual({ message: '401 Unauthorized' });
    // Protected environments ignore the token: an anonymous caller, to whom the private project does not exist.
    expect((await job('/protected_environments')).body).toEqual({ message: '404 Project Not Found' });
    const unknown = await api(`/projects/${w.project.id}/deployments`, { headers: { 'JOB-TOKEN': 'glcbt-64_unknown' } });
    expect([unknown.status, unknown.body]).toEqual([401, { message: '401 Unauthorized' }]);
  });
});
