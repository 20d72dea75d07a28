/**
 * Issue 12: the authorization matrix, generated from the route table. Every route the server
 * declares (GET /-/openapi.json lists them on both runtimes) must have a row in
 * authorization-matrix.ts, and every row a route; each row is then called by anonymous, a signed-in
 * non-member, the five membership levels of a private group/project, and the administrator.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createToken, createUser, rootToken, unique, type ApiResponse, type TestUser } from '../support';
import { freshGpgKey, freshSshKey } from '../fixtures/keys';
import { adminOnly, type Cell, EXPECTATIONS, ROLES, type Role, type Row, UNDOCUMENTED } from './authorization-matrix';

const MEMBERS = { guest: 10, reporter: 20, developer: 30, maintainer: 40 } as const;
const users = {} as Record<Exclude<Role, 'anonymous' | 'admin'>, TestUser>;
const tokens = {} as Record<Role, string | null>;
/** Path parameter values and resource names (see `param`). */
const world: Record<string, string | number> = {};

const ok = (what: string, res: ApiResponse, status = 201) => {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 200)}`);
  return res.body;
};

async function commit(pid: number, branch: string, file: string) {
  ok('commit', await api(`/projects/${pid}/repository/commits`, { token: tokens.owner, body: { branch, commit_message: file, actions: [{ action: 'create', file_path: file, content: 'x' }] } }));
}

async function mergeRequest(pid: number, branch: string) {
  ok('branch', await api(`/projects/${pid}/repository/branches`, { token: tokens.owner, body: { branch, ref: 'main' } }));
  await commit(pid, branch, `${branch}.txt`);
  return ok('mr', await api(`/projects/${pid}/merge_requests`, { token: tokens.developer, body: { title: branch, source_branch: branch, target_branch: 'main' } })).iid as number;
}

beforeAll(async () => {
  const names = ['nonMember', 'guest', 'reporter', 'developer', 'maintainer', 'owner'] as const;
  const made = await Promise.all([...names.map(() => createUser()), createUser(), createUser(), createUser(), createUser()]);
  names.forEach((n, i) => {
    users[n] = made[i];
    tokens[n] = made[i].token;
  });
  tokens.anonymous = null;
  tokens.admin = rootToken;
  const [target, victim, groupDirect, projectDirect] = made.slice(names.length);
  world.groupDirectId = groupDirect.id;
  world.projectDirectId = projectDirect.id;
  world.targetId = target.id;
  world.victimId = victim.id;
  world.nonMemberId = users.nonMember.id;
  world.guestId = users.guest.id;

  const path = unique('mx');
  const g = ok('group', await api('/groups', { token: tokens.owner, body: { name: path, path, visibility: 'private' } }));
  world.groupId = g.id;
  for (const [r, level] of Object.entries(MEMBERS)) {
    ok('member', await api(`/groups/${g.id}/members`, { token: tokens.owner, body: { user_id: users[r as keyof typeof MEMBERS].id, access_level: level } }));
  }
  const p = ok('project', await api('/projects', { token: tokens.owner, body: { path: 'proj', namespace_id: g.id, visibility: 'private' } }));
  const pid = p.id as number;
  ok('member', await api(`/groups/${g.id}/members`, { token: tokens.owner, body: { user_id: groupDirect.id, access_level: 30 } }));
  ok('member', await api(`/projects/${pid}/members`, { token: tokens.owner, body: { user_id: projectDirect.id, access_level: 30 } }));
  world.projectId = pid;
  await commit(pid, 'main', 'README.md');
  world.sha = (ok('branch', await api(`/projects/${pid}/repository/branches/main`, { token: tokens.owner }), 200) as { commit: { id: string } }).commit.id;
  world.mr = await mergeRequest(pid, 'feature');
  world.mrToMerge = await mergeRequest(pid, 'feature2');
  world.mrToDelete = await mergeRequest(pid, 'feature3');
  for (const b of ['to-delete', 'prot', 'prot-del']) ok('branch', await api(`/projects/${pid}/repository/branches`, { token: tokens.owner, body: { branch: b, ref: 'main' } }));
  for (const b of ['prot', 'prot-del']) ok('protect', await api(`/projects/${pid}/protected_branches`, { token: tokens.owner, body: { name: b } }));
  const versions = ok('versions', await api(`/projects/${pid}/merge_requests/${world.mr}/versions`, { token: tokens.owner }), 200) as { id: number }[];
  world.versionId = versions[0].id;

  const issue = ok('issue', await api(`/projects/${pid}/issues`, { token: tokens.owner, body: { title: 'matrix' } }));
  world.issue = issue.iid;
  world.issueGlobalId = issue.id;
  world.incident = ok('incident', await api(`/projects/${pid}/issues`, { token: tokens.owner, body: { title: 'incident', issue_type: 'incident' } })).iid;
  world.issueToDelete = ok('issue', await api(`/projects/${pid}/issues`, { token: tokens.owner, body: { title: 'delete me' } })).iid;
  const P = `/projects/${pid}`;
  world.issueNote = ok('note', await api(`${P}/issues/${world.issue}/notes`, { token: tokens.owner, body: { body: 'n' } })).id;
  world.mrNote = ok('note', await api(`${P}/merge_requests/${world.mr}/notes`, { token: tokens.owner, body: { body: 'n' } })).id;
  world.issueAward = ok('award', await api(`${P}/issues/${world.issue}/award_emoji`, { token: tokens.owner, body: { name: 'thumbsup' } })).id;
  world.issueNoteAward = ok('award', await api(`${P}/issues/${world.issue}/notes/${world.issueNote}/award_emoji`, { token: tokens.owner, body: { name: 'thumbsup' } })).id;
  world.mrAward = ok('award', await api(`${P}/merge_requests/${world.mr}/award_emoji`, { token: tokens.owner, body: { name: 'thumbsup' } })).id;
  world.mrNoteAward = ok('award', await api(`${P}/merge_requests/${world.mr}/notes/${world.mrNote}/award_emoji`, { token: tokens.owner, body: { name: 'thumbsup' } })).id;
  const epic = ok('epic', await api(`/groups/${g.id}/epics`, { token: tokens.owner, body: { title: 'epic' } }));
  world.epicIid = epic.iid;
  world.epicId = epic.id;
  world.epicToDelete = ok('epic', await api(`/groups/${g.id}/epics`, { token: tokens.owner, body: { title: 'delete me' } })).iid;
  world.epicNote = ok('note', await api(`/groups/${g.id}/epics/${epic.id}/notes`, { token: tokens.owner, body: { body: 'n' } })).id;
  world.epicAward = ok('award', await api(`/groups/${g.id}/epics/${epic.iid}/award_emoji`, { token: tokens.owner, body: { name: 'thumbsup' } })).id;
  for (const name of ['fixture-label', 'delete-me', 'promote-me', 'label-to-delete', 'label-to-promote']) {
    const l = ok('label', await api(`${P}/labels`, { token: tokens.owner, body: { name, color: '#000000' } }));
    if (name === 'fixture-label') world.projectLabelId = l.id;
  }
  for (const name of ['fixture-glabel', 'gdelete-me', 'glabel-to-delete']) {
    const l = ok('label', await api(`/groups/${g.id}/labels`, { token: tokens.owner, body: { name, color: '#000000' } }));
    if (name === 'fixture-glabel') world.groupLabelId = l.id;
  }
  const milestone = async (base: string) => ok('milestone', await api(`${base}/milestones`, { token: tokens.owner, body: { title: unique('m') } })).id as number;
  world.projectMilestone = await milestone(P);
  world.projectMilestoneToDelete = await milestone(P);
  world.projectMilestoneToPromote = await milestone(P);
  world.groupMilestone = await milestone(`/groups/${g.id}`);
  world.groupMilestoneToDelete = await milestone(`/groups/${g.id}`);
  world.projectRule = ok('rule', await api(`${P}/approval_rules`, { token: tokens.owner, body: { name: 'base', approvals_required: 1 } })).id;
  world.mrRule = ok('rule', await api(`${P}/merge_requests/${world.mr}/approval_rules`, { token: tokens.owner, body: { name: 'base', approvals_required: 1 } })).id;
  world.todoId = ok('todo', await api(`${P}/issues/${world.issue}/todo`, { method: 'POST', token: tokens.owner })).id;

  world.targetKey = ok('key', await api(`/users/${target.id}/keys`, { token: rootToken, body: { title: 'k', key: freshSshKey().key } })).id;
  world.targetGpgKey = ok('gpg', await api(`/users/${target.id}/gpg_keys`, { token: rootToken, body: { key: freshGpgKey().key } })).id;
  world.ownKey = ok('key', await api('/user/keys', { token: tokens.owner, body: { title: 'k', key: freshSshKey().key } })).id;
  world.ownGpgKey = ok('gpg', await api('/user/gpg_keys', { token: tokens.owner, body: { key: freshGpgKey().key } })).id;
  world.impersonationToken = ok('imp', await api(`/users/${target.id}/impersonation_tokens`, { token: rootToken, body: { name: 'i', scopes: ['api'] } })).id;
  const pats = ok('pats', await api(`/personal_access_tokens?user_id=${target.id}`, { token: rootToken }), 200) as { id: number }[];
  world.patId = pats[0].id;
  world.applicationId = ok('app', await api('/applications', { token: rootToken, body: { name: 'a', redirect_uri: 'https://example.com/cb', scopes: 'api' } })).id;
  const audit = ok('audit', await api('/audit_events', { token: rootToken }), 200) as { id: number }[];
  world.auditId = audit[0]?.id ?? 1;
  // About seventy requests (eight users with hashed passwords among them): more than the default 10 s hook budget on a loaded machine.
}, 60_000);

const png = () => {
  const form = new FormData();
  form.append('file', new File([new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10])], 'm.png', { type: 'image/png' }));
  return form;
};

/** The value of a path parameter: by the resource the path names (`:id` of /projects, /groups, /users …), then by name. */
function param(path: string, method: string, name: string, row: Row): string | number {
  const override = row.params?.[name];
  if (override) return world[override] ?? override;
  const resource = /^\/api\/v4\/([a-z_]+)/.exec(path)?.[1];
  if (name === 'id') {
    const byResource: Record<string, string> = {
      projects: 'projectId',
      groups: 'groupId',
      namespaces: 'groupId',
      issues: 'issueGlobalId',
      todos: 'todoId',
      personal_access_tokens: 'patId',
      applications: 'applicationId',
      audit_events: 'auditId',
      // Reads look at the target user; administrators' writes act on a victim nobody else uses.
      users: method === 'GET' ? 'targetId' : 'victimId',
    };
    if (path.startsWith('/uploads/')) return world.targetId;
    return world[byResource[resource ?? '']];
  }
  const inEpic = path.includes('/epics/');
  const inMr = path.includes('/merge_requests/:merge_request_iid');
  const named: Record<string, () => string | number> = {
    id_or_username: () => world.targetId,
    user_id: () => (path.includes('/members/') ? world.guestId : world.targetId),
    issue_iid: () => world.issue,
    merge_request_iid: () => world.mr,
    epic_iid: () => world.epicIid,
    epic_id: () => world.epicId,
    note_id: () => (inEpic ? world.epicNote : inMr ? world.mrNote : world.issueNote),
    award_id: () =>
      path.includes('/notes/') ? (inMr ? world.mrNoteAward : world.issueNoteAward) : inEpic ? world.epicAward : inMr ? world.mrAward : world.issueAward,
    approval_rule_id: () => (inMr ? world.mrRule : world.projectRule),
    milestone_id: () => (path.startsWith('/api/v4/groups') ? world.groupMilestone : world.projectMilestone),
    name: () => (path.includes('protected_branches') ? 'prot' : path.startsWith('/api/v4/groups') ? 'fixture-glabel' : 'fixture-label'),
    subscribable_id: () => (path.startsWith('/api/v4/groups') ? world.groupLabelId : world.projectLabelId),
    version_id: () => world.versionId,
    sha: () => world.sha,
    branch: () => 'feature',
    file_path: () => 'README.md',
    key_id: () => (path.startsWith('/api/v4/user/') ? (path.includes('gpg') ? world.ownGpgKey : world.ownKey) : path.includes('gpg') ? world.targetGpgKey : world.targetKey),
    impersonation_token_id: () => world.impersonationToken,
    key: () => 'mx_attribute',
    provider: () => 'github',
    // No such image or upload: the checks run before the lookup.
    metric_image_id: () => 999999,
    image_id: () => 999999,
    filename: () => 'x.png',
  };
  const value = named[name];
  if (!value) throw new Error(`no fixture for :${name} in ${path}`);
  return value();
}

/** The 404 that means "refused by hiding the container" on this path, if any. */
function containerNotFound(path: string): string | undefined {
  if (path.startsWith('/api/v4/projects/:id')) return '404 Project Not Found';
  if (path.startsWith('/api/v4/groups/:id')) return '404 Group Not Found';
  if (/^\/api\/v4\/users\/:(id|user_id|id_or_username)/.test(path)) return '404 User Not Found';
  if (path.startsWith('/api/v4/namespaces/:id')) return '404 Namespace Not Found';
  return undefined;
}

function verdict(cell: Cell, res: ApiResponse, nf: string | undefined): string | null {
  const message = (res.body as { message?: unknown } | null)?.message;
  const got = `${res.status} ${res.text.slice(0, 120)}`;
  if (res.status >= 500) return `server error ${got}`;
  if (cell === 'ok') {
    if (res.status === 401 || res.status === 403 || (res.status === 404 && nf !== undefined && message === nf)) return `refused: ${got}`;
    return null;
  }
  const [status, text] =
    cell === 'unauth' ? [401, '401 Unauthorized'] : cell === 'forbidden' ? [403, '403 Forbidden'] : cell === 'nf' ? [404, nf] : cell;
  if (res.status !== status || (text !== undefined && message !== text)) return `${got} (expected ${status}${text ? ` ${text}` : ''})`;
  return null;
}

/** A throwaway resource for one cell of a `fresh` row (members inherit from the fixture group). */
async function freshParams(row: Row): Promise<Record<string, string | number>> {
  if (row.fresh === 'project') {
    const p = ok('fresh project', await api('/projects', { token: tokens.owner, body: { path: unique('fp'), namespace_id: world.groupId, visibility: 'private' } }));
    return { id: p.id };
  }
  if (row.fresh === 'group') {
    const path = unique('fg');
    const g = ok('fresh group', await api('/groups', { token: tokens.owner, body: { name: path, path, parent_id: world.groupId, visibility: 'private' } }));
    return { id: g.id };
  }
  if (row.fresh === 'user') return { id: (await createUser()).id };
  if (row.fresh === 'protectedBranch') {
    const name = unique('pb');
    ok('fresh protection', await api(`/projects/${world.projectId}/protected_branches`, { token: tokens.owner, body: { name } }));
    return { name };
  }
  return {};
}

/** `self` token routes revoke or rotate the caller's own token: each cell gets a token of its own. */
async function callerToken(role: Role, path: string): Promise<string | null> {
  if (!path.includes('/personal_access_tokens/self') || role === 'anonymous') return tokens[role];
  const userId = role === 'admin' ? 1 : users[role].id;
  return createToken(userId, role === 'admin' ? ['api', 'admin_mode'] : ['api']);
}

async function runCell(key: string, row: Row, role: Role, missing: Record<string, number>): Promise<string | null> {
  const [method, path] = key.split(' ');
  const fresh = { ...(await freshParams(row)), ...missing };
  const url = path.replace(/:([A-Za-z_]+)/g, (_, name: string) => encodeURIComponent(String(fresh[name] ?? param(path, method, name, row))));
  const token = await callerToken(role, path);
  const body = method === 'GET' || row.upload ? undefined : typeof row.body === 'function' ? row.body() : (row.body ?? {});
  // The documentation's routes are asked with HEAD (the same route and guards): their megabytes of
  // body, eight times over, would only slow the harness's secret sweep down.
  const verb = UNDOCUMENTED.includes(key) ? 'HEAD' : method;
  const res = await api(row.query ? `${url}?${row.query}` : url, { method: verb, token, body, multipart: row.upload ? png() : undefined });
  const problem = verdict(row.rule[role], res, containerNotFound(path));
  return problem && `${role}: ${problem}`;
}

/**
 * The row's cells. Reads, and any call on a resource that does not exist, change nothing and run
 * side by side; other calls run one column after the other, least privileged first.
 */
async function runRow(key: string, row: Row, missing: Record<string, number> = {}): Promise<string[]> {
  if (key.startsWith('GET ') || Object.keys(missing).length) {
    return (await Promise.all(ROLES.map((role) => runCell(key, row, role, missing)))).filter((p): p is string => p !== null);
  }
  const failures: string[] = [];
  for (const role of ROLES) {
    const problem = await runCell(key, row, role, missing);
    if (problem) failures.push(problem);
  }
  return failures;
}

/** The route table as the OpenAPI document lists it (the same records on Node and workerd). */
async function routeKeys(): Promise<string[]> {
  const doc = (await api('/-/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p.replace(/\{([^}]+)\}/g, ':$1')}`));
}

