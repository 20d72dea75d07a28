/**
 * Issue 16 item 2: the merge request lists' deployment filters (lib/api/merge_requests.rb
 * `environment`, `deployed_before`, `deployed_after`; MergeRequestsFinder#by_deployments over
 * DeploymentMergeRequest): merge requests shipped to the named environment of their project, by a
 * deployment finished strictly before/after the time, on the project, group and global lists.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;
let outsider: TestUser;
let gid: number;
let pid: number;
let other: number;
const mr: Record<string, number> = {};
/** A time between the staging deployment's finish and the production one's. */
let between: string;

async function commit(project: number, branch: string, start?: string) {
  const res = await api(`/projects/${project}/repository/commits`, {
    token: owner.token,
    body: { branch, ...(start ? { start_branch: start } : {}), commit_message: 'c', actions: [{ action: 'create', file_path: `${unique('f')}.txt`, content: 'x' }] },
  });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
}

async function mergedMr(project: number, title: string) {
  const branch = unique('topic');
  await commit(project, branch, 'main');
  const m = await api(`/projects/${project}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title } });
  if (m.status !== 201) throw new Error(`mr: ${m.status} ${m.text}`);
  const merged = await api(`/projects/${project}/merge_requests/${m.body.iid}/merge`, { method: 'PUT', token: owner.token });
  if (merged.status !== 200) throw new Error(`merge: ${merged.status} ${merged.text}`);
  return m.body.id as number;
}

async function deploy(project: number, environment: string, status = 'success') {
  const res = await api(`/projects/${project}/deployments`, { token: owner.token, body: { environment, sha: 'main', ref: 'main', tag: false, status } });
  if (res.status !== 201) throw new Error(`deploy: ${res.status} ${res.text}`);
  return res.body as { id: number; updated_at: string };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  [owner, outsider] = await Promise.all([createUser(), createUser()]);
  const path = unique('deployed');
  const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } });
  expect(g.status).toBe(201);
  gid = g.body.id;
  const projects = [];
  for (const p of ['app', 'lib']) {
    const res = await api('/projects', { token: owner.token, body: { path: p, namespace_id: gid } });
    expect(res.status).toBe(201);
    projects.push(res.body.id as number);
    await commit(res.body.id, 'main');
  }
  [pid, other] = projects;
  mr.a = await mergedMr(pid, 'a');
  mr.b = await mergedMr(pid, 'b');
  // Staging gets a and b; a later success there ships nothing new.
  const staging = await deploy(pid, 'staging');
  await sleep(5);
  between = new Date(Date.parse(staging.updated_at) + 2).toISOString();
  await sleep(5);
  mr.c = await mergedMr(pid, 'c');
  mr.open = (await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { source_branch: (await commitBranch(pid)), target_branch: 'main', title: 'open' } })).body.id;
  // Production (after `between`) gets a, b and c; a failed deployment to review ships nothing.
  await deploy(pid, 'production');
  await deploy(pid, 'review', 'failed');
  // The other project's MR goes to its own `staging`.
  mr.d = await mergedMr(other, 'd');
  await deploy(other, 'staging');
});

async function commitBranch(project: number) {
  const branch = unique('open');
  await commit(project, branch, 'main');
  return branch;
}

const ids = (body: { id: number }[]) => body.map((m) => m.id).sort((x, y) => x - y);
const sorted = (...names: string[]) => names.map((n) => mr[n]).sort((x, y) => x - y);

describe('merge request lists: environment, deployed_before, deployed_after', () => {
  it('filters the project list', async () => {
    const L = async (q: string) => {
      const res = await api(`/projects/${pid}/merge_requests?state=all&${q}`, { token: owner.token });
      expect(res.status).toBe(200);
      return ids(res.body);
    };
    expect(await L('environment=staging')).toEqual(sorted('a', 'b'));
    expect(await L('environment=production')).toEqual(sorted('a', 'b', 'c'));
    // Names are exact; an environment that shipped nothing (failed) or does not exist lists nothing.
    expect(await L('environment=STAGING')).toEqual([]);
    expect(await L('environment=review')).toEqual([]);
    expect(await L('environment=nowhere')).toEqual([]);
    // Shipped by a deployment finished before / after the time, to any environment.
    expect(await L(`deployed_before=${encodeURIComponent(between)}`)).toEqual(sorted('a', 'b'));
    expect(await L(`deployed_after=${encodeURIComponent(between)}`)).toEqual(sorted('a', 'b', 'c'));
    // The filters apply to the same deployment: staging finished before the time.
    expect(await L(`environment=staging&deployed_after=${encodeURIComponent(between)}`)).toEqual([]);
    expect(await L(`environment=production&deployed_before=${encodeURIComponent(between)}`)).toEqual([]);
    expect(await L(`environment=production&deployed_after=${encodeURIComponent(between)}&search=c`)).toEqual(sorted('c'));
    // Without them, every merge request (the open one too).
    expect(await L('')).toEqual(sorted('a', 'b', 'c', 'open'));
    const bad = await api(`/projects/${pid}/merge_requests?deployed_after=soon`, { token: owner.token });
    expect([bad.status, bad.body]).toEqual([400, { error: 'deployed_after is invalid' }]);
  });

  it('filters the group and the global lists, each project by its own environment', async () => {
    const group = await api(`/groups/${gid}/merge_requests?state=all&environment=staging`, { token: owner.token });
    expect(group.status).toBe(200);
    expect(ids(group.body)).toEqual(sorted('a', 'b', 'd'));
    expect(group.headers.get('x-total')).toBe('3');
    const all = await api('/merge_requests?scope=all&state=all&environment=staging', { token: owner.token });
    expect(ids(all.body)).toEqual(sorted('a', 'b', 'd'));
    const after = await api(`/merge_requests?scope=all&state=merged&deployed_after=${encodeURIComponent(between)}`, { token: owner.token });
    expect(ids(after.body)).toEqual(sorted('a', 'b', 'c', 'd'));
    // Only merge requests the caller may read.
    const stranger = await api('/merge_requests?scope=all&environment=staging', { token: outsider.token });
    expect([stranger.status, stranger.body]).toEqual([200, []]);
  });
});
