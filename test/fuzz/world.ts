/**
 * The fuzzer's fixtures, created through the API as a client would: users (the plain caller, an
 * owner, a victim for the administrator's user actions), groups, projects with a repository, issues,
 * merge requests, labels, milestones, epics, notes, awards, approval rules, keys, tokens and the rest,
 * so that a fuzzed request names real records often enough to reach the code behind the lookups.
 *
 * `realSegments(route, param)` answers the path segments (already URL-encoded) that name a real
 * record of the kind the route expects for that parameter.
 */
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { freshGpgKey, freshSshKey } from '../fixtures/keys';
import type { FuzzApp } from './app';

export const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='), (ch) => ch.charCodeAt(0));

let n = 0;
const fresh = (prefix: string) => `${prefix}${Date.now().toString(36)}${(n++).toString(36)}`;

export interface World {
  tokens: { admin: string; user: string };
  /** A fresh token of the plain user or of root, for routes that revoke the token they are called with. */
  freshToken(who: 'admin' | 'user'): Promise<string>;
  users: { user: { id: number; username: string }; owner: { id: number; username: string }; victim: { id: number; username: string } };
  /** Values a fuzzed body or query may pick to name real things (usernames, branches, label names, ids). */
  words: string[];
  ints: number[];
  segments: Record<string, string[]>;
}