// Reads first, then writes, then deletions, so that a consumed resource only affects its own row.
const order = (key: string) => (key.startsWith('GET ') ? 0 : key.startsWith('DELETE ') ? 2 : 1);
const ROWS = Object.entries(EXPECTATIONS).sort(([a], [b]) => order(a) - order(b));

describe('authorization matrix (private group and project)', () => {
  it('has exactly one row per route of the route table', async () => {
    const routes = await routeKeys();
    expect(routes.length).toBeGreaterThan(200);
    const rows = new Set(Object.keys(EXPECTATIONS));
    expect(routes.filter((r) => !rows.has(r)), 'routes without an expectation row').toEqual([]);
    expect([...rows].filter((r) => !routes.includes(r) && !UNDOCUMENTED.includes(r)), 'rows naming no route').toEqual([]);
    // The document's own routes exist too (their rows are checked below like the others).
    for (const key of UNDOCUMENTED) expect(rows.has(key), key).toBe(true);
  });

  for (const [key, row] of ROWS) {
    it(key, async () => {
      expect(await runRow(key, row)).toEqual([]);
    });
  }
});

/** Refusals that come before any lookup keep their cell when the user does not exist; everything else meets the 404. */
const beforeLookup = (cell: Cell) =>
  cell === 'unauth' || cell === 'forbidden' || (Array.isArray(cell) && (cell[0] === 401 || String(cell[1] ?? '').startsWith('403 Forbidden')));
