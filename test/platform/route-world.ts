/**
 * The world the route-table tests call every route in (issue 12's authorization matrix, issue 13's
 * round-trip budget): a PRIVATE group owned by `owner` with guest/reporter/developer/maintainer
 * members, a PRIVATE project in it with a repository, merge requests, issues, notes, award emoji,
 * epics, labels, milestones, approval rules, keys and tokens; `param` names the fixture for each path
 * parameter of a route.
 */
import { api, createToken, createUser, rootToken, unique, type ApiResponse, type TestUser } from '../support';
import { freshGpgKey, freshSshKey } from '../fixtures/keys';
import { MATRIX_GEO_NODE, type Role, type Row } from './authorization-matrix';

const MEMBERS = { guest: 10, reporter: 20, developer: 30, maintainer: 40 } as const;
export const users = {} as Record<Exclude<Role, 'anonymous' | 'admin'>, TestUser>;
export const tokens = {} as Record<Role, string | null>;
/** Path parameter values and resource names (see `param`). */
export const world: Record<string, string | number> = {};

export const ok = (what: string, res: ApiResponse, status = 201) => {
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

/** Builds the world (about seventy requests); call it from a `beforeAll` with a 60 s budget. */
export async function buildWorld(): Promise<void> {
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
  world.ownerNamespace = users.owner.username;
  world.guestId = users.guest.id;

  const path = unique('mx');
  const g = ok('group', await api('/groups', { token: tokens.owner, body: { name: path, path, visibility: 'private' } }));
  world.groupId = g.id;
  // A public group of its own for the sharing routes: everyone may read it, it is no ancestor of the project.
  const shareWith = unique('mxs');
  world.shareGroupId = ok('share group', await api('/groups', { token: tokens.owner, body: { name: shareWith, path: shareWith, visibility: 'public' } })).id;
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
  // A branch with a commit and no merge request: the matrix's create opens one from it (a create
  // from `feature` answers 409 and never reached the approval rules' build and the answer's reads).
  ok('branch', await api(`/projects/${pid}/repository/branches`, { token: tokens.owner, body: { branch: 'mx-create', ref: 'main' } }));
  await commit(pid, 'mx-create', 'mx-create.txt');
  for (const b of ['to-delete', 'prot', 'prot-del']) ok('branch', await api(`/projects/${pid}/repository/branches`, { token: tokens.owner, body: { branch: b, ref: 'main' } }));
  for (const b of ['prot', 'prot-del']) ok('protect', await api(`/projects/${pid}/protected_branches`, { token: tokens.owner, body: { name: b } }));
  for (const t of ['mx-ptag', 'mx-ptag-del']) ok('protect tag', await api(`/projects/${pid}/protected_tags`, { token: tokens.owner, body: { name: t } }));
  for (const t of ['mx-tag', 'mx-tag-del']) ok('tag', await api(`/projects/${pid}/repository/tags`, { token: tokens.owner, body: { tag_name: t, ref: 'main', message: t } }));
  const versions = ok('versions', await api(`/projects/${pid}/merge_requests/${world.mr}/versions`, { token: tokens.owner }), 200) as { id: number }[];
  world.versionId = versions[0].id;

  const issue = ok('issue', await api(`/projects/${pid}/issues`, { token: tokens.owner, body: { title: 'matrix' } }));
  world.issue = issue.iid;
  world.issueGlobalId = issue.id;
  world.incident = ok('incident', await api(`/projects/${pid}/issues`, { token: tokens.owner, body: { title: 'incident', issue_type: 'incident' } })).iid;
  world.issueToDelete = ok('issue', await api(`/projects/${pid}/issues`, { token: tokens.owner, body: { title: 'delete me' } })).iid;
  const P = `/projects/${pid}`;
  // Linked issues: a link for the matrix's GET and DELETE (the POST links world.incident).
  const linkedIssue = ok('issue', await api(`/projects/${pid}/issues`, { token: tokens.owner, body: { title: 'linked' } })).iid;
  ok('issue link', await api(`${P}/issues/${world.issue}/links`, { token: tokens.owner, body: { target_project_id: pid, target_issue_iid: linkedIssue } }));
  world.issueLink = (ok('issue links', await api(`${P}/issues/${world.issue}/links`, { token: tokens.owner }), 200) as { issue_link_id: number }[])[0].issue_link_id;
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
  // A thread on each noteable kind (discussions.rb) and its note, for the discussion routes.
  for (const [kind, base] of [['issue', `${P}/issues/${world.issue}`], ['mr', `${P}/merge_requests/${world.mr}`], ['epic', `/groups/${g.id}/epics/${epic.id}`], ['commit', `${P}/repository/commits/${world.sha}`]]) {
    const d = ok('discussion', await api(`${base}/discussions`, { token: tokens.owner, body: { body: 'd' } })) as { id: string; notes: { id: number }[] };
    world[`${kind}Discussion`] = d.id;
    world[`${kind}DiscussionNote`] = d.notes[0].id;
  }
  world.epicAward = ok('award', await api(`/groups/${g.id}/epics/${epic.iid}/award_emoji`, { token: tokens.owner, body: { name: 'thumbsup' } })).id;
  // Linked epics: an epic for the matrix's POST to link to, and a link for its DELETE to remove.
  world.relatedEpicIid = ok('epic', await api(`/groups/${g.id}/epics`, { token: tokens.owner, body: { title: 'related' } })).iid;
  const linked = ok('epic', await api(`/groups/${g.id}/epics`, { token: tokens.owner, body: { title: 'linked' } })).iid;
  world.relatedEpicLink = ok('epic link', await api(`/groups/${g.id}/epics/${epic.iid}/related_epics`, { token: tokens.owner, body: { target_group_id: g.id, target_epic_iid: linked } })).id;
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
  // Two runners of the private project, registered as gitlab-runner registers them: one to read and act on, one to delete.
  const runnerRegistration = ok('runner token', await api(`${P}/runners/reset_registration_token`, { method: 'POST', token: tokens.owner })).token;
  world.runnerId = ok('runner', await api('/runners', { body: { token: runnerRegistration, description: 'matrix' } })).id;
  world.environmentId = ok('environment', await api(`${P}/environments`, { token: tokens.owner, body: { name: 'production' } })).id;
  ok('protected environment', await api(`${P}/protected_environments`, { token: tokens.owner, body: { name: 'mx-protected', deploy_access_levels: [{ access_level: 40 }] } }));
  const deployment = () => api(`${P}/deployments`, { token: tokens.owner, body: { environment: 'production', sha: world.sha, ref: 'main', tag: false } });
  world.deploymentId = ok('deployment', await deployment()).id;
  world.deploymentToDelete = ok('deployment', await deployment()).id;
  // Deleting needs a stopped environment (EnvironmentPolicy).
  world.environmentToDelete = ok('environment', await api(`${P}/environments`, { token: tokens.owner, body: { name: 'to-delete' } })).id;
  ok('stop', await api(`${P}/environments/${world.environmentToDelete}/stop`, { method: 'POST', token: tokens.owner }), 200);
  world.runnerToDelete = ok('runner', await api('/runners', { body: { token: runnerRegistration, description: 'doomed' } })).id;
  const hook = async (base: string) => ok('hook', await api(`${base}/hooks`, { token: tokens.owner, body: { url: 'https://example.com/hook', push_events: false } })).id as number;
  world.projectHookId = await hook(P);
  world.projectHookToDelete = await hook(P);
  world.groupHookId = await hook(`/groups/${g.id}`);
  world.groupHookToDelete = await hook(`/groups/${g.id}`);

  world.targetKey = ok('key', await api(`/users/${target.id}/keys`, { token: rootToken, body: { title: 'k', key: freshSshKey().key } })).id;
  world.targetGpgKey = ok('gpg', await api(`/users/${target.id}/gpg_keys`, { token: rootToken, body: { key: freshGpgKey().key } })).id;
  world.ownKey = ok('key', await api('/user/keys', { token: tokens.owner, body: { title: 'k', key: freshSshKey().key } })).id;
  world.ownGpgKey = ok('gpg', await api('/user/gpg_keys', { token: tokens.owner, body: { key: freshGpgKey().key } })).id;
  world.ownEmail = ok('email', await api('/user/emails', { token: tokens.owner, body: { email: `${unique('mx')}@mx-mail.example.com` } })).id;
  world.victimEmail = ok('email', await api(`/users/${victim.id}/emails`, { token: rootToken, body: { email: `${unique('mx')}@mx-mail.example.com` } })).id;
  world.impersonationToken = ok('imp', await api(`/users/${target.id}/impersonation_tokens`, { token: rootToken, body: { name: 'i', scopes: ['api'] } })).id;
  const pats = ok('pats', await api(`/personal_access_tokens?user_id=${target.id}`, { token: rootToken }), 200) as { id: number }[];
  world.patId = pats[0].id;
  world.applicationId = ok('app', await api('/applications', { token: rootToken, body: { name: 'a', redirect_uri: 'https://example.com/cb', scopes: 'api' } })).id;
  const audit = ok('audit', await api('/audit_events', { token: rootToken }), 200) as { id: number }[];
  world.auditId = audit[0]?.id ?? 1;
  // Two secondary Geo nodes, neither the instance's own: one to read and update, one to delete.
  world.geoNodeId = ok('geo node', await api('/geo_nodes', { token: rootToken, body: { name: MATRIX_GEO_NODE, url: 'https://mx-geo.example.com' } })).id;
  world.geoNodeToDelete = ok('geo node', await api('/geo_nodes', { token: rootToken, body: { name: `${MATRIX_GEO_NODE}-doomed`, url: 'https://mx-doomed.example.com' } })).id;
  // About seventy requests (eight users with hashed passwords among them): more than the default 10 s hook budget on a loaded machine.
}

export const png = () => {
  const form = new FormData();
  form.append('file', new File([new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10])], 'm.png', { type: 'image/png' }));
  return form;
};

