/**
 * Assignee and reviewer counts (Issuable::MAX_NUMBER_OF_ASSIGNEES_OR_REVIEWERS = 200): more than 200
 * is GitLab's model error, more than 1,000 ids the `limit:` words, and 120 real users are all kept.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let owner: TestUser;
let project: { id: number };

const ids = (n: number, from = 1_000_000) => Array.from({ length: n }, (_, i) => from + i);

beforeAll(async () => {
  owner = await createUser();
  const p = await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'public' } });
  expect(p.status).toBe(201);
  project = p.body;
  const first = await api(`/projects/${project.id}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] } });
  expect(first.status).toBe(201);
});

async function issueTitles(): Promise<string[]> {
  const res = await api(`/projects/${project.id}/issues?per_page=100`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.map((i: { title: string }) => i.title);
}

describe('issue assignees', () => {
  it('refuses more than 200 assignees with the model message and creates no issue', async () => {
    const title = unique('many');
    const res = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title, assignee_ids: ids(201) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { assignees: ['total must be less than or equal to 200'] } });
    expect(await issueTitles()).not.toContain(title);
  });

  it('refuses more than 1,000 ids at the parameter, in Grape limit words', async () => {
    const title = unique('huge');
    const res = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title, assignee_ids: ids(1001) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'assignee_ids must contain at most 1000 items' });
    expect(await issueTitles()).not.toContain(title);
  });

  it('refuses an update to more than 200 assignees and keeps the old ones', async () => {
    const created = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: unique('upd'), assignee_ids: [owner.id] } });
    expect(created.status).toBe(201);
    const res = await api(`/projects/${project.id}/issues/${created.body.iid}`, { method: 'PUT', token: owner.token, body: { assignee_ids: ids(250) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { assignees: ['total must be less than or equal to 200'] } });
    const back = await api(`/projects/${project.id}/issues/${created.body.iid}`, { token: owner.token });
    expect(back.body.assignees.map((u: { id: number }) => u.id)).toEqual([owner.id]);
  });

  it('keeps all of 120 assignable users (more than the old silent cut at 100)', async () => {
    const made = await Promise.all(
      Array.from({ length: 120 }, async () => {
        const username = unique('as');
        const res = await api('/users', { token: rootToken, body: { email: `${username}@example.com`, name: username, username, password: `Pw-${unique('p')}-long`, skip_confirmation: true } });
        expect(res.status).toBe(201);
        return res.body.id as number;
      }),
    );
    const res = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: unique('crowd'), assignee_ids: made } });
    expect(res.status).toBe(201);
    expect(res.body.assignees.map((u: { id: number }) => u.id)).toEqual(made);
  });
});

describe('merge request reviewers and assignees', () => {
  it('refuses more than 200 reviewers with the model message and opens no merge request', async () => {
    const branch = unique('f');
    expect((await api(`/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch, ref: 'main' } })).status).toBe(201);
    const title = unique('mr');
    const res = await api(`/projects/${project.id}/merge_requests`, { token: owner.token, body: { title, source_branch: branch, target_branch: 'main', reviewer_ids: ids(201), assignee_ids: ids(300) } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { assignees: ['total must be less than or equal to 200'], reviewers: ['total must be less than or equal to 200'] } });
    const list = await api(`/projects/${project.id}/merge_requests?source_branch=${branch}`, { token: owner.token });
    expect(list.body).toEqual([]);

    const mr = await api(`/projects/${project.id}/merge_requests`, { token: owner.token, body: { title, source_branch: branch, target_branch: 'main' } });
    expect(mr.status).toBe(201);
    const upd = await api(`/projects/${project.id}/merge_requests/${mr.body.iid}`, { method: 'PUT', token: owner.token, body: { reviewer_ids: ids(201) } });
    expect(upd.status).toBe(400);
    expect(upd.body).toEqual({ message: { reviewers: ['total must be less than or equal to 200'] } });
    expect((await api(`/projects/${project.id}/merge_requests/${mr.body.iid}`, { token: owner.token })).body.reviewers).toEqual([]);
  });
});
