/**
 * Expected cells of the authorization matrix (issue 12; reference gitlab-behaviour-2.md §7), one row
 * per route of the route table, keyed `METHOD /path`. The test (authorization-matrix.test.ts) fails
 * when a route has no row here, so nobody can add a route without deciding who may call it.
 *
 * World: a PRIVATE group owned by `owner` with guest/reporter/developer/maintainer members, a PRIVATE
 * project in it (members inherit), a signed-in `nonMember`, anonymous, and the administrator (root).
 *
 * Cells, columns ordered from least to most privileged:
 * - 'ok': got past authorization (any status but 401, 403 and the 404 of the row's container);
 * - 'unauth': 401 `401 Unauthorized`; 'forbidden': 403 `403 Forbidden`;
 * - 'nf': 404 with the container's message (`404 Project Not Found`, `404 Group Not Found`, `404 User Not Found`);
 * - [status, message?]: that status (and exact `message`).
 * Destructive rows run after the others and consume their resource: the first 'ok' column may be
 * the only one that acts, later 'ok' columns may see the resource's own 404 (still past authorization).
 * Rows marked `fresh` get a throwaway resource per cell instead (deleting the project, the group, a
 * user, a branch protection). Rows under /users/:id are run a second time for a user who does not exist.
 */
import { freshGpgKey, freshSshKey } from '../fixtures/keys';
// Only read inside row bodies, when the world is built (route-world.ts imports nothing but types from here).
import { world } from './route-world';

