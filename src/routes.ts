/**
 * Every resource module, mounted in alphabetical order, each under its domain (the OpenAPI
 * document groups its tags by domain). Each module owns its routes; this list is the only shared
 * wiring of routes.
 */
import type { DomainDoc } from './platform/openapi';
import type { Router } from './platform/router';
import { mountApprovalMergeRequests } from './approvals/merge-request-approvals-routes';
import { mountApprovals } from './approvals/project-approvals-routes';
import { mountAuditEvents } from './users/audit-events-routes';
import { mountAwardEmoji } from './notes/award-emoji-routes';
import { mountDependencies } from './dependencies/dependencies-routes';
import { mountDeployments } from './deployments/deployments-routes';
import { mountDeploymentApprovals } from './deployments/approval-routes';
import { mountDeploymentMergeRequests } from './deployments/deployment-merge-requests';
import { mountEnvironments } from './deployments/environments-routes';
import { mountProtectedEnvironments } from './deployments/protected-environments-routes';
import { mountFeatures } from './features/features-routes';
import { mountEpics } from './planning/epics-routes';
import { mountEpicResourceEvents } from './planning/epic-resource-events-routes';
import { mountGeoNodes } from './geo/geo-nodes-routes';
import { mountGpgKeys } from './users/gpg-keys-routes';
import { mountGroups } from './projects/groups-routes';
import { mountGroupTransfer } from './projects/group-transfer-routes';
import { mountProjectGroupCustomAttributes } from './projects/custom-attributes-routes';
import { mountGroupHooks } from './hooks/group-hooks-routes';
import { mountHookTests } from './hooks/hook-test-routes';
import { mountHookVariables } from './hooks/hook-variables-routes';
import { mountProjectHooks } from './hooks/project-hooks-routes';
import { mountImpersonationTokens } from './auth/impersonation-tokens-routes';
import { mountIssueDetails } from './issues/issue-details-routes';
import { mountIssueLinks } from './issues/issue-links-routes';
import { mountIssueLists } from './issues/issue-lists-routes';
import { mountIssueResourceEvents } from './issues/resource-events-routes';
import { mountIssueMetricImages } from './issues/metric-images-routes';
import { mountIssueTimeTracking } from './issues/time-tracking-routes';
import { mountPlanningIssues } from './issues/planning-issues-routes';
import { mountIssues } from './issues/issues-routes';
import { mountKeys } from './users/keys-routes';
import { mountKeyLookups } from './users/keys-lookup-routes';
import { mountEmails } from './users/emails-routes';
import { mountMemberships } from './users/memberships-routes';
import { mountLabels } from './planning/labels-routes';
import { mountMembers } from './projects/members-routes';
import { mountIssueMergeRequests } from './merge-requests/issue-merge-requests-routes';
import { mountMergeRequests } from './merge-requests/merge-requests-routes';
import { mountMergeRequestResourceEvents } from './merge-requests/resource-events-routes';
import { mountMilestones } from './planning/milestones-routes';
import { mountMilestoneMergeRequests } from './merge-requests/milestone-merge-requests-routes';
import { mountNamespaces } from './projects/namespaces-routes';
import { mountNotes } from './notes/notes-routes';
import { mountOauth } from './auth/oauth-routes';
import { mountOpenapi } from './platform/openapi-routes';
import { mountPersonalAccessTokens } from './auth/personal-access-tokens-routes';
import { mountProjects } from './projects/projects-routes';
import { mountProjectGroups } from './projects/project-groups-routes';
import { mountShare } from './projects/share-routes';
import { mountShareLists } from './projects/share-lists-routes';
import { mountProjectTransfer } from './projects/project-transfer-routes';
import { mountProjectExport } from './import-export/export-routes';
import { mountProjectImport } from './import-export/import-routes';
import { mountProjectUploads } from './import-export/project-uploads';
import { mountRelatedEpics } from './planning/related-epic-routes';
import { mountProtectedBranches } from './repository/protected-branches-routes';
import { mountRegistrationTokens } from './ci/registration-token-routes';
import { mountRepository } from './repository/repository-routes';
import { mountRunnerApi } from './ci/runner-api-routes';
import { mountRunners } from './ci/runners-routes';
import { mountProjectRunners } from './ci/project-runners-routes';
import { mountUserRunners } from './ci/user-runners-routes';
import { mountSessions } from './auth/sessions-routes';
import { mountSettings } from './settings/settings-routes';
import { mountTodos } from './todos/todos-routes';
import { mountUploads } from './users/uploads-routes';
import { mountUserCounts } from './todos/user-counts-routes';
import { mountUserFollows } from './users/follows-routes';
import { mountUserPreferences } from './users/preferences-routes';
import { mountUserStatus } from './users/status-routes';
import { mountUsers } from './users/users-routes';

