/**
 * Issue 13: the approval settings and approval rule writes cost at most 3 storage round trips once the
 * caller is cached (the lookup and every read the write needs in one batch, then the write with its
 * answer read back in the same batch), and answer what they answered before.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

let owner: TestUser;
let dev: TestUser;

async function commit(pid: number, branch: string) {
  const res = await api(`/projects/${pid}/repository/commits`, {
    token: owner.token,
    body: { branch, commit_message: unique('c'), actions: [{ action: 'create', file_path: `${unique('f')}.txt`, content: 'x\n' }] },
  });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
}

async function setup() {
  const path = unique('awr');
  const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } });
  await api(`/groups/${g.body.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } });
  const p = await api('/projects', { token: owner.token, body: { path: 'p', namespace_id: g.body.id } });
  const pid = p.body.id as number;
  await commit(pid, 'main');
  await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: 'feature', ref: 'main' } });
  await commit(pid, 'feature');
  const m = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { source_branch: 'feature', target_branch: 'main', title: 'MR' } });
  const P = `/projects/${pid}`;
  const M = `${P}/merge_requests/${m.body.iid}`;
  // The caller cached and the merge request's system rules built, as for any later request.
  await api(`${M}/approvals`, { token: owner.token });
  return { P, M, groupId: g.body.id as number, groupName: path };
}

beforeAll(async () => {
  [owner, dev] = await Promise.all([createUser(), createUser()]);
});

describe('approval writes in at most 3 round trips', () => {
  it('project settings and rules: the answer is what a later read shows', async () => {
    const { P } = await setup();
    const created = await api(`${P}/approval_rules`, { token: owner.token, body: { name: 'base', approvals_required: 1 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'base', rule_type: 'any_approver', approvals_required: 1, users: [], groups: [] });
    expect(trips(created)).toBeLessThanOrEqual(3);
    expect((await api(`${P}/approval_rules/${created.body.id}`, { token: owner.token })).body).toEqual(created.body);

    const settings = await api(`${P}/approvals`, { token: owner.token, body: { approvals_before_merge: 2, merge_requests_author_approval: true } });
    expect(settings.status).toBe(201);
    expect(settings.body).toMatchObject({ approvals_before_merge: 2, merge_requests_author_approval: true });
    expect(trips(settings)).toBeLessThanOrEqual(3);
    expect((await api(`${P}/approvals`, { token: owner.token })).body).toEqual(settings.body);
    // approvals_before_merge set the any_approver rule's count in the same batch.
    expect((await api(`${P}/approval_rules/${created.body.id}`, { token: owner.token })).body.approvals_required).toBe(2);

    const updated = await api(`${P}/approval_rules/${created.body.id}`, { method: 'PUT', token: owner.token, body: { name: 'renamed', approvals_required: 3 } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.body.id, name: 'renamed', approvals_required: 3 });
    expect(trips(updated)).toBeLessThanOrEqual(3);
    expect((await api(`${P}/approval_rules/${created.body.id}`, { token: owner.token })).body).toEqual(updated.body);

    const taken = await api(`${P}/approval_rules`, { token: owner.token, body: { name: 'other', approvals_required: 1 } });
    expect(taken).toMatchObject({ status: 400, body: { message: { rule_type: ['any-approver for the project already exists'] } } });

    const deleted = await api(`${P}/approval_rules/${created.body.id}`, { method: 'DELETE', token: owner.token });
    expect(deleted.status).toBe(204);
    expect(trips(deleted)).toBeLessThanOrEqual(3);
    expect((await api(`${P}/approval_rules/${created.body.id}`, { token: owner.token })).status).toBe(404);
  });

  it('project rules naming users, groups and protected branches: members only, hidden groups kept, branches presented', async () => {
    const { P, groupId } = await setup();
    const stranger = await createUser();
    const hiddenPath = unique('hid');
    const hidden = await api('/groups', { token: stranger.token, body: { name: hiddenPath, path: hiddenPath, visibility: 'private' } });
    const prot = await api(`${P}/protected_branches`, { token: owner.token, body: { name: 'release-*', push_access_level: 40 } });
    expect(prot.status).toBe(201);
    const res = await api(`${P}/approval_rules`, {
      token: owner.token,
      body: { name: 'named', approvals_required: 1, user_ids: [dev.id, stranger.id], usernames: [owner.username], group_ids: [groupId], protected_branch_ids: [prot.body.id] },
    });
    expect(res.status).toBe(201);
    expect(trips(res)).toBeLessThanOrEqual(3);
    // The stranger is no member of the project: left out (Project#members_among).
    expect(res.body.users.map((u: { id: number }) => u.id).sort()).toEqual([owner.id, dev.id].sort());
    expect(res.body.groups.map((g: { id: number }) => g.id)).toEqual([groupId]);
    expect(res.body.protected_branches).toMatchObject([{ id: prot.body.id, name: 'release-*', push_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }] }]);
    expect((await api(`${P}/approval_rules/${res.body.id}`, { token: owner.token })).body).toEqual(res.body);

    // A group the owner cannot see, put on the rule by its owner, stays when the owner changes the groups.
    expect((await api(`/groups/${hidden.body.id}/members`, { token: stranger.token, body: { user_id: owner.id, access_level: 30 } })).status).toBe(201);
    await api(`${P}/approval_rules/${res.body.id}`, { method: 'PUT', token: owner.token, body: { name: 'named', approvals_required: 1, group_ids: [groupId, hidden.body.id] } });
    expect((await api(`/groups/${hidden.body.id}/members/${owner.id}`, { method: 'DELETE', token: stranger.token })).status).toBe(204);
    const put = await api(`${P}/approval_rules/${res.body.id}`, { method: 'PUT', token: owner.token, body: { name: 'named', approvals_required: 2, group_ids: [] } });
    expect(put.status).toBe(200);
    expect(trips(put)).toBeLessThanOrEqual(3);
    expect(put.body).toMatchObject({ approvals_required: 2, groups: [], contains_hidden_groups: true, users: expect.arrayContaining([expect.objectContaining({ id: dev.id })]) });
    const removed = await api(`${P}/approval_rules/${res.body.id}`, { method: 'PUT', token: owner.token, body: { name: 'named', approvals_required: 2, group_ids: [], remove_hidden_groups: true } });
    expect(removed.body).toMatchObject({ groups: [], contains_hidden_groups: false });
  });

  it('rules naming a subgroup: the lookup, the rules and the groups\' full names in one round trip', async () => {
    const { P, M, groupId, groupName } = await setup();
    const sub = await api('/groups', { token: owner.token, body: { name: 'Sub', path: 'sub', parent_id: groupId, visibility: 'private' } });
    expect(sub.status).toBe(201);
    const rule = await api(`${P}/approval_rules`, { token: owner.token, body: { name: 'sub', approvals_required: 1, group_ids: [sub.body.id] } });
    expect(rule.body.groups).toMatchObject([{ id: sub.body.id, full_name: `${groupName} / Sub` }]);
    const read = await api(`${P}/approval_rules/${rule.body.id}`, { token: owner.token });
    expect(read.body.groups).toMatchObject([{ id: sub.body.id, full_name: `${groupName} / Sub` }]);
    expect(trips(read)).toBeLessThanOrEqual(1);
    const mrRule = await api(`${M}/approval_rules`, { token: owner.token, body: { name: 'sub', approvals_required: 1, group_ids: [sub.body.id] } });
    expect(mrRule.body.groups).toMatchObject([{ id: sub.body.id, full_name: `${groupName} / Sub` }]);
    const mrRead = await api(`${M}/approval_rules/${mrRule.body.id}`, { token: owner.token });
    expect(mrRead.body.groups).toMatchObject([{ id: sub.body.id, full_name: `${groupName} / Sub` }]);
    expect(trips(mrRead)).toBeLessThanOrEqual(2);
  });

  it('merge request rules and the deprecated POST .../approvals: the answer is what a later read shows', async () => {
    const { M } = await setup();
    const created = await api(`${M}/approval_rules`, { token: owner.token, body: { name: 'mine', approvals_required: 1, user_ids: [dev.id] } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'mine', rule_type: 'regular', approvals_required: 1, eligible_approvers: [{ id: dev.id }], users: [{ id: dev.id }] });
    expect(trips(created)).toBeLessThanOrEqual(3);
    expect((await api(`${M}/approval_rules/${created.body.id}`, { token: owner.token })).body).toEqual(created.body);

    const updated = await api(`${M}/approval_rules/${created.body.id}`, { method: 'PUT', token: owner.token, body: { name: 'mine', approvals_required: 2, usernames: [owner.username] } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ approvals_required: 2, users: [{ id: owner.id }] });
    expect(trips(updated)).toBeLessThanOrEqual(3);
    expect((await api(`${M}/approval_rules/${created.body.id}`, { token: owner.token })).body).toEqual(updated.body);

    const dup = await api(`${M}/approval_rules`, { token: owner.token, body: { name: 'mine', approvals_required: 1, user_ids: [dev.id] } });
    expect(dup).toMatchObject({ status: 400, body: { message: { name: ['has already been taken'] } } });

    // The deprecated change of approvals_required creates the any_approver rule, then changes it.
    for (const n of [1, 2]) {
      const set = await api(`${M}/approvals`, { token: owner.token, body: { approvals_required: n } });
      expect(set.status).toBe(201);
      expect(trips(set)).toBeLessThanOrEqual(3);
      const state = await api(`${M}/approvals`, { token: owner.token });
      expect(set.body).toEqual(state.body);
      const rules = await api(`${M}/approval_rules`, { token: owner.token });
      expect(rules.body.filter((r: { rule_type: string }) => r.rule_type === 'any_approver').map((r: { approvals_required: number }) => r.approvals_required)).toEqual([n]);
    }

    const deleted = await api(`${M}/approval_rules/${created.body.id}`, { method: 'DELETE', token: owner.token });
    expect(deleted.status).toBe(204);
    expect(trips(deleted)).toBeLessThanOrEqual(3);
    expect((await api(`${M}/approval_rules/${created.body.id}`, { token: owner.token })).status).toBe(404);

    const reset = await api(`${M}/reset_approvals`, { method: 'PUT', token: owner.token });
    expect(reset.status).toBe(401);
    expect(trips(reset)).toBeLessThanOrEqual(3);
  });

  it('after a push, with CODEOWNERS naming users and the group: the owners are resolved in the rebuild\'s batch, writes stay within 3', async () => {
    const outsider = await createUser();
    const path = unique('cow');
    const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } });
    expect((await api(`/groups/${g.body.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } })).status).toBe(201);
    const p = await api('/projects', { token: owner.token, body: { path: 'p', namespace_id: g.body.id } });
    const pid = p.body.id as number;
    const P = `/projects/${pid}`;
    const codeowners = `* @${dev.username} @${outsider.username}\n[Docs]\n*.md @${path}\n`;
    const seed = await api(`${P}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'seed', actions: [{ action: 'create', file_path: 'CODEOWNERS', content: codeowners }, { action: 'create', file_path: 'README.md', content: 'r\n' }] },
    });
    expect(seed.status).toBe(201);
    const open = async () => {
      const branch = unique('co');
      expect((await api(`${P}/repository/branches`, { token: owner.token, body: { branch, ref: 'main' } })).status).toBe(201);
      const add = await api(`${P}/repository/commits`, { token: owner.token, body: { branch, commit_message: 'docs', actions: [{ action: 'create', file_path: `${branch}.md`, content: 'x\n' }] } });
      expect(add.status).toBe(201);
      const m = await api(`${P}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title: unique('MR') } });
      expect(m.status).toBe(201);
      // A push after it was opened: its code owner rules are stale until the next request rebuilds them.
      await commit(pid, branch);
      return `${P}/merge_requests/${m.body.iid}`;
    };
    const codeOwnerRules = async (M: string) =>
      (await api(`${M}/approval_rules`, { token: owner.token })).body
        .filter((r: { rule_type: string }) => r.rule_type === 'code_owner')
        .map((r: any) => [r.section, r.name, r.users.map((u: { id: number }) => u.id), r.groups.map((x: { id: number }) => x.id)]);

    const merging = await open();
    await api('/user', { token: owner.token });
    const merged = await api(`${merging}/merge`, { method: 'PUT', token: owner.token });
    expect(merged.status).toBe(200);
    expect(merged.body.state).toBe('merged');
    expect(trips(merged)).toBeLessThanOrEqual(3);
    // The outsider is no member of the project: left out; the group is the project's own.
    const expected = [
      ['codeowners', '*', [dev.id], []],
      ['Docs', '*.md', [], [g.body.id]],
    ];
    expect(await codeOwnerRules(merging)).toEqual(expected);

    const approving = await open();
    await api('/user', { token: dev.token });
    const approved = await api(`${approving}/approve`, { method: 'POST', token: dev.token });
    expect(approved.status).toBe(201);
    expect(trips(approved)).toBeLessThanOrEqual(3);
    expect(await codeOwnerRules(approving)).toEqual(expected);

    const ruled = await open();
    await api('/user', { token: owner.token });
    const created = await api(`${ruled}/approval_rules`, { token: owner.token, body: { name: 'mine', approvals_required: 1, user_ids: [dev.id] } });
    expect(created.status).toBe(201);
    expect(trips(created)).toBeLessThanOrEqual(3);
    expect(await codeOwnerRules(ruled)).toEqual(expected);
    await commit(pid, (await api(ruled, { token: owner.token })).body.source_branch);
    const updated = await api(`${ruled}/approval_rules/${created.body.id}`, { method: 'PUT', token: owner.token, body: { name: 'mine', approvals_required: 2 } });
    expect(updated.body).toMatchObject({ approvals_required: 2, users: [{ id: dev.id }] });
    expect(trips(updated)).toBeLessThanOrEqual(3);
    await commit(pid, (await api(ruled, { token: owner.token })).body.source_branch);
    const deleted = await api(`${ruled}/approval_rules/${created.body.id}`, { method: 'DELETE', token: owner.token });
    expect(deleted.status).toBe(204);
    expect(trips(deleted)).toBeLessThanOrEqual(3);
    expect(await codeOwnerRules(ruled)).toEqual(expected);
  });
});
