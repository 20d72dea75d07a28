/**
 * Issue 13: issue and merge request writes that name assignees, reviewers, labels (existing and new)
 * and a milestone all at once stay within the write budget of 3 storage round trips, whatever the
 * number of users named (the test instance runs Ultimate: many assignees). The caller is cached first,
 * as the budget test does. Each write's effect is checked too.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

const WRITE_BUDGET = 3;
const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));
let owner: TestUser;
const people: TestUser[] = [];
let P: string;
let byPath: string;
let milestoneId: number;
let epic: { id: number; iid: number };

async function measured(path: string, method: string, body?: unknown) {
  await api('/user', { token: owner.token });
  return api(path, { method, token: owner.token, body });
}
const file = (file_path: string) => ({ action: 'create', file_path, content: 'x\n' });
async function commit(branch: string, start?: string) {
  const res = await api(`${P}/repository/commits`, { token: owner.token, body: { branch, start_branch: start, commit_message: unique('c'), actions: [file(`${branch}.txt`)] } });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
}

beforeAll(async () => {
  owner = await createUser();
  const path = unique('g');
  const group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } })).body;
  const project = (await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.id, visibility: 'private' } })).body;
  P = `/projects/${project.id}`;
  byPath = `/projects/${encodeURIComponent(project.path_with_namespace)}`;
  for (let i = 0; i < 20; i++) {
    const u = await createUser();
    people.push(u);
    // Half project members, half members of the group (their level comes from the ancestor).
    const to = i % 2 ? `${P}/members` : `/groups/${group.id}/members`;
    expect((await api(to, { token: owner.token, body: { user_id: u.id, access_level: 30 } })).status).toBe(201);
  }
  epic = (await api(`/groups/${group.id}/epics`, { token: owner.token, body: { title: unique('e') } })).body;
  milestoneId = (await api(`/groups/${group.id}/milestones`, { token: owner.token, body: { title: unique('m') } })).body.id;
  expect((await api(`${P}/labels`, { token: owner.token, body: { name: 'known', color: '#ff0000' } })).status).toBe(201);
  await commit('main');
}, 120_000);

describe('issue writes naming many things', () => {
  it('create and update cost the same with 1, 5 and 20 assignees', async () => {
    const seen: number[] = [];
    for (const n of [1, 5, 20]) {
      const ids = people.slice(0, n).map((u) => u.id);
      const created = await measured(`${P}/issues`, 'POST', { title: unique('i'), assignee_ids: ids, labels: `known,${unique('new')}`, milestone_id: milestoneId });
      expect(created.status, created.text).toBe(201);
      expect(created.body.assignees.map((a: { id: number }) => a.id)).toEqual(ids);
      expect(created.body.labels).toContain('known');
      expect(created.body.milestone.id).toBe(milestoneId);
      const updated = await measured(`${P}/issues/${created.body.iid}`, 'PUT', { assignee_ids: [...ids].reverse(), labels: `known,${unique('new')}`, milestone_id: milestoneId });
      expect(updated.status, updated.text).toBe(200);
      expect(updated.body.assignees.map((a: { id: number }) => a.id).sort()).toEqual([...ids].sort());
      seen.push(trips(created), trips(updated));
    }
    // The project (or issue) with every read the metadata needs, then the write with its answer.
    expect(Math.max(...seen)).toBeLessThanOrEqual(2);
    expect(new Set(seen.filter((_, i) => i % 2 === 0)).size).toBe(1);
    expect(new Set(seen.filter((_, i) => i % 2 === 1)).size).toBe(1);
  });
});

describe('issue writes naming the project by its path', () => {
  it('find the milestone, the labels and the users of the project the path names', async () => {
    const ids = people.slice(0, 3).map((u) => u.id);
    const created = await measured(`${byPath}/issues`, 'POST', { title: unique('i'), assignee_ids: ids, labels: `known,${unique('new')}`, milestone_id: milestoneId });
    expect(created.status, created.text).toBe(201);
    expect(created.body.assignees.map((a: { id: number }) => a.id)).toEqual(ids);
    expect(created.body.labels).toContain('known');
    expect(created.body.milestone.id).toBe(milestoneId);
    expect(trips(created)).toBeLessThanOrEqual(2);
    const updated = await measured(`${byPath}/issues/${created.body.iid}`, 'PUT', { assignee_ids: [ids[0]], remove_labels: 'known', milestone_id: 0 });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.assignees.map((a: { id: number }) => a.id)).toEqual([ids[0]]);
    expect(updated.body.labels).not.toContain('known');
    expect(updated.body.milestone).toBeNull();
    expect(trips(updated)).toBeLessThanOrEqual(2);
    // The system note names the assignees removed (read with the users named, not one by one).
    const notes = await api(`${P}/issues/${created.body.iid}/notes?sort=asc`, { token: owner.token });
    expect(notes.body.map((n: { body: string }) => n.body)).toContain(`unassigned @${people[1].username} and @${people[2].username}`);
  });
});

describe('issue writes naming an epic (Premium)', () => {
  it('read it with the project, by id and by iid, and answer 404 for another', async () => {
    const created = await measured(`${P}/issues`, 'POST', { title: unique('i'), epic_id: epic.id, labels: 'known', milestone_id: milestoneId, assignee_ids: [people[0].id] });
    expect(created.status, created.text).toBe(201);
    expect(created.body.epic.id).toBe(epic.id);
    expect(trips(created)).toBeLessThanOrEqual(2);
    const cleared = await measured(`${P}/issues/${created.body.iid}`, 'PUT', { epic_id: 0 });
    expect(cleared.body.epic).toBeNull();
    const byIid = await measured(`${P}/issues/${created.body.iid}`, 'PUT', { epic_iid: epic.iid });
    expect(byIid.status, byIid.text).toBe(200);
    expect(byIid.body.epic.id).toBe(epic.id);
    expect(trips(byIid)).toBeLessThanOrEqual(2);
    const missing = await measured(`${P}/issues`, 'POST', { title: unique('i'), epic_iid: epic.iid + 1000 });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Epic Not Found' });
  });
});

describe('merge request writes naming many things', () => {
  it('create and update cost the same with 1, 5 and 20 assignees and reviewers', async () => {
    const seen: number[] = [];
    for (const n of [1, 5, 20]) {
      const ids = people.slice(0, n).map((u) => u.id);
      const branch = unique('feat');
      await commit(branch, 'main');
      const created = await measured(`${P}/merge_requests`, 'POST', {
        source_branch: branch, target_branch: 'main', title: unique('MR'), assignee_ids: ids, reviewer_ids: ids, labels: `known,${unique('new')}`, milestone_id: milestoneId,
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body.assignees.map((a: { id: number }) => a.id)).toEqual(ids);
      expect(created.body.reviewers.map((a: { id: number }) => a.id)).toEqual(ids);
      expect(created.body.milestone.id).toBe(milestoneId);
      const updated = await measured(`${P}/merge_requests/${created.body.iid}`, 'PUT', { assignee_ids: [...ids].reverse(), reviewer_ids: ids.slice(0, 1), labels: `known,${unique('new')}`, milestone_id: milestoneId });
      expect(updated.status, updated.text).toBe(200);
      expect(updated.body.reviewers.map((a: { id: number }) => a.id)).toEqual(ids.slice(0, 1));
      seen.push(trips(created), trips(updated));
    }
    expect(Math.max(...seen)).toBeLessThanOrEqual(WRITE_BUDGET);
    expect(new Set(seen.filter((_, i) => i % 2 === 0)).size).toBe(1);
    expect(new Set(seen.filter((_, i) => i % 2 === 1)).size).toBe(1);
  });
});
