/**
 * Issue 16 item 2: the merge requests of a deployment (lib/api/deployments.rb, LinkMergeRequestsService).
 * A deployment reaching `success` links the merge requests merged into its ref since the
 * environment's previous successful deployment; GET .../merge_requests lists them as the merge
 * request list does.
 */
import { describe, expect, it } from 'vitest';
import { api, unique } from '../support';
import { commit, deployWorld, type DeployWorld } from './fixtures';

const rt = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

/** A merge request from a new branch into main, merged by the owner; its id. */
async function mergedMr(w: DeployWorld, title: string): Promise<number> {
  const branch = unique('feature');
  const b = await api(`/projects/${w.project.id}/repository/branches`, { token: w.owner.token, body: { branch, ref: 'main' } });
  if (b.status !== 201) throw new Error(`branch: ${b.status} ${b.text}`);
  await commit(w, branch);
  const mr = await api(`/projects/${w.project.id}/merge_requests`, { token: w.owner.token, body: { source_branch: branch, target_branch: 'main', title } });
  if (mr.status !== 201) throw new Error(`mr: ${mr.status} ${mr.text}`);
  const merged = await api(`/projects/${w.project.id}/merge_requests/${mr.body.iid}/merge`, { method: 'PUT', token: w.owner.token });
  if (merged.status !== 200) throw new Error(`merge: ${merged.status} ${merged.text}`);
  return mr.body.id;
}

async function deploy(w: DeployWorld, body: Record<string, unknown>) {
  const res = await api(`/projects/${w.project.id}/deployments`, { token: w.developer.token, body: { environment: 'production', sha: 'main', ref: 'main', tag: false, ...body } });
  if (res.status !== 201) throw new Error(`deploy: ${res.status} ${res.text}`);
  return res.body as { id: number };
}

const ids = (body: { id: number }[]) => body.map((m) => m.id).sort((a, b) => a - b);

describe('GET /projects/:id/deployments/:deployment_id/merge_requests', () => {
  it('lists what each successful deployment shipped to its environment', async () => {
    const w = await deployWorld();
    await commit(w);
    const a = await mergedMr(w, 'first');
    const b = await mergedMr(w, 'second');
    const first = await deploy(w, { status: 'success' });
    const L = (id: number, q = '') => api(`/projects/${w.project.id}/deployments/${id}/merge_requests${q}`, { token: w.reporter.token });
    const res = await L(first.id);
    expect(res.status).toBe(200);
    expect(rt(res)).toBeLessThanOrEqual(2);
    expect(ids(res.body)).toEqual([a, b]);
    expect(res.body[0]).toMatchObject({ state: 'merged', target_branch: 'main', project_id: w.project.id });
    expect(res.headers.get('x-total')).toBe('2');
    // The list's parameters apply: order, paging, filters, the simple view.
    const page = await L(first.id, '?per_page=1&order_by=created_at&sort=asc');
    expect([page.body.map((m: { id: number }) => m.id), page.headers.get('x-total-pages')]).toEqual([[a], '2']);
    expect((await L(first.id, '?search=second')).body.map((m: { id: number }) => m.id)).toEqual([b]);
    expect(Object.keys((await L(first.id, '?view=simple')).body[0])).not.toContain('author');

    // A later merge reaches production with the next success, reached by update: only it is listed.
    const c = await mergedMr(w, 'third');
    const running = await deploy(w, { status: 'running' });
    expect((await L(running.id)).body).toEqual([]);
    const put = await api(`/projects/${w.project.id}/deployments/${running.id}`, { method: 'PUT', token: w.developer.token, body: { status: 'success' } });
    expect([put.status, rt(put)]).toEqual([200, expect.any(Number)]);
    expect(rt(put)).toBeLessThanOrEqual(3);
    expect(ids((await L(running.id)).body)).toEqual([c]);
    expect(ids((await L(first.id)).body)).toEqual([a, b]);
    // Another environment had none of them yet: its first success ships all three.
    const staging = await deploy(w, { environment: 'staging', status: 'success' });
    expect(ids((await L(staging.id)).body)).toEqual([a, b, c]);
    // A failed deployment ships nothing.
    const failed = await deploy(w, { environment: 'review', status: 'failed' });
    expect((await L(failed.id)).body).toEqual([]);
  });

  it('needs read_deployment, then the deployment', async () => {
    const w = await deployWorld();
    await commit(w);
    const d = await deploy(w, { status: 'success' });
    const L = (id: number, token?: string) => api(`/projects/${w.project.id}/deployments/${id}/merge_requests`, { token });
    expect((await L(d.id, w.guest.token)).body).toEqual({ message: '403 Forbidden' });
    expect((await L(999999999, w.guest.token)).body).toEqual({ message: '403 Forbidden' });
    expect((await L(999999999, w.reporter.token)).body).toEqual({ message: '404 Not found' });
    expect((await L(d.id, w.stranger.token)).body).toEqual({ message: '404 Project Not Found' });
    expect((await L(d.id)).body).toEqual({ message: '401 Unauthorized' });
    expect((await L(d.id, w.reporter.token)).body).toEqual([]);
  });
});
