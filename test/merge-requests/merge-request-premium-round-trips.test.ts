/**
 * Issue 13 in a Premium world (the test instance runs Ultimate): a project of a group with a regular
 * approval rule, report approver rules naming a user and the group, and a CODEOWNERS file, so a merge
 * request has code owner, report approver and project rules to build and weigh. Creating one builds
 * its system rules and reads its approval state inside the write's batch; updating it (another target
 * branch, a title, reviewers) rebuilds them there too; reading it or its list stays within the read
 * budget. The round-trip budget test's create answers 409 (its branches have an open merge request
 * already), so it never reached this path. The caller is cached first, as the budget test does; the
 * branches' merge base is new to the isolate (the create reads it with the files in one round trip).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

const WRITE_BUDGET = 3;
const READ_BUDGET = 2;
let owner: TestUser;
let dev: TestUser;
let reviewer: TestUser;
let groupId: number;
let P: string;
let pid: number;

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));
const file = (file_path: string, content = 'x\n') => ({ action: 'create', file_path, content });

async function commit(branch: string, actions: Record<string, unknown>[], start?: string) {
  const res = await api(`${P}/repository/commits`, { token: owner.token, body: { branch, start_branch: start, commit_message: unique('c'), actions } });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
}

/** The request with the caller cached, as the budget test measures it. */
async function measured(path: string, method: string, body?: unknown) {
  await api('/user', { token: owner.token });
  return api(path, { method, token: owner.token, body });
}

/** A branch off main with a Markdown file (which the CODEOWNERS file gives to the group too). */
async function newBranch() {
  const branch = unique('feat');
  await commit(branch, [file(`${branch}.md`)], 'main');
  return branch;
}

/** The merge request's rules by type and name (a rebuild may give them new ids). */
const rulesOf = async (iid: number) =>
  (await api(`${P}/merge_requests/${iid}/approval_rules`, { token: owner.token })).body
    .map((r: any) => [r.rule_type, r.name, r.users.map((u: any) => u.id), r.groups.map((g: any) => g.id)])
    .sort((a: string[], b: string[]) => `${a[0]} ${a[1]}`.localeCompare(`${b[0]} ${b[1]}`));

beforeAll(async () => {
  [owner, dev, reviewer] = await Promise.all([createUser(), createUser(), createUser()]);
  const path = unique('prem');
  const group = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } });
  expect(group.status).toBe(201);
  groupId = group.body.id;
  for (const u of [dev, reviewer]) expect((await api(`/groups/${groupId}/members`, { token: owner.token, body: { user_id: u.id, access_level: 30 } })).status).toBe(201);
  const project = await api('/projects', { token: owner.token, body: { path: 'p', namespace_id: groupId } });
  expect(project.status).toBe(201);
  pid = project.body.id;
  P = `/projects/${pid}`;
  await commit('main', [file('README.md'), file('CODEOWNERS', `* @${dev.username}\n[Docs]\n*.md @${path}\n`)]);
  const rule = (body: Record<string, unknown>) => api(`${P}/approval_rules`, { token: owner.token, body });
  expect((await rule({ name: 'Two', approvals_required: 2, user_ids: [dev.id, reviewer.id] })).status).toBe(201);
  expect((await rule({ name: 'Coverage-Check', approvals_required: 1, rule_type: 'report_approver', report_type: 'code_coverage', user_ids: [dev.id] })).status).toBe(201);
  expect((await rule({ name: 'Vulnerability-Check', approvals_required: 0, rule_type: 'report_approver', report_type: 'vulnerability', group_ids: [groupId] })).status).toBe(201);
}, 60_000);

const expectedRules = () => [
  ['code_owner', '*', [dev.id], []],
  ['code_owner', '*.md', [], [groupId]],
  ['report_approver', 'Coverage-Check', [dev.id], []],
  ['report_approver', 'Vulnerability-Check', [], [groupId]],
];