export const ROLES = ['anonymous', 'nonMember', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export type Cell = 'ok' | 'unauth' | 'forbidden' | 'nf' | readonly [number, string?];
export type Rule = Record<Role, Cell>;

export interface Row {
  rule: Rule;
  /** A minimal valid body (a function when each call needs a fresh value). */
  body?: Record<string, unknown> | (() => Record<string, unknown>);
  /** Send a small PNG as the multipart `file` instead of a JSON body. */
  upload?: boolean;
  query?: string;
  /** Path parameters that differ from the defaults (names of fixtures, see the test's `world`). */
  params?: Record<string, string>;
  /**
   * The cells when the row's user, project or group does not exist, where they differ from the
   * default (refusals that come before the lookup keep their cell, every other cell is the 404).
   */
  missing?: Rule;
  /** The cells of a GET once the group and project are public, where they differ from the test's derivation (`publicRule`). */
  publicRule?: Rule;
  /** A throwaway resource per cell: the project, (sub)group, user or branch protection the row acts on. */
  fresh?: 'project' | 'group' | 'user' | 'protectedBranch';
}

const LEVEL = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;
type Level = keyof typeof LEVEL;

const rule = (anonymous: Cell, nonMember: Cell, member: (l: Level) => Cell, admin: Cell = 'ok'): Rule => ({
  anonymous,
  nonMember,
  guest: member('guest'),
  reporter: member('reporter'),
  developer: member('developer'),
  maintainer: member('maintainer'),
  owner: member('owner'),
  admin,
});

// ---- Presets (with the GitLab source each one follows) ----

/** Everyone, anonymous included (users.rb keys/gpg_keys/status: no authentication, §7). */
export const publicRead = rule('ok', 'ok', () => 'ok');
/** `authenticate!` and nothing else (users.rb /user/*, todos.rb, namespaces.rb list: §7 "/user/* … signed in"). */
export const signedIn = rule('unauth', 'ok', () => 'ok');
/** `authenticated_as_admin!` before anything is looked up (§7: 401 anonymous, 403 `403 Forbidden` non-admin). */
export const adminOnly = rule('unauth', 'forbidden', () => 'forbidden');

/**
 * A project-scoped route on the private project: invisible project → `404 Project Not Found`
 * (find_project! / user_project), then `authorize! :<ability>` → 403 below `min`
 * (doc/user/permissions.md; app/policies/project_policy.rb).
 * `anon`: 'nf' where the API file uses `authenticate_non_get!` for GETs (projects.rb, issues.rb,
 * merge_requests.rb, repository.rb …), 'unauth' where it says `before { authenticate! }`
 * (labels.rb, milestones.rb, notes.rb, members.rb, todos.rb, merge_request_diffs.rb, approvals).
 */
export const project = (min: Level, anon: Cell, below: Cell = 'forbidden'): Rule =>
  rule(anon, 'nf', (l) => (LEVEL[l] >= LEVEL[min] ? 'ok' : below));

/** A GET under `authenticate_non_get!`: anonymous callers see the private project as missing (404). */
export const projectGet = (min: Level = 'guest', below: Cell = 'forbidden') => project(min, 'nf', below);
/** Authenticated first (`authenticate!`, or any non-GET under `authenticate_non_get!`): anonymous 401. */
export const projectAuth = (min: Level, below: Cell = 'forbidden') => project(min, 'unauth', below);
/** The same on the private group: find_group! → `404 Group Not Found` (app/policies/group_policy.rb). */
export const groupGet = projectGet;
export const groupAuth = projectAuth;

const NF_NOT_FOUND: Cell = [404, '404 Not found'];
const NO_COMMIT: Cell = [404, '404 Commit Not Found'];
/** The eight discussion routes of a noteable: reads and writes by `read`, a note's edit and delete by `admin`. */
function discussionRows(base: string, read: Rule, admin: Rule): Record<string, Row> {
  const d = `/api/v4${base}/discussions`;
  return {
    [`GET ${d}`]: { rule: read },
    [`POST ${d}`]: { rule: read, body: { body: 'hi' } },
    [`GET ${d}/:discussion_id`]: { rule: read },
    [`GET ${d}/:discussion_id/notes`]: { rule: read },
    [`POST ${d}/:discussion_id/notes`]: { rule: read, body: { body: 'hi' } },
    [`GET ${d}/:discussion_id/notes/:note_id`]: { rule: read },
    [`PUT ${d}/:discussion_id/notes/:note_id`]: { rule: admin, body: { body: 'edited' } },
    [`DELETE ${d}/:discussion_id/notes/:note_id`]: { rule: admin },
  };
}
/** No export has run in the world: the download of a maintainer is project_export.rb's 404. */
const NO_EXPORT: Cell = [404, '404 Not found or has expired'];
/**
 * project_download_export allows one download a minute per user and namespace, counted before the
 * file is looked for: the public pass (same users, same namespace, within the minute) is refused.
 */
const EXPORT_DOWNLOAD = {
  rule: rule('nf', 'nf', (l) => (LEVEL[l] >= LEVEL.maintainer ? NO_EXPORT : 'forbidden'), NO_EXPORT),
  // The second download within a minute is a 429 (`project_download_export_limit`, counted before the
  // lookup), a later one is answered: which of the two depends on how long the private pass took
  // (minutes on a loaded workerd), so this pass asks only that maintainers are not refused access.
  // The limit itself is tested in test/import-export/export.test.ts.
  publicRule: rule('forbidden', 'forbidden', (l) => (LEVEL[l] >= LEVEL.maintainer ? 'ok' : 'forbidden'), 'ok'),
};
/** Grape's bare `not_found!`. */
const NOT_FOUND: Cell = [404, '404 Not Found'];
/** Users::ApproveService / RejectService refusing a non-admin. */
const NOT_APPROVER = (verb: string) => rule('unauth', [403, `You are not allowed to ${verb} a user`], () => [403, `You are not allowed to ${verb} a user`]);

/** The runner-facing API: a user's credentials count for nothing, an unknown runner token is 403 for everyone (ci/runner.rb `forbidden!`). */
const RUNNER_TOKEN_ONLY = rule([403, '403 Forbidden'], [403, '403 Forbidden'], () => [403, '403 Forbidden'], [403, '403 Forbidden']);
/** ci/runners.rb `forbidden!("No access granted")` unless the caller owns the runner (maintainer of its project) or is an administrator. */
const NO_ACCESS: Cell = [403, '403 Forbidden - No access granted'];
const RUNNER_OWNER = rule('unauth', NO_ACCESS, (l) => (LEVEL[l] >= LEVEL.maintainer ? 'ok' : NO_ACCESS));
const ONLY_PROJECT: Cell = [403, '403 Forbidden - Only one project associated with the runner. Please remove the runner instead'];

/** The name of the world's Geo node (route-world.ts creates it; PUT must send it back). */
export const MATRIX_GEO_NODE = `mx-geo-${Date.now().toString(36)}`;

export const EXPECTATIONS: Record<string, Row> = {
  // ---- approvals (ee/lib/api/project_approvals.rb, project_approval_rules.rb, merge_request_approvals.rb, merge_request_approval_rules.rb) ----
  // Settings: `authorize! :admin_project`-like (Maintainer+); rules list/show: Developer+ (read_approval_rule needs Developer on private).
  'GET /api/v4/projects/:id/approvals': { rule: projectAuth('maintainer') },
  'POST /api/v4/projects/:id/approvals': { rule: projectAuth('maintainer'), body: { approvals_before_merge: 1 } },
  'GET /api/v4/projects/:id/approval_rules': { rule: projectAuth('developer') },
  'POST /api/v4/projects/:id/approval_rules': { rule: projectAuth('maintainer'), body: { name: 'matrix-rule', approvals_required: 1 } },
  'GET /api/v4/projects/:id/approval_rules/:approval_rule_id': { rule: projectAuth('developer') },
  'PUT /api/v4/projects/:id/approval_rules/:approval_rule_id': { rule: projectAuth('maintainer'), body: { name: 'base', approvals_required: 1 } },
  'DELETE /api/v4/projects/:id/approval_rules/:approval_rule_id': { rule: projectAuth('maintainer') },
  // MR approvals: find_merge_request_with_access (read_merge_request: Reporter+ on a private project, 403 below).
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/approvals': { rule: projectAuth('reporter') },
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/approvals': { rule: projectAuth('developer'), body: { approvals_required: 1 } },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/approval_state': { rule: projectAuth('reporter') },
  // approve/unapprove: `authorize! :approve_merge_request` (Developer+ members; an administrator is no approver: 403);
  // the merge request's author (here `developer`) may not approve their own: `unauthorized!` (401).
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/approve': { rule: { ...projectAuth('developer'), developer: 'unauth', admin: 'forbidden' } },
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/unapprove': { rule: { ...projectAuth('developer'), admin: 'forbidden' } },
  // reset_approvals: bots only (`bot?`), people get 401.
  'PUT /api/v4/projects/:id/merge_requests/:merge_request_iid/reset_approvals': {
    rule: { ...projectAuth('reporter'), reporter: 'unauth', developer: 'unauth', maintainer: 'unauth', owner: 'unauth', admin: 'unauth' },
  },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/approval_rules': { rule: projectAuth('reporter') },
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/approval_rules': { rule: projectAuth('developer'), body: { name: 'mr-rule', approvals_required: 1 } },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/approval_rules/:approval_rule_id': { rule: projectAuth('reporter') },
  'PUT /api/v4/projects/:id/merge_requests/:merge_request_iid/approval_rules/:approval_rule_id': { rule: projectAuth('developer'), body: { name: 'base', approvals_required: 1 } },
  'DELETE /api/v4/projects/:id/merge_requests/:merge_request_iid/approval_rules/:approval_rule_id': { rule: projectAuth('developer') },

  // ---- geo nodes (ee/lib/api/geo_nodes.rb: authenticate_admin_or_geo_node!, then the premium plan) ----
  // The world's nodes are secondaries and none is the instance's own: its status is absent and
  // there is no current node to ask for failures.
  'POST /api/v4/geo_nodes': { rule: adminOnly, body: () => ({ name: `mx-geo-${Math.random().toString(36).slice(2)}`, url: 'https://mx-new.example.com' }) },
  'GET /api/v4/geo_nodes': { rule: adminOnly },
  'GET /api/v4/geo_nodes/status': { rule: adminOnly },
  'GET /api/v4/geo_nodes/current/failures': { rule: { ...adminOnly, admin: [404, '404 Geo node not found Not Found'] } },
  'GET /api/v4/geo_nodes/:id': { rule: adminOnly },
  'GET /api/v4/geo_nodes/:id/status': { rule: { ...adminOnly, admin: [404, '404 Status for Geo node not found Not Found'] } },
  'POST /api/v4/geo_nodes/:id/repair': { rule: adminOnly },
  'PUT /api/v4/geo_nodes/:id': { rule: adminOnly, body: { name: MATRIX_GEO_NODE, url: 'https://mx-geo.example.com', repos_max_capacity: 2 } },
  'DELETE /api/v4/geo_nodes/:id': { rule: adminOnly, params: { id: 'geoNodeToDelete' } },

  // ---- audit events (ee/lib/api/audit_events.rb: authenticated_as_admin!) ----
  'GET /api/v4/audit_events': { rule: adminOnly },
  'GET /api/v4/audit_events/:id': { rule: adminOnly },

  // ---- award emoji (award_emoji.rb: authenticate! via the awardable's read ability; MRs need Reporter, 404 below) ----
  'GET /api/v4/projects/:id/issues/:issue_iid/award_emoji': { rule: projectAuth('guest') },
  'GET /api/v4/projects/:id/issues/:issue_iid/award_emoji/:award_id': { rule: projectAuth('guest') },
  'POST /api/v4/projects/:id/issues/:issue_iid/award_emoji': { rule: projectAuth('guest'), body: { name: 'thumbsdown' } },
  // Only the award's owner (here `owner`) may delete it: others 401 (award_emoji.rb `unauthorized!` unless award.user == current_user).
  'DELETE /api/v4/projects/:id/issues/:issue_iid/award_emoji/:award_id': { rule: projectAuth('owner', 'unauth') },
  'GET /api/v4/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji': { rule: projectAuth('guest') },
  'GET /api/v4/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji/:award_id': { rule: projectAuth('guest') },
  'POST /api/v4/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji': { rule: projectAuth('guest'), body: { name: 'thumbsdown' } },
  'DELETE /api/v4/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji/:award_id': { rule: projectAuth('owner', 'unauth') },
  'GET /api/v4/groups/:id/epics/:epic_iid/award_emoji': { rule: groupAuth('guest') },
  'GET /api/v4/groups/:id/epics/:epic_iid/award_emoji/:award_id': { rule: groupAuth('guest') },
  'POST /api/v4/groups/:id/epics/:epic_iid/award_emoji': { rule: groupAuth('guest'), body: { name: 'thumbsdown' } },
  'DELETE /api/v4/groups/:id/epics/:epic_iid/award_emoji/:award_id': { rule: groupAuth('owner', 'unauth') },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/award_emoji': { rule: projectAuth('reporter', [404, '404 Award Emoji Not Found']) },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/award_emoji/:award_id': { rule: projectAuth('reporter', [404, '404 Award Emoji Not Found']) },
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/award_emoji': { rule: projectAuth('reporter', [404, '404 Award Emoji Not Found']), body: { name: 'thumbsdown' } },
  'DELETE /api/v4/projects/:id/merge_requests/:merge_request_iid/award_emoji/:award_id': { rule: projectAuth('owner', 'unauth') },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji': { rule: projectAuth('reporter', [404, '404 Award Emoji Not Found']) },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji/:award_id': { rule: projectAuth('reporter', [404, '404 Award Emoji Not Found']) },
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji': {
    rule: projectAuth('reporter', [404, '404 Award Emoji Not Found']),
    body: { name: 'thumbsdown' },
  },
  'DELETE /api/v4/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji/:award_id': { rule: projectAuth('owner', 'unauth') },

  // ---- epics (ee/lib/api/epics.rb: authenticate_non_get!, find_group!; create/update: Planner/Reporter+ (guest 403), delete: Owner) ----
  'GET /api/v4/groups/:id/epics': { rule: groupGet('guest') },
  'GET /api/v4/groups/:id/epics/:epic_iid': { rule: groupGet('guest') },
  'POST /api/v4/groups/:id/epics': { rule: groupAuth('reporter'), body: { title: 'matrix epic' } },
  'PUT /api/v4/groups/:id/epics/:epic_iid': { rule: groupAuth('reporter'), body: { description: 'x' } },
  'DELETE /api/v4/groups/:id/epics/:epic_iid': { rule: groupAuth('owner'), params: { epic_iid: 'epicToDelete' } },

  // ---- linked epics (ee/lib/api/related_epic_links.rb: authenticate_non_get!, find_group!, Ultimate; reads: read_epic;
  // linking and unlinking: EpicPolicy admin_epic_relation, Guest+ in both epics' groups). The first caller let through
  // links (route-world.ts `relatedEpicIid`) or unlinks, the next ones get the 409 / the link's 404: past authorization. ----
  'GET /api/v4/groups/:id/epics/:epic_iid/related_epics': { rule: groupGet('guest') },
  'POST /api/v4/groups/:id/epics/:epic_iid/related_epics': { rule: groupAuth('guest'), body: () => ({ target_group_id: world.groupId, target_epic_iid: world.relatedEpicIid }) },
  'DELETE /api/v4/groups/:id/epics/:epic_iid/related_epics/:related_epic_link_id': { rule: groupAuth('guest') },
  // resource_label_events.rb with EE's Epic eventable: `authenticate!`, then the readable epic by id.
  'GET /api/v4/groups/:id/epics/:epic_id/resource_label_events': { rule: groupAuth('guest') },
  'GET /api/v4/groups/:id/epics/:epic_id/resource_label_events/:event_id': { rule: groupAuth('guest') },
  'GET /api/v4/groups/:id/related_epic_links': { rule: groupGet('guest') },

  // ---- GPG keys (users.rb) ----
  'GET /api/v4/user/gpg_keys': { rule: signedIn },
  'GET /api/v4/user/gpg_keys/:key_id': { rule: signedIn },
  'POST /api/v4/user/gpg_keys': { rule: signedIn },
  'DELETE /api/v4/user/gpg_keys/:key_id': { rule: signedIn },
  'POST /api/v4/user/gpg_keys/:key_id/revoke': { rule: signedIn },
  // §7: public; 404 for a missing/invisible user.
  'GET /api/v4/users/:id/gpg_keys': { rule: publicRead },
  'GET /api/v4/users/:id/gpg_keys/:key_id': { rule: publicRead },
  // Grape validates `requires :key` before the endpoint's `authenticated_as_admin!`: a valid body, or non-admins get 400.
  'POST /api/v4/users/:id/gpg_keys': { rule: adminOnly, body: { key: freshGpgKey().key } },
  'DELETE /api/v4/users/:id/gpg_keys/:key_id': { rule: adminOnly },
  'POST /api/v4/users/:id/gpg_keys/:key_id/revoke': { rule: adminOnly },

  // ---- groups (groups.rb: authenticate_non_get!; update: admin_group (Owner); delete: Owner; list: visible groups) ----
  'GET /api/v4/groups': { rule: publicRead },
  // Creating a top-level group: any signed-in user who can_create_group (the default).
  'POST /api/v4/groups': { rule: signedIn, body: { name: 'mx', path: 'mx-dup' } },
  'GET /api/v4/groups/:id': { rule: groupGet('guest') },
  'PUT /api/v4/groups/:id': { rule: groupAuth('owner'), body: { description: 'x' } },
  'DELETE /api/v4/groups/:id': { rule: groupAuth('owner'), fresh: 'group' },
  'GET /api/v4/groups/:id/subgroups': { rule: groupGet('guest') },
  'GET /api/v4/groups/:id/descendant_groups': { rule: groupGet('guest') },

  // ---- impersonation tokens (users.rb: authenticated_as_admin!) ----
  'GET /api/v4/users/:user_id/impersonation_tokens': { rule: adminOnly },
  'POST /api/v4/users/:user_id/impersonation_tokens': { rule: adminOnly, body: { name: 'mx', scopes: ['api'] } },
  'GET /api/v4/users/:user_id/impersonation_tokens/:impersonation_token_id': { rule: adminOnly },
  'DELETE /api/v4/users/:user_id/impersonation_tokens/:impersonation_token_id': { rule: adminOnly },

  // ---- issues (issues.rb: authenticate_non_get!; read_issue: Guest+ on private; update/time tracking: Reporter+ (Planner)) ----
  'GET /api/v4/projects/:id/issues/:issue_iid/participants': { rule: projectGet('guest') },
  // issue_links.rb: `before { authenticate! }`; admin_issue_link is any member (IssuePolicy), on both ends for DELETE.
  'GET /api/v4/projects/:id/issues/:issue_iid/links': { rule: projectAuth('guest') },
  'POST /api/v4/projects/:id/issues/:issue_iid/links': { rule: projectAuth('guest'), body: () => ({ target_project_id: world.projectId, target_issue_iid: world.incident }) },
  'GET /api/v4/projects/:id/issues/:issue_iid/links/:issue_link_id': { rule: projectAuth('guest') },
  'DELETE /api/v4/projects/:id/issues/:issue_iid/links/:issue_link_id': { rule: projectAuth('guest') },
  // resource_*_events.rb: `before { authenticate! }`, then find_noteable (read_issue).
  'GET /api/v4/projects/:id/issues/:issue_iid/resource_label_events': { rule: projectAuth('guest') },
  'GET /api/v4/projects/:id/issues/:issue_iid/resource_label_events/:event_id': { rule: projectAuth('guest') },
  'GET /api/v4/projects/:id/issues/:issue_iid/resource_milestone_events': { rule: projectAuth('guest') },
  'GET /api/v4/projects/:id/issues/:issue_iid/resource_milestone_events/:event_id': { rule: projectAuth('guest') },
  'GET /api/v4/projects/:id/issues/:issue_iid/resource_state_events': { rule: projectAuth('guest') },
  'GET /api/v4/projects/:id/issues/:issue_iid/resource_state_events/:event_id': { rule: projectAuth('guest') },
  // The merge request's: read_merge_request (Reporter+ on the private project), unreadable the same 404 as missing.
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/resource_label_events': { rule: projectAuth('reporter', NF_NOT_FOUND) },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/resource_label_events/:event_id': { rule: projectAuth('reporter', NF_NOT_FOUND) },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/resource_milestone_events': { rule: projectAuth('reporter', NF_NOT_FOUND) },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/resource_milestone_events/:event_id': { rule: projectAuth('reporter', NF_NOT_FOUND) },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/resource_state_events': { rule: projectAuth('reporter', NF_NOT_FOUND) },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/resource_state_events/:event_id': { rule: projectAuth('reporter', NF_NOT_FOUND) },
  // user_agent_detail: `authenticated_as_admin!`-like (read_issuable_metadata… admin only).
  'GET /api/v4/projects/:id/issues/:issue_iid/user_agent_detail': { rule: adminOnly },
  'GET /api/v4/issues': { rule: signedIn },
  'GET /api/v4/groups/:id/issues': { rule: groupGet('guest') },
  'GET /api/v4/projects/:id/issues': { rule: projectGet('guest') },
  // Metric images of an incident (issues.rb: `authorize!(:upload_issuable_metric_image, issue)`: Reporter+ members;
  // an administrator is refused too, as test/issues/access-issue-subresources.test.ts asserts).
  // The upload's refusal is `403 Not allowed!` (issues.rb: `forbidden!('Not allowed!')`).
  'POST /api/v4/projects/:id/issues/:issue_iid/metric_images': {
    rule: { ...projectAuth('reporter', [403, 'Not allowed!']), admin: [403, 'Not allowed!'] },
    params: { issue_iid: 'incident' },
    upload: true,
  },
  'GET /api/v4/projects/:id/issues/:issue_iid/metric_images': { rule: projectGet('guest'), params: { issue_iid: 'incident' } },
  'PUT /api/v4/projects/:id/issues/:issue_iid/metric_images/:metric_image_id': { rule: { ...projectAuth('reporter'), admin: 'forbidden' }, params: { issue_iid: 'incident' } },
  'DELETE /api/v4/projects/:id/issues/:issue_iid/metric_images/:metric_image_id': { rule: { ...projectAuth('reporter'), admin: 'forbidden' }, params: { issue_iid: 'incident' } },
  'GET /uploads/-/system/issuable_metric_image/file/:image_id/:filename': { rule: publicRead },
  'POST /api/v4/projects/:id/issues': { rule: projectAuth('guest'), body: { title: 'matrix issue' } },
  'GET /api/v4/projects/:id/issues/:issue_iid': { rule: projectGet('guest') },
  'PUT /api/v4/projects/:id/issues/:issue_iid': { rule: projectAuth('reporter'), body: { description: 'x' } },
  'DELETE /api/v4/projects/:id/issues/:issue_iid': { rule: projectAuth('owner'), params: { issue_iid: 'issueToDelete' } },
  'POST /api/v4/projects/:id/issues/:issue_iid/subscribe': { rule: projectAuth('guest') },
  'POST /api/v4/projects/:id/issues/:issue_iid/unsubscribe': { rule: projectAuth('guest') },
  // GET /issues/:id: `authenticated_as_admin!`.
  'GET /api/v4/issues/:id': { rule: adminOnly },
  'GET /api/v4/projects/:id/milestones/:milestone_id/issues': { rule: projectAuth('guest') },
  'GET /api/v4/groups/:id/milestones/:milestone_id/issues': { rule: groupAuth('guest') },
  'GET /api/v4/groups/:id/epics/:epic_iid/issues': { rule: groupGet('guest') },
  'POST /api/v4/projects/:id/issues/:issue_iid/time_estimate': { rule: projectAuth('reporter'), body: { duration: '1h' } },
  'POST /api/v4/projects/:id/issues/:issue_iid/reset_time_estimate': { rule: projectAuth('reporter') },
  'POST /api/v4/projects/:id/issues/:issue_iid/add_spent_time': { rule: projectAuth('reporter'), body: { duration: '1m' } },
  'POST /api/v4/projects/:id/issues/:issue_iid/reset_spent_time': { rule: projectAuth('reporter') },
  'GET /api/v4/projects/:id/issues/:issue_iid/time_stats': { rule: projectGet('guest') },

  // ---- SSH keys (users.rb) ----
  'GET /api/v4/user/keys': { rule: signedIn },
  'GET /api/v4/user/keys/:key_id': { rule: signedIn },
  'POST /api/v4/user/keys': { rule: signedIn },
  'DELETE /api/v4/user/keys/:key_id': { rule: signedIn },
  // §7: public; 404 for a missing/invisible user.
  'GET /api/v4/users/:id_or_username/keys': { rule: publicRead },
  'GET /api/v4/users/:id/keys/:key_id': { rule: publicRead },
  'POST /api/v4/users/:id/keys': { rule: adminOnly, body: { title: 'k', key: freshSshKey().key } },
  'DELETE /api/v4/users/:id/keys/:key_id': { rule: adminOnly },

  // ---- labels (labels.rb: before { authenticate! }; read_label Guest+; admin_label Reporter+ (Planner)) ----
  'GET /api/v4/projects/:id/labels': { rule: projectAuth('guest') },
  'POST /api/v4/projects/:id/labels': { rule: projectAuth('reporter'), body: { name: 'mx-label', color: '#123456' } },
  'PUT /api/v4/projects/:id/labels': { rule: projectAuth('reporter'), body: { name: 'fixture-label', description: 'x' } },
  'DELETE /api/v4/projects/:id/labels': { rule: projectAuth('reporter'), query: 'name=delete-me' },
  'PUT /api/v4/projects/:id/labels/promote': { rule: projectAuth('reporter'), body: { name: 'promote-me' } },
  'GET /api/v4/projects/:id/labels/:name': { rule: projectAuth('guest') },
  'PUT /api/v4/projects/:id/labels/:name': { rule: projectAuth('reporter'), body: { description: 'x' } },
  'DELETE /api/v4/projects/:id/labels/:name': { rule: projectAuth('reporter'), params: { name: 'label-to-delete' } },
  'PUT /api/v4/projects/:id/labels/:name/promote': { rule: projectAuth('reporter'), params: { name: 'label-to-promote' } },
  'POST /api/v4/projects/:id/labels/:subscribable_id/subscribe': { rule: projectAuth('guest') },
  'POST /api/v4/projects/:id/labels/:subscribable_id/unsubscribe': { rule: projectAuth('guest') },
  'GET /api/v4/groups/:id/labels': { rule: groupAuth('guest') },
  'POST /api/v4/groups/:id/labels': { rule: groupAuth('reporter'), body: { name: 'mx-glabel', color: '#123456' } },
  'PUT /api/v4/groups/:id/labels': { rule: groupAuth('reporter'), body: { name: 'fixture-glabel', description: 'x' } },
  'DELETE /api/v4/groups/:id/labels': { rule: groupAuth('reporter'), query: 'name=gdelete-me' },
  'GET /api/v4/groups/:id/labels/:name': { rule: groupAuth('guest') },
  'PUT /api/v4/groups/:id/labels/:name': { rule: groupAuth('reporter'), body: { description: 'x' } },
  'DELETE /api/v4/groups/:id/labels/:name': { rule: groupAuth('reporter'), params: { name: 'glabel-to-delete' } },
  'POST /api/v4/groups/:id/labels/:subscribable_id/subscribe': { rule: groupAuth('guest') },
  'POST /api/v4/groups/:id/labels/:subscribable_id/unsubscribe': { rule: groupAuth('guest') },

  // ---- members (members.rb: before { authenticate! }; read: read_project/read_group; admin: Maintainer+ project, Owner group) ----
  'GET /api/v4/groups/:id/members': { rule: groupAuth('guest') },
  'GET /api/v4/groups/:id/members/all': { rule: groupAuth('guest') },
  'GET /api/v4/groups/:id/members/:user_id': { rule: groupAuth('guest') },
  'GET /api/v4/groups/:id/members/all/:user_id': { rule: groupAuth('guest') },
  'POST /api/v4/groups/:id/members': { rule: groupAuth('owner'), body: { user_id: 0, access_level: 30 } },
  'PUT /api/v4/groups/:id/members/:user_id': { rule: groupAuth('owner'), body: { access_level: 10 } },
  // A direct member of its own (a user who is no member gets 404 `Not found` from everyone: members.rb `find_by!` comes first).
  'DELETE /api/v4/groups/:id/members/:user_id': { rule: groupAuth('owner'), params: { user_id: 'groupDirectId' } },
  'GET /api/v4/projects/:id/members': { rule: projectAuth('guest') },
  'GET /api/v4/projects/:id/members/all': { rule: projectAuth('guest') },
  'GET /api/v4/projects/:id/members/:user_id': { rule: projectAuth('guest') },
  'GET /api/v4/projects/:id/members/all/:user_id': { rule: projectAuth('guest') },
  'POST /api/v4/projects/:id/members': { rule: projectAuth('maintainer'), body: { user_id: 0, access_level: 30 } },
  'PUT /api/v4/projects/:id/members/:user_id': { rule: projectAuth('maintainer'), body: { access_level: 10 } },
  'DELETE /api/v4/projects/:id/members/:user_id': { rule: projectAuth('maintainer'), params: { user_id: 'projectDirectId' } },

  // ---- sharing (projects.rb `:id/share`: admin_project; groups.rb `:id/share`: find_group! on both, then
  //      Groups::GroupLinks::CreateService answers `Not Found` below admin_group_member; unshare: admin_group) ----
  'POST /api/v4/projects/:id/share': { rule: projectAuth('maintainer'), body: () => ({ group_id: world.shareGroupId, group_access: 10 }) },
  'DELETE /api/v4/projects/:id/share/:group_id': { rule: projectAuth('maintainer'), params: { group_id: 'shareGroupId' } },
  'POST /api/v4/groups/:id/share': { rule: groupAuth('owner', [404, 'Not Found']), body: () => ({ group_id: world.shareGroupId, group_access: 10 }) },
  'DELETE /api/v4/groups/:id/share/:group_id': { rule: groupAuth('owner'), params: { group_id: 'shareGroupId' } },
  // Lists along sharing links (groups.rb `:id/projects/shared`, `:id/groups/shared`, `:id/invited_groups`;
  // projects.rb `:id/invited_groups`): find_group! / find_project! under authenticate_non_get!, nothing more.
  'GET /api/v4/groups/:id/projects/shared': { rule: groupGet('guest') },
  'GET /api/v4/groups/:id/groups/shared': { rule: groupGet('guest') },
  'GET /api/v4/groups/:id/invited_groups': { rule: groupGet('guest') },
  'GET /api/v4/projects/:id/invited_groups': { rule: projectGet('guest') },

  // ---- merge requests (merge_requests.rb: authenticate_non_get!; read_merge_request Reporter+ on private (guest 403);
  //      create/update Developer+; delete Owner) ----
  'GET /api/v4/merge_requests': { rule: signedIn },
  'GET /api/v4/groups/:id/merge_requests': { rule: groupGet('guest') },
  'GET /api/v4/projects/:id/merge_requests': { rule: projectGet('reporter') },
  // The first caller let through creates it (route-world.ts `mx-create`), the next ones get the 409 of an open one.
  'POST /api/v4/projects/:id/merge_requests': { rule: projectAuth('developer'), body: { title: 'mx', source_branch: 'mx-create', target_branch: 'main' } },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid': { rule: projectGet('reporter') },
  'PUT /api/v4/projects/:id/merge_requests/:merge_request_iid': { rule: projectAuth('developer'), body: { description: 'x' } },
  'DELETE /api/v4/projects/:id/merge_requests/:merge_request_iid': { rule: { ...projectAuth('owner'), guest: NF_NOT_FOUND }, params: { merge_request_iid: 'mrToDelete' } },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/participants': { rule: projectGet('reporter') },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/reviewers': { rule: projectGet('reporter') },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/closes_issues': { rule: projectGet('reporter') },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/related_issues': { rule: projectGet('reporter') },
  // merge: find_project_merge_request (404 Not found below Reporter); without merge access 401
  // (`unauthorized! unless merge_request.can_be_merged_by?`). The default branch is protected for
  // Maintainers on the first push (default_branch_protection 2), so developers may not merge into it,
  // nor may an administrator who is no member (ProtectedRefAccess#check_access compares the membership
  // level; only the "Instance admins" level lets administrators through).
  'PUT /api/v4/projects/:id/merge_requests/:merge_request_iid/merge': {
    rule: { ...projectAuth('maintainer', 'unauth'), guest: NF_NOT_FOUND, admin: 'unauth' },
    params: { merge_request_iid: 'mrToMerge' },
  },
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds': {
    rule: { ...projectAuth('maintainer', 'unauth'), guest: NF_NOT_FOUND, admin: 'unauth' },
  },
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/subscribe': { rule: projectAuth('reporter') },
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/unsubscribe': { rule: projectAuth('reporter') },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/commits': { rule: projectGet('reporter') },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/changes': { rule: projectGet('reporter') },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/diffs': { rule: projectGet('reporter') },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/versions': { rule: projectAuth('reporter') },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/versions/:version_id': { rule: projectAuth('reporter') },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/raw_diffs': { rule: projectGet('reporter') },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/pipelines': { rule: projectGet('reporter') },
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/pipelines': { rule: projectAuth('reporter') },
  'PUT /api/v4/projects/:id/merge_requests/:merge_request_iid/rebase': {
    rule: { ...projectAuth('developer', NF_NOT_FOUND), reporter: [403, '403 Forbidden - Cannot push to source branch'] },
  },
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/time_estimate': { rule: projectAuth('developer'), body: { duration: '1h' } },
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/reset_time_estimate': { rule: projectAuth('developer') },
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/add_spent_time': { rule: projectAuth('developer'), body: { duration: '1m' } },
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/reset_spent_time': { rule: projectAuth('developer') },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/time_stats': { rule: projectGet('reporter') },
  'GET /api/v4/projects/:id/issues/:issue_iid/related_merge_requests': { rule: projectGet('guest') },
  'GET /api/v4/projects/:id/issues/:issue_iid/closed_by': { rule: projectGet('guest') },
  'GET /api/v4/projects/:id/milestones/:milestone_id/merge_requests': { rule: projectAuth('guest') },
  'GET /api/v4/groups/:id/milestones/:milestone_id/merge_requests': { rule: groupAuth('guest') },

  // ---- milestones (milestones.rb: before { authenticate! }; read_milestone Guest+; admin_milestone Reporter+ (Planner)) ----
  'GET /api/v4/projects/:id/milestones': { rule: projectAuth('guest') },
  'POST /api/v4/projects/:id/milestones': { rule: projectAuth('reporter'), body: { title: 'mx-milestone' } },
  'GET /api/v4/projects/:id/milestones/:milestone_id': { rule: projectAuth('guest') },
  'PUT /api/v4/projects/:id/milestones/:milestone_id': { rule: projectAuth('reporter'), body: { description: 'x' } },
  'DELETE /api/v4/projects/:id/milestones/:milestone_id': { rule: projectAuth('reporter'), params: { milestone_id: 'projectMilestoneToDelete' } },
  'POST /api/v4/projects/:id/milestones/:milestone_id/promote': { rule: projectAuth('reporter'), params: { milestone_id: 'projectMilestoneToPromote' } },
  'GET /api/v4/groups/:id/milestones': { rule: groupAuth('guest') },
  'POST /api/v4/groups/:id/milestones': { rule: groupAuth('reporter'), body: { title: 'mx-gmilestone' } },
  'GET /api/v4/groups/:id/milestones/:milestone_id': { rule: groupAuth('guest') },
  'PUT /api/v4/groups/:id/milestones/:milestone_id': { rule: groupAuth('reporter'), body: { description: 'x' } },
  'DELETE /api/v4/groups/:id/milestones/:milestone_id': { rule: groupAuth('reporter'), params: { milestone_id: 'groupMilestoneToDelete' } },

  // ---- namespaces (namespaces.rb: authenticate!; show: read_namespace_via_membership, 404 otherwise) ----
  'GET /api/v4/namespaces': { rule: signedIn },
  'GET /api/v4/namespaces/:id/exists': { rule: signedIn },
  'GET /api/v4/namespaces/:id': { rule: { ...projectAuth('guest'), nonMember: [404, '404 Namespace Not Found'] } },

  // ---- notes (notes.rb: before { authenticate! }; noteable read ability; update: the note's author or Maintainer+ (admin_note); delete same) ----
  'GET /api/v4/groups/:id/epics/:epic_id/notes': { rule: groupAuth('guest') },
  'GET /api/v4/groups/:id/epics/:epic_id/notes/:note_id': { rule: groupAuth('guest') },
  'PUT /api/v4/groups/:id/epics/:epic_id/notes/:note_id': { rule: groupAuth('maintainer'), body: { body: 'edited' } },
  'DELETE /api/v4/groups/:id/epics/:epic_id/notes/:note_id': { rule: groupAuth('maintainer') },
  'POST /api/v4/groups/:id/epics/:epic_id/notes': { rule: groupAuth('guest'), body: { body: 'hi' } },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/notes': { rule: projectAuth('reporter', NF_NOT_FOUND) },
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/notes/:note_id': { rule: projectAuth('reporter', NF_NOT_FOUND) },
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/notes': { rule: projectAuth('reporter', NF_NOT_FOUND), body: { body: 'hi' } },
  'PUT /api/v4/projects/:id/merge_requests/:merge_request_iid/notes/:note_id': {
    rule: { ...projectAuth('maintainer', 'forbidden'), guest: NF_NOT_FOUND },
    body: { body: 'edited' },
  },
  'DELETE /api/v4/projects/:id/merge_requests/:merge_request_iid/notes/:note_id': { rule: { ...projectAuth('maintainer', 'forbidden'), guest: NF_NOT_FOUND } },
  'GET /api/v4/projects/:id/issues/:issue_iid/notes': { rule: projectAuth('guest') },
  'GET /api/v4/projects/:id/issues/:issue_iid/notes/:note_id': { rule: projectAuth('guest') },
  'POST /api/v4/projects/:id/issues/:issue_iid/notes': { rule: projectAuth('guest'), body: { body: 'hi' } },
  'PUT /api/v4/projects/:id/issues/:issue_iid/notes/:note_id': { rule: projectAuth('maintainer'), body: { body: 'edited' } },
  'DELETE /api/v4/projects/:id/issues/:issue_iid/notes/:note_id': { rule: projectAuth('maintainer') },

  // ---- discussions (discussions.rb: authenticate!; find_noteable as notes.rb; notes: admin_note; resolve: Discussion#can_resolve?) ----
  ...discussionRows('/projects/:id/issues/:issue_iid', projectAuth('guest'), projectAuth('maintainer')),
  ...discussionRows('/projects/:id/merge_requests/:merge_request_iid', projectAuth('reporter', NF_NOT_FOUND), { ...projectAuth('maintainer'), guest: NF_NOT_FOUND }),
  'PUT /api/v4/projects/:id/merge_requests/:merge_request_iid/discussions/:discussion_id': { rule: { ...projectAuth('developer'), guest: NF_NOT_FOUND }, body: { resolved: true } },
  ...discussionRows('/groups/:id/epics/:epic_id', groupAuth('guest'), groupAuth('maintainer')),
  // A commit: `read_code` (Reporter+ on a private project), else `404 Commit Not Found`.
  ...discussionRows('/projects/:id/repository/commits/:sha', projectAuth('reporter', NO_COMMIT), { ...projectAuth('maintainer'), guest: NO_COMMIT }),

  // ---- personal access tokens (personal_access_tokens.rb: authenticate!; others' tokens: admin, 404 otherwise) ----
  'GET /api/v4/personal_access_tokens/self': { rule: signedIn },
  // Revoking/rotating the caller's own token would end the caller's session for later rows: a dedicated token per cell (see the test).
  'DELETE /api/v4/personal_access_tokens/self': { rule: signedIn },
  'POST /api/v4/personal_access_tokens/self/rotate': { rule: signedIn },
  'GET /api/v4/personal_access_tokens': { rule: signedIn },
  // Another user's token (the target's): personal_access_tokens.rb answers non-admins `unauthorized!` (only
  // administrators learn whether a token exists: `current_user.can_admin_all_resources? ? not_found! : unauthorized!`).
  'GET /api/v4/personal_access_tokens/:id': { rule: rule('unauth', 'unauth', () => 'unauth') },
  'POST /api/v4/personal_access_tokens/:id/rotate': { rule: rule('unauth', 'unauth', () => 'unauth') },
  // DELETE: find_token, then PersonalAccessTokens::RevokeService refuses another user's token: `bad_request!(nil)`.
  'DELETE /api/v4/personal_access_tokens/:id': { rule: rule('unauth', [400, '400 Bad request'], () => [400, '400 Bad request']) },
  'POST /api/v4/users/:user_id/personal_access_tokens': { rule: adminOnly, body: { name: 'mx', scopes: ['api'] } },
  'POST /api/v4/user/personal_access_tokens': { rule: signedIn, body: { name: 'mx', scopes: ['k8s_proxy'] } },

  // ---- projects (projects.rb: authenticate_non_get!; update: admin_project Maintainer+; delete: remove_project Owner) ----
  'GET /api/v4/projects': { rule: publicRead },
  'POST /api/v4/projects': { rule: signedIn, body: { name: 'mx project' } },
  'POST /api/v4/projects/user/:user_id': { rule: adminOnly, body: { name: 'mx admin project' } },
  // project_import.rb: `authenticate!` (15.x+), then the upload's own checks (a JSON body without `file` is a 400 past authorization);
  // GET :id/import is `user_project` (read_project).
  'POST /api/v4/projects/import': { rule: signedIn, body: { path: 'mx-import' } },
  // Same file and `before`; an http URL is refused (400) past authorization without any request going out.
  'POST /api/v4/projects/remote-import': { rule: signedIn, body: { path: 'mx-remote-import', url: 'http://example.com/export.tar.gz' } },
  // The same, behind import_project_from_remote_file_s3 (off by default): `not_found!` for everyone signed in.
  'POST /api/v4/projects/remote-import-s3': {
    rule: rule('unauth', [404, '404 Not Found'], () => [404, '404 Not Found'], [404, '404 Not Found']),
    body: { path: 'mx-remote-import-s3', region: 'eu-west-1', bucket_name: 'mx-bucket', file_key: 'export.tar.gz', access_key_id: 'AKIAMATRIX', secret_access_key: 'mx-secret' },
  },
  'GET /api/v4/projects/:id/import': { rule: projectGet('guest') },
  // project_uploads.rb: upload_file (guest_access) to upload; admin_upload (Maintainer) to download by secret.
  'POST /api/v4/projects/:id/uploads': { rule: projectAuth('guest'), upload: true },
  'GET /api/v4/projects/:id/uploads/:secret/:filename': { rule: projectGet('maintainer') },
  'GET /api/v4/projects/:id': { rule: projectGet('guest') },
  'PUT /api/v4/projects/:id': { rule: projectAuth('maintainer'), body: { description: 'x' } },
  'DELETE /api/v4/projects/:id': { rule: projectAuth('owner'), fresh: 'project' },
  // ---- project export (project_export.rb: authorize_admin_project, maintainer+; download 404s until an archive exists)
  'POST /api/v4/projects/:id/export': { rule: projectAuth('maintainer') },
  'GET /api/v4/projects/:id/export': { rule: projectGet('maintainer') },
  'GET /api/v4/projects/:id/export/download': EXPORT_DOWNLOAD,
  'GET /api/v4/users/:user_id/projects': { rule: publicRead },
  'GET /api/v4/groups/:id/projects': { rule: groupGet('guest') },

  // ---- deployments (deployments.rb: before { authenticate! }; read_deployment Reporter+ on a private project,
  // create/update Developer+, destroy_deployment Maintainer+) ----
  // ---- webhooks (project_hooks.rb: authenticate!, read_web_hook / admin_web_hook: maintainers;
  // group_hooks.rb: admin_hook on the group, owners) ----
  'GET /api/v4/projects/:id/hooks': { rule: projectAuth('maintainer') },
  'POST /api/v4/projects/:id/hooks': { rule: projectAuth('maintainer'), body: { url: 'https://example.com/hook', push_events: false } },
  'GET /api/v4/projects/:id/hooks/:hook_id': { rule: projectAuth('maintainer') },
  'PUT /api/v4/projects/:id/hooks/:hook_id': { rule: projectAuth('maintainer'), body: { name: 'mx' } },
  'DELETE /api/v4/projects/:id/hooks/:hook_id': { rule: projectAuth('maintainer'), params: { hook_id: 'projectHookToDelete' } },
  'POST /api/v4/projects/:id/hooks/:hook_id/test/:trigger': { rule: projectAuth('maintainer') },
  'GET /api/v4/projects/:id/hooks/:hook_id/events': { rule: projectAuth('maintainer') },
  'POST /api/v4/projects/:id/hooks/:hook_id/events/:hook_log_id/resend': { rule: projectAuth('maintainer') },
  // url_variables.rb, custom_headers.rb: mounted inside project_hooks.rb, behind its admin_web_hook.
  'PUT /api/v4/projects/:id/hooks/:hook_id/url_variables/:key': { rule: projectAuth('maintainer'), body: { value: 'v' } },
  'DELETE /api/v4/projects/:id/hooks/:hook_id/url_variables/:key': { rule: projectAuth('maintainer') },
  'PUT /api/v4/projects/:id/hooks/:hook_id/custom_headers/:key': { rule: projectAuth('maintainer'), body: { value: 'v' } },
  'DELETE /api/v4/projects/:id/hooks/:hook_id/custom_headers/:key': { rule: projectAuth('maintainer') },
  'GET /api/v4/groups/:id/hooks': { rule: groupAuth('owner') },
  'POST /api/v4/groups/:id/hooks': { rule: groupAuth('owner'), body: { url: 'https://example.com/hook', push_events: false } },
  'GET /api/v4/groups/:id/hooks/:hook_id': { rule: groupAuth('owner') },
  'PUT /api/v4/groups/:id/hooks/:hook_id': { rule: groupAuth('owner'), body: { name: 'mx' } },
  'DELETE /api/v4/groups/:id/hooks/:hook_id': { rule: groupAuth('owner'), params: { hook_id: 'groupHookToDelete' } },
  'POST /api/v4/groups/:id/hooks/:hook_id/test/:trigger': { rule: groupAuth('owner') },
  'GET /api/v4/groups/:id/hooks/:hook_id/events': { rule: groupAuth('owner') },
  'POST /api/v4/groups/:id/hooks/:hook_id/events/:hook_log_id/resend': { rule: groupAuth('owner') },
  'PUT /api/v4/groups/:id/hooks/:hook_id/url_variables/:key': { rule: groupAuth('owner'), body: { value: 'v' } },
  'DELETE /api/v4/groups/:id/hooks/:hook_id/url_variables/:key': { rule: groupAuth('owner') },
  'PUT /api/v4/groups/:id/hooks/:hook_id/custom_headers/:key': { rule: groupAuth('owner'), body: { value: 'v' } },
  'DELETE /api/v4/groups/:id/hooks/:hook_id/custom_headers/:key': { rule: groupAuth('owner') },
  'GET /api/v4/projects/:id/deployments': { rule: projectAuth('reporter') },
  'POST /api/v4/projects/:id/deployments': { rule: projectAuth('developer'), body: { environment: 'production', sha: 'main', ref: 'main', tag: false } },
  'GET /api/v4/projects/:id/deployments/:deployment_id': { rule: projectAuth('reporter') },
  'PUT /api/v4/projects/:id/deployments/:deployment_id': { rule: projectAuth('developer'), body: { status: 'success' } },
  'DELETE /api/v4/projects/:id/deployments/:deployment_id': { rule: projectAuth('maintainer'), params: { deployment_id: 'deploymentToDelete' } },
  // ee/lib/ee/api/deployments.rb: `authorize! :read_deployment`, then ApprovalService (its refusals are 400s).
  'POST /api/v4/projects/:id/deployments/:deployment_id/approval': { rule: projectAuth('reporter'), body: { status: 'approved' } },
  'GET /api/v4/projects/:id/deployments/:deployment_id/merge_requests': { rule: projectAuth('reporter') },

  // ---- environments (environments.rb: before { authenticate! }; read_environment Reporter+ on a private project,
  // create/update Developer+; stop needs only read_environment (StopService ignores a caller who may not stop);
  // delete: read_environment, then destroy_environment (Developer+, and only once stopped) → 403 `403 Forbidden`) ----
  'GET /api/v4/projects/:id/environments': { rule: projectAuth('reporter') },
  'POST /api/v4/projects/:id/environments': { rule: projectAuth('developer'), body: () => ({ name: `mx-env-${Math.random().toString(36).slice(2)}` }) },
  'GET /api/v4/projects/:id/environments/:environment_id': { rule: projectAuth('reporter') },
  'PUT /api/v4/projects/:id/environments/:environment_id': { rule: projectAuth('developer'), body: { external_url: 'https://matrix.example.com' } },
  'DELETE /api/v4/projects/:id/environments/:environment_id': { rule: projectAuth('developer'), params: { environment_id: 'environmentToDelete' } },
  'POST /api/v4/projects/:id/environments/:environment_id/stop': { rule: projectAuth('reporter') },
  // read_environment at the endpoint, then ScheduleToDeleteReviewAppsService: destroy_environment (Developer+) or 401.
  'DELETE /api/v4/projects/:id/environments/review_apps': { rule: { ...projectAuth('reporter'), reporter: [401, 'You do not have permission to destroy environments in this project'] } },

  // ---- protected environments (ee protected_environments.rb: no authenticate!; user_project, then
  // authorize! :admin_protected_environments: Maintainer+, and the plan's feature) ----
  'GET /api/v4/projects/:id/protected_environments': { rule: projectGet('maintainer') },
  'POST /api/v4/projects/:id/protected_environments': { rule: projectGet('maintainer'), body: () => ({ name: `mx-pe-${Math.random().toString(36).slice(2)}`, deploy_access_levels: [{ access_level: 40 }] }) },
  'GET /api/v4/projects/:id/protected_environments/:name': { rule: projectGet('maintainer') },
  'PUT /api/v4/projects/:id/protected_environments/:name': { rule: projectGet('maintainer'), body: { deploy_access_levels: [{ access_level: 30 }] } },
  'DELETE /api/v4/projects/:id/protected_environments/:name': { rule: projectGet('maintainer') },

  // ---- dependencies (ee dependencies.rb: before { authenticate! }; user_project, then authorize! :read_dependency:
  // the plan's feature and download_code, Reporter+ on a private project) ----
  'GET /api/v4/projects/:id/dependencies': { rule: projectAuth('reporter') },

  // ---- protected branches (protected_branches.rb: read_protected_branch = download_code, Reporter+ on private;
  //      admin_protected_branch Maintainer+; the administrator is refused 403, as test/repository/access-protected-branches.test.ts asserts) ----
  'GET /api/v4/projects/:id/protected_branches': { rule: projectGet('reporter') },
  'GET /api/v4/projects/:id/protected_branches/:name': { rule: projectGet('reporter') },
  'POST /api/v4/projects/:id/protected_branches': { rule: { ...projectAuth('maintainer'), admin: 'forbidden' }, body: () => ({ name: `mx-protect-${Math.random().toString(36).slice(2)}` }) },
  'PATCH /api/v4/projects/:id/protected_branches/:name': { rule: { ...projectAuth('maintainer'), admin: 'forbidden' }, body: { allow_force_push: false } },
  'DELETE /api/v4/projects/:id/protected_branches/:name': { rule: { ...projectAuth('maintainer'), admin: 'forbidden' }, fresh: 'protectedBranch' },

  // ---- repository (commits.rb, branches.rb, files.rb, repositories.rb: download_code Reporter+ on private (guest 403); push Developer+) ----
  // commits.rb / branches.rb: `authorize_push_to_branch!` → 403 `You are not allowed to push into this branch` for readers who may not push.
  'POST /api/v4/projects/:id/repository/commits': {
    rule: { ...projectAuth('developer'), reporter: [403, '403 Forbidden - You are not allowed to push into this branch'] },
    body: { branch: 'mx-commits', start_branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: 'mx.txt', content: 'x' }] },
  },
  'GET /api/v4/projects/:id/repository/commits': { rule: projectGet('reporter') },
  'GET /api/v4/projects/:id/repository/commits/:sha': { rule: projectGet('reporter') },
  'GET /api/v4/projects/:id/repository/commits/:sha/diff': { rule: projectGet('reporter') },
  'GET /api/v4/projects/:id/repository/compare': { rule: projectGet('reporter'), query: 'from=main&to=feature' },
  'GET /api/v4/projects/:id/repository/branches': { rule: projectGet('reporter') },
  'GET /api/v4/projects/:id/repository/branches/:branch': { rule: projectGet('reporter') },
  'POST /api/v4/projects/:id/repository/branches': { rule: { ...projectAuth('developer'), reporter: [403, '403 Forbidden - You are not allowed to push into this branch'] }, body: { branch: 'mx-branch', ref: 'main' } },
  'DELETE /api/v4/projects/:id/repository/branches/:branch': { rule: projectAuth('developer'), params: { branch: 'to-delete' } },
  'GET /api/v4/projects/:id/repository/files/:file_path': { rule: projectGet('reporter'), query: 'ref=main' },
  'GET /api/v4/projects/:id/repository/files/:file_path/raw': { rule: projectGet('reporter'), query: 'ref=main' },
  'GET /api/v4/projects/:id/repository/files/:file_path/blame': { rule: projectGet('reporter'), query: 'ref=main' },
  // files.rb writes: authenticate_non_get! (401), `user_project`, then `authorize! :push_code` (a plain 403 for reporters).
  // Each cell writes to a branch of its own from main.
  'POST /api/v4/projects/:id/repository/files/:file_path': { rule: projectAuth('developer'), params: { file_path: 'mx-file.txt' }, body: () => ({ branch: `mx-file-${Math.random().toString(36).slice(2)}`, start_branch: 'main', commit_message: 'm', content: 'x' }) },
  'PUT /api/v4/projects/:id/repository/files/:file_path': { rule: projectAuth('developer'), body: () => ({ branch: `mx-put-${Math.random().toString(36).slice(2)}`, start_branch: 'main', commit_message: 'm', content: 'y' }) },
  'DELETE /api/v4/projects/:id/repository/files/:file_path': { rule: projectAuth('developer'), body: () => ({ branch: `mx-del-${Math.random().toString(36).slice(2)}`, start_branch: 'main', commit_message: 'm' }) },
  'GET /api/v4/projects/:id/repository/tree': { rule: projectGet('reporter') },
  // tags.rb: authorize_read_code! for all; create `authorize_admin_tag` (Developer+); delete finds the tag, then `authorize!(:delete_tag)`.
  'GET /api/v4/projects/:id/repository/tags': { rule: projectGet('reporter') },
  'GET /api/v4/projects/:id/repository/tags/:tag_name': { rule: projectGet('reporter') },
  'GET /api/v4/projects/:id/repository/tags/:tag_name/signature': { rule: projectGet('reporter') },
  'POST /api/v4/projects/:id/repository/tags': { rule: projectAuth('developer'), body: () => ({ tag_name: `mx-${Math.random().toString(36).slice(2, 10)}`, ref: 'main' }) },
  'DELETE /api/v4/projects/:id/repository/tags/:tag_name': { rule: projectAuth('developer'), params: { tag_name: 'mx-tag-del' } },
  // protected_tags.rb: `authorize_admin_project` (Maintainer+, administrators).
  'GET /api/v4/projects/:id/protected_tags': { rule: projectGet('maintainer') },
  'GET /api/v4/projects/:id/protected_tags/:name': { rule: projectGet('maintainer') },
  'POST /api/v4/projects/:id/protected_tags': { rule: projectAuth('maintainer'), body: () => ({ name: `mx-pt-${Math.random().toString(36).slice(2, 10)}` }) },
  'DELETE /api/v4/projects/:id/protected_tags/:name': { rule: projectAuth('maintainer'), params: { name: 'mx-ptag-del' } },
  'GET /api/v4/projects/:id/repository/merge_base': { rule: projectGet('reporter'), query: 'refs[]=main&refs[]=feature' },
  'GET /api/v4/projects/:id/repository/commits/:sha/refs': { rule: projectGet('reporter') },
  // repositories.rb: authorize_read_code!, then the archive limit (5 a minute per user and project: a pass calls each route once per caller).
  'GET /api/v4/projects/:id/repository/archive': { rule: projectGet('reporter') },
  'GET /api/v4/projects/:id/repository/archive.:format': { rule: projectGet('reporter') },

  // ---- runners (ci/runners.rb: registration token resets; ci/runner.rb: the runner-facing API, authorized by the runner's token in the body, never by a user) ----
  'POST /api/v4/runners/reset_registration_token': { rule: adminOnly },
  'POST /api/v4/projects/:id/runners/reset_registration_token': { rule: projectAuth('maintainer') },
  'POST /api/v4/groups/:id/runners/reset_registration_token': { rule: groupAuth('owner') },
  'POST /api/v4/runners': { rule: RUNNER_TOKEN_ONLY, body: { token: 'GR1348941-not-a-registration-token' } },
  'POST /api/v4/runners/verify': { rule: RUNNER_TOKEN_ONLY, body: { token: 'not-a-runner-token' } },
  'DELETE /api/v4/runners': { rule: RUNNER_TOKEN_ONLY, body: { token: 'not-a-runner-token' } },
  'POST /api/v4/runners/reset_authentication_token': { rule: RUNNER_TOKEN_ONLY, body: { token: 'not-a-runner-token' } },
  'POST /api/v4/jobs/request': { rule: RUNNER_TOKEN_ONLY, body: { token: 'not-a-runner-token' } },
  // ---- runners for users (ci/runners.rb, 14.x: before { authenticate! }; RunnerPolicy: a runner's owners are the
  //      maintainers of its projects and the owners of its group; the world's runner is a runner of the private project) ----
  'GET /api/v4/runners': { rule: signedIn },
  // authenticated_as_admin! inside the endpoint.
  'GET /api/v4/runners/all': { rule: adminOnly },
  'GET /api/v4/runners/:id': { rule: RUNNER_OWNER },
  'PUT /api/v4/runners/:id': { rule: RUNNER_OWNER, body: { description: 'matrix' } },
  // The first owner deletes it; later columns meet its `404 Not found` (past authorization).
  'DELETE /api/v4/runners/:id': { rule: RUNNER_OWNER, params: { id: 'runnerToDelete' } },
  'GET /api/v4/runners/:id/jobs': { rule: RUNNER_OWNER },
  'POST /api/v4/runners/:id/reset_authentication_token': { rule: RUNNER_OWNER },
  // authorize_admin_project / authorize_admin_group before anything else.
  'GET /api/v4/projects/:id/runners': { rule: projectAuth('maintainer') },
  // No such runner: past authorization the maintainers meet its `404 Not found`.
  'POST /api/v4/projects/:id/runners': { rule: projectAuth('maintainer'), body: { runner_id: 999999999 } },
  // The world's runner has only this project: disabling it there is refused past authorization.
  'DELETE /api/v4/projects/:id/runners/:runner_id': { rule: { ...projectAuth('maintainer'), maintainer: ONLY_PROJECT, owner: ONLY_PROJECT, admin: ONLY_PROJECT } },
  'GET /api/v4/groups/:id/runners': { rule: groupAuth('owner') },
  // user_runners.rb: `authenticate!`, then CreateRunnerService: an instance runner is for administrators (`create_instance_runner`).
  'POST /api/v4/user/runners': { rule: rule('unauth', [403, '403 Forbidden - Insufficient permissions'], () => [403, '403 Forbidden - Insufficient permissions']), body: { runner_type: 'instance_type' } },

  // ---- application settings (settings.rb: authenticated_as_admin!; §7) ----
  'GET /api/v4/application/settings': { rule: adminOnly },
  'PUT /api/v4/application/settings': { rule: adminOnly, body: { after_sign_out_path: '' } },

  // ---- feature flags (features.rb: `before { authenticated_as_admin! }`, before the parameters; §7) ----
  'GET /api/v4/features': { rule: adminOnly },
  'GET /api/v4/features/definitions': { rule: adminOnly },
  'POST /api/v4/features/:name': { rule: adminOnly, body: { value: 'false' } },
  'DELETE /api/v4/features/:name': { rule: adminOnly },

  // ---- todos (todos.rb: authenticate!; marking a todo on a readable issuable) ----
  'POST /api/v4/projects/:id/issues/:issue_iid/todo': { rule: projectAuth('guest') },
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/todo': { rule: projectAuth('reporter') },
  'GET /api/v4/todos': { rule: signedIn },
  'POST /api/v4/todos/:id/mark_as_done': { rule: signedIn },
  'POST /api/v4/todos/mark_as_done': { rule: signedIn },
  'GET /api/v4/user_counts': { rule: signedIn },

  // ---- users (users.rb; §7) ----
  'POST /api/v4/users/:id/follow': { rule: signedIn },
  'POST /api/v4/users/:id/unfollow': { rule: signedIn },
  // §7: followers/following need a signed-in caller: users.rb `forbidden!('Not authorized!') unless current_user`.
  'GET /api/v4/users/:id/followers': { rule: { ...signedIn, anonymous: [403, '403 Forbidden - Not authorized!'] } },
  'GET /api/v4/users/:id/following': { rule: { ...signedIn, anonymous: [403, '403 Forbidden - Not authorized!'] } },
  'GET /api/v4/user/preferences': { rule: signedIn },
  'PUT /api/v4/user/preferences': { rule: signedIn, body: { view_diffs_file_by_file: false } },
  'GET /api/v4/user': { rule: signedIn },
  'POST /api/v4/users': { rule: adminOnly, body: { email: 'x@example.com', name: 'x', username: 'x', password: 'long-password-1' } },
  // §7: anonymous without `username=` gets 403 `Not authorized to access /api/v4/users`.
  'GET /api/v4/users': { rule: { ...signedIn, anonymous: [403, '403 Forbidden - Not authorized to access /api/v4/users'] } },
  // §7: GET /users/:id needs a signed-in caller; anonymous 403 `Not authorized!`.
  'GET /api/v4/users/:id': { rule: { ...signedIn, anonymous: [403, '403 Forbidden - Not authorized!'] } },
  'PUT /api/v4/users/:id': { rule: adminOnly, body: { bio: 'x' } },
  'DELETE /api/v4/users/:id': { rule: adminOnly, fresh: 'user' },
  'DELETE /api/v4/users/:id/identities/:provider': { rule: adminOnly },
  // Issue 12 (and branch h12-users2): administrators only, 401/403 before the lookup, so the routes are
  // no existence oracle. NB: GitLab's custom_attributes_endpoints.rb does `find_resource` (a bare
  // `not_found!`) BEFORE `authorize!` (403, anonymous GETs included); this server deliberately differs.
  // The administrator still meets the bare `404 Not Found` for a missing user.
  'GET /api/v4/users/:id/custom_attributes': { rule: adminOnly, missing: { ...adminOnly, admin: NOT_FOUND } },
  'GET /api/v4/users/:id/custom_attributes/:key': { rule: adminOnly, missing: { ...adminOnly, admin: NOT_FOUND } },
  'PUT /api/v4/users/:id/custom_attributes/:key': { rule: adminOnly, body: { value: 'v' }, missing: { ...adminOnly, admin: NOT_FOUND } },
  'DELETE /api/v4/users/:id/custom_attributes/:key': { rule: adminOnly, missing: { ...adminOnly, admin: NOT_FOUND } },
  // ---- accounts (issue 18 item 3: users.rb emails, memberships, activities; keys.rb; namespaces.rb exists) ----
  'GET /api/v4/user/emails': { rule: signedIn },
  'GET /api/v4/user/emails/:email_id': { rule: signedIn },
  'POST /api/v4/user/emails': { rule: signedIn, body: () => ({ email: `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}@mx-mail.example.com` }) },
  'DELETE /api/v4/user/emails/:email_id': { rule: signedIn },
  'GET /api/v4/users/:id/emails': { rule: adminOnly },
  'POST /api/v4/users/:id/emails': { rule: adminOnly, body: () => ({ email: `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}@mx-mail.example.com` }) },
  'DELETE /api/v4/users/:id/emails/:email_id': { rule: adminOnly },
  'GET /api/v4/users/:user_id/memberships': { rule: adminOnly },
  'GET /api/v4/user/activities': { rule: adminOnly },
  // keys.rb: `authenticate!`, then administrators only (a missing key is `Key.find`'s `404 Not found`).
  'GET /api/v4/keys/:id': { rule: adminOnly },
  'GET /api/v4/keys': { rule: adminOnly, query: `fingerprint=${'00:'.repeat(15)}00` },
  // Custom attributes of projects and groups: administrators only before the lookup, as users' (above).
  // projects.rb `:id/groups`: read_project (Projects::GroupsFinder#authorized?), anonymous sees the private project as missing.
  'GET /api/v4/projects/:id/groups': { rule: projectGet('guest') },
  // projects.rb `:id/transfer`: :change_namespace is the project's owners' (Owner role) and administrators'; a throwaway project moves to the owner's personal namespace.
  'PUT /api/v4/projects/:id/transfer': { rule: projectAuth('owner'), fresh: 'project', body: () => ({ namespace: world.ownerNamespace }) },
  'GET /api/v4/projects/:id/custom_attributes': { rule: adminOnly, missing: { ...adminOnly, admin: NOT_FOUND } },
  'GET /api/v4/projects/:id/custom_attributes/:key': { rule: adminOnly, missing: { ...adminOnly, admin: NOT_FOUND } },
  'PUT /api/v4/projects/:id/custom_attributes/:key': { rule: adminOnly, body: { value: 'v' }, missing: { ...adminOnly, admin: NOT_FOUND } },
  'DELETE /api/v4/projects/:id/custom_attributes/:key': { rule: adminOnly, missing: { ...adminOnly, admin: NOT_FOUND } },
  // groups.rb `:id/transfer`: admin_group (Owner); a throwaway subgroup becomes top-level.
  'POST /api/v4/groups/:id/transfer': { rule: groupAuth('owner'), fresh: 'group' },
  'GET /api/v4/groups/:id/custom_attributes': { rule: adminOnly, missing: { ...adminOnly, admin: NOT_FOUND } },
  'GET /api/v4/groups/:id/custom_attributes/:key': { rule: adminOnly, missing: { ...adminOnly, admin: NOT_FOUND } },
  'PUT /api/v4/groups/:id/custom_attributes/:key': { rule: adminOnly, body: { value: 'v' }, missing: { ...adminOnly, admin: NOT_FOUND } },
  'DELETE /api/v4/groups/:id/custom_attributes/:key': { rule: adminOnly, missing: { ...adminOnly, admin: NOT_FOUND } },
  'POST /api/v4/users/:id/block': { rule: adminOnly, fresh: 'user' },
  'POST /api/v4/users/:id/unblock': { rule: adminOnly, fresh: 'user' },
  'POST /api/v4/users/:id/deactivate': { rule: adminOnly, fresh: 'user' },
  'POST /api/v4/users/:id/activate': { rule: adminOnly, fresh: 'user' },
  'POST /api/v4/users/:id/ban': { rule: adminOnly, fresh: 'user' },
  // The fresh user is active: Users::UnbanService answers the administrator 403 `You cannot unban active users.` (past authorization).
  'POST /api/v4/users/:id/unban': { rule: { ...adminOnly, admin: [403, 'You cannot unban active users.'] }, fresh: 'user' },
  // approve/reject: Users::ApproveService / RejectService's own 403 message for non-admins, given before
  // the lookup here (h12-users2; GitLab's users.rb finds the user first, so a missing one is its 404 there).
  'POST /api/v4/users/:id/approve': { rule: NOT_APPROVER('approve'), fresh: 'user', missing: { ...NOT_APPROVER('approve'), admin: [404, '404 User Not Found'] } },
  'POST /api/v4/users/:id/reject': { rule: NOT_APPROVER('reject'), fresh: 'user', missing: { ...NOT_APPROVER('reject'), admin: [404, '404 User Not Found'] } },
  'GET /api/v4/user/status': { rule: signedIn },
  'GET /api/v4/users/:id_or_username/status': { rule: publicRead },
  'PUT /api/v4/user/status': { rule: signedIn, body: { message: 'hi' } },
  'PATCH /api/v4/user/status': { rule: signedIn, body: { message: 'hi' } },
  'GET /uploads/-/system/user/avatar/:id/:filename': { rule: publicRead },

  // ---- OAuth and sessions (the endpoints read their own credentials; no API guard) ----
  'POST /oauth/token': { rule: publicRead },
  // Doorkeeper reads an OAuth bearer token only: a private token is no credential here.
  'GET /oauth/token/info': { rule: rule([401], [401], () => [401], [401]) },
  'POST /oauth/revoke': { rule: publicRead },
  'POST /api/v4/applications': { rule: adminOnly, body: { name: 'mx', redirect_uri: 'https://example.com/cb', scopes: 'api' } },
  'GET /api/v4/applications': { rule: adminOnly },
  'DELETE /api/v4/applications/:id': { rule: adminOnly },
  'POST /api/v4/applications/:id/renew-secret': { rule: adminOnly },
  // The web sign-in reads its own credentials (none sent): 401 `Invalid login or password.` for every column.
  'POST /users/sign_in': { rule: rule([401], [401], () => [401], [401]) },
  'DELETE /users/sign_out': { rule: publicRead },

  // ---- documentation (public; not part of the OpenAPI document itself, see UNDOCUMENTED) ----
  'GET /-/openapi.json': { rule: publicRead },
  'GET /-/api-docs': { rule: publicRead },
  'GET /-/api-docs/scalar.js': { rule: publicRead },
};

/** Routes the OpenAPI document does not list (the document and its viewer). */
export const UNDOCUMENTED = ['GET /-/openapi.json', 'GET /-/api-docs', 'GET /-/api-docs/scalar.js'];