/** The value of a path parameter: by the resource the path names (`:id` of /projects, /groups, /users …), then by name. */
export function param(path: string, method: string, name: string, row: Row): string | number {
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
      geo_nodes: 'geoNodeId',
      keys: 'targetKey',
      runners: 'runnerId',
      // Reads look at the target user; administrators' writes act on a victim nobody else uses.
      users: method === 'GET' ? 'targetId' : 'victimId',
    };
    if (path.startsWith('/uploads/')) return world.targetId;
    return world[byResource[resource ?? '']];
  }
  const inEpic = path.includes('/epics/');
  const inMr = path.includes('/merge_requests/:merge_request_iid');
  const discussionOf = path.includes('/repository/commits/') ? 'commit' : inEpic ? 'epic' : inMr ? 'mr' : 'issue';
  const named: Record<string, () => string | number> = {
    id_or_username: () => world.targetId,
    user_id: () => (path.includes('/members/') ? world.guestId : world.targetId),
    issue_iid: () => world.issue,
    merge_request_iid: () => world.mr,
    epic_iid: () => world.epicIid,
    epic_id: () => world.epicId,
    related_epic_link_id: () => world.relatedEpicLink,
    issue_link_id: () => world.issueLink,
    // No such resource event: the checks run before the lookup.
    event_id: () => 999999,
    // No such hook log: the checks run before the lookup (no request leaves the test).
    hook_log_id: () => 999999,
    discussion_id: () => world[`${discussionOf}Discussion`],
    note_id: () => (path.includes('/discussions/') ? world[`${discussionOf}DiscussionNote`] : inEpic ? world.epicNote : inMr ? world.mrNote : world.issueNote),
    award_id: () =>
      path.includes('/notes/') ? (inMr ? world.mrNoteAward : world.issueNoteAward) : inEpic ? world.epicAward : inMr ? world.mrAward : world.issueAward,
    approval_rule_id: () => (inMr ? world.mrRule : world.projectRule),
    milestone_id: () => (path.startsWith('/api/v4/groups') ? world.groupMilestone : world.projectMilestone),
    name: () => (path.startsWith('/api/v4/features') ? 'matrix_flag' : path.includes('protected_environments') ? 'mx-protected' : path.includes('protected_branches') ? 'prot' : path.includes('protected_tags') ? 'mx-ptag' : path.startsWith('/api/v4/groups') ? 'fixture-glabel' : 'fixture-label'),
    subscribable_id: () => (path.startsWith('/api/v4/groups') ? world.groupLabelId : world.projectLabelId),
    version_id: () => world.versionId,
    runner_id: () => world.runnerId,
    environment_id: () => world.environmentId,
    deployment_id: () => world.deploymentId,
    hook_id: () => (path.startsWith('/api/v4/groups') ? world.groupHookId : world.projectHookId),
    // A trigger TestHooks refuses at once (no CI jobs): no request leaves the test.
    trigger: () => 'job_events',
    sha: () => world.sha,
    branch: () => 'feature',
    file_path: () => 'README.md',
    tag_name: () => 'mx-tag',
    format: () => 'zip',
    key_id: () => (path.startsWith('/api/v4/user/') ? (path.includes('gpg') ? world.ownGpgKey : world.ownKey) : path.includes('gpg') ? world.targetGpgKey : world.targetKey),
    impersonation_token_id: () => world.impersonationToken,
    email_id: () => (path.startsWith('/api/v4/user/') ? world.ownEmail : world.victimEmail),
    // A custom attribute's key; under a hook, a name valid as a URL variable and as a header.
    key: () => (path.includes('/hooks/') ? 'mx_key' : 'mx_attribute'),
    provider: () => 'github',
    // No such image or upload: the checks run before the lookup.
    metric_image_id: () => 999999,
    image_id: () => 999999,
    filename: () => 'x.png',
    // A project upload's 32-hex directory that holds nothing.
    secret: () => '0'.repeat(32),
  };
  const value = named[name];
  if (!value) throw new Error(`no fixture for :${name} in ${path}`);
  return value();
}

/** The 404 that means "refused by hiding the container" on this path, if any. */
export function containerNotFound(path: string): string | undefined {
  if (path.startsWith('/api/v4/projects/:id')) return '404 Project Not Found';
  if (path.startsWith('/api/v4/groups/:id')) return '404 Group Not Found';
  if (/^\/api\/v4\/users\/:(id|user_id|id_or_username)/.test(path)) return '404 User Not Found';
  if (path.startsWith('/api/v4/namespaces/:id')) return '404 Namespace Not Found';
  return undefined;
}

/** A throwaway resource for one cell of a `fresh` row (members inherit from the fixture group). */
export async function freshParams(row: Row): Promise<Record<string, string | number>> {
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
export async function callerToken(role: Role, path: string): Promise<string | null> {
  if (!path.includes('/personal_access_tokens/self') || role === 'anonymous') return tokens[role];
  const userId = role === 'admin' ? 1 : users[role].id;
  return createToken(userId, role === 'admin' ? ['api', 'admin_mode'] : ['api']);
}

/** The route table as the OpenAPI document lists it (the same records on Node and workerd). */
export async function routeKeys(): Promise<string[]> {
  const doc = (await api('/-/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p.replace(/\{([^}]+)\}/g, ':$1')}`));
}

