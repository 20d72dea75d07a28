/**
 * PUT /projects/:id/transfer and the group labels and milestones the project's issues and merge
 * requests use (Projects::TransferService#transfer_missing_group_resources: Labels::TransferService,
 * Milestones::TransferService): those the new namespace does not offer become project copies, those it
 * offers by title are reused, and the issuables point at them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let u: TestUser;

beforeAll(async () => {
  u = await createUser();
});

async function group(parent_id?: number) {
  const path = unique('tp');
  const res = await api('/groups', { token: u.token, body: { name: path, path, ...(parent_id ? { parent_id } : {}) } });
  expect(res.status).toBe(201);
  return res.body as { id: number; full_path: string };
}

async function ok(res: Promise<{ status: number; body: any; text: string }>, status = 201) {
  const r = await res;
  expect(r.status, r.text).toBe(status);
  return r.body;
}

const groupLabel = (g: number, name: string, extra: Record<string, unknown> = {}) => ok(api(`/groups/${g}/labels`, { token: u.token, body: { name, color: '#112233', ...extra } }));
const groupMilestone = (g: number, title: string, extra: Record<string, unknown> = {}) => ok(api(`/groups/${g}/milestones`, { token: u.token, body: { title, ...extra } }));

/** A project in `namespace_id` with a merge request of `feature` into `main`. */
async function projectWithMr(namespace_id: number, mr: Record<string, unknown>) {
  const p = await ok(api('/projects', { token: u.token, body: { path: unique('p'), namespace_id } }));
  await ok(api(`/projects/${p.id}/repository/commits`, { token: u.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] } }));
  await ok(api(`/projects/${p.id}/repository/commits`, { token: u.token, body: { branch: 'feature', start_branch: 'main', commit_message: 'f', actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }] } }));
  const m = await ok(api(`/projects/${p.id}/merge_requests`, { token: u.token, body: { title: 'mr', source_branch: 'feature', target_branch: 'main', ...mr } }));
  return { id: p.id as number, mr: m.iid as number };
}

const transfer = (project: number, namespace: number) => ok(api(`/projects/${project}/transfer`, { method: 'PUT', token: u.token, body: { namespace } }), 200);
const projectLabels = async (p: number) =>
  ((await ok(api(`/projects/${p}/labels?per_page=100`, { token: u.token }), 200)) as any[])
    .filter((l) => l.is_project_label)
    .map((l) => ({ id: l.id, name: l.name, color: l.color, description: l.description, priority: l.priority }));
const issueLabels = async (p: number, iid: number) =>
  ((await ok(api(`/projects/${p}/issues?iids[]=${iid}&with_labels_details=true`, { token: u.token }), 200))[0].labels as any[]).map((l) => [l.name, l.id]).sort();