/** The domains of src/, low to high: a domain imports only itself and the ones before it (README "Architecture"). */
export const DOMAINS: DomainDoc[] = [
  { name: 'platform', description: 'HTTP conventions: routing, parameters, errors, pagination, the OpenAPI document, ports and extension points' },
  { name: 'settings', description: 'Application settings and the rate limits they configure' },
  { name: 'features', description: 'Feature flags: the gates administrators set, and the one helper the code reads them through' },
  { name: 'users', description: 'Users, SSH and GPG keys, status, preferences, follows, avatars, audit events' },
  { name: 'auth', description: 'Personal, impersonation and OAuth tokens, web sign-in, and who is calling' },
  { name: 'projects', description: 'Namespaces, groups, projects, members, and who may see and do what' },
  { name: 'repository', description: 'Commits, branches, files, protected branches and pushes' },
  { name: 'issuables', description: 'What issues, epics and merge requests share: system notes, to-do writes, quick actions' },
  { name: 'planning', description: 'Labels, milestones and epics' },
  { name: 'issues', description: 'Issues, their lists, details, time tracking and metric images' },
  { name: 'merge-requests', description: 'Merge requests, diffs and versions, merging, rebasing, pipelines' },
  { name: 'approvals', description: 'Approval settings and rules (code owners too), approval state, approving' },
  { name: 'notes', description: 'Comments and award emoji on issues, merge requests and epics' },
  { name: 'todos', description: "To-do items and the current user's counts" },
  { name: 'ci', description: 'Runners: registration and authentication tokens, the runner-facing API, polling' },
  { name: 'import-export', description: 'Project import and export: GitLab export archives, processed on the Jobs port' },
  { name: 'deployments', description: 'Environments, protected environments and deployments' },
  { name: 'dependencies', description: "Dependencies read from the default branch's lockfiles, and the advisories that flag them" },
  { name: 'geo', description: 'Geo replication nodes and the status of this one' },
  { name: 'hooks', description: 'Project and group webhooks: the event outbox, delivery through the Queue, payloads, test triggers and delivery logs' },
];

const inSettings = (r: Router) => r.withDefaults(() => ({ domain: 'settings' }));
const inUsers = (r: Router) => r.withDefaults(() => ({ domain: 'users' }));
const inAuth = (r: Router) => r.withDefaults(() => ({ domain: 'auth' }));
const inProjects = (r: Router) => r.withDefaults(() => ({ domain: 'projects' }));
const inRepository = (r: Router) => r.withDefaults(() => ({ domain: 'repository' }));
const inPlanning = (r: Router) => r.withDefaults(() => ({ domain: 'planning' }));
const inIssues = (r: Router) => r.withDefaults(() => ({ domain: 'issues' }));
const inMergeRequests = (r: Router) => r.withDefaults(() => ({ domain: 'merge-requests' }));
const inApprovals = (r: Router) => r.withDefaults(() => ({ domain: 'approvals' }));
const inNotes = (r: Router) => r.withDefaults(() => ({ domain: 'notes' }));
const inTodos = (r: Router) => r.withDefaults(() => ({ domain: 'todos' }));
const inCi = (r: Router) => r.withDefaults(() => ({ domain: 'ci' }));
const inDeployments = (r: Router) => r.withDefaults(() => ({ domain: 'deployments' }));
const inHooks = (r: Router) => r.withDefaults(() => ({ domain: 'hooks' }));