export async function buildWorld(app: FuzzApp): Promise<World> {
  const root = DEV_ROOT_TOKEN;
  const { call } = app;
  const mkUser = async (extra: Record<string, unknown> = {}) => {
    const username = fresh('fz');
    const u = await call('POST', '/users', root, { email: `${username}@example.com`, name: `Fuzz ${username}`, username, password: `Pw-${username}-long1`, skip_confirmation: true, ...extra });
    return { id: u.id as number, username };
  };
  const mkToken = async (userId: number, scopes: string[]) => (await call('POST', `/users/${userId}/personal_access_tokens`, root, { name: fresh('tok'), scopes })).token as string;

  const user = await mkUser();
  const owner = await mkUser();
  const victim = await mkUser({ extern_uid: 'uid-fuzz', provider: 'ldapmain' });
  const userToken = await mkToken(user.id, ['api']);
  const ownerToken = await mkToken(owner.id, ['api']);

  // Groups: public (the plain user is a developer), a subgroup, and a private one the plain user cannot see.
  const gpath = fresh('grp');
  const group = await call('POST', '/groups', ownerToken, { name: gpath, path: gpath, visibility: 'public' });
  const sub = await call('POST', '/groups', ownerToken, { name: 'sub', path: 'sub', parent_id: group.id, visibility: 'public' });
  const ppath = fresh('priv');
  const privGroup = await call('POST', '/groups', ownerToken, { name: ppath, path: ppath, visibility: 'private' });
  await call('POST', `/groups/${group.id}/members`, ownerToken, { user_id: user.id, access_level: 30 });

  const project = await call('POST', '/projects', ownerToken, { path: 'proj', namespace_id: group.id, visibility: 'public' });
  const privProject = await call('POST', '/projects', ownerToken, { path: 'secret', namespace_id: privGroup.id, visibility: 'private' });
  const subProject = await call('POST', '/projects', ownerToken, { path: 'inner', namespace_id: sub.id, visibility: 'internal' });
  const userProject = await call('POST', '/projects', userToken, { name: fresh('mine'), visibility: 'private' });
  const P = `/projects/${project.id}`;

  const first = await call('POST', `${P}/repository/commits`, ownerToken, {
    branch: 'main',
    commit_message: 'init',
    actions: [
      { action: 'create', file_path: 'README.md', content: '# fuzz\n' },
      { action: 'create', file_path: 'docs/guide.md', content: 'guide\n' },
      { action: 'create', file_path: 'CODEOWNERS', content: `* @${owner.username}\n` },
      // A lockfile on the default branch: the dependency list has rows to page and filter.
      { action: 'create', file_path: 'package-lock.json', content: JSON.stringify({ lockfileVersion: 3, packages: { '': { name: 'fuzz' }, 'node_modules/lodash': { version: '4.17.20' }, 'node_modules/minimist': { version: '1.2.8' } } }) },
    ],
  });
  for (const [branch, file] of [['feature', 'f.txt'], ['topic', 't.txt']]) {
    await call('POST', `${P}/repository/branches`, ownerToken, { branch, ref: 'main' });
    await call('POST', `${P}/repository/commits`, ownerToken, { branch, commit_message: `on ${branch}`, actions: [{ action: 'create', file_path: file, content: `${branch}\n` }] });
  }
  await call('POST', `/projects/${privProject.id}/repository/commits`, ownerToken, { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] });
  await call('POST', `${P}/protected_branches`, ownerToken, { name: 'release-*', push_access_level: 40, merge_access_level: 30 });

  const label = await call('POST', `${P}/labels`, ownerToken, { name: 'bug', color: '#ff0000' });
  const label2 = await call('POST', `${P}/labels`, ownerToken, { name: 'needs review', color: '#00ff00' });
  const groupLabel = await call('POST', `/groups/${group.id}/labels`, ownerToken, { name: 'grouplabel', color: '#0000ff' });
  const milestone = await call('POST', `${P}/milestones`, ownerToken, { title: 'v1' });
  const milestone2 = await call('POST', `${P}/milestones`, ownerToken, { title: 'v2' });
  const groupMilestone = await call('POST', `/groups/${group.id}/milestones`, ownerToken, { title: 'g1' });

  const epic = await call('POST', `/groups/${group.id}/epics`, ownerToken, { title: 'epic one', labels: 'grouplabel' });
  const epic2 = await call('POST', `/groups/${group.id}/epics`, ownerToken, { title: 'epic two', parent_id: epic.id });
  const issue = await call('POST', `${P}/issues`, ownerToken, { title: 'incident', issue_type: 'incident', labels: 'bug', milestone_id: milestone.id, assignee_ids: [user.id], epic_id: epic.id });
  const issue2 = await call('POST', `${P}/issues`, ownerToken, { title: 'secret issue', confidential: true, description: 'see !1' });
  const issue3 = await call('POST', `${P}/issues`, userToken, { title: 'users issue', due_date: '2030-01-01' });
  const privIssue = await call('POST', `/projects/${privProject.id}/issues`, ownerToken, { title: 'private' });

  const mr = await call('POST', `${P}/merge_requests`, ownerToken, { title: 'feature', source_branch: 'feature', target_branch: 'main', description: `Closes #${issue.iid}`, labels: 'bug', reviewer_ids: [user.id] });
  const mr2 = await call('POST', `${P}/merge_requests`, userToken, { title: 'topic', source_branch: 'topic', target_branch: 'main', milestone_id: milestone.id });
  const versions = await call<{ id: number }[]>('GET', `${P}/merge_requests/${mr.iid}/versions`, ownerToken);

  const issueNote = await call('POST', `${P}/issues/${issue.iid}/notes`, ownerToken, { body: 'an issue note' });
  const issueNote2 = await call('POST', `${P}/issues/${issue.iid}/notes`, userToken, { body: 'the users note' });
  const mrNote = await call('POST', `${P}/merge_requests/${mr.iid}/notes`, ownerToken, { body: 'a merge request note' });
  const epicNote = await call('POST', `/groups/${group.id}/epics/${epic.id}/notes`, ownerToken, { body: 'an epic note' });
  const issueAward = await call('POST', `${P}/issues/${issue.iid}/award_emoji`, userToken, { name: 'thumbsup' });
  const mrAward = await call('POST', `${P}/merge_requests/${mr.iid}/award_emoji`, userToken, { name: 'tada' });
  const issueNoteAward = await call('POST', `${P}/issues/${issue.iid}/notes/${issueNote.id}/award_emoji`, userToken, { name: 'heart' });
  const mrNoteAward = await call('POST', `${P}/merge_requests/${mr.iid}/notes/${mrNote.id}/award_emoji`, userToken, { name: 'rocket' });
  const epicAward = await call('POST', `/groups/${group.id}/epics/${epic.iid}/award_emoji`, userToken, { name: 'eyes' });
  const epicLink = await call('POST', `/groups/${group.id}/epics/${epic.iid}/related_epics`, ownerToken, { target_group_id: group.id, target_epic_iid: epic2.iid, link_type: 'blocks' });
  // A linked pair of issues, and the resource events the issue's labels and milestone left (issue 18).
  await call('POST', `${P}/issues/${issue.iid}/links`, ownerToken, { target_project_id: project.id, target_issue_iid: issue2.iid, link_type: 'blocks' });
  const issueLinkId = (await call<{ issue_link_id: number }[]>('GET', `${P}/issues/${issue.iid}/links`, ownerToken))[0].issue_link_id;
  const labelEvent = (await call<{ id: number }[]>('GET', `${P}/issues/${issue.iid}/resource_label_events`, ownerToken))[0];
  // A lightweight and an annotated tag, and a protected tag pattern (issue 18).
  await call('POST', `${P}/repository/tags`, ownerToken, { tag_name: 'v1.0', ref: 'main' });
  await call('POST', `${P}/repository/tags`, ownerToken, { tag_name: 'v2.0', ref: 'main', message: 'release two' });
  await call('POST', `${P}/protected_tags`, ownerToken, { name: 'release-*' });
  // A share of the project with the private group (issue 18 item 3), for the unshare routes.
  await call('POST', `${P}/share`, ownerToken, { group_id: privGroup.id, group_access: 20 });
  // The notes above are discussions too (one model): their ids for the discussion routes.
  const issueDiscussion = (await call<{ id: string }[]>('GET', `${P}/issues/${issue.iid}/discussions`, ownerToken))[0];
  const mrDiscussion = (await call<{ id: string }[]>('GET', `${P}/merge_requests/${mr.iid}/discussions`, ownerToken))[0];

  const projectRule = await call('POST', `${P}/approval_rules`, ownerToken, { name: 'reviewers', approvals_required: 1, user_ids: [user.id] });
  const mrRule = await call('POST', `${P}/merge_requests/${mr.iid}/approval_rules`, ownerToken, { name: 'mr rule', approvals_required: 1, user_ids: [owner.id] });
  const todo = await call('POST', `${P}/issues/${issue3.iid}/todo`, userToken, undefined, [201, 304]);
  await call('POST', `${P}/merge_requests/${mr.iid}/todo`, userToken, undefined, [201, 304]);

  const image = new FormData();
  image.append('file', new File([PNG], 'graph.png', { type: 'image/png' }));
  image.append('url', 'https://example.com/dash');
  const metric = await call('POST', `${P}/issues/${issue.iid}/metric_images`, ownerToken, image);
  const uploadForm = new FormData();
  uploadForm.append('file', new File([PNG], 'shot.png', { type: 'image/png' }));
  const projectUpload = (await call('POST', `${P}/uploads`, ownerToken, uploadForm)).url.split('/');

  const userKey = await call('POST', '/user/keys', userToken, { title: 'fuzz', key: freshSshKey().key });
  const victimKey = await call('POST', `/users/${victim.id}/keys`, root, { title: 'victim', key: freshSshKey('rsa', 2048).key });
  const userGpg = await call('POST', '/user/gpg_keys', userToken, { key: freshGpgKey().key });
  const victimGpg = await call('POST', `/users/${victim.id}/gpg_keys`, root, { key: freshGpgKey().key });
  const impersonation = await call('POST', `/users/${victim.id}/impersonation_tokens`, root, { name: 'imp', scopes: ['api'] });
  const spareTokens: number[] = [];
  for (const who of [user.id, user.id, victim.id]) spareTokens.push((await call('POST', `/users/${who}/personal_access_tokens`, root, { name: fresh('spare'), scopes: ['read_api'] })).id);
  await call('PUT', `/users/${victim.id}/custom_attributes/team`, root, { value: 'fuzzers' });
  const userEmail = await call('POST', '/user/emails', userToken, { email: `${fresh('mail')}@example.com` });
  const victimEmail = await call('POST', `/users/${victim.id}/emails`, root, { email: `${fresh('mail')}@example.com` });
  await call('PUT', '/user/status', userToken, { emoji: 'coffee', message: 'fuzzing' });
  await call('POST', `/users/${victim.id}/follow`, userToken, undefined, [201, 304]);
  const avatar = new FormData();
  avatar.append('avatar', new File([PNG], 'face.png', { type: 'image/png' }));
  const withAvatar = await call('PUT', `/users/${victim.id}`, root, avatar);
  const avatarPath = new URL(withAvatar.avatar_url).pathname.split('/');
  const application = await call('POST', '/applications', root, { name: 'fuzz app', redirect_uri: 'https://example.com/cb', scopes: 'api' });
  const audit = await call<{ id: number }[]>('GET', '/audit_events', root);

  // Runners registered with the project's and the group's registration tokens, as gitlab-runner does.
  const projectRegistration = await call('POST', `${P}/runners/reset_registration_token`, ownerToken, undefined, [201]);
  const projectRunner = await call('POST', '/runners', null, { token: projectRegistration.token, description: 'fuzz project runner' }, [201]);
  const groupRegistration = await call('POST', `/groups/${group.id}/runners/reset_registration_token`, ownerToken, undefined, [201]);
  const groupRunner = await call('POST', '/runners', null, { token: groupRegistration.token, description: 'fuzz group runner', tag_list: ['docker'] }, [201]);

  // Environments, a protected one and a deployment (src/deployments).
  const production = await call('POST', `${P}/environments`, ownerToken, { name: 'production', external_url: 'https://example.com' }, [201]);
  const staging = await call('POST', `${P}/environments`, ownerToken, { name: 'staging' }, [201]);
  await call('POST', `${P}/protected_environments`, ownerToken, { name: 'production', deploy_access_levels: [{ access_level: 40 }] }, [201, 403]);
  const deployment = await call('POST', `${P}/deployments`, ownerToken, { environment: 'staging', sha: first.id, ref: 'main', tag: false, status: 'success' }, [201]);

  // Webhooks (src/hooks): a project hook and a group hook that take no event, at a public name.
  const projectHook = await call('POST', `${P}/hooks`, ownerToken, { url: 'https://example.com/fuzz', push_events: false }, [201]);
  const groupHook = await call('POST', `/groups/${group.id}/hooks`, ownerToken, { url: 'https://example.com/fuzz', push_events: false }, [201]);

  // Geo nodes (src/geo): two secondaries, so a fuzzed update, repair or deletion names a real node.
  const geoNodes = [
    await call('POST', '/geo_nodes', root, { name: fresh('geo'), url: 'https://geo-one.example.com' }, [201]),
    await call('POST', '/geo_nodes', root, { name: fresh('geo'), url: 'https://geo-two.example.com', selective_sync_type: 'shards', selective_sync_shards: ['default'] }, [201]),
  ];

  const enc = encodeURIComponent;
  const ids = (...xs: (number | string)[]) => xs.map((x) => enc(String(x)));
  const segments: Record<string, string[]> = {
    project: ids(project.id, project.id, project.path_with_namespace, privProject.id, subProject.id, userProject.id),
    group: ids(group.id, group.id, group.full_path, sub.id, sub.full_path, privGroup.id),
    namespace: ids(group.id, group.full_path, user.username, privGroup.id),
    issueIid: ids(issue.iid, issue.iid, issue2.iid, issue3.iid, privIssue.iid),
    issueId: ids(issue.id, issue2.id, privIssue.id),
    mrIid: ids(mr.iid, mr.iid, mr2.iid),
    epicIid: ids(epic.iid, epic.iid, epic2.iid),
    epicId: ids(epic.id, epic.id, epic2.id),
    issueNote: ids(issueNote.id, issueNote2.id),
    mrNote: ids(mrNote.id),
    epicNote: ids(epicNote.id),
    issueAward: ids(issueAward.id),
    mrAward: ids(mrAward.id),
    issueNoteAward: ids(issueNoteAward.id),
    mrNoteAward: ids(mrNoteAward.id),
    epicAward: ids(epicAward.id),
    relatedEpicLink: ids(epicLink.id),
    issueLink: ids(issueLinkId),
    resourceEvent: ids(labelEvent?.id ?? 1, 999999),
    discussion: ids(issueDiscussion.id, mrDiscussion.id, '0'.repeat(40)),
    tag: ids('v1.0', 'v2.0', 'release-1'),
    archiveFormat: ids('zip', 'tar.gz', 'tar', 'tar.bz2', 'rar'),
    protectedTag: ids('release-*', 'v1.0'),
    projectRule: ids(projectRule.id),
    mrRule: ids(mrRule.id),
    sshKey: ids(userKey.id, victimKey.id),
    gpgKey: ids(userGpg.id, victimGpg.id),
    email: ids(userEmail.id, victimEmail.id),
    userId: ids(victim.id, victim.id, user.id, owner.id),
    victimId: ids(victim.id, victim.username),
    username: ids(victim.username, user.username, owner.username),
    impersonation: ids(impersonation.id),
    token: ids(...spareTokens),
    metricImage: ids(metric.id),
    projectMilestone: ids(milestone.id, milestone2.id),
    groupMilestone: ids(groupMilestone.id),
    projectLabel: ids(label.name, label2.name, label.id, groupLabel.name),
    groupLabel: ids(groupLabel.name, groupLabel.id),
    version: ids(...versions.map((v) => v.id)),
    sha: ids(first.id, first.short_id, 'main', 'feature'),
    branch: ids('main', 'feature', 'topic', 'release-*', 'feat/x'),
    filePath: ids('README.md', 'docs/guide.md', 'CODEOWNERS', 'missing.txt'),
    provider: ids('ldapmain'),
    attribute: ids('team'),
    todo: ids(todo?.id ?? 1),
    application: ids(application.id),
    audit: ids(...audit.slice(0, 3).map((a) => a.id)),
    imageId: ids(metric.id),
    imageFile: ids('graph.png'),
    uploadSecret: ids(projectUpload[2]),
    uploadFile: ids(projectUpload[3]),
    avatarUser: ids(avatarPath[avatarPath.length - 2]),
    avatarFile: ids(avatarPath[avatarPath.length - 1]),
    runner: ids(projectRunner.id, projectRunner.id, groupRunner.id),
    environment: ids(staging.id, production.id),
    deployment: ids(deployment.id),
    geoNode: ids(...geoNodes.map((n) => n.id)),
    projectHook: ids(projectHook.id),
    groupHook: ids(groupHook.id),
    // Logs that do not exist: a resend of a real one would deliver to the fixture hooks' outside URL.
    hookLog: ids(999999, 'x'),
    // Triggers TestHooks refuses at once (no CI jobs, no wiki) or an unknown one: a test never leaves the machine.
    // URL variable and custom header names: valid for both, valid for headers only, valid for neither.
    hookKey: ids('fuzz_var', 'X-Fuzz', 'a b'),
    hookTrigger: ids('job_events', 'wiki_page_events', 'pipeline_events', 'nope'),
    environmentName: ids('production', 'staging', 'review/*'),
    // Flags no other check reads, so a fuzzed POST cannot change how the rest of the run pages.
    featureName: ids('fuzz_flag', 'import_project_from_remote_file_s3', 'fuzz/flag'),
    // Groups a project or group is shared with (or not): the unshare routes' `:group_id`.
    shareGroup: ids(privGroup.id, sub.id, group.id),
  };
  const words = [user.username, owner.username, victim.username, 'main', 'feature', 'topic', 'bug', 'grouplabel', 'v1', 'README.md', project.path_with_namespace, group.full_path, 'thumbsup', 'None', 'Any', first.id];
  const ints = [user.id, owner.id, victim.id, project.id, group.id, issue.iid, issue.id, mr.iid, mr.id, milestone.id, epic.id, epic.iid, label.id, 1, 0];
  return {
    tokens: { admin: root, user: userToken },
    freshToken: (who) => mkToken(who === 'admin' ? 1 : user.id, who === 'admin' ? ['api', 'sudo', 'admin_mode'] : ['api']),
    users: { user, owner, victim },
    words,
    ints,
    segments,
  };
}

