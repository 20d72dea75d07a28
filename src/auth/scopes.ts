/** Token scopes (GitLab lib/gitlab/auth.rb). */
export const API_SCOPES = ['api', 'read_api', 'read_user', 'create_runner', 'manage_runner', 'k8s_proxy'] as const;
export const REPOSITORY_SCOPES = ['read_repository', 'write_repository'] as const;
export const REGISTRY_SCOPES = ['read_registry', 'write_registry'] as const;
export const OBSERVABILITY_SCOPES = ['read_observability', 'write_observability'] as const;
export const ADMIN_SCOPES = ['sudo', 'admin_mode', 'read_service_ping'] as const;
export const OTHER_SCOPES = ['ai_features'] as const;
/** OpenID Connect scopes an OAuth client may ask for (Gitlab::Auth::OPENID_SCOPES, PROFILE_SCOPES). */
export const OPENID_SCOPES = ['openid', 'profile', 'email'] as const;
/** `Gitlab::Auth::DEFAULT_SCOPES`: what an OAuth grant gets when it names none. */
export const DEFAULT_OAUTH_SCOPES = ['api'];

/** Scopes a personal access token may carry; admin scopes only for administrators. */
export function availableScopes(isAdmin: boolean): string[] {
  return [
    ...API_SCOPES,
    ...REPOSITORY_SCOPES,
    ...REGISTRY_SCOPES,
    ...OBSERVABILITY_SCOPES,
    ...OTHER_SCOPES,
    ...(isAdmin ? ADMIN_SCOPES : []),
  ];
}

/** `Gitlab::Auth.all_available_scopes`: the `values:` a scopes parameter is checked against. */
export const allAvailableScopes = (): string[] => availableScopes(true);

/** Doorkeeper's server scopes (default + optional): what an OAuth token request may name. */
export const oauthServerScopes = (): string[] => [...availableScopes(true), ...OPENID_SCOPES];
