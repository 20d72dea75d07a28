/**
 * Code owner approval rules from a CODEOWNERS file, end to end on both runtimes: rules per
 * (section, pattern) owning a changed path, owners resolved to project members and the project's
 * groups, required approvals only on a branch requiring code owner approval, optional sections,
 * rules following pushes to the source and target branches, system rules refused on edit, and the
 * rules finalized on merge (ee/app/services/merge_requests/sync_code_owner_approval_rules.rb,
 * ee/lib/gitlab/code_owners/*, ee/app/models/approval_wrapped_code_owner_rule.rb).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;
let alice: TestUser;
let bob: TestUser;
let dave: TestUser;
let carol: TestUser;
let outsider: TestUser;
let author: TestUser;

interface World {
  pid: number;
  group: { id: number; full_path: string };
}

async function commit(pid: number, branch: string, token: string, actions: Record<string, unknown>[]) {
  const res = await api(`/projects/${pid}/repository/commits`, { token, body: { branch, commit_message: unique('c'), actions } });
  if (res.status !== 201) throw new Error(`commit: ${res.status} ${res.text}`);
  return res.body.id as string;
}

const file = (file_path: string, content = 'x\n', action = 'create') => ({ action, file_path, content });

async function world(codeowners: string, path = 'CODEOWNERS'): Promise<World> {
  const gpath = unique('cog');
  const g = await api('/groups', { token: owner.token, body: { name: gpath, path: gpath, visibility: 'private' } });
  for (const u of [alice, bob, dave, carol, author]) await api(`/groups/${g.body.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: 30 } });
  const p = await api('/projects', { token: owner.token, body: { path: 'p', namespace_id: g.body.id } });
  if (p.status !== 201) throw new Error(p.text);
  await commit(p.body.id, 'main', owner.token, [file(path, codeowners), file('README.md', 'readme\n')]);
  // The default branch is protected on its first push; code owner approval is switched on for it.
  const pb = await api(`/projects/${p.body.id}/protected_branches/main`, { method: 'PATCH', token: owner.token, body: { code_owner_approval_required: true } });
  expect(pb.status).toBe(200);
  return { pid: p.body.id, group: g.body };
}

async function mergeRequest(w: World, actions: Record<string, unknown>[]) {
  const branch = unique('feat');
  expect((await api(`/projects/${w.pid}/repository/branches`, { token: owner.token, body: { branch, ref: 'main' } })).status).toBe(201);
  await commit(w.pid, branch, author.token, actions);
  const m = await api(`/projects/${w.pid}/merge_requests`, { token: author.token, body: { source_branch: branch, target_branch: 'main', title: unique('MR') } });
  expect(m.status).toBe(201);
  return { iid: m.body.iid as number, base: `/projects/${w.pid}/merge_requests/${m.body.iid}`, branch };
}

const rulesOf = async (base: string) => {
  const res = await api(`${base}/approval_rules`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.filter((r: any) => r.rule_type === 'code_owner');
};
const summary = (rules: any[]) => rules.map((r) => [r.section, r.name, r.users.map((u: any) => u.username).sort(), r.groups.map((g: any) => g.full_path)]);

beforeAll(async () => {
  [owner, alice, bob, dave, carol, outsider, author] = await Promise.all([createUser(), createUser(), createUser(), createUser(), createUser(), createUser(), createUser()]);
});

describe('code owner rules of a merge request', () => {
  it('are one rule per section and pattern owning a changed path, with members only', async () => {
    const w = await world(
      [
        '# comment',
        `* @${alice.username} @${outsider.username}`,
        `*.rb @${dave.username}`,
        '',
        `[Docs][2] @${bob.username} @${dave.username}`,
        'docs/',
        `^[Optional]`,
        `*.md @${carol.username}`,
      ].join('\n'),
    );
    const m = await mergeRequest(w, [file('docs/guide.md'), file('src/app.rb')]);
    const rules = await rulesOf(m.base);
    // Created path by path (docs/guide.md, then src/app.rb), section by section. The last matching
    // pattern of the default section owns app.rb; `*` still owns docs/guide.md.
    expect(summary(rules)).toEqual([
      ['codeowners', '*', [alice.username], []],
      ['Docs', 'docs/', [bob.username, dave.username].sort(), []],
      ['Optional', '*.md', [carol.username], []],
      ['codeowners', '*.rb', [dave.username], []],
    ]);
    expect(rules.find((r: any) => r.name === 'docs/').approvals_required).toBe(2);

    const state = await api(`${m.base}/approval_state`, { token: owner.token });
    const byName = Object.fromEntries(state.body.rules.filter((r: any) => r.code_owner).map((r: any) => [r.name, r]));
    expect(byName['*']).toMatchObject({ code_owner: true, rule_type: 'code_owner', approvals_required: 1, approved: false, section: 'codeowners' });
    expect(byName['docs/']).toMatchObject({ approvals_required: 2, approved: false, section: 'Docs' });
    // An optional section never requires approval.
    expect(byName['*.md']).toMatchObject({ approvals_required: 0, approved: true, section: 'Optional' });
    const approvals = await api(`${m.base}/approvals`, { token: owner.token });
    expect(approvals.body).toMatchObject({ approvals_required: 4, approvals_left: 4, approved: false });
    expect(approvals.body.approval_rules_left.map((r: any) => r.name).sort()).toEqual(['*', '*.rb', 'docs/']);

    // dave owns *.rb and docs/: one approval counts for both rules.
    const ok = await api(`${m.base}/approve`, { token: dave.token, method: 'POST' });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ approvals_left: 2, approved: false });
    expect((await api(`${m.base}/approve`, { token: alice.token, method: 'POST' })).body).toMatchObject({ approvals_left: 1 });
    expect((await api(`${m.base}/approve`, { token: bob.token, method: 'POST' })).body).toMatchObject({ approvals_left: 0, approved: true });
    const merge = await api(`${m.base}/merge`, { method: 'PUT', token: owner.token });
    expect(merge.status).toBe(200);
  });

  it('require nothing on a branch without code owner approval, and merging is not blocked', async () => {
    const w = await world(`* @${alice.username}`);
    expect((await api(`/projects/${w.pid}/protected_branches/main`, { method: 'PATCH', token: owner.token, body: { code_owner_approval_required: false } })).status).toBe(200);
    const m = await mergeRequest(w, [file('a.txt')]);
    const state = await api(`${m.base}/approval_state`, { token: owner.token });
    expect(state.body.rules.filter((r: any) => r.code_owner).map((r: any) => [r.name, r.approvals_required, r.approved])).toEqual([['*', 0, true]]);
    expect((await api(`${m.base}/approvals`, { token: owner.token })).body).toMatchObject({ approvals_required: 0, approved: true });
  });

  it('name groups of the project by full path and users by confirmed email', async () => {
    const w = await world('');
    await commit(w.pid, 'main', owner.token, [file('CODEOWNERS', `/app/ @${w.group.full_path}\n/lib/ ${carol.username}@example.com\n`, 'update')]);
    const m = await mergeRequest(w, [file('app/x.txt'), file('lib/y.txt')]);
    const rules = await rulesOf(m.base);
    expect(summary(rules)).toEqual([
      ['codeowners', '/app/', [], [w.group.full_path]],
      ['codeowners', '/lib/', [carol.username], []],
    ]);
    // Group members are eligible approvers.
    const app = rules.find((r: any) => r.name === '/app/');
    expect(app.eligible_approvers.map((u: any) => u.id)).toEqual(expect.arrayContaining([alice.id, bob.id, owner.id]));
  });

  it('follow the source branch: a push that stops changing a path removes its rule, others keep their id', async () => {
    const w = await world([`* @${alice.username}`, `/docs/ @${bob.username}`].join('\n'));
    const m = await mergeRequest(w, [file('docs/a.md'), file('b.txt')]);
    const before = await rulesOf(m.base);
    expect(before.map((r: any) => r.name)).toEqual(['*', '/docs/']);
    await commit(w.pid, m.branch, author.token, [{ action: 'delete', file_path: 'docs/a.md' }]);
    const after = await rulesOf(m.base);
    expect(after.map((r: any) => [r.id, r.name])).toEqual([[before[0].id, '*']]);
    expect((await api(`${m.base}/approval_rules/${before[1].id}`, { token: owner.token })).status).toBe(404);
  });

  it('follow the CODEOWNERS file of the target branch', async () => {
    const w = await world(`* @${alice.username}`);
    const m = await mergeRequest(w, [file('c.txt')]);
    expect(summary(await rulesOf(m.base))).toEqual([['codeowners', '*', [alice.username], []]]);
    await commit(w.pid, 'main', owner.token, [file('CODEOWNERS', `*.txt @${bob.username}\n`, 'update')]);
    expect(summary(await rulesOf(m.base))).toEqual([['codeowners', '*.txt', [bob.username], []]]);
    // A file under docs/ is used when the root has none.
    await commit(w.pid, 'main', owner.token, [{ action: 'move', previous_path: 'CODEOWNERS', file_path: 'docs/CODEOWNERS' }]);
    expect(summary(await rulesOf(m.base))).toEqual([['codeowners', '*.txt', [bob.username], []]]);
    await commit(w.pid, 'main', owner.token, [{ action: 'delete', file_path: 'docs/CODEOWNERS' }]);
    expect(await rulesOf(m.base)).toEqual([]);
  });

  it('rebuilt while a page of merge requests is presented count on that page', async () => {
    // The list reads every open merge request's rules in one query first (approval-rules.ts
    // primeApprovalReads); a rule the lazy rebuild writes afterwards must still be what the page uses.
    const w = await world(`docs/ @${bob.username}`);
    const m = await mergeRequest(w, [file('src/app.rb')]);
    const listed = async () => (await api(`/projects/${w.pid}/merge_requests`, { token: owner.token })).body.find((x: any) => x.iid === m.iid);
    expect((await listed()).detailed_merge_status).toBe('mergeable');
    // Only the target branch moves: nothing rebuilds the rules until the merge request is read.
    await commit(w.pid, 'main', owner.token, [file('CODEOWNERS', `*.rb @${alice.username}\n`, 'update')]);
    expect((await listed()).detailed_merge_status).toBe('not_approved');
    expect(summary(await rulesOf(m.base))).toEqual([['codeowners', '*.rb', [alice.username], []]]);
  });

  it('cannot be updated or deleted (403 Prohibited) and stay as they were', async () => {
    const w = await world(`* @${alice.username}`);
    const m = await mergeRequest(w, [file('d.txt')]);
    const [rule] = await rulesOf(m.base);
    const put = await api(`${m.base}/approval_rules/${rule.id}`, { method: 'PUT', token: owner.token, body: { name: 'x', approvals_required: 0 } });
    expect(put).toMatchObject({ status: 403, body: { message: ['Prohibited'] } });
    const del = await api(`${m.base}/approval_rules/${rule.id}`, { method: 'DELETE', token: owner.token });
    expect(del).toMatchObject({ status: 403, body: { message: ['Prohibited'] } });
    expect(summary(await rulesOf(m.base))).toEqual([['codeowners', '*', [alice.username], []]]);
  });

  it('block the merge until a code owner approves', async () => {
    const w = await world(`* @${alice.username}`);
    const m = await mergeRequest(w, [file('e.txt')]);
    const refused = await api(`${m.base}/merge`, { method: 'PUT', token: owner.token });
    expect(refused.status).toBe(405);
    expect((await api(m.base, { token: owner.token })).body.detailed_merge_status).toBe('not_approved');
    // Another developer's approval is optional: it does not satisfy the code owner rule.
    expect((await api(`${m.base}/approve`, { token: bob.token, method: 'POST' })).body).toMatchObject({ approvals_left: 1, approved: false });
    expect((await api(`${m.base}/approve`, { token: alice.token, method: 'POST' })).body).toMatchObject({ approvals_left: 0, approved: true });
    expect((await api(`${m.base}/merge`, { method: 'PUT', token: owner.token })).status).toBe(200);
  });

  it('are kept as they were at the merge afterwards', async () => {
    const w = await world(`* @${alice.username}`);
    const m = await mergeRequest(w, [file('f.txt')]);
    await api(`${m.base}/approve`, { token: alice.token, method: 'POST' });
    expect((await api(`${m.base}/merge`, { method: 'PUT', token: owner.token })).status).toBe(200);
    await commit(w.pid, 'main', owner.token, [file('CODEOWNERS', `*.txt @${bob.username}\n`, 'update')]);
    expect((await api(`/projects/${w.pid}/protected_branches/main`, { method: 'PATCH', token: owner.token, body: { code_owner_approval_required: false } })).status).toBe(200);
    expect(summary(await rulesOf(m.base))).toEqual([['codeowners', '*', [alice.username], []]]);
    const state = await api(`${m.base}/approval_state`, { token: owner.token });
    expect(state.body.rules.map((r: any) => [r.name, r.approvals_required, r.approved])).toEqual([['*', 1, true]]);
  });

  it('honour exclusions and a pattern left unowned', async () => {
    const w = await world([`* @${alice.username}`, '!*.lock', `/vendor/`].join('\n'));
    const m = await mergeRequest(w, [file('yarn.lock'), file('vendor/x.js')]);
    // yarn.lock is excluded; /vendor/ has no owners and no section default: an entry without users.
    const rules = await rulesOf(m.base);
    expect(summary(rules)).toEqual([['codeowners', '/vendor/', [], []]]);
    const state = await api(`${m.base}/approval_state`, { token: owner.token });
    expect(state.body.rules.filter((r: any) => r.code_owner).map((r: any) => [r.name, r.approvals_required, r.approved])).toEqual([['/vendor/', 0, true]]);
  });
});

describe('report approver rules of a merge request', () => {
  it('are copied from the project (Coverage-Check), refused on edit, and wait for their approver without a pipeline', async () => {
    const w = await world('');
    const pr = await api(`/projects/${w.pid}/approval_rules`, {
      token: owner.token,
      body: { name: 'Coverage-Check', approvals_required: 1, rule_type: 'report_approver', report_type: 'code_coverage', user_ids: [alice.id] },
    });
    expect(pr.status).toBe(201);
    const m = await mergeRequest(w, [file('g.txt')]);
    const list = await api(`${m.base}/approval_rules`, { token: owner.token });
    const rule = list.body.find((r: any) => r.rule_type === 'report_approver');
    expect(rule).toMatchObject({ name: 'Coverage-Check', report_type: 'code_coverage', approvals_required: 1, source_rule: { approvals_required: 1 }, overridden: false });
    expect(rule.users.map((u: any) => u.id)).toEqual([alice.id]);
    const put = await api(`${m.base}/approval_rules/${rule.id}`, { method: 'PUT', token: owner.token, body: { name: 'x', approvals_required: 0 } });
    expect(put).toMatchObject({ status: 403, body: { message: ['Prohibited'] } });
    const del = await api(`${m.base}/approval_rules/${rule.id}`, { method: 'DELETE', token: owner.token });
    expect(del).toMatchObject({ status: 403, body: { message: ['Prohibited'] } });
    expect((await api(`${m.base}/approval_rules/${rule.id}`, { token: owner.token })).body).toMatchObject({ name: 'Coverage-Check', approvals_required: 1 });
    expect((await api(`${m.base}/approvals`, { token: owner.token })).body).toMatchObject({ approvals_required: 1, approvals_left: 1, approved: false });
    expect((await api(`${m.base}/merge`, { method: 'PUT', token: owner.token })).status).toBe(405);
    expect((await api(`${m.base}/approve`, { token: alice.token, method: 'POST' })).body).toMatchObject({ approvals_left: 0, approved: true });
  });

  it('reach an open merge request with its next push when the project rule changes', async () => {
    const w = await world('');
    const m = await mergeRequest(w, [file('h.txt')]);
    expect((await api(`${m.base}/approval_rules`, { token: owner.token })).body).toEqual([]);
    const pr = await api(`/projects/${w.pid}/approval_rules`, {
      token: owner.token,
      body: { name: 'Coverage-Check', approvals_required: 2, rule_type: 'report_approver', report_type: 'code_coverage', user_ids: [alice.id, bob.id] },
    });
    expect(pr.status).toBe(201);
    // MergeRequests::Refresh::ApprovalService syncs on a push to the source branch.
    await commit(w.pid, m.branch, author.token, [file('i.txt')]);
    const rules = (await api(`${m.base}/approval_rules`, { token: owner.token })).body;
    expect(rules.map((r: any) => [r.name, r.rule_type, r.approvals_required, r.users.map((u: any) => u.id).sort()])).toEqual([
      ['Coverage-Check', 'report_approver', 2, [alice.id, bob.id].sort()],
    ]);
  });
});