describe('merge requests of a Premium project with approval rules, within the round-trip budget', () => {
  it('POST creates the merge request, builds its code owner and report approver rules and answers its approval state in the write batch', async () => {
    const branch = await newBranch();
    const res = await measured(`${P}/merge_requests`, 'POST', { source_branch: branch, target_branch: 'main', title: unique('MR') });
    expect(res.status).toBe(201);
    // Two approvals of the project rule are missing: the answer weighed the rules.
    expect(res.body).toMatchObject({ state: 'opened', detailed_merge_status: 'not_approved', source_branch: branch });
    expect(res.headers.get('x-storage-repeated-reads')).toBe('0');
    expect(trips(res)).toBeLessThanOrEqual(WRITE_BUDGET);
    expect(await rulesOf(res.body.iid)).toEqual(expectedRules());
    const state = await api(`${P}/merge_requests/${res.body.iid}/approval_state`, { token: owner.token });
    expect(state.body.rules.map((r: any) => [r.name, r.approvals_required, r.approved])).toEqual(
      expect.arrayContaining([
        ['Two', 2, false],
        ['Coverage-Check', 1, false],
      ]),
    );
  });

  it('GET one merge request and the list read what they show within the read budget, the built rules rebuilt by neither', async () => {
    const branch = await newBranch();
    const created = await api(`${P}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title: unique('MR') } });
    expect(created.status).toBe(201);
    await measured(`${P}/merge_requests/${created.body.iid}`, 'GET');
    const one = await measured(`${P}/merge_requests/${created.body.iid}`, 'GET');
    expect(one.body).toMatchObject({ iid: created.body.iid, detailed_merge_status: 'not_approved' });
    expect(trips(one)).toBeLessThanOrEqual(READ_BUDGET);
    await measured(`${P}/merge_requests`, 'GET');
    const list = await measured(`${P}/merge_requests`, 'GET');
    expect(list.body.find((m: any) => m.iid === created.body.iid)).toMatchObject({ detailed_merge_status: 'not_approved' });
    expect(trips(list)).toBeLessThanOrEqual(READ_BUDGET);
  });

  it('PUT with another target branch, a title and reviewers rebuilds the system rules in the write batch', async () => {
    const branch = await newBranch();
    const created = await api(`${P}/merge_requests`, { token: owner.token, body: { source_branch: branch, target_branch: 'main', title: unique('MR') } });
    expect(created.status).toBe(201);
    const M = `${P}/merge_requests/${created.body.iid}`;
    const title = await measured(M, 'PUT', { title: 'renamed' });
    expect(title.body).toMatchObject({ title: 'renamed', detailed_merge_status: 'not_approved' });
    expect(trips(title)).toBeLessThanOrEqual(WRITE_BUDGET);
    const reviewers = await measured(M, 'PUT', { reviewer_ids: [reviewer.id] });
    expect(reviewers.body.reviewers.map((u: any) => u.id)).toEqual([reviewer.id]);
    expect(trips(reviewers)).toBeLessThanOrEqual(WRITE_BUDGET);
    // Another target without CODEOWNERS: the code owner rules go, the report approver copies stay.
    const target = unique('target');
    await commit(target, [file('other.txt')], 'main');
    await commit(target, [{ action: 'delete', file_path: 'CODEOWNERS' }]);
    const retarget = await measured(M, 'PUT', { target_branch: target });
    expect(retarget.body).toMatchObject({ target_branch: target, detailed_merge_status: 'not_approved' });
    expect(retarget.headers.get('x-storage-repeated-reads')).toBe('0');
    expect(trips(retarget)).toBeLessThanOrEqual(WRITE_BUDGET);
    expect(await rulesOf(created.body.iid)).toEqual(expectedRules().slice(2));
    // And back: the code owner rules of main's CODEOWNERS again.
    const back = await measured(M, 'PUT', { target_branch: 'main' });
    expect(back.body).toMatchObject({ target_branch: 'main', detailed_merge_status: 'not_approved' });
    expect(trips(back)).toBeLessThanOrEqual(WRITE_BUDGET);
    expect(await rulesOf(created.body.iid)).toEqual(expectedRules());
  });
});
