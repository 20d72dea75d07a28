/**
 * A merge request list page costs a fixed number of storage round trips whatever its size (issue
 * 13): the project or group lookup, then ONE batch with the page, its count, everything the rows
 * show and every row's approval state. Each row still answers what its own GET answers.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;
let alice: TestUser;
let gid: number;
const pids: number[] = [];
let milestoneId: number;

const roundTrips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

async function commit(pid: number, branch: string, path: string, start?: string, content = `${path}\n`) {
  const res = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch, start_branch: start, commit_message: path, actions: [{ action: 'create', file_path: path, content }] } });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  [owner, alice] = await Promise.all([createUser(), createUser()]);
  const path = unique('mrrt');
  const g = await api('/groups', { token: owner.token, body: { name: path, path } });
  expect(g.status).toBe(201);
  gid = g.body.id;
  expect((await api(`/groups/${gid}/members`, { token: owner.token, body: { user_id: alice.id, access_level: 30 } })).status).toBe(201);
  const m = await api(`/groups/${gid}/milestones`, { token: owner.token, body: { title: unique('ms') } });
  expect(m.status).toBe(201);
  milestoneId = m.body.id;
  for (let p = 0; p < 2; p++) {
    const pr = await api('/projects', { token: owner.token, body: { path: `p${p}`, namespace_id: gid } });
    expect(pr.status).toBe(201);
    const pid = pr.body.id as number;
    pids.push(pid);
    await commit(pid, 'main', 'README.md');
    expect((await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'Reviewers', approvals_required: 1, user_ids: [alice.id] } })).status).toBe(201);
    for (let i = 0; i < 3; i++) {
      await commit(pid, `topic-${i}`, `f${i}.txt`, 'main');
      const mr = await api(`/projects/${pid}/merge_requests`, {
        token: owner.token,
        body: { source_branch: `topic-${i}`, target_branch: 'main', title: `Topic ${i}`, labels: 'one,two', assignee_ids: [alice.id], reviewer_ids: [owner.id], milestone_id: milestoneId },
      });
      expect(mr.status).toBe(201);
      if (i === 0) expect((await api(`/projects/${pid}/merge_requests/${mr.body.iid}/approve`, { method: 'POST', token: alice.token, body: { sha: mr.body.sha } })).status).toBe(201);
      if (i === 2) expect((await api(`/projects/${pid}/merge_requests/${mr.body.iid}`, { method: 'PUT', token: owner.token, body: { state_event: 'close' } })).status).toBe(200);
    }
  }
});

/** The second call's round trips (the first warms the caller) for one page size. */
async function costOf(path: string, perPage: number) {
  const sep = path.includes('?') ? '&' : '?';
  await api(`${path}${sep}per_page=${perPage}`, { token: owner.token });
  const res = await api(`${path}${sep}per_page=${perPage}`, { token: owner.token });
  expect(res.status, res.text).toBe(200);
  return { n: roundTrips(res), body: res.body as any[] };
}

