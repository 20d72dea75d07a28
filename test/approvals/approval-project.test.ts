/**
 * Project-level approvals: settings (GET/POST /projects/:id/approvals) and project approval rules
 * (ee/lib/api/project_approvals.rb, project_approval_rules.rb; spec Project-level approvals).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, type TestUser, unique } from '../support';

let owner: TestUser;
let dev: TestUser;
let dev2: TestUser;
let outsider: TestUser;
let groupId: number;
let groupMember: TestUser;

async function newProject(): Promise<number> {
  const path = unique('apr');
  const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } });
  if (g.status !== 201) throw new Error(g.text);
  for (const u of [dev, dev2]) {
    const m = await api(`/groups/${g.body.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: 30 } });
    if (m.status !== 201) throw new Error(m.text);
  }
  const p = await api('/projects', { token: owner.token, body: { path: 'proj', namespace_id: g.body.id } });
  if (p.status !== 201) throw new Error(p.text);
  return p.body.id;
}

beforeAll(async () => {
  [owner, dev, dev2, outsider, groupMember] = await Promise.all([createUser(), createUser(), createUser(), createUser(), createUser()]);
  const path = unique('aprg');
  const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } });
  groupId = g.body.id;
  await api(`/groups/${groupId}/members`, { token: owner.token, body: { user_id: groupMember.id, access_level: 30 } });
});

const SETTINGS_KEYS = [
  'approvers',
  'approver_groups',
  'approvals_before_merge',
  'reset_approvals_on_push',
  'selective_code_owner_removals',
  'disable_overriding_approvers_per_merge_request',
  'merge_requests_author_approval',
  'merge_requests_disable_committers_approval',
  'require_password_to_approve',
  'require_reauthentication_to_approve',
];

describe('GET/POST /projects/:id/approvals', () => {
  it("answers GitLab's defaults in ApprovalSettings order", async () => {
    const pid = await newProject();
    const res = await api(`/projects/${pid}/approvals`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(SETTINGS_KEYS);
    expect(res.body).toEqual({
      approvers: [],
      approver_groups: [],
      approvals_before_merge: 0,
      reset_approvals_on_push: true,
      selective_code_owner_removals: false,
      disable_overriding_approvers_per_merge_request: false,
      merge_requests_author_approval: false,
      merge_requests_disable_committers_approval: false,
      require_password_to_approve: false,
      require_reauthentication_to_approve: false,
    });
  });

  it('changes settings (201) and reads them back', async () => {
    const pid = await newProject();
    const res = await api(`/projects/${pid}/approvals`, {
      token: owner.token,
      body: { reset_approvals_on_push: false, disable_overriding_approvers_per_merge_request: true, merge_requests_author_approval: true, merge_requests_disable_committers_approval: true, require_password_to_approve: true },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      reset_approvals_on_push: false,
      disable_overriding_approvers_per_merge_request: true,
      merge_requests_author_approval: true,
      merge_requests_disable_committers_approval: true,
      require_password_to_approve: true,
      // The same setting under its newer name.
      require_reauthentication_to_approve: true,
    });
    const back = await api(`/projects/${pid}/approvals`, { token: owner.token });
    expect(back.body).toEqual(res.body);
    // Form encoding works the same way.
    const form = await api(`/projects/${pid}/approvals`, { token: owner.token, form: { merge_requests_author_approval: 'false' } });
    expect(form.status).toBe(201);
    expect(form.body.merge_requests_author_approval).toBe(false);
    expect(form.body.disable_overriding_approvers_per_merge_request).toBe(true);
  });

  it('needs at least one parameter', async () => {
    const pid = await newProject();
    const res = await api(`/projects/${pid}/approvals`, { token: owner.token, method: 'POST' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error:
        'approvals_before_merge, reset_approvals_on_push, selective_code_owner_removals, disable_overriding_approvers_per_merge_request, merge_requests_author_approval, merge_requests_disable_committers_approval, require_password_to_approve, require_reauthentication_to_approve are missing, at least one parameter must be provided',
    });
  });

  it('refuses selective code owner removals while approvals are reset on push, and writes nothing', async () => {
    const pid = await newProject();
    const res = await api(`/projects/${pid}/approvals`, { token: owner.token, body: { selective_code_owner_removals: true, merge_requests_author_approval: true } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { base: ['selective_code_owner_removals can only be enabled when reset_approvals_on_push is disabled'] } });
    expect((await api(`/projects/${pid}/approvals`, { token: owner.token })).body.merge_requests_author_approval).toBe(false);
    const ok = await api(`/projects/${pid}/approvals`, { token: owner.token, body: { selective_code_owner_removals: true, reset_approvals_on_push: false } });
    expect(ok.status).toBe(201);
    expect(ok.body.selective_code_owner_removals).toBe(true);
  });

  it('approvals_before_merge (deprecated) sets the any_approver rule', async () => {
    const pid = await newProject();
    const res = await api(`/projects/${pid}/approvals`, { token: owner.token, body: { approvals_before_merge: 2 } });
    expect(res.status).toBe(201);
    expect(res.body.approvals_before_merge).toBe(2);
    const rules = await api(`/projects/${pid}/approval_rules`, { token: owner.token });
    expect(rules.body.map((r: any) => [r.name, r.rule_type, r.approvals_required])).toEqual([['All Members', 'any_approver', 2]]);
    await api(`/projects/${pid}/approvals`, { token: owner.token, body: { approvals_before_merge: 3 } });
    const again = await api(`/projects/${pid}/approval_rules`, { token: owner.token });
    expect(again.body.map((r: any) => r.approvals_required)).toEqual([3]);
  });
});

const RULE_KEYS = ['id', 'name', 'rule_type', 'eligible_approvers', 'approvals_required', 'users', 'groups', 'contains_hidden_groups', 'report_type', 'protected_branches', 'applies_to_all_protected_branches'];

describe('project approval rules', () => {
  it('creates a regular rule: users filtered to project members, group members eligible, ProjectApprovalRule field order', async () => {
    const pid = await newProject();
    const res = await api(`/projects/${pid}/approval_rules`, {
      token: owner.token,
      body: { name: 'Security', approvals_required: 2, user_ids: [dev.id, outsider.id], group_ids: [groupId] },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(RULE_KEYS);
    expect(res.body).toMatchObject({ name: 'Security', rule_type: 'regular', approvals_required: 2, contains_hidden_groups: false, report_type: null, protected_branches: [], applies_to_all_protected_branches: false });
    expect(res.body.users.map((u: any) => u.id)).toEqual([dev.id]);
    expect(Object.keys(res.body.users[0])).toEqual(['id', 'username', 'name', 'state', 'avatar_url', 'web_url']);
    expect(res.body.groups.map((g: any) => g.id)).toEqual([groupId]);
    // The group's creator (owner) is a member of it too.
    expect(res.body.eligible_approvers.map((u: any) => u.id)).toEqual([owner.id, dev.id, groupMember.id].sort((a, b) => a - b));
    const got = await api(`/projects/${pid}/approval_rules/${res.body.id}`, { token: owner.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('accepts usernames and the deprecated users/groups aliases, comma-separated too', async () => {
    const pid = await newProject();
    const a = await api(`/projects/${pid}/approval_rules`, { token: owner.token, form: { name: 'a', approvals_required: '1', usernames: `${dev.username},${dev2.username}` } });
    expect(a.status).toBe(201);
    expect(a.body.users.map((u: any) => u.id).sort()).toEqual([dev.id, dev2.id].sort());
    const b = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'b', approvals_required: 1, users: `${dev.id}`, groups: [groupId] } });
    expect(b.status).toBe(201);
    expect(b.body.users.map((u: any) => u.id)).toEqual([dev.id]);
    expect(b.body.groups.map((g: any) => g.id)).toEqual([groupId]);
  });

  it('a rule without approvers is any_approver; only one per project', async () => {
    const pid = await newProject();
    const res = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'Any', approvals_required: 1 } });
    expect(res.status).toBe(201);
    expect(res.body.rule_type).toBe('any_approver');
    const again = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'Any two', approvals_required: 2, rule_type: 'any_approver' } });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: { rule_type: ['any-approver for the project already exists'] } });
    const list = await api(`/projects/${pid}/approval_rules`, { token: owner.token });
    expect(list.body.length).toBe(1);
  });

  it('validates name uniqueness, approvals_required range, rule_type and report_type', async () => {
    const pid = await newProject();
    expect((await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'x', approvals_required: 1, user_ids: [dev.id] } })).status).toBe(201);
    const dup = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'x', approvals_required: 1, user_ids: [dev.id] } });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ message: { name: ['has already been taken'] } });
    const big = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'y', approvals_required: 101, user_ids: [dev.id] } });
    expect(big.status).toBe(400);
    expect(big.body).toEqual({ message: { approvals_required: ['must be less than or equal to 100'] } });
    const neg = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'y', approvals_required: -1, user_ids: [dev.id] } });
    expect(neg.body).toEqual({ message: { approvals_required: ['must be greater than or equal to 0'] } });
    const missing = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { approvals_required: 1 } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'name is missing' });
    const both = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: {} });
    expect(both.body).toEqual({ error: 'name is missing, approvals_required is missing' });
    const badType = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'z', approvals_required: 1, rule_type: 'nonsense' } });
    expect(badType.status).toBe(400);
    const badReport = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'z', approvals_required: 1, report_type: 'nonsense' } });
    expect(badReport.body).toEqual({ error: 'report_type does not have a valid value' });
    const noReport = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'z', approvals_required: 1, rule_type: 'report_approver' } });
    expect(noReport.body).toEqual({ message: { report_type: ["can't be blank"] } });
    const list = await api(`/projects/${pid}/approval_rules`, { token: owner.token });
    expect(list.body.map((r: any) => r.name)).toEqual(['x']);
  });

  it('accepts the deprecated vulnerability attributes', async () => {
    const pid = await newProject();
    const res = await api(`/projects/${pid}/approval_rules`, {
      token: owner.token,
      body: { name: 'Vuln', approvals_required: 1, user_ids: [dev.id], scanners: ['sast', 'dast'], severity_levels: ['high'], vulnerabilities_allowed: 2, vulnerability_states: ['newly_detected', 'detected'] },
    });
    expect(res.status).toBe(201);
    const bad = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'Vuln2', approvals_required: 1, user_ids: [dev.id], scanners: ['bogus'] } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: { scanners: ['is not included in the list'] } });
  });

  it('scopes rules to protected branches of the project only', async () => {
    const pid = await newProject();
    const other = await newProject();
    const pb = await api(`/projects/${pid}/protected_branches`, { token: owner.token, body: { name: 'main' } });
    expect(pb.status).toBe(201);
    const foreign = await api(`/projects/${other}/protected_branches`, { token: owner.token, body: { name: 'main' } });
    const res = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'Scoped', approvals_required: 1, user_ids: [dev.id], protected_branch_ids: [pb.body.id, foreign.body.id] } });
    expect(res.status).toBe(201);
    expect(res.body.protected_branches.map((b: any) => [b.id, b.name])).toEqual([[pb.body.id, 'main']]);
    expect(Object.keys(res.body.protected_branches[0]).slice(0, 3)).toEqual(['id', 'name', 'push_access_levels']);
    const all = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'All protected', approvals_required: 1, user_ids: [dev.id], applies_to_all_protected_branches: true } });
    expect(all.body.applies_to_all_protected_branches).toBe(true);
    expect(all.body.protected_branches.map((b: any) => b.id)).toEqual([pb.body.id]);
  });

  it('updates a rule: name, count, users replaced, groups kept when not given; name and approvals_required required (spec)', async () => {
    const pid = await newProject();
    const made = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'R', approvals_required: 1, user_ids: [dev.id], group_ids: [groupId] } });
    const res = await api(`/projects/${pid}/approval_rules/${made.body.id}`, { method: 'PUT', token: owner.token, body: { name: 'R2', approvals_required: 2, user_ids: [dev2.id] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'R2', approvals_required: 2 });
    expect(res.body.users.map((u: any) => u.id)).toEqual([dev2.id]);
    expect(res.body.groups.map((g: any) => g.id)).toEqual([groupId]);
    const cleared = await api(`/projects/${pid}/approval_rules/${made.body.id}`, { method: 'PUT', token: owner.token, body: { name: 'R2', approvals_required: 2, group_ids: [] } });
    expect(cleared.body.groups).toEqual([]);
    expect(cleared.body.users.map((u: any) => u.id)).toEqual([dev2.id]);
    const missing = await api(`/projects/${pid}/approval_rules/${made.body.id}`, { method: 'PUT', token: owner.token, body: { approvals_required: 3 } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'name is missing' });
    expect((await api(`/projects/${pid}/approval_rules/${made.body.id}`, { token: owner.token })).body.approvals_required).toBe(2);
  });

  it('report_approver rules are system generated: update and delete refused with 403 Prohibited', async () => {
    const pid = await newProject();
    const made = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'Coverage-Check', approvals_required: 1, rule_type: 'report_approver', report_type: 'code_coverage', user_ids: [dev.id] } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ rule_type: 'report_approver', report_type: 'code_coverage' });
    const put = await api(`/projects/${pid}/approval_rules/${made.body.id}`, { method: 'PUT', token: owner.token, body: { name: 'Coverage-Check', approvals_required: 0 } });
    expect(put.status).toBe(403);
    expect(put.body).toEqual({ message: ['Prohibited'] });
    const del = await api(`/projects/${pid}/approval_rules/${made.body.id}`, { method: 'DELETE', token: owner.token });
    expect(del.status).toBe(403);
    expect(del.body).toEqual({ message: ['Prohibited'] });
    const back = await api(`/projects/${pid}/approval_rules/${made.body.id}`, { token: owner.token });
    expect(back.body.approvals_required).toBe(1);
    // license_scanning rules belong to security policies: not listed, and not found for update/delete.
    const lic = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'License', approvals_required: 1, rule_type: 'report_approver', report_type: 'license_scanning', user_ids: [dev.id] } });
    expect(lic.status).toBe(201);
    expect((await api(`/projects/${pid}/approval_rules`, { token: owner.token })).body.map((r: any) => r.name)).toEqual(['Coverage-Check']);
    expect((await api(`/projects/${pid}/approval_rules/${lic.body.id}`, { method: 'DELETE', token: owner.token })).status).toBe(404);
    const misnamed = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'Cov', approvals_required: 1, rule_type: 'report_approver', report_type: 'code_coverage' } });
    expect(misnamed.body).toEqual({ message: { report_type: ['code_coverage only supports Coverage-Check name'] } });
  });

  it('deletes a rule (204), then 404 Not found; honours If-Unmodified-Since', async () => {
    const pid = await newProject();
    const made = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'D', approvals_required: 1, user_ids: [dev.id] } });
    const stale = await api(`/projects/${pid}/approval_rules/${made.body.id}`, { method: 'DELETE', token: owner.token, headers: { 'If-Unmodified-Since': 'Thu, 01 Jan 2015 00:00:00 GMT' } });
    expect(stale.status).toBe(412);
    const del = await api(`/projects/${pid}/approval_rules/${made.body.id}`, { method: 'DELETE', token: owner.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const gone = await api(`/projects/${pid}/approval_rules/${made.body.id}`, { token: owner.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: '404 Not found' });
    expect((await api(`/projects/${pid}/approval_rules/999999999`, { method: 'DELETE', token: owner.token })).status).toBe(404);
    const other = await newProject();
    const foreign = await api(`/projects/${other}/approval_rules`, { token: owner.token, body: { name: 'F', approvals_required: 1, user_ids: [dev.id] } });
    expect((await api(`/projects/${pid}/approval_rules/${foreign.body.id}`, { token: owner.token })).status).toBe(404);
  });

  it('lists any_approver first then regular rules by id, paginated', async () => {
    const pid = await newProject();
    const r1 = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'one', approvals_required: 1, user_ids: [dev.id] } });
    const r2 = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'two', approvals_required: 1, user_ids: [dev.id] } });
    const any = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'any', approvals_required: 0 } });
    const list = await api(`/projects/${pid}/approval_rules`, { token: owner.token });
    expect(list.body.map((r: any) => r.id)).toEqual([any.body.id, r1.body.id, r2.body.id]);
    expect(list.headers.get('x-total')).toBe('3');
    const page = await api(`/projects/${pid}/approval_rules?per_page=2&page=2`, { token: owner.token });
    expect(page.body.map((r: any) => r.id)).toEqual([r2.body.id]);
    expect(page.headers.get('x-page')).toBe('2');
  });

  it('hides groups the caller cannot see and flags them', async () => {
    const pid = await newProject();
    const path = unique('hid');
    const hidden = await api('/groups', { token: outsider.token, body: { name: path, path, visibility: 'private' } });
    // The outsider (maintainer of the project) adds their private group; the owner cannot see it.
    await api(`/projects/${pid}/members`, { token: owner.token, body: { user_id: outsider.id, access_level: 40 } });
    const made = await api(`/projects/${pid}/approval_rules`, { token: outsider.token, body: { name: 'H', approvals_required: 1, group_ids: [hidden.body.id] } });
    expect(made.status).toBe(201);
    expect(made.body.groups.map((g: any) => g.id)).toEqual([hidden.body.id]);
    const seen = await api(`/projects/${pid}/approval_rules/${made.body.id}`, { token: owner.token });
    expect(seen.body.groups).toEqual([]);
    expect(seen.body.contains_hidden_groups).toBe(true);
    // The owner's update keeps the hidden group unless remove_hidden_groups.
    await api(`/projects/${pid}/approval_rules/${made.body.id}`, { method: 'PUT', token: owner.token, body: { name: 'H', approvals_required: 1, group_ids: [] } });
    expect((await api(`/projects/${pid}/approval_rules/${made.body.id}`, { token: outsider.token })).body.groups.map((g: any) => g.id)).toEqual([hidden.body.id]);
    await api(`/projects/${pid}/approval_rules/${made.body.id}`, { method: 'PUT', token: owner.token, body: { name: 'H', approvals_required: 1, group_ids: [], remove_hidden_groups: true } });
    expect((await api(`/projects/${pid}/approval_rules/${made.body.id}`, { token: outsider.token })).body.groups).toEqual([]);
  });

  it('long id lists stay within D1 limits (no 500) and unknown ids are dropped', async () => {
    const pid = await newProject();
    const many = Array.from({ length: 250 }, (_, i) => 900000 + i);
    const res = await api(`/projects/${pid}/approval_rules`, {
      token: owner.token,
      body: { name: 'Many', approvals_required: 1, user_ids: [...many, dev.id], group_ids: [...many, groupId], usernames: many.map((i) => `nobody${i}`), protected_branch_ids: many },
    });
    expect(res.status).toBe(201);
    expect(res.body.users.map((u: any) => u.id)).toEqual([dev.id]);
    expect(res.body.groups.map((g: any) => g.id)).toEqual([groupId]);
    expect(res.body.protected_branches).toEqual([]);
  });

  it('blocked users stay on the rule but are not eligible approvers (active users only)', async () => {
    const pid = await newProject();
    const blocked = await createUser();
    await api(`/projects/${pid}/members`, { token: owner.token, body: { user_id: blocked.id, access_level: 30 } });
    const made = await api(`/projects/${pid}/approval_rules`, { token: owner.token, body: { name: 'B', approvals_required: 1, user_ids: [blocked.id, dev.id] } });
    expect(made.body.eligible_approvers.map((u: any) => u.id).sort((a: number, b: number) => a - b)).toEqual([dev.id, blocked.id].sort((a, b) => a - b));
    const block = await api(`/users/${blocked.id}/block`, { token: rootToken, method: 'POST' });
    expect(block.status).toBe(201);
    const got = await api(`/projects/${pid}/approval_rules/${made.body.id}`, { token: owner.token });
    expect(got.body.users.map((u: any) => u.id).sort((a: number, b: number) => a - b)).toEqual([dev.id, blocked.id].sort((a, b) => a - b));
    expect(got.body.eligible_approvers.map((u: any) => u.id)).toEqual([dev.id]);
  });
});
