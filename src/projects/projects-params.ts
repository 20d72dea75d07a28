/** Projects API parameters (GitLab lib/api/projects.rb, helpers/projects_helpers.rb). */
import { paginationParams } from '../platform/pagination';
import { g, params } from '../platform/validate';

const VIS = ['private', 'internal', 'public'] as const;
const FEATURE = ['disabled', 'private', 'enabled'] as const;

/** `optional_project_params_ce` (the attributes this server stores). */
const projectAttributes = {
  description: g.string().optional(),
  visibility: g.enum(VIS).optional(),
  default_branch: g.string().optional(),
  topics: g.csv().optional(),
  tag_list: g.csv().optional(),
  request_access_enabled: g.bool().optional(),
  lfs_enabled: g.bool().optional(),
  issues_enabled: g.bool().optional(),
  merge_requests_enabled: g.bool().optional(),
  wiki_enabled: g.bool().optional(),
  jobs_enabled: g.bool().optional(),
  snippets_enabled: g.bool().optional(),
  issues_access_level: g.enum(FEATURE).optional(),
  repository_access_level: g.enum(FEATURE).optional(),
  merge_requests_access_level: g.enum(FEATURE).optional(),
  forking_access_level: g.enum(FEATURE).optional(),
  wiki_access_level: g.enum(FEATURE).optional(),
  builds_access_level: g.enum(FEATURE).optional(),
  snippets_access_level: g.enum(FEATURE).optional(),
  pages_access_level: g.enum(['disabled', 'private', 'enabled', 'public'] as const).optional(),
  operations_access_level: g.enum(FEATURE).optional(),
  analytics_access_level: g.enum(FEATURE).optional(),
  container_registry_access_level: g.enum(FEATURE).optional(),
  merge_method: g.enum(['merge', 'rebase_merge', 'ff'] as const).optional(),
  squash_option: g.enum(['never', 'always', 'default_on', 'default_off'] as const).optional(),
  only_allow_merge_if_all_discussions_are_resolved: g.bool().optional(),
};

export const createProjectParams = params(
  { name: g.string().optional(), path: g.string().optional(), namespace_id: g.string().optional(), ...projectAttributes },
  [{ atLeastOneOf: ['name', 'path'] }],
);

export const createUserProjectParams = params(
  { user_id: g.int(), name: g.string().optional(), path: g.string().optional(), namespace_id: g.string().optional(), ...projectAttributes },
  [{ atLeastOneOf: ['name', 'path'] }],
);

export const updateProjectParams = params({ id: g.string(), name: g.string().optional(), path: g.string().optional(), archived: g.bool().optional(), ...projectAttributes });

export const projectIdParams = params({ id: g.string() });

export const getProjectParams = params({
  id: g.string(),
  statistics: g.bool().optional(),
  license: g.bool().optional(),
  with_custom_attributes: g.bool().optional(),
});

/** `use :collection_params` + `:statistics_params` + `:with_custom_attributes` of projects.rb. */
export const listShape = {
  order_by: g.enum(['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'similarity', 'star_count'] as const).default('created_at'),
  sort: g.enum(['asc', 'desc'] as const).default('desc'),
  archived: g.bool().optional(),
  visibility: g.enum(VIS).optional(),
  search: g.search().optional(),
  search_namespaces: g.bool().optional(),
  owned: g.bool().default(false),
  starred: g.bool().default(false),
  imported: g.bool().default(false),
  membership: g.bool().default(false),
  with_issues_enabled: g.bool().default(false),
  with_merge_requests_enabled: g.bool().default(false),
  min_access_level: g.intEnum([10, 15, 20, 30, 40, 50]).optional(),
  id_after: g.int().optional(),
  id_before: g.int().optional(),
  last_activity_after: g.datetime().optional(),
  last_activity_before: g.datetime().optional(),
  simple: g.bool().default(false),
  statistics: g.bool().default(false),
  with_custom_attributes: g.bool().default(false),
  custom_attributes: g.hash().optional(),
  topic: g.csv().optional(),
  pagination: g.enum(['offset', 'keyset'] as const).optional(),
  ...paginationParams,
};

export const listProjectsParams = params(listShape);
export const listUserProjectsParams = params({ user_id: g.string(), ...listShape });
export const listGroupProjectsParams = params({ id: g.string(), include_subgroups: g.bool().default(false), with_shared: g.bool().default(true), ...listShape });

/** groups.rb `:id/projects/shared`: the filters it declares (no `owned`, `membership`, keyset or `similarity`). */
export const listSharedProjectsParams = params({
  id: g.string(),
  archived: g.bool().optional(),
  visibility: g.enum(VIS).optional(),
  search: g.search().optional(),
  order_by: g.enum(['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'star_count'] as const).default('created_at'),
  sort: g.enum(['asc', 'desc'] as const).default('desc'),
  simple: g.bool().default(false),
  starred: g.bool().default(false),
  with_issues_enabled: g.bool().default(false),
  with_merge_requests_enabled: g.bool().default(false),
  min_access_level: g.intEnum([10, 15, 20, 30, 40, 50]).optional(),
  with_custom_attributes: g.bool().default(false),
  ...paginationParams,
});