/** `api` mounts under /api/v4; `web` at the root (OAuth, sign-in, uploads, documentation). */
export function mountApi(api: Router, web: Router) {
  // lib/api/users.rb: `read_user` (GET/HEAD only) is registered for every route of the Users API;
  // `resource :user` runs `authenticate!` and `resource :users` runs `authenticate_non_get!` first.
  const usersApi = api.withDefaults((def) => ({
    scopes: ['read_user'],
    signedIn: def.path === '/user' || def.path.startsWith('/user/') ? true : 'nonGet',
  }));
  // groups.rb, projects.rb: `before { authenticate_non_get! }`; members.rb, namespaces.rb: `before { authenticate! }`.
  const groupsApi = api.withDefaults(() => ({ signedIn: 'nonGet' }));
  const signedInApi = api.withDefaults(() => ({ signedIn: true }));
  mountApprovals(inApprovals(groupsApi));
  mountApprovalMergeRequests(inApprovals(groupsApi));
  mountAuditEvents(inUsers(api));
  mountAwardEmoji(inNotes(groupsApi));
  mountDependencies(signedInApi.withDefaults(() => ({ domain: 'dependencies' })));
  mountDeployments(inDeployments(signedInApi));
  mountDeploymentApprovals(inDeployments(signedInApi));
  mountDeploymentMergeRequests(inDeployments(signedInApi));
  mountEnvironments(inDeployments(signedInApi));
  mountProtectedEnvironments(inDeployments(api));
  mountEpics(inPlanning(groupsApi));
  mountEpicResourceEvents(inPlanning(signedInApi));
  mountFeatures(api.withDefaults(() => ({ domain: 'features' })));
  mountGeoNodes(api.withDefaults(() => ({ domain: 'geo' })));
  mountGpgKeys(inUsers(usersApi));
  mountGroups(inProjects(groupsApi));
  mountGroupTransfer(inProjects(groupsApi));
  mountProjectGroupCustomAttributes(inProjects(groupsApi));
  mountGroupHooks(inHooks(api));
  mountHookTests(inHooks(api));
  mountHookVariables(inHooks(api));
  mountProjectHooks(inHooks(api));
  mountImpersonationTokens(inAuth(usersApi));
  mountIssueDetails(inIssues(groupsApi));
  mountIssueLinks(inIssues(signedInApi));
  mountIssueLists(inIssues(groupsApi));
  mountIssueResourceEvents(inIssues(signedInApi));
  mountIssueMetricImages(inIssues(groupsApi));
  mountIssues(inIssues(groupsApi));
  mountPlanningIssues(inIssues(groupsApi));
  mountIssueTimeTracking(inIssues(groupsApi));
  mountKeys(inUsers(usersApi));
  // keys.rb: `before { authenticate! }`, then administrators only.
  mountKeyLookups(inUsers(signedInApi));
  mountEmails(inUsers(usersApi));
  mountMemberships(inUsers(usersApi));
  mountLabels(inPlanning(groupsApi));
  mountMembers(inProjects(signedInApi));
  mountMergeRequests(inMergeRequests(groupsApi));
  mountMergeRequestResourceEvents(inMergeRequests(signedInApi));
  mountIssueMergeRequests(inMergeRequests(groupsApi));
  mountMilestoneMergeRequests(inMergeRequests(groupsApi));
  mountMilestones(inPlanning(groupsApi));
  mountNamespaces(inProjects(signedInApi));
  mountNotes(inNotes(groupsApi));
  mountPersonalAccessTokens(inAuth(api));
  mountProjects(inProjects(groupsApi));
  mountProjectGroups(inProjects(groupsApi));
  mountShare(inProjects(groupsApi));
  mountShareLists(inProjects(groupsApi));
  mountProjectTransfer(inProjects(groupsApi));
  mountProjectExport(groupsApi.withDefaults(() => ({ domain: 'import-export' })));
  mountProjectImport(groupsApi.withDefaults(() => ({ domain: 'import-export' })));
  mountProjectUploads(groupsApi.withDefaults(() => ({ domain: 'import-export' })));
  mountProtectedBranches(inRepository(groupsApi));
  mountRelatedEpics(inPlanning(groupsApi));
  mountRegistrationTokens(inCi(signedInApi));
  mountRepository(inRepository(groupsApi));
  mountRunnerApi(inCi(api));
  mountRunners(inCi(signedInApi));
  mountProjectRunners(inCi(signedInApi));
  mountUserRunners(inCi(signedInApi));
  mountSettings(inSettings(api));
  mountTodos(inTodos(signedInApi));
  mountUserCounts(inTodos(api));
  mountUserFollows(inUsers(usersApi));
  mountUserPreferences(inUsers(usersApi));
  mountUsers(inUsers(usersApi));
  mountUserStatus(inUsers(usersApi));
  mountOauth(inAuth(web));
  mountSessions(inAuth(web));
  mountUploads(inUsers(web));
  mountOpenapi(web, api, DOMAINS);
}