/**
 * The kind of record a path parameter names, from the route's path: `:id` is a project under
 * /projects, a group under /groups; `:note_id` is an issue's, a merge request's or an epic's note.
 */
export function segmentKind(path: string, param: string, method = 'GET'): string {
  const under = (p: string) => path.includes(p);
  // Writes name only the victim: blocking, deleting or editing the plain caller or the owner would
  // leave the rest of the run without them.
  const someone = method === 'GET' ? 'userId' : 'victimId';
  switch (param) {
    case 'id':
      if (path.startsWith('/api/v4/projects/:id')) return 'project';
      if (path.startsWith('/api/v4/groups/:id')) return 'group';
      if (path.startsWith('/api/v4/namespaces')) return 'namespace';
      if (path.startsWith('/api/v4/issues')) return 'issueId';
      if (path.startsWith('/api/v4/personal_access_tokens')) return 'token';
      if (path.startsWith('/api/v4/applications')) return 'application';
      if (path.startsWith('/api/v4/todos')) return 'todo';
      if (path.startsWith('/api/v4/audit_events')) return 'audit';
      if (path.startsWith('/uploads/-/system/user/avatar')) return 'avatarUser';
      if (path.startsWith('/api/v4/runners/:id')) return 'runner';
      if (path.startsWith('/api/v4/geo_nodes/:id')) return 'geoNode';
      if (path.startsWith('/api/v4/keys/:id')) return 'sshKey';
      return someone;
    case 'user_id':
      return someone;
    case 'runner_id':
      return 'runner';
    case 'environment_id':
      return 'environment';
    case 'deployment_id':
      return 'deployment';
    case 'hook_id':
      return path.startsWith('/api/v4/groups') ? 'groupHook' : 'projectHook';
    case 'hook_log_id':
      return 'hookLog';
    case 'trigger':
      return 'hookTrigger';
    case 'group_id':
      return 'shareGroup';
    case 'id_or_username':
      return 'username';
    case 'issue_iid':
      return 'issueIid';
    case 'merge_request_iid':
      return 'mrIid';
    case 'epic_iid':
      return 'epicIid';
    case 'epic_id':
      return 'epicId';
    case 'related_epic_link_id':
      return 'relatedEpicLink';
    case 'issue_link_id':
      return 'issueLink';
    case 'event_id':
      return 'resourceEvent';
    case 'discussion_id':
      return 'discussion';
    case 'tag_name':
      return 'tag';
    case 'format':
      return 'archiveFormat';
    case 'note_id':
      return under('/merge_requests/') ? 'mrNote' : under('/epics/') ? 'epicNote' : 'issueNote';
    case 'award_id':
      if (under('/notes/')) return under('/merge_requests/') ? 'mrNoteAward' : 'issueNoteAward';
      return under('/merge_requests/') ? 'mrAward' : under('/epics/') ? 'epicAward' : 'issueAward';
    case 'approval_rule_id':
      return under('/merge_requests/') ? 'mrRule' : 'projectRule';
    case 'key_id':
      return under('gpg_keys') ? 'gpgKey' : 'sshKey';
    case 'email_id':
      return 'email';
    case 'impersonation_token_id':
      return 'impersonation';
    case 'metric_image_id':
      return 'metricImage';
    case 'milestone_id':
      return path.startsWith('/api/v4/groups') ? 'groupMilestone' : 'projectMilestone';
    case 'name':
      if (path.startsWith('/api/v4/features')) return 'featureName';
      if (under('protected_branches')) return 'branch';
      if (under('protected_tags')) return 'protectedTag';
      if (under('protected_environments')) return 'environmentName';
      return path.startsWith('/api/v4/groups') ? 'groupLabel' : 'projectLabel';
    case 'subscribable_id':
      return path.startsWith('/api/v4/groups') ? 'groupLabel' : 'projectLabel';
    case 'version_id':
      return 'version';
    case 'sha':
      return 'sha';
    case 'branch':
      return 'branch';
    case 'file_path':
      return 'filePath';
    case 'provider':
      return 'provider';
    case 'key':
      return under('/hooks/') ? 'hookKey' : 'attribute';
    case 'image_id':
      return 'imageId';
    case 'secret':
      return 'uploadSecret';
    case 'filename':
      return under('avatar') ? 'avatarFile' : under('/uploads/:secret') ? 'uploadFile' : 'imageFile';
    default:
      throw new Error(`fuzz: no fixture kind for :${param} in ${path} (add one to segmentKind)`);
  }
}
