/**
 * Access matrix of the approvals API: 8 roles x 3 project visibilities for every route, project
 * level and merge request level.
 * All approvals endpoints require authentication (spec: Authentication 1): anonymous callers get 401
 * before anything else. A project the caller cannot read is 404 Project Not Found. Project settings
 * need read_approvers/update_approvers (Maintainer+, ee ProjectPolicy); rules are read by
 * Developer+ (create_merge_request_in) and written by Maintainer+ (manage_merge_request_settings).
 * Administrators pass every check there.
 *
 * Merge request level: read_merge_request (Reporter+ in private projects) gates the reads (403);
 * approve and unapprove need approve_merge_request (update_merge_request and a project member, so an
 * administrator who is no member is refused, MergeRequestPolicy#can_approve?); rule writes and the
 * deprecated POST approvals need update_merge_request (Developer+, administrators).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const ROLES = ['anonymous', 'nonmember', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin'] as const;
type Role = (typeof ROLES)[number];
const LEVEL: Record<string, number> = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 };
const VIS = ['private', 'internal', 'public'] as const;
type Vis = (typeof VIS)[number];

const tokens = {} as Record<Role, string | null>;
const ids = {} as Record<Role, number>;
const projects = {} as Record<Vis, number>;
const rules = {} as Record<Vis, number>;
const mrs = {} as Record<Vis, string>;
const mrRuleIds = {} as Record<Vis, number>;
let authorToken: string;

const member = (r: Role) => r in LEVEL;
const canRead = (r: Role, v: Vis) => r === 'admin' || member(r) || v === 'public' || (v === 'internal' && r !== 'anonymous');
const atLeast = (r: Role, min: number) => r === 'admin' || (member(r) && LEVEL[r] >= min);

const NF_PROJECT = { message: '404 Project Not Found' };
const FORBIDDEN = { message: '403 Forbidden' };
const UNAUTH = { message: '401 Unauthorized' };

const readMr = (r: Role, v: Vis) => r === 'admin' || (v === 'private' ? member(r) && LEVEL[r] >= 20 : canRead(r, v));
const developer = (r: Role) => r === 'admin' || (member(r) && LEVEL[r] >= 30);
const approver = (r: Role) => member(r) && LEVEL[r] >= 30;

type Expect = (r: Role, v: Vis) => [number, unknown?];
const guard = (allowed: (r: Role, v: Vis) => boolean, ok: number): Expect => (r, v) =>
  r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : !readMr(r, v) ? [403, FORBIDDEN] : allowed(r, v) ? [ok] : [403, FORBIDDEN];
const always = () => true;

async function commit(pid: number, branch: string, token: string) {
  const res = await api(`/projects/${pid}/repository/commits`, { token, body: { branch, commit_message: 'c', actions: [{ action: 'create', file_path: `${unique('f')}.txt`, content: 'x' }] } });
  if (res.status !== 201) throw new Error(res.text);
}

const gate = (min: number, ok: number) => (r: Role, v: Vis): [number, unknown?] =>
  r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : atLeast(r, min) ? [ok] : [403, FORBIDDEN];

beforeAll(async () => {
  const names = ['nonmember', 'guest', 'reporter', 'developer', 'maintainer', 'owner'] as const;
  const users = await Promise.all([...names.map(() => createUser()), createUser()]);
  tokens.anonymous = null;
  tokens.admin = rootToken;
  ids.admin = 1;
  names.forEach((r, i) => {
    tokens[r] = users[i].token;
    ids[r] = users[i].id;
  });
  const author = users[names.length];
  authorToken = author.token;
  for (const v of VIS) {
    const path = unique(`apacc${v}`);
    const g = await api('/groups', { token: tokens.owner, body: { name: path, path, visibility: v } });
    if (g.status !== 201) throw new Error(g.text);
    for (const r of ['guest', 'reporter', 'developer', 'maintainer'] as const) {
      const m = await api(`/groups/${g.body.id}/members`, { token: tokens.owner, body: { user_id: ids[r], access_level: LEVEL[r] } });
      if (m.status !== 201) throw new Error(m.text);
    }
    await api(`/groups/${g.body.id}/members`, { token: tokens.owner, body: { user_id: author.id, access_level: 30 } });
    const p = await api('/projects', { token: tokens.owner, body: { path: 'proj', namespace_id: g.body.id, visibility: v } });
    if (p.status !== 201) throw new Error(p.text);
    projects[v] = p.body.id;
    await commit(p.body.id, 'main', tokens.owner!);
    await api(`/projects/${p.body.id}/repository/branches`, { token: tokens.owner, body: { branch: 'feature', ref: 'main' } });
    await commit(p.body.id, 'feature', authorToken);
    const m = await api(`/projects/${p.body.id}/merge_requests`, { token: authorToken, body: { source_branch: 'feature', target_branch: 'main', title: 'Access' } });
    if (m.status !== 201) throw new Error(m.text);
    mrs[v] = `/projects/${p.body.id}/merge_requests/${m.body.iid}`;
    const mrRule = await api(`${mrs[v]}/approval_rules`, { token: authorToken, body: { name: 'base', approvals_required: 1, user_ids: [ids.developer] } });
    if (mrRule.status !== 201) throw new Error(mrRule.text);
    mrRuleIds[v] = mrRule.body.id;
    const rule = await api(`/projects/${p.body.id}/approval_rules`, { token: tokens.owner, body: { name: 'base', approvals_required: 1, user_ids: [ids.developer] } });
    if (rule.status !== 201) throw new Error(rule.text);
    rules[v] = rule.body.id;
  }
});

async function matrix(run: (r: Role, v: Vis) => Promise<{ status: number; body: unknown; text: string }>, expected: (r: Role, v: Vis) => [number, unknown?]) {
  const failures: string[] = [];
  for (const v of VIS)
    for (const r of ROLES) {
      const [status, body] = expected(r, v);
      const res = await run(r, v);
      if (res.status !== status || (body !== undefined && JSON.stringify(res.body) !== JSON.stringify(body)))
        failures.push(`${r}/${v}: ${res.status} ${res.text.slice(0, 80)} (expected ${status} ${body ? JSON.stringify(body) : ''})`);
    }
  return failures;
}

describe('approvals access matrix (project level)', () => {
  it('GET /projects/:id/approvals: Maintainer+', async () => {
    expect(await matrix((r, v) => api(`/projects/${projects[v]}/approvals`, { token: tokens[r] }), gate(40, 200))).toEqual([]);
  });

  it('POST /projects/:id/approvals: Maintainer+', async () => {
    expect(await matrix((r, v) => api(`/projects/${projects[v]}/approvals`, { token: tokens[r], body: { merge_requests_author_approval: false } }), gate(40, 201))).toEqual([]);
  });

  it('GET /projects/:id/approval_rules: Developer+', async () => {
    expect(await matrix((r, v) => api(`/projects/${projects[v]}/approval_rules`, { token: tokens[r] }), gate(30, 200))).toEqual([]);
  });

  it('GET /projects/:id/approval_rules/:approval_rule_id: Developer+', async () => {
    expect(await matrix((r, v) => api(`/projects/${projects[v]}/approval_rules/${rules[v]}`, { token: tokens[r] }), gate(30, 200))).toEqual([]);
  });

  it('POST /projects/:id/approval_rules: Maintainer+', async () => {
    const run = (r: Role, v: Vis) => api(`/projects/${projects[v]}/approval_rules`, { token: tokens[r], body: { name: unique(`c-${r}-`), approvals_required: 1, user_ids: [ids.developer] } });
    expect(await matrix(run, gate(40, 201))).toEqual([]);
  });

  it('PUT /projects/:id/approval_rules/:approval_rule_id: Maintainer+', async () => {
    const run = (r: Role, v: Vis) => api(`/projects/${projects[v]}/approval_rules/${rules[v]}`, { method: 'PUT', token: tokens[r], body: { name: 'base', approvals_required: 2 } });
    expect(await matrix(run, gate(40, 200))).toEqual([]);
  });

  it('DELETE /projects/:id/approval_rules/:approval_rule_id: Maintainer+', async () => {
    const run = async (r: Role, v: Vis) => {
      const made = await api(`/projects/${projects[v]}/approval_rules`, { token: tokens.owner, body: { name: unique(`d-${r}-`), approvals_required: 1, user_ids: [ids.developer] } });
      if (made.status !== 201) throw new Error(made.text);
      const res = await api(`/projects/${projects[v]}/approval_rules/${made.body.id}`, { method: 'DELETE', token: tokens[r] });
      // A refused delete leaves the rule in place.
      const after = await api(`/projects/${projects[v]}/approval_rules/${made.body.id}`, { token: tokens.owner });
      if ((res.status === 204) !== (after.status === 404)) throw new Error(`${r}/${v}: delete ${res.status} but rule ${after.status}`);
      return res;
    };
    expect(await matrix(run, gate(40, 204))).toEqual([]);
  });

  it('a refused write changes nothing', async () => {
    const res = await api(`/projects/${projects.public}/approval_rules/${rules.public}`, { method: 'PUT', token: tokens.developer, body: { name: 'hacked', approvals_required: 0 } });
    expect(res.status).toBe(403);
    expect((await api(`/projects/${projects.public}/approval_rules/${rules.public}`, { token: tokens.owner })).body.name).toBe('base');
    const s = await api(`/projects/${projects.public}/approvals`, { token: tokens.developer, body: { disable_overriding_approvers_per_merge_request: true } });
    expect(s.status).toBe(403);
    expect((await api(`/projects/${projects.public}/approvals`, { token: tokens.owner })).body.disable_overriding_approvers_per_merge_request).toBe(false);
  });
});

describe('approvals access matrix (merge request level)', () => {
  it('GET .../approvals', async () => {
    expect(await matrix((r, v) => api(`${mrs[v]}/approvals`, { token: tokens[r] }), guard(always, 200))).toEqual([]);
  });

  it('GET .../approval_state', async () => {
    expect(await matrix((r, v) => api(`${mrs[v]}/approval_state`, { token: tokens[r] }), guard(always, 200))).toEqual([]);
  });

  it('GET .../approval_rules and .../approval_rules/:approval_rule_id', async () => {
    expect(await matrix((r, v) => api(`${mrs[v]}/approval_rules`, { token: tokens[r] }), guard(always, 200))).toEqual([]);
    expect(await matrix((r, v) => api(`${mrs[v]}/approval_rules/${mrRuleIds[v]}`, { token: tokens[r] }), guard(always, 200))).toEqual([]);
  });

  it('POST .../approve, then POST .../unapprove', async () => {
    expect(await matrix((r, v) => api(`${mrs[v]}/approve`, { token: tokens[r], method: 'POST' }), guard(approver, 201))).toEqual([]);
    expect(await matrix((r, v) => api(`${mrs[v]}/unapprove`, { token: tokens[r], method: 'POST' }), guard(approver, 201))).toEqual([]);
  });

  it('POST .../approval_rules', async () => {
    const run = (r: Role, v: Vis) => api(`${mrs[v]}/approval_rules`, { token: tokens[r], body: { name: unique(`c-${r}`), approvals_required: 1, user_ids: [ids.developer] } });
    expect(await matrix(run, guard(developer, 201))).toEqual([]);
  });

  it('PUT .../approval_rules/:approval_rule_id', async () => {
    const run = (r: Role, v: Vis) => api(`${mrs[v]}/approval_rules/${mrRuleIds[v]}`, { method: 'PUT', token: tokens[r], body: { name: 'base', approvals_required: 1 } });
    expect(await matrix(run, guard(developer, 200))).toEqual([]);
  });

  it('DELETE .../approval_rules/:approval_rule_id', async () => {
    const run = async (r: Role, v: Vis) => {
      const made = await api(`${mrs[v]}/approval_rules`, { token: authorToken, body: { name: unique(`d-${r}`), approvals_required: 1, user_ids: [ids.developer] } });
      if (made.status !== 201) throw new Error(made.text);
      return api(`${mrs[v]}/approval_rules/${made.body.id}`, { method: 'DELETE', token: tokens[r] });
    };
    expect(await matrix(run, guard(developer, 204))).toEqual([]);
  });

  it('POST .../approvals (deprecated)', async () => {
    expect(await matrix((r, v) => api(`${mrs[v]}/approvals`, { token: tokens[r], body: { approvals_required: 1 } }), guard(developer, 201))).toEqual([]);
  });

  it('PUT .../reset_approvals: people get 401', async () => {
    const expected: Expect = (r, v) => (r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : !readMr(r, v) ? [403, FORBIDDEN] : [401, UNAUTH]);
    expect(await matrix((r, v) => api(`${mrs[v]}/reset_approvals`, { method: 'PUT', token: tokens[r] }), expected)).toEqual([]);
  });
});
