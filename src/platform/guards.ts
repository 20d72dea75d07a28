/**
 * Guards a handler calls once the caller is known (GitLab lib/api/helpers.rb `authenticate!`,
 * `authenticated_as_admin!`), and the authentication options a route declares. Who the caller is
 * gets decided by auth/authenticate.ts, which the router runs before the handler.
 */
import type { Caller, UserRow } from './context';
import { forbidden, unauthorized } from './errors';

/** Authentication options of a route (spread into the router's route definition). */
export interface RouteAuth {
  /** Extra scopes, e.g. `read_user` on user endpoints. `read_user`/`read_api` count only for GET and HEAD. */
  scopes?: string[];
  /** Every token scope is accepted (`allow_access_with_scope(Gitlab::Auth.all_available_scopes)`), e.g. /personal_access_tokens/self. */
  anyScope?: boolean;
  /** The route accepts CI job tokens ("for specific endpoints only"). */
  jobToken?: boolean;
  /** `before { authenticated_as_admin! }`: 401/403 before parameters are validated, as Grape orders them. */
  admin?: boolean;
  /**
   * `before { authenticate! }` (true) or `authenticate_non_get!` ('nonGet'): anonymous callers get 401
   * before parameters are validated, as Grape orders them.
   */
  signedIn?: boolean | 'nonGet';
  /** The route reads its own credentials (OAuth token endpoints, web sign-in): the API guard does not run. */
  noAuth?: boolean;
  /** A personal access token is also accepted as the HTTP Basic password (`route_setting :authentication, basic_auth_personal_access_token: true`). */
  basicAuthPat?: boolean;
}

/** `authenticate!`: 401 without a user. */
export const requireUser = (caller: Caller): UserRow => {
  if (!caller.user) throw unauthorized();
  return caller.user;
};

/** `authenticated_as_admin!`: 401 without a user, 403 unless administrator (in admin mode when required). */
export const requireAdmin = (caller: Caller): UserRow => {
  const user = requireUser(caller);
  if (!caller.isAdmin) throw forbidden();
  return user;
};