const USER_ROWS = ROWS.filter(([key]) => /^[A-Z]+ \/api\/v4\/users\/:(id|user_id|id_or_username)(\/|$)/.test(key));

describe('authorization matrix: a user who does not exist', () => {
  // §7: admin-only user endpoints answer 401/403 "before existence"; public ones (keys, gpg_keys,
  // status) answer `404 User Not Found` for a missing user.
  for (const [key, row] of USER_ROWS) {
    it(key, async () => {
      const rule = row.missing ?? (Object.fromEntries(ROLES.map((r) => [r, beforeLookup(row.rule[r]) ? row.rule[r] : [404, '404 User Not Found']])) as Row['rule']);
      const name = /:(id_or_username|user_id|id)\b/.exec(key)![1];
      expect(await runRow(key, { ...row, rule, fresh: undefined }, { [name]: 999999999 })).toEqual([]);
    });
  }
});

const CONTAINER_ROWS = ROWS.filter(([key]) => /^[A-Z]+ \/api\/v4\/(projects|groups)\/:id(\/|$)/.test(key));

describe('authorization matrix: a project or group that does not exist', () => {
  // Everyone meets the container's 404 (find_project! / find_group!), administrators included;
  // only what runs before the lookup keeps its cell: `authenticate!` (anonymous 401) and
  // `authenticated_as_admin!` on the admin-only rows.
  for (const [key, row] of CONTAINER_ROWS) {
    it(key, async () => {
      const admin = row.rule === adminOnly;
      const rule = row.missing ?? (Object.fromEntries(ROLES.map((r) => [r, (r === 'anonymous' && row.rule[r] === 'unauth') || (admin && r !== 'admin') ? row.rule[r] : 'nf'])) as Row['rule']);
      expect(await runRow(key, { ...row, rule, fresh: undefined }, { id: 999999999 })).toEqual([]);
    });
  }
});

