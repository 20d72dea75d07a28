/**
 * Merge-request-level approvals against a Node server of its own, with merge request rows written
 * straight to its database (the HEAD is the row's recorded sha while no repository answers for the
 * source branch, so a "push" is an update of that sha). Covers approve/unapprove with their status
 * codes, the sha check, passwords, author/committer rules, reset on push, concurrency, approval_state
 * and merge request rules (ee/lib/ee/api/merge_request_approvals.rb, lib/api/merge_request_approvals.rb,
 * ee/lib/api/merge_request_approval_rules.rb).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { approvals, mergeRequests, notes } from '../../src/db/schema';
import { createNodeApp } from '../../src/node-app';
import { mergeRequestApprovalsBeforeMergeStatement } from '../../src/approvals/rules';

let dir: string;
let created: Awaited<ReturnType<typeof createNodeApp>>;
type Res = { status: number; body: any; text: string };
let n = 0;

async function call(path: string, init: { method?: string; body?: unknown; token?: string | null } = {}): Promise<Res> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  const token = init.token === undefined ? DEV_ROOT_TOKEN : init.token;
  if (token) headers['PRIVATE-TOKEN'] = token;
  const res = await created.app.fetch(
    new Request(`http://localhost/api/v4${path}`, { method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'), headers, body: init.body !== undefined ? JSON.stringify(init.body) : undefined }),
  );
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* text */
  }
  return { status: res.status, body, text };
}

interface U {
  id: number;
  username: string;
  token: string;
  password: string;
}

async function user(): Promise<U> {
  const username = `u${++n}x${Date.now().toString(36)}`;
  const password = `pw-${username}-secret`;
  const u = await call('/users', { body: { email: `${username}@example.com`, name: username, username, password, skip_confirmation: true } });
  if (u.status !== 201) throw new Error(u.text);
  const t = await call(`/users/${u.body.id}/personal_access_tokens`, { body: { name: 't', scopes: ['api'] } });
  return { id: u.body.id, username, token: t.body.token, password };
}

let owner: U;
let author: U;
let dev1: U;
let dev2: U;
let dev3: U;
let reporter: U;

interface World {
  projectId: number;
  mrId: number;
  iid: number;
  base: string;
}

