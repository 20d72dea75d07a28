/**
 * The feature flags this server defines: each is a real switch read through `featureEnabled`
 * (flags.ts), with its definition copied from GitLab's config/feature_flags/development/<name>.yml.
 * GET /features/definitions lists them; a persisted flag's `definition` is its entry here (null for
 * a name defined nowhere, which GitLab's production mode accepts too: lib/feature.rb).
 */
export interface FeatureDefinition {
  name: string;
  introduced_by_url: string | null;
  rollout_issue_url: string | null;
  milestone: string | null;
  type: string;
  group: string;
  default_enabled: boolean;
}

export const FEATURE_DEFINITIONS = [
  {
    // lib/api/project_import.rb `POST /projects/remote-import`.
    name: 'import_project_from_remote_file',
    introduced_by_url: 'https://gitlab.com/gitlab-org/gitlab/-/merge_requests/59033',
    rollout_issue_url: 'https://gitlab.com/gitlab-org/gitlab/-/issues/330039',
    milestone: '13.12',
    type: 'development',
    group: 'group::import',
    // The 13.12 YAML said false; GitLab turned it on by default before removing it, and issue 17 asks for on.
    default_enabled: true,
  },
  {
    // lib/api/project_import.rb `POST /projects/remote-import-s3`.
    name: 'import_project_from_remote_file_s3',
    introduced_by_url: 'https://gitlab.com/gitlab-org/gitlab/-/merge_requests/77259',
    rollout_issue_url: 'https://gitlab.com/gitlab-org/gitlab/-/issues/350571',
    milestone: '14.9',
    type: 'development',
    group: 'group::import',
    default_enabled: false,
  },
  {
    // lib/api/pagination_params.rb: page and per_page must be positive integers.
    name: 'only_positive_pagination_values',
    introduced_by_url: 'https://gitlab.com/gitlab-org/gitlab/-/merge_requests/93571',
    rollout_issue_url: 'https://gitlab.com/gitlab-org/gitlab/-/issues/369225',
    milestone: '15.3',
    type: 'development',
    group: 'group::source code',
    default_enabled: false,
  },
] as const satisfies readonly FeatureDefinition[];

export type FlagName = (typeof FEATURE_DEFINITIONS)[number]['name'];

const BY_NAME = new Map<string, FeatureDefinition>(FEATURE_DEFINITIONS.map((d) => [d.name, d]));

export const definitionOf = (name: string): FeatureDefinition | null => BY_NAME.get(name) ?? null;