describe('PUT /projects/:id/transfer: group labels and milestones', () => {
  it('copies what the new group lacks into the project, reuses what it has by title, and re-points issues and merge requests', async () => {
    const top = await group();
    const old = await group(top.id);
    const target = await group();
    const bug = await groupLabel(old.id, 'bug', { color: '#FF0000', description: 'Broken' });
    const inherited = await groupLabel(top.id, 'inherited');
    const shared = await groupLabel(old.id, 'shared');
    const targetShared = await groupLabel(target.id, 'shared');
    await groupLabel(old.id, 'unused');
    const v1 = await groupMilestone(top.id, 'v1', { description: 'first', start_date: '2026-01-01', due_date: '2026-02-01' });
    const v2 = await groupMilestone(old.id, 'v2');
    const targetV2 = await groupMilestone(target.id, 'v2');
    const p = await projectWithMr(old.id, { labels: 'bug', milestone_id: v2.id });
    const own = await ok(api(`/projects/${p.id}/labels`, { token: u.token, body: { name: 'own', color: '#000000' } }));
    const issue = await ok(api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'i', labels: 'bug,inherited,shared,own', milestone_id: v1.id } }));
    expect(await issueLabels(p.id, issue.iid)).toEqual([['bug', bug.id], ['inherited', inherited.id], ['own', own.id], ['shared', shared.id]]);

    await transfer(p.id, target.id);

    // Project copies of the labels used and not offered by the new group; `unused` and `shared` are not copied.
    const labels = await projectLabels(p.id);
    expect(labels.map((l) => l.name)).toEqual(['bug', 'inherited', 'own']);
    const copy = (name: string) => labels.find((l) => l.name === name)!;
    expect(copy('bug')).toMatchObject({ color: '#FF0000', description: 'Broken' });
    expect(copy('bug').id).not.toBe(bug.id);
    expect(copy('inherited')).toMatchObject({ color: '#112233', description: null });
    expect(await issueLabels(p.id, issue.iid)).toEqual([['bug', copy('bug').id], ['inherited', copy('inherited').id], ['own', own.id], ['shared', targetShared.id]]);
    const mr = await ok(api(`/projects/${p.id}/merge_requests/${p.mr}`, { token: u.token }), 200);
    expect(mr.labels).toEqual(['bug']);
    // The issue list filters by the copy's name.
    expect((await ok(api(`/projects/${p.id}/issues?labels=bug`, { token: u.token }), 200)).map((i: any) => i.iid)).toEqual([issue.iid]);

    // v1 (of the old group's parent) is copied with its fields as the project's first milestone; v2 is the new group's.
    const milestones = await ok(api(`/projects/${p.id}/milestones`, { token: u.token }), 200);
    expect(milestones).toHaveLength(1);
    expect(milestones[0]).toMatchObject({ iid: 1, project_id: p.id, title: 'v1', description: 'first', start_date: '2026-01-01', due_date: '2026-02-01', state: 'active' });
    expect(milestones[0].id).not.toBe(v1.id);
    const movedIssue = await ok(api(`/projects/${p.id}/issues/${issue.iid}`, { token: u.token }), 200);
    expect(movedIssue.milestone).toMatchObject({ id: milestones[0].id, title: 'v1' });
    expect(mr.milestone).toMatchObject({ id: targetV2.id, group_id: target.id });
    // The old group's milestone no longer counts the project's issuables.
    expect(await ok(api(`/groups/${old.id}/milestones/${v2.id}/merge_requests`, { token: u.token }), 200)).toEqual([]);
    // The next project milestone takes the next iid.
    expect((await ok(api(`/projects/${p.id}/milestones`, { token: u.token, body: { title: 'later' } }))).iid).toBe(2);
  });

  it('leaves labels and milestones of a common ancestor alone when moving within the hierarchy', async () => {
    const top = await group();
    const [a, b] = [await group(top.id), await group(top.id)];
    const parentLabel = await groupLabel(top.id, 'parent');
    const sibling = await groupLabel(a.id, 'sibling');
    const parentMilestone = await groupMilestone(top.id, 'pm');
    const p = await projectWithMr(a.id, { labels: 'parent,sibling', milestone_id: parentMilestone.id });
    await transfer(p.id, b.id);
    expect((await projectLabels(p.id)).map((l) => l.name)).toEqual(['sibling']);
    const mr = await ok(api(`/projects/${p.id}/merge_requests/${p.mr}`, { token: u.token }), 200);
    expect(mr.labels).toEqual(['parent', 'sibling']);
    expect(mr.milestone.id).toBe(parentMilestone.id);
    expect(await ok(api(`/projects/${p.id}/milestones`, { token: u.token }), 200)).toEqual([]);
    expect(sibling.id).not.toBe((await projectLabels(p.id))[0].id);
    // `parent` is still the parent group's label, offered to the project where it now is.
    const listed = (await ok(api(`/projects/${p.id}/labels?per_page=100`, { token: u.token }), 200)) as any[];
    expect(listed.find((l) => l.name === 'parent')).toMatchObject({ id: parentLabel.id, is_project_label: false });
  });

  it("moves the project's priority of a copied label to the copy", async () => {
    const old = await group();
    const target = await group();
    const prio = await groupLabel(old.id, 'prio');
    const p = await projectWithMr(old.id, { labels: 'prio' });
    // A priority set on the group label for this project (label_priorities).
    await ok(api(`/projects/${p.id}/labels/${prio.id}`, { method: 'PUT', token: u.token, body: { priority: 4 } }), 200);
    await transfer(p.id, target.id);
    const [copy] = await projectLabels(p.id);
    expect(copy).toMatchObject({ name: 'prio', priority: 4 });
    expect(copy.id).not.toBe(prio.id);
  });

  it('does nothing from a personal namespace', async () => {
    const target = await group();
    const p = await ok(api('/projects', { token: u.token, body: { path: unique('pp') } }));
    await ok(api(`/projects/${p.id}/labels`, { token: u.token, body: { name: 'mine', color: '#000000' } }));
    const issue = await ok(api(`/projects/${p.id}/issues`, { token: u.token, body: { title: 'i', labels: 'mine' } }));
    await transfer(p.id, target.id);
    expect((await projectLabels(p.id)).map((l) => l.name)).toEqual(['mine']);
    expect((await issueLabels(p.id, issue.iid)).map(([n]) => n)).toEqual(['mine']);
  });
});