describe('merge request lists', () => {
  it('of a milestone: 404 for a milestone of another group, nothing for one without merge requests, in the page batch', async () => {
    const other = await api('/groups', { token: owner.token, body: { name: unique('o'), path: unique('o') } });
    const foreign = await api(`/groups/${other.body.id}/milestones`, { token: owner.token, body: { title: unique('fm') } });
    const res = await api(`/groups/${gid}/milestones/${foreign.body.id}/merge_requests`, { token: owner.token });
    expect([res.status, res.body]).toEqual([404, { message: '404 Not found' }]);
    // A milestone titled like a special value (None) filters as MergeRequestsFinder reads that title: no milestone.
    const none = await api(`/groups/${gid}/milestones`, { token: owner.token, body: { title: 'None' } });
    expect(none.status).toBe(201);
    const empty = await api(`/groups/${gid}/milestones/${none.body.id}/merge_requests`, { token: owner.token });
    expect([empty.status, empty.body, empty.headers.get('x-total')]).toEqual([200, [], '0']);
  });

  it('cost two round trips for one row or a hundred: project, group, all, simple view and milestone lists', async () => {
    for (const path of [
      `/projects/${pids[0]}/merge_requests`,
      `/groups/${gid}/merge_requests`,
      '/merge_requests?scope=all',
      `/groups/${gid}/merge_requests?view=simple`,
      `/projects/${pids[0]}/merge_requests?state=all&with_labels_details=true`,
      `/groups/${gid}/milestones/${milestoneId}/merge_requests`,
    ]) {
      const one = await costOf(path, 1);
      const hundred = await costOf(path, 100);
      expect(one.body).toHaveLength(1);
      expect(hundred.body.length, path).toBeGreaterThan(1);
      expect([path, one.n, hundred.n]).toEqual([path, expect.any(Number), one.n]);
      expect(hundred.n, path).toBeLessThanOrEqual(2);
    }
  });

  it('of a project: an empty page in one round trip, and each query its own page and count (the statements are rendered once per query)', async () => {
    const list = async (query: string) => {
      const path = `/projects/${pids[0]}/merge_requests?${query}`;
      await api(path, { token: owner.token });
      const res = await api(path, { token: owner.token });
      expect(res.status, res.text).toBe(200);
      return { n: roundTrips(res), total: res.headers.get('x-total'), branches: (res.body as any[]).map((r) => r.source_branch) };
    };
    expect(await list('state=merged')).toEqual({ n: 1, total: '0', branches: [] });
    expect(await list('state=closed')).toEqual({ n: 2, total: '1', branches: ['topic-2'] });
    expect(await list('state=opened')).toEqual({ n: 2, total: '2', branches: ['topic-1', 'topic-0'] });
    expect(await list('state=opened&sort=asc')).toEqual({ n: 2, total: '2', branches: ['topic-0', 'topic-1'] });
    expect(await list(`state=opened&author_id=${alice.id}`)).toEqual({ n: 1, total: '0', branches: [] });
    expect(await list(`state=opened&author_id=${owner.id}&page=2&per_page=1`)).toEqual({ n: 2, total: '2', branches: ['topic-0'] });
    // By path, the project is found by the same round trip.
    const byPath = encodeURIComponent((await api(`/projects/${pids[0]}`, { token: owner.token })).body.path_with_namespace);
    const res = await api(`/projects/${byPath}/merge_requests?state=closed`, { token: owner.token });
    expect([res.status, roundTrips(res), (res.body as any[]).map((r) => r.source_branch)]).toEqual([200, 2, ['topic-2']]);
    // Someone who may not read the project: 404, and nothing of the page.
    const stranger = await createUser();
    const hidden = await api(`/projects/${pids[0]}/merge_requests`, { token: stranger.token });
    expect([hidden.status, hidden.body, hidden.headers.get('x-total')]).toEqual([404, { message: '404 Project Not Found' }, null]);
  });

  it('with many string filters (past D1\'s 100 parameters if the page query were repeated in every read) answer, one round trip more', async () => {
    const q = new URLSearchParams({
      search: 'Topic', source_branch: 'topic-0', target_branch: 'main', created_after: '2020-01-01T00:00:00Z', created_before: '2100-01-01T00:00:00Z',
      updated_after: '2020-01-01T00:00:00Z', updated_before: '2100-01-01T00:00:00Z', labels: 'one,two', 'not[labels]': 'three', 'not[milestone]': 'none-such',
      'not[my_reaction_emoji]': 'x', 'not[source_branch]': 'y', state: 'opened', in: 'title,description',
    });
    for (const path of [`/projects/${pids[0]}/merge_requests?${q}`, `/groups/${gid}/merge_requests?${q}`]) {
      await api(path, { token: owner.token });
      const res = await api(path, { token: owner.token });
      expect([res.status, (res.body as any[]).map((r) => r.source_branch)], res.text).toEqual([200, path.startsWith('/groups') ? ['topic-0', 'topic-0'] : ['topic-0']]);
      expect(roundTrips(res)).toBeLessThanOrEqual(3);
      expect((res.body as any[])[0].detailed_merge_status).toBe('mergeable');
    }
  });

  it('show on every row what its own GET shows (approvals, mergeability, sha, labels, people)', async () => {
    const list = (await api(`/groups/${gid}/merge_requests?state=all&per_page=100`, { token: owner.token })).body as any[];
    expect(list).toHaveLength(6);
    for (const row of list) {
      const one = (await api(`/projects/${row.project_id}/merge_requests/${row.iid}`, { token: owner.token })).body;
      for (const k of ['iid', 'state', 'detailed_merge_status', 'merge_status', 'sha', 'has_conflicts', 'labels', 'user_notes_count']) expect([k, row[k]]).toEqual([k, one[k]]);
      expect(row.references.full).toBe(one.references.full);
      expect([row.assignees.map((u: any) => u.id), row.reviewers.map((u: any) => u.id), row.milestone.id]).toEqual([[alice.id], [owner.id], milestoneId]);
    }
    // The milestone's list shows the same rows.
    const byMilestone = (await api(`/groups/${gid}/milestones/${milestoneId}/merge_requests?per_page=100`, { token: owner.token })).body as any[];
    expect(byMilestone.map((r) => r.id).sort()).toEqual(list.map((r) => r.id).sort());
    // One approval of the two open requests per project: the other still needs Reviewers.
    expect(list.filter((r) => r.state === 'opened').map((r) => r.detailed_merge_status).sort()).toEqual(['mergeable', 'mergeable', 'not_approved', 'not_approved']);
  });

  it('after pushes to the source and the target branch, show the merge facts the push stored while both heads match, and fresh ones after', async () => {
    const pid = pids[1];
    const path = `/projects/${pid}/merge_requests?per_page=100`;
    const row = async () => {
      const res = await api(path, { token: owner.token });
      expect(res.status).toBe(200);
      return { n: roundTrips(res), mr: (res.body as any[]).find((r) => r.source_branch === 'topic-1') };
    };
    await row();
    await commit(pid, 'topic-1', unique('g'));
    const after = await row();
    expect([after.mr.has_conflicts, after.mr.merge_status]).toEqual([false, 'can_be_merged']);
    // The target moves with a conflicting f1.txt: the stored facts no longer hold, the read computes them.
    await commit(pid, 'main', 'f1.txt', undefined, 'other\n');
    expect((await row()).mr.has_conflicts).toBe(true);
    // The next push to the source stores the conflict with the rest.
    await commit(pid, 'topic-1', unique('h'));
    const again = await row();
    expect([again.mr.has_conflicts, again.mr.detailed_merge_status]).toEqual([true, 'not_approved']);
    const one = (await api(`/projects/${pid}/merge_requests/${again.mr.iid}?include_diverged_commits_count=true`, { token: owner.token })).body;
    expect([one.has_conflicts, one.sha, one.diff_refs.base_sha, one.changes_count]).toEqual([true, again.mr.sha, expect.any(String), '3']);
  });
});
