/**
 * Issue 13: the issue and merge request lists of a project and of a group milestone cost the same
 * storage round trips for a page of one and of a hundred, within the read budget (the caller cached,
 * as the budget test does), with every row carrying what its entity shows (labels, assignees).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

const READ_BUDGET = 2;
const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));
let owner: TestUser;
let dev: TestUser;
let P: string;
let G: string;
let projectMilestone: number;
let groupMilestone: number;

async function commit(branch: string, start?: string) {
  const res = await api(`${P}/repository/commits`, { token: owner.token, body: { branch, start_branch: start, commit_message: unique('c'), actions: [{ action: 'create', file_path: `${branch}.txt`, content: 'x\n' }] } });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
}

beforeAll(async () => {
  owner = await createUser();
  dev = await createUser();
  const path = unique('g');
  const group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } })).body;
  G = `/groups/${group.id}`;
  const project = (await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.id, visibility: 'private' } })).body;
  P = `/projects/${project.id}`;
  expect((await api(`${P}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } })).status).toBe(201);
  projectMilestone = (await api(`${P}/milestones`, { token: owner.token, body: { title: unique('pm') } })).body.id;
  groupMilestone = (await api(`${G}/milestones`, { token: owner.token, body: { title: unique('gm') } })).body.id;
  await commit('main');
  for (let i = 0; i < 3; i++) {
    for (const milestone_id of [projectMilestone, groupMilestone]) {
      const issue = await api(`${P}/issues`, { token: owner.token, body: { title: unique('i'), labels: `l${i},shared`, assignee_ids: [dev.id], milestone_id } });
      expect(issue.status, issue.text).toBe(201);
      const branch = unique('b');
      await commit(branch, 'main');
      const mr = await api(`${P}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title: unique('mr'), labels: `l${i}`, assignee_ids: [dev.id], reviewer_ids: [owner.id], milestone_id } });
      expect(mr.status, mr.text).toBe(201);
    }
  }
}, 120_000);

describe('milestone issue and merge request lists', () => {
  it('cost the same for a page of one and of a hundred, within the read budget', async () => {
    const lists = [`${P}/milestones/${projectMilestone}/issues`, `${P}/milestones/${projectMilestone}/merge_requests`, `${G}/milestones/${groupMilestone}/issues`, `${G}/milestones/${groupMilestone}/merge_requests`];
    for (const url of lists) {
      await api('/user', { token: dev.token });
      const one = await api(`${url}?per_page=1`, { token: dev.token });
      await api('/user', { token: dev.token });
      const hundred = await api(`${url}?per_page=100`, { token: dev.token });
      expect(one.status, url).toBe(200);
      expect(one.body, url).toHaveLength(1);
      expect(hundred.body, url).toHaveLength(3);
      expect(hundred.headers.get('x-total'), url).toBe('3');
      for (const row of hundred.body) expect(row.assignees.map((a: { id: number }) => a.id), url).toEqual([dev.id]);
      expect(trips(hundred), url).toBe(trips(one));
      expect(trips(hundred), url).toBeLessThanOrEqual(READ_BUDGET);
    }
  });

  it('answer 404 for a milestone of another parent, within the read budget', async () => {
    for (const list of ['issues', 'merge_requests']) {
      await api('/user', { token: dev.token });
      const res = await api(`${P}/milestones/${groupMilestone}/${list}`, { token: dev.token });
      expect(res.status, list).toBe(404);
      expect(trips(res), list).toBeLessThanOrEqual(READ_BUDGET);
    }
  });
});
