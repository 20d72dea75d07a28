/**
 * Every resource module, mounted in alphabetical order. Each module owns its routes; this list is
 * the only shared wiring.
 */
import type { Router } from '../lib/router';
import { mountApprovals } from './approvals';
import { mountAuditEvents } from './audit-events';
import { mountAwardEmoji } from './award-emoji';
import { mountEpics } from './epics';
import { mountGpgKeys } from './gpg-keys';
import { mountGroups } from './groups';
import { mountImpersonationTokens } from './impersonation-tokens';
import { mountIssueDetails } from './issue-details';
import { mountIssueLists } from './issue-lists';
import { mountIssueMetricImages } from './issue-metric-images';
import { mountIssueTimeTracking } from './issue-time-tracking';
import { mountIssues } from './issues';
import { mountKeys } from './keys';
import { mountLabels } from './labels';
import { mountMembers } from './members';
import { mountMergeRequests } from './merge-requests';
import { mountMilestones } from './milestones';
import { mountNamespaces } from './namespaces';
import { mountNotes } from './notes';
import { mountOauth } from './oauth';
import { mountOpenapi } from './openapi';
import { mountPersonalAccessTokens } from './personal-access-tokens';
import { mountProjects } from './projects';
import { mountProtectedBranches } from './protected-branches';
import { mountRepository } from './repository';
import { mountSessions } from './sessions';
import { mountSettings } from './settings';
import { mountTodos } from './todos';
import { mountUploads } from './uploads';
import { mountUserCounts } from './user-counts';
import { mountUserFollows } from './user-follows';
import { mountUserPreferences } from './user-preferences';
import { mountUserStatus } from './user-status';
import { mountUsers } from './users';

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
  mountIssueTimeTracking(groupsApi);
  mountKeys(usersApi);
  mountLabels(groupsApi);
  mountMembers(signedInApi);
  mountMergeRequests(groupsApi);
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
