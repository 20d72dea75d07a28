/**
 * Concurrent writes on one resource (issue 12), on both runtimes: every request is sent at once
 * with Promise.all and each answer is checked, then the stored state. Races are settled by the
 * database (one batch, unique indexes, conditional writes), never by a lock across awaits, and a
 * lost race answers GitLab's 4xx, never a leaked constraint error (500).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, type ApiResponse, createUser, type TestUser, unique } from '../support';

let owner: TestUser;
let dev: TestUser;
let author: TestUser;
let others: TestUser[];

const no500 = (results: ApiResponse[]) => expect(results.filter((r) => r.status >= 500).map((r) => r.text)).toEqual([]);

async function newProject(members: TestUser[] = []) {
  const p = await api('/projects', { token: owner.token, body: { name: unique('conc'), visibility: 'private' } });
  expect(p.status).toBe(201);
  for (const u of members) expect((await api(`/projects/${p.body.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: 30 } })).status).toBe(201);
  return p.body.id as number;
}

beforeAll(async () => {
  [owner, dev, author, ...others] = await Promise.all(Array.from({ length: 6 }, () => createUser()));
});

describe('concurrent creates', () => {
  it('gives 50 concurrent issue creates in one project 50 unique, gapless iids', async () => {
    const pid = await newProject();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => api(`/projects/${pid}/issues`, { token: owner.token, body: { title: `issue ${i}` } })));
    no500(results);
    expect(results.map((r) => r.status)).toEqual(results.map(() => 201));
    const iids = results.map((r) => r.body.iid as number).sort((a, b) => a - b);
    expect(iids).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // Each answer is the issue its request created, not the project's newest one.
    expect(results.map((r) => r.body.title)).toEqual(results.map((_, i) => `issue ${i}`));
    const listed = await api(`/projects/${pid}/issues?per_page=100`, { token: owner.token });
    const byIid = new Map(listed.body.map((i: { iid: number; title: string }) => [i.iid, i.title]));
    expect(results.map((r) => byIid.get(r.body.iid))).toEqual(results.map((_, i) => `issue ${i}`));
  });

  it('answers each of 20 concurrent epic creates in one group with its own epic', async () => {
    const path = unique('cg');
    const group = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } });
    expect(group.status).toBe(201);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => api(`/groups/${group.body.id}/epics`, { token: owner.token, body: { title: `epic ${i}` } })));
    no500(results);
    expect(results.map((r) => r.status)).toEqual(results.map(() => 201));
    expect(results.map((r) => r.body.title)).toEqual(results.map((_, i) => `epic ${i}`));
    expect(results.map((r) => r.body.iid as number).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('adds the same member once under 10 concurrent requests: one 201, the others 409', async () => {
    const pid = await newProject();
    const target = others[0];
    const results = await Promise.all(Array.from({ length: 10 }, () => api(`/projects/${pid}/members`, { token: owner.token, body: { user_id: target.id, access_level: 30 } })));
    no500(results);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => [r.status, r.body])).toEqual(refused.map(() => [409, { message: 'Member already exists' }]));
    const listed = await api(`/projects/${pid}/members`, { token: owner.token });
    expect(listed.body.filter((m: { id: number }) => m.id === target.id)).toHaveLength(1);
  });
});

describe('concurrent approvals', () => {
  it('records one approval for 20 concurrent approvals of one merge request by the same user', async () => {
    const pid = await newProject([dev, author]);
    const commit = (branch: string, token: string) =>
      api(`/projects/${pid}/repository/commits`, { token, body: { branch, commit_message: unique('c'), actions: [{ action: 'create', file_path: `${unique('f')}.txt`, content: 'x\n' }] } });
    expect((await commit('main', owner.token)).status).toBe(201);
    expect((await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: 'feature', ref: 'main' } })).status).toBe(201);
    expect((await commit('feature', author.token)).status).toBe(201);
    const mr = await api(`/projects/${pid}/merge_requests`, { token: author.token, body: { source_branch: 'feature', target_branch: 'main', title: unique('MR') } });
    expect(mr.status).toBe(201);
    const base = `/projects/${pid}/merge_requests/${mr.body.iid}`;

    const results = await Promise.all(Array.from({ length: 20 }, () => api(`${base}/approve`, { token: dev.token, method: 'POST' })));
    no500(results);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status !== 201).map((r) => [r.status, r.body])).toEqual(Array.from({ length: 19 }, () => [401, { message: '401 Unauthorized' }]));
    const state = await api(`${base}/approvals`, { token: owner.token });
    expect(state.body.approved_by.map((a: { user: { id: number } }) => a.user.id)).toEqual([dev.id]);
    const notes = await api(`${base}/notes?per_page=100`, { token: owner.token });
    expect(notes.body.filter((n: { body: string }) => n.body === 'approved this merge request')).toHaveLength(1);
  });
});

describe('concurrent updates of one issue', () => {
  it('keeps every acknowledged add_labels, remove_labels, assignee and title change when they interleave', async () => {
    const pid = await newProject([dev]);
    const removable = Array.from({ length: 5 }, (_, i) => `old-${i}`);
    const issue = await api(`/projects/${pid}/issues`, { token: owner.token, body: { title: 'racy', labels: removable.join(',') } });
    expect(issue.status).toBe(201);
    const url = `/projects/${pid}/issues/${issue.body.iid}`;
    const added = Array.from({ length: 10 }, (_, i) => `new-${i}`);

    const results = await Promise.all([
      ...added.map((l) => api(url, { token: owner.token, method: 'PUT', body: { add_labels: l } })),
      ...removable.map((l) => api(url, { token: owner.token, method: 'PUT', body: { remove_labels: l } })),
      api(url, { token: owner.token, method: 'PUT', body: { assignee_ids: [dev.id] } }),
      api(url, { token: owner.token, method: 'PUT', body: { title: 'renamed while racing' } }),
    ]);
    no500(results);
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));

    const after = await api(url, { token: owner.token });
    expect([...after.body.labels].sort()).toEqual([...added].sort());
    expect(after.body.assignees.map((a: { id: number }) => a.id)).toEqual([dev.id]);
    expect(after.body.title).toBe('renamed while racing');
  });

  it('keeps every acknowledged label change on a merge request too', async () => {
    const pid = await newProject([author]);
    expect((await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'base', actions: [{ action: 'create', file_path: 'a', content: 'a' }] } })).status).toBe(201);
    expect((await api(`/projects/${pid}/repository/commits`, { token: author.token, body: { branch: 'topic', start_branch: 'main', commit_message: 'topic', actions: [{ action: 'create', file_path: 'b', content: 'b' }] } })).status).toBe(201);
    const mr = await api(`/projects/${pid}/merge_requests`, { token: author.token, body: { source_branch: 'topic', target_branch: 'main', title: unique('MR'), labels: 'old-a,old-b' } });
    expect(mr.status).toBe(201);
    const url = `/projects/${pid}/merge_requests/${mr.body.iid}`;
    const added = Array.from({ length: 8 }, (_, i) => `mr-${i}`);
    const results = await Promise.all([
      ...added.map((l) => api(url, { token: owner.token, method: 'PUT', body: { add_labels: l } })),
      ...['old-a', 'old-b'].map((l) => api(url, { token: owner.token, method: 'PUT', body: { remove_labels: l } })),
    ]);
    no500(results);
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    expect([...(await api(url, { token: owner.token })).body.labels].sort()).toEqual([...added].sort());
  });
});
