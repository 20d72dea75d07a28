/** Token scopes (GitLab lib/gitlab/auth.rb). */
export const API_SCOPES = ['api', 'read_api', 'read_user', 'create_runner', 'manage_runner', 'k8s_proxy'] as const;
export const REPOSITORY_SCOPES = ['read_repository', 'write_repository'] as const;
export const REGISTRY_SCOPES = ['read_registry', 'write_registry'] as const;
export const OBSERVABILITY_SCOPES = ['read_observability', 'write_observability'] as const;
export const ADMIN_SCOPES = ['sudo', 'admin_mode', 'read_service_ping'] as const;
export const OTHER_SCOPES = ['ai_features'] as const;

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
