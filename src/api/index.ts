/**
 * Every resource module, mounted in alphabetical order. Each module owns its routes; this list is
 * the only shared wiring.
 */
import type { Router } from '../lib/router';
import { mountAuditEvents } from './audit-events';
import { mountGpgKeys } from './gpg-keys';
import { mountGroups } from './groups';
import { mountImpersonationTokens } from './impersonation-tokens';
import { mountKeys } from './keys';
import { mountMembers } from './members';
import { mountNamespaces } from './namespaces';
import { mountOauth } from './oauth';
import { mountOpenapi } from './openapi';
import { mountPersonalAccessTokens } from './personal-access-tokens';
import { mountProjects } from './projects';
import { mountSessions } from './sessions';
import { mountSettings } from './settings';
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
  mountAuditEvents(api);
  mountGpgKeys(usersApi);
  mountGroups(groupsApi);
  mountImpersonationTokens(usersApi);
  mountKeys(usersApi);
  mountMembers(signedInApi);
  mountNamespaces(signedInApi);
  mountPersonalAccessTokens(api);
  mountProjects(groupsApi);
  mountSettings(api);
  mountUserCounts(api);
  mountUserFollows(usersApi);
  mountUserPreferences(usersApi);
  mountUserStatus(usersApi);
  mountUsers(usersApi);
  mountOauth(web);
  mountSessions(web);
  mountUploads(web);
  mountOpenapi(web, api);
}
