/** Groups API parameters (GitLab lib/api/groups.rb, helpers/groups_helpers.rb). */
import { paginationParams } from '../platform/pagination';
import { g, params } from '../platform/validate';

const VIS = ['private', 'internal', 'public'] as const;

/** `optional_params_ce` of groups_helpers.rb. */
const groupAttributes = {
  description: g.string().optional(),
  visibility: g.enum(VIS).optional(),
  share_with_group_lock: g.bool().optional(),
  require_two_factor_authentication: g.bool().optional(),
  two_factor_grace_period: g.int().optional(),
  project_creation_level: g.enum(['noone', 'owner', 'maintainer', 'developer'] as const).optional(),
  subgroup_creation_level: g.enum(['owner', 'maintainer'] as const).optional(),
  emails_disabled: g.bool().optional(),
  emails_enabled: g.bool().optional(),
  mentions_disabled: g.bool().optional(),
  lfs_enabled: g.bool().optional(),
  request_access_enabled: g.bool().optional(),
  default_branch: g.string().optional(),
};

export const createGroupParams = params({
  name: g.string(),
  path: g.string(),
  parent_id: g.int().optional(),
  ...groupAttributes,
});

export const updateGroupParams = params({
  id: g.string(),
  name: g.string().optional(),
  path: g.string().optional(),
  ...groupAttributes,
});

export const groupIdParams = params({ id: g.string() });

export const deleteGroupParams = params({ id: g.string(), permanently_remove: g.bool().optional(), full_path: g.string().optional() });

export const getGroupParams = params({ id: g.string(), with_projects: g.bool().default(true), with_custom_attributes: g.bool().default(false) });

const listShape = {
  statistics: g.bool().default(false),
  skip_groups: g.array(g.int()).optional(),
  all_available: g.bool().optional(),
  visibility: g.enum(VIS).optional(),
  search: g.search().optional(),
  owned: g.bool().default(false),
  order_by: g.enum(['name', 'path', 'id', 'similarity'] as const).default('name'),
  sort: g.enum(['asc', 'desc'] as const).default('asc'),
  min_access_level: g.intEnum([10, 15, 20, 30, 40, 50]).optional(),
  top_level_only: g.bool().optional(),
  with_custom_attributes: g.bool().default(false),
  custom_attributes: g.hash().optional(),
  pagination: g.enum(['offset', 'keyset'] as const).optional(),
  cursor: g.string().optional(),
  ...paginationParams,
};

export const listGroupsParams = params(listShape);
export const listSubgroupsParams = params({ id: g.string(), ...listShape });
