/**
 * Every resource module, mounted in alphabetical order. Each module owns its routes; this list is
 * the only shared wiring.
 */
import type { Router } from './platform/router';
import { mountApprovalMergeRequests } from './approvals/merge-request-approvals-routes';
import { mountApprovals } from './approvals/project-approvals-routes';
import { mountAuditEvents } from './users/audit-events-routes';
import { mountAwardEmoji } from './notes/award-emoji-routes';
import { mountEpics } from './planning/epics-routes';
import { mountGpgKeys } from './users/gpg-keys-routes';
import { mountGroups } from './projects/groups-routes';
import { mountImpersonationTokens } from './auth/impersonation-tokens-routes';
import { mountIssueDetails } from './issues/issue-details-routes';
import { mountIssueLists } from './issues/issue-lists-routes';
import { mountIssueMetricImages } from './issues/metric-images-routes';
import { mountIssueTimeTracking } from './issues/time-tracking-routes';
import { mountPlanningIssues } from './issues/planning-issues-routes';
import { mountIssues } from './issues/issues-routes';
import { mountKeys } from './users/keys-routes';
import { mountLabels } from './planning/labels-routes';
import { mountMembers } from './projects/members-routes';
import { mountIssueMergeRequests } from './merge-requests/issue-merge-requests-routes';
import { mountMergeRequests } from './merge-requests/merge-requests-routes';
import { mountMilestones } from './planning/milestones-routes';
import { mountNamespaces } from './projects/namespaces-routes';
import { mountNotes } from './notes/notes-routes';
import { mountOauth } from './auth/oauth-routes';
import { mountOpenapi } from './platform/openapi-routes';
import { mountPersonalAccessTokens } from './auth/personal-access-tokens-routes';
import { mountProjects } from './projects/projects-routes';
import { mountProtectedBranches } from './repository/protected-branches-routes';
import { mountRepository } from './repository/repository-routes';
import { mountSessions } from './auth/sessions-routes';
import { mountSettings } from './settings/settings-routes';
import { mountTodos } from './todos/todos-routes';
import { mountUploads } from './users/uploads-routes';
import { mountUserCounts } from './todos/user-counts-routes';
import { mountUserFollows } from './users/follows-routes';
import { mountUserPreferences } from './users/preferences-routes';
import { mountUserStatus } from './users/status-routes';
import { mountUsers } from './users/users-routes';

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
  mountApprovals(groupsApi);
  mountApprovalMergeRequests(groupsApi);
  mountAuditEvents(api);
  mountAwardEmoji(groupsApi);
  mountEpics(groupsApi);
  mountGpgKeys(usersApi);
  mountGroups(groupsApi);
  mountImpersonationTokens(usersApi);
  mountIssueDetails(groupsApi);
  mountIssueLists(groupsApi);
  mountIssueMetricImages(groupsApi);
  mountIssues(groupsApi);
  mountPlanningIssues(groupsApi);
  mountIssueTimeTracking(groupsApi);
  mountKeys(usersApi);
  mountLabels(groupsApi);
  mountMembers(signedInApi);
  mountMergeRequests(groupsApi);
  mountIssueMergeRequests(groupsApi);
  mountMilestones(groupsApi);
  mountNamespaces(signedInApi);
  mountNotes(groupsApi);
  mountPersonalAccessTokens(api);
  mountProjects(groupsApi);
  mountProtectedBranches(groupsApi);
  mountRepository(groupsApi);
  mountSettings(api);
  mountTodos(signedInApi);
  mountUserCounts(api);
  mountUserFollows(usersApi);
  mountUserPreferences(usersApi);
  mountUsers(usersApi);
  mountUserStatus(usersApi);
  mountOauth(web);
  mountSessions(web);
  mountUploads(web);
  mountOpenapi(web, api);
}