const MEMBER_COLUMNS = ['guest', 'reporter', 'developer', 'maintainer', 'owner'] as const;

/**
 * A read of the private project or group, once both are public (every feature at its default
 * "everyone with access"): what a guest or reporter may read there, anyone may read now (GitLab lifts
 * the private-only restrictions on guests: merge requests, code); reads kept for developers and
 * above stay theirs, and callers who are no member now get 403 instead of the hidden container's
 * 404. `authenticate!` still answers anonymous callers 401.
 */
function publicRule(rule: Row['rule']): Row['rule'] {
  if (rule === adminOnly) return rule;
  const first = MEMBER_COLUMNS.find((r) => rule[r] === 'ok');
  const anonymous = rule.anonymous === 'unauth' ? 'unauth' : undefined;
  if (first === 'guest' || first === 'reporter') return { ...(Object.fromEntries(ROLES.map((r) => [r, 'ok'])) as Row['rule']), anonymous: anonymous ?? 'ok' };
  return { ...rule, nonMember: 'forbidden', anonymous: anonymous ?? 'forbidden' };
}

const PUBLIC_READS = ROWS.filter(([key]) => /^GET \/api\/v4\/(projects|groups)\/:id(\/|$)/.test(key));

describe('authorization matrix: the same reads once the group and project are public', () => {
  beforeAll(async () => {
    ok('public group', await api(`/groups/${world.groupId}`, { method: 'PUT', token: tokens.owner, body: { visibility: 'public' } }), 200);
    ok('public project', await api(`/projects/${world.projectId}`, { method: 'PUT', token: tokens.owner, body: { visibility: 'public' } }), 200);
  });

  for (const [key, row] of PUBLIC_READS) {
    it(key, async () => {
      expect(await runRow(key, { ...row, rule: row.publicRule ?? publicRule(row.rule) })).toEqual([]);
    });
  }
});