async function world(opts: { settings?: Record<string, unknown>; targetBranch?: string } = {}): Promise<World> {
  const path = `g${++n}x${Date.now().toString(36)}`;
  const g = await call('/groups', { token: owner.token, body: { name: path, path } });
  for (const [u, level] of [
    [author, 30],
    [dev1, 30],
    [dev2, 30],
    [dev3, 30],
    [reporter, 20],
  ] as const) {
    const m = await call(`/groups/${g.body.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } });
    if (m.status !== 201) throw new Error(m.text);
  }
  const p = await call('/projects', { token: owner.token, body: { path: 'p', namespace_id: g.body.id } });
  if (opts.settings) {
    const s = await call(`/projects/${p.body.id}/approvals`, { token: owner.token, body: opts.settings });
    if (s.status !== 201) throw new Error(s.text);
  }
  const now = Date.now();
  const row = await created.db
    .insert(mergeRequests)
    .values({
      projectId: p.body.id,
      iid: 1,
      sourceProjectId: p.body.id,
      sourceBranch: 'feature',
      targetBranch: opts.targetBranch ?? 'main',
      title: 'Feature',
      description: 'Adds a feature',
      authorId: author.id,
      headSha: 'a'.repeat(40),
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get();
  return { projectId: p.body.id, mrId: row.id, iid: 1, base: `/projects/${p.body.id}/merge_requests/1` };
}

/** A push to the source branch: the HEAD moves. */
const push = (w: World, sha: string) => created.db.update(mergeRequests).set({ headSha: sha }).where(eq(mergeRequests.id, w.mrId)).run();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wfapi-approvals-'));
  created = await createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000' } });
  owner = await user();
  [author, dev1, dev2, dev3, reporter] = [await user(), await user(), await user(), await user(), await user()];
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STATE_KEYS = [
  'id',
  'iid',
  'project_id',
  'title',
  'description',
  'state',
  'created_at',
  'updated_at',
  'merge_status',
  'approved',
  'approvals_required',
  'approvals_left',
  'require_password_to_approve',
  'approved_by',
  'suggested_approvers',
  'approvers',
  'approver_groups',
  'user_has_approved',
  'user_can_approve',
  'approval_rules_left',
  'has_approval_rules',
  'merge_request_approvers_available',
  'multiple_approval_rules_available',
  'invalid_approvers_rules',
];

describe('GET/approve/unapprove', () => {
  it('GET approvals: ApprovalState in GitLab order, nothing required without rules', async () => {
    const w = await world();
    const res = await call(`${w.base}/approvals`, { token: dev1.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(STATE_KEYS);
    expect(res.body).toMatchObject({ iid: 1, project_id: w.projectId, title: 'Feature', state: 'opened', approved: true, approvals_required: 0, approvals_left: 0, approved_by: [], user_has_approved: false, user_can_approve: true });
    expect((await call(`${w.base}/approvals`, { token: null })).status).toBe(401);
    expect(await call(`/projects/${w.projectId}/merge_requests/99/approvals`, { token: dev1.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it('approve (201) counts against a rule; approving twice is 401; unapprove (201) removes it; unapprove again is 404', async () => {
    const w = await world();
    await call(`/projects/${w.projectId}/approval_rules`, { token: owner.token, body: { name: 'Devs', approvals_required: 2, user_ids: [dev1.id, dev2.id] } });
    const before = await call(`${w.base}/approvals`, { token: dev1.token });
    expect(before.body).toMatchObject({ approved: false, approvals_required: 2, approvals_left: 2, has_approval_rules: true });
    expect(before.body.approval_rules_left.map((r: any) => r.name)).toEqual(['Devs']);
    const a = await call(`${w.base}/approve`, { token: dev1.token, method: 'POST' });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ approvals_left: 1, approved: false, user_has_approved: true, user_can_approve: false });
    expect(a.body.approved_by.map((x: any) => x.user.id)).toEqual([dev1.id]);
    expect(Object.keys(a.body.approved_by[0])).toEqual(['user', 'approved_at']);
    const again = await call(`${w.base}/approve`, { token: dev1.token, method: 'POST' });
    expect(again).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    const b = await call(`${w.base}/approve`, { token: dev2.token, method: 'POST' });
    expect(b.body).toMatchObject({ approvals_left: 0, approved: true });
    const u = await call(`${w.base}/unapprove`, { token: dev1.token, method: 'POST' });
    expect(u.status).toBe(201);
    expect(u.body).toMatchObject({ approvals_left: 1, approved: false, user_has_approved: false });
    const u2 = await call(`${w.base}/unapprove`, { token: dev1.token, method: 'POST' });
    expect(u2).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    const back = await call(`${w.base}/approvals`, { token: owner.token });
    expect(back.body.approved_by.map((x: any) => x.user.id)).toEqual([dev2.id]);
  });

  it('sha must equal the HEAD: 409 with GitLab message, nothing written', async () => {
    const w = await world();
    const bad = await call(`${w.base}/approve`, { token: dev1.token, body: { sha: 'b'.repeat(40) } });
    expect(bad.status).toBe(409);
    expect(bad.body).toEqual({ message: `SHA does not match HEAD of source branch: ${'a'.repeat(40)}` });
    expect((await call(`${w.base}/approvals`, { token: dev1.token })).body.approved_by).toEqual([]);
    const ok = await call(`${w.base}/approve`, { token: dev1.token, body: { sha: 'a'.repeat(40) } });
    expect(ok.status).toBe(201);
  });

  it('the author may not approve unless merge_requests_author_approval; committers by setting', async () => {
    const w = await world();
    const res = await call(`${w.base}/approve`, { token: author.token, method: 'POST' });
    expect(res).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect((await call(`${w.base}/approvals`, { token: author.token })).body.user_can_approve).toBe(false);
    const w2 = await world({ settings: { merge_requests_author_approval: true } });
    expect((await call(`${w2.base}/approve`, { token: author.token, method: 'POST' })).status).toBe(201);
  });

  it('a reporter may not approve (403); an outsider of a private project gets 404', async () => {
    const w = await world();
    expect(await call(`${w.base}/approve`, { token: reporter.token, method: 'POST' })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    const outsider = await user();
    expect(await call(`${w.base}/approve`, { token: outsider.token, method: 'POST' })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await call(`${w.base}/unapprove`, { token: reporter.token, method: 'POST' })).toMatchObject({ status: 403 });
  });

  it('require_password_to_approve: the caller password is checked (401 when wrong or missing)', async () => {
    const w = await world({ settings: { require_password_to_approve: true } });
    expect((await call(`${w.base}/approvals`, { token: dev1.token })).body.require_password_to_approve).toBe(true);
    expect((await call(`${w.base}/approve`, { token: dev1.token, method: 'POST' })).status).toBe(401);
    expect((await call(`${w.base}/approve`, { token: dev1.token, body: { approval_password: 'wrong' } })).status).toBe(401);
    expect((await call(`${w.base}/approve`, { token: dev1.token, body: { approval_password: dev2.password } })).status).toBe(401);
    expect((await call(`${w.base}/approvals`, { token: dev1.token })).body.approved_by).toEqual([]);
    const ok = await call(`${w.base}/approve`, { token: dev1.token, body: { approval_password: dev1.password } });
    expect(ok.status).toBe(201);
    expect(ok.text).not.toContain(dev1.password);
  });

  it('reset_approvals_on_push: a push removes approvals; the user may approve again at the new HEAD', async () => {
    const w = await world();
    await call(`/projects/${w.projectId}/approval_rules`, { token: owner.token, body: { name: 'Devs', approvals_required: 1, user_ids: [dev1.id] } });
    expect((await call(`${w.base}/approve`, { token: dev1.token, method: 'POST' })).body.approved).toBe(true);
    await push(w, 'c'.repeat(40));
    const after = await call(`${w.base}/approvals`, { token: dev1.token });
    expect(after.body).toMatchObject({ approved: false, approvals_left: 1, approved_by: [], user_has_approved: false, user_can_approve: true });
    expect((await call(`${w.base}/unapprove`, { token: dev1.token, method: 'POST' })).status).toBe(404);
    const again = await call(`${w.base}/approve`, { token: dev1.token, body: { sha: 'c'.repeat(40) } });
    expect(again.status).toBe(201);
    expect(again.body.approved).toBe(true);
    const rows = await created.db.select().from(approvals).where(eq(approvals.mergeRequestId, w.mrId)).all();
    expect(rows.map((r) => [r.userId, r.sha])).toEqual([[dev1.id, 'c'.repeat(40)]]);
  });

  it('without reset_approvals_on_push approvals survive a push', async () => {
    const w = await world({ settings: { reset_approvals_on_push: false } });
    await call(`${w.base}/approve`, { token: dev1.token, method: 'POST' });
    await push(w, 'd'.repeat(40));
    expect((await call(`${w.base}/approvals`, { token: dev1.token })).body.approved_by.map((x: any) => x.user.id)).toEqual([dev1.id]);
  });

  it('concurrent approvals by one user create one approval', async () => {
    const w = await world();
    const results = await Promise.all([1, 2, 3, 4].map(() => call(`${w.base}/approve`, { token: dev1.token, method: 'POST' })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 401, 401, 401]);
    const rows = await created.db.select().from(approvals).where(eq(approvals.mergeRequestId, w.mrId)).all();
    expect(rows.length).toBe(1);
    expect((await call(`${w.base}/approvals`, { token: dev1.token })).body.approved_by.length).toBe(1);
  });

  it('an approval racing a push never counts at the new HEAD', async () => {
    const w = await world();
    await call(`/projects/${w.projectId}/approval_rules`, { token: owner.token, body: { name: 'Devs', approvals_required: 1, user_ids: [dev1.id, dev2.id] } });
    // The approve read HEAD a... before the push landed: its row carries a..., so it does not count at e....
    await Promise.all([call(`${w.base}/approve`, { token: dev1.token, method: 'POST' }), push(w, 'e'.repeat(40))]);
    const state = await call(`${w.base}/approvals`, { token: dev2.token });
    const rows = await created.db.select().from(approvals).where(eq(approvals.mergeRequestId, w.mrId)).all();
    const counted = rows.filter((r) => r.sha === 'e'.repeat(40)).length;
    expect(state.body.approved_by.length).toBe(counted);
    expect(state.body.approvals_left).toBe(1 - counted);
  });
});

describe('approval_state and merge request rules', () => {
  it('approval_state shows the project rules wrapped until the merge request overrides them', async () => {
    const w = await world();
    const pr = await call(`/projects/${w.projectId}/approval_rules`, { token: owner.token, body: { name: 'Devs', approvals_required: 1, user_ids: [dev1.id, author.id] } });
    await call(`${w.base}/approve`, { token: dev1.token, method: 'POST' });
    const s = await call(`${w.base}/approval_state`, { token: dev2.token });
    expect(s.status).toBe(200);
    expect(s.body.approval_rules_overwritten).toBe(false);
    expect(s.body.rules.length).toBe(1);
    const r = s.body.rules[0];
    expect(Object.keys(r)).toEqual(['id', 'name', 'rule_type', 'eligible_approvers', 'approvals_required', 'users', 'groups', 'contains_hidden_groups', 'report_type', 'section', 'source_rule', 'overridden', 'code_owner', 'approved_by', 'approved']);
    expect(r).toMatchObject({ id: pr.body.id, name: 'Devs', rule_type: 'regular', approvals_required: 1, source_rule: null, overridden: false, code_owner: false, approved: true });
    // The author is not an eligible approver (merge_requests_author_approval off).
    expect(r.eligible_approvers.map((u: any) => u.id)).toEqual([dev1.id]);
    expect(r.approved_by.map((u: any) => u.id)).toEqual([dev1.id]);

    const mrRule = await call(`${w.base}/approval_rules`, { token: dev2.token, body: { name: 'ignored', approvals_required: 2, approval_project_rule_id: pr.body.id } });
    expect(mrRule.status).toBe(201);
    expect(mrRule.body).toMatchObject({ name: 'Devs', approvals_required: 2, source_rule: { approvals_required: 1 }, overridden: true });
    expect(mrRule.body.users.map((u: any) => u.id).sort()).toEqual([dev1.id, author.id].sort((a, b) => a - b));
    const s2 = await call(`${w.base}/approval_state`, { token: dev2.token });
    expect(s2.body.approval_rules_overwritten).toBe(true);
    // Two required but one eligible approver (the author is filtered out): an invalid rule, which
    // GitLab treats as approved while still counting what is left.
    expect(s2.body.rules.map((x: any) => [x.id, x.approvals_required, x.approved, x.overridden])).toEqual([[mrRule.body.id, 2, true, true]]);
    const st = await call(`${w.base}/approvals`, { token: dev2.token });
    expect(st.body).toMatchObject({ approvals_required: 2, approvals_left: 1, approved: true });
    expect(st.body.invalid_approvers_rules).toEqual([{ id: mrRule.body.id, name: 'Devs', rule_type: 'regular' }]);
  });

  it('merge request rules: list, get, update (users replaced), delete; system rules refused; 404 unknown', async () => {
    const w = await world();
    const made = await call(`${w.base}/approval_rules`, { token: dev1.token, body: { name: 'MR rule', approvals_required: 1, user_ids: [dev2.id] } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ rule_type: 'regular', source_rule: null, overridden: false, section: null });
    const list = await call(`${w.base}/approval_rules`, { token: reporter.token });
    expect(list.status).toBe(200);
    expect(list.body.map((r: any) => r.id)).toEqual([made.body.id]);
    const put = await call(`${w.base}/approval_rules/${made.body.id}`, { method: 'PUT', token: dev1.token, body: { name: 'Renamed', approvals_required: 2, user_ids: [dev3.id] } });
    expect(put.status).toBe(200);
    expect(put.body.users.map((u: any) => u.id)).toEqual([dev3.id]);
    expect((await call(`${w.base}/approval_rules/${made.body.id}`, { token: dev1.token })).body.name).toBe('Renamed');
    expect((await call(`${w.base}/approval_rules/999999`, { token: dev1.token })).status).toBe(404);
    const any = await call(`${w.base}/approval_rules`, { token: dev1.token, body: { name: 'Any', approvals_required: 1 } });
    expect(any.body.rule_type).toBe('any_approver');
    const any2 = await call(`${w.base}/approval_rules`, { token: dev1.token, body: { name: 'Any2', approvals_required: 1 } });
    expect(any2).toMatchObject({ status: 400, body: { message: { rule_type: ['any-approver for the merge request already exists'] } } });
    const del = await call(`${w.base}/approval_rules/${made.body.id}`, { method: 'DELETE', token: dev1.token });
    expect(del.status).toBe(204);
    expect((await call(`${w.base}/approval_rules/${made.body.id}`, { token: dev1.token })).status).toBe(404);
    // A reporter cannot change rules.
    expect((await call(`${w.base}/approval_rules`, { token: reporter.token, body: { name: 'r', approvals_required: 1 } })).status).toBe(403);
  });

  it('disable_overriding_approvers_per_merge_request: rule writes 403, POST approvals 422, project rules used', async () => {
    const w = await world({ settings: { disable_overriding_approvers_per_merge_request: true } });
    const res = await call(`${w.base}/approval_rules`, { token: dev1.token, body: { name: 'x', approvals_required: 1, user_ids: [dev2.id] } });
    expect(res).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    const old = await call(`${w.base}/approvals`, { token: dev1.token, body: { approvals_required: 3 } });
    expect(old).toMatchObject({ status: 422, body: { error: 'Overriding approvals is disabled' } });
  });

  it('POST approvals (deprecated) sets the merge request any_approver rule', async () => {
    const w = await world();
    const res = await call(`${w.base}/approvals`, { token: dev1.token, body: { approvals_required: 2 } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ approvals_required: 2, approvals_left: 2 });
    const again = await call(`${w.base}/approvals`, { token: dev1.token, body: { approvals_required: 1 } });
    expect(again.body.approvals_required).toBe(1);
    const rules = await call(`${w.base}/approval_rules`, { token: dev1.token });
    expect(rules.body.map((r: any) => [r.name, r.rule_type, r.approvals_required])).toEqual([['All Members', 'any_approver', 1]]);
    await call(`${w.base}/approve`, { token: dev2.token, method: 'POST' });
    expect((await call(`${w.base}/approvals`, { token: dev1.token })).body).toMatchObject({ approved: true, approvals_left: 0 });
  });

  it('rules scoped to a protected branch apply only to merge requests targeting it', async () => {
    const w = await world({ targetBranch: 'develop' });
    const pb = await call(`/projects/${w.projectId}/protected_branches`, { token: owner.token, body: { name: 'main' } });
    await call(`/projects/${w.projectId}/approval_rules`, { token: owner.token, body: { name: 'Main only', approvals_required: 1, user_ids: [dev1.id], protected_branch_ids: [pb.body.id] } });
    expect((await call(`${w.base}/approvals`, { token: dev1.token })).body).toMatchObject({ approvals_required: 0, approved: true });
    await created.db.update(mergeRequests).set({ targetBranch: 'main' }).where(eq(mergeRequests.id, w.mrId)).run();
    expect((await call(`${w.base}/approvals`, { token: dev1.token })).body).toMatchObject({ approvals_required: 1, approved: false });
  });
});

describe('PUT reset_approvals', () => {
  it('is for bots only: a person gets 401 and the approvals stay', async () => {
    const w = await world();
    await call(`${w.base}/approve`, { token: dev1.token, method: 'POST' });
    const res = await call(`${w.base}/reset_approvals`, { method: 'PUT', token: owner.token });
    expect(res).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect((await call(`${w.base}/approvals`, { token: dev1.token })).body.approved_by.length).toBe(1);
  });
});

describe('system notes', () => {
  it('approve and unapprove leave one system note each, even when approves race', async () => {
    const w = await world();
    await Promise.all([1, 2, 3].map(() => call(`${w.base}/approve`, { token: dev1.token, method: 'POST' })));
    await call(`${w.base}/unapprove`, { token: dev1.token, method: 'POST' });
    const rows = await created.db.select().from(notes).where(and(eq(notes.noteableType, 'MergeRequest'), eq(notes.noteableId, w.mrId))).all();
    expect(rows.map((r) => [r.body, r.system, r.authorId])).toEqual([
      ['approved this merge request', true, dev1.id],
      ['unapproved this merge request', true, dev1.id],
    ]);
  });
});

describe('mergeRequestApprovalsBeforeMergeStatement (for the merge request module)', () => {
  it('creates then updates the any_approver rule of a merge request', async () => {
    const w = await world();
    await mergeRequestApprovalsBeforeMergeStatement(created.db, w.mrId, 2, Date.now()).run();
    await mergeRequestApprovalsBeforeMergeStatement(created.db, w.mrId, 3, Date.now()).run();
    const rules = await call(`${w.base}/approval_rules`, { token: dev1.token });
    expect(rules.body.map((r: any) => [r.name, r.rule_type, r.approvals_required])).toEqual([['All Members', 'any_approver', 3]]);
    expect((await call(`${w.base}/approvals`, { token: dev1.token })).body.approvals_required).toBe(3);
  });
});

describe('system-generated and foreign rules on merge requests', () => {
  // Code owner and report approver rules, written by the system, are refused on update and delete
  // through the API in test/api/code-owners.test.ts.

  it('approval_project_rule_id of another project is refused', async () => {
    const a = await world();
    const b = await world();
    const foreign = await call(`/projects/${a.projectId}/approval_rules`, { token: owner.token, body: { name: 'A', approvals_required: 1, user_ids: [dev1.id] } });
    const res = await call(`${b.base}/approval_rules`, { token: dev1.token, body: { name: 'x', approvals_required: 1, approval_project_rule_id: foreign.body.id } });
    expect(res).toMatchObject({ status: 400, body: { message: { approval_project_rule: ['must be for the same project'] } } });
    expect((await call(`${b.base}/approval_rules`, { token: dev1.token })).body).toEqual([]);
  });
});
