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

describe('dates that name no day', () => {
  it('refuses created_at 2024-02-30 (Ruby DateTime.parse raises) and creates nothing', async () => {
    const project = await mkProject();
    for (const created_at of ['2024-02-30', '2023-02-29T10:00:00Z', '2024-04-31T00:00:00+02:00']) {
      const res = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'dated', created_at } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'created_at is invalid' });
    }
    expect(await issueIids(project.id)).toEqual([]);
    const leap = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'leap', created_at: '2024-02-29T12:00:00Z' } });
    expect(leap.status).toBe(201);
    expect(leap.body.created_at).toBe('2024-02-29T12:00:00.000Z');
  });

  it('refuses milestone and epic list filters on impossible dates', async () => {
    const project = await mkProject();
    const ms = await api(`/projects/${project.id}/milestones?updated_before=2023-02-29T00:00:00Z`, { token: owner.token });
    expect(ms.status).toBe(400);
    expect(ms.body).toEqual({ error: 'updated_before is invalid' });
    const ep = await api(`/groups/${group.id}/epics?created_after=2024-02-30`, { token: owner.token });
    expect(ep.status).toBe(400);
    expect(ep.body).toEqual({ error: 'created_after is invalid' });
  });
});

describe('CommaSeparatedToArray coercions (labels, assignee_ids)', () => {
  it('treats labels that are neither a string nor an array as no labels, and array items through to_s', async () => {
    const project = await mkProject();
    const hash = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'h', labels: { a: 'b' } } });
    expect(hash.status).toBe(201);
    expect(hash.body.labels).toEqual([]);
    const num = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'n', labels: 5 } });
    expect(num.status).toBe(201);
    expect(num.body.labels).toEqual([]);
    const items = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'i', labels: [1, 'two,three', null] } });
    expect(items.status).toBe(201);
    expect(items.body.labels).toEqual(['1', 'three', 'two']);
    const labels = await api(`/projects/${project.id}/labels`, { token: owner.token });
    expect(labels.body.map((l: { name: string }) => l.name).sort()).toEqual(['1', 'three', 'two']);
  });

  it('takes assignee_ids as a comma-separated string, as GitLab (CommaSeparatedToIntegerArray)', async () => {
    const project = await mkProject();
    const res = await api(`/projects/${project.id}/issues`, { token: owner.token, body: { title: 'a', assignee_ids: `${owner.id}` } });
    expect(res.status).toBe(201);
    expect(res.body.assignees.map((u: { id: number }) => u.id)).toEqual([owner.id]);
    // Form bodies too; a bignum id names nobody (no 400, no 500).
    const form = await api(`/projects/${project.id}/issues/${res.body.iid}`, { method: 'PUT', token: owner.token, form: { assignee_ids: '99999999999999999999999' } });
    expect(form.status).toBe(200);
    const back = await api(`/projects/${project.id}/issues/${res.body.iid}`, { token: owner.token });
    expect(back.status).toBe(200);
    expect(back.body.assignees.map((u: { id: number }) => u.id)).not.toContain(99999999999999999999999);
  });
});
