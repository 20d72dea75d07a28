/**
 * Hostile but plausible client input on the single-issue endpoints (GitLab lib/api/issues.rb):
 * every refusal is GitLab's 4xx body and leaves nothing behind; nothing answers 500.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let group: { id: number; full_path: string };

async function mkProject() {
  const res = await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.id, visibility: 'private' } });
  expect(res.status).toBe(201);
  return res.body as { id: number };
}

async function issueIids(projectId: number): Promise<number[]> {
  const res = await api(`/projects/${projectId}/issues?per_page=100`, { token: owner.token });
  expect(res.status).toBe(200);
  return (res.body as { iid: number }[]).map((i) => i.iid).sort((a, b) => a - b);
}

beforeAll(async () => {
  owner = await createUser();
  const path = unique('g');
  const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } });
  expect(g.status).toBe(201);
  group = g.body;
});

describe('POST /projects/:id/issues with an explicit iid', () => {
  it('refuses an iid beyond a PostgreSQL integer (GitLab: 500) so later iids stay exact', async () => {
    const project = await mkProject();
    for (const iid of [2147483648, 9007199254740991, '99999999999999999999']) {
      const res = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'big', iid } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'iid is invalid' });
    }
    expect(await issueIids(project.id)).toEqual([]);
  });

  it('takes the largest integer iid, and the next issue still gets an exact iid that lists and reads back', async () => {
    const project = await mkProject();
    const top = await api(`/projects/${project.id}/issues`, { token: owner.token, form: { title: 'top', iid: '2147483647' } });
    expect(top.status).toBe(201);
    expect(top.body.iid).toBe(2147483647);
    const next = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'next' } });
    expect(next.status).toBe(201);
    expect(next.body.iid).toBe(2147483648);
    expect(await issueIids(project.id)).toEqual([2147483647, 2147483648]);
    const one = await api(`/projects/${project.id}/issues/2147483648`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(one.body.title).toBe('next');
    const groupList = await api(`/groups/${group.id}/issues?iids[]=2147483648`, { token: owner.token });
    expect(groupList.status).toBe(200);
    expect(groupList.body.map((i: { iid: number }) => i.iid)).toEqual([2147483648]);
  });
});
