/** Users API parameters (GitLab lib/api/users.rb; spec document 2, Users). */
import { z } from 'zod';
import { grapeError } from '../platform/errors';
import { paginationParams } from '../platform/pagination';
import { g, params } from '../platform/validate';

/**
 * `:id` of the users resource: users.rb declares `requirements: { id: <digits> }` on the whole resource,
 * so a non-numeric id never reaches an endpoint and answers the catch-all route miss, not a 400.
 */
export const routeId = () =>
  z
    .unknown()
    .transform((v): number => {
      const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v : '';
      const n = Number(s);
      if (!/^\d+$/.test(s) || !Number.isSafeInteger(n)) throw grapeError('404 Not Found', 404);
      return n;
    })
    .meta({ grapeType: 'Integer', jsonType: 'integer' });

/** Attributes shared by create and modify (`optional_attributes` in users.rb). */
export const userAttributes = {
  admin: g.bool().optional(),
  avatar: g.file().optional(),
  bio: g.string().optional(),
  can_create_group: g.bool().optional(),
  color_scheme_id: g.int().optional(),
  commit_email: g.string().optional(),
  discord: g.string().optional(),
  extern_uid: g.string().optional(),
  external: g.bool().optional(),
  extra_shared_runners_minutes_limit: g.int().optional(),
  group_id_for_saml: g.int().optional(),
  job_title: g.string().optional(),
  linkedin: g.string().optional(),
  location: g.string().optional(),
  note: g.string().optional(),
  organization: g.string().optional(),
  password: g.string().optional(),
  private_profile: g.bool().optional(),
  projects_limit: g.int().optional(),
  pronouns: g.string().optional(),
  provider: g.string().optional(),
  public_email: g.string().optional(),
  shared_runners_minutes_limit: g.int().optional(),
  skype: g.string().optional(),
  theme_id: g.int().optional(),
  twitter: g.string().optional(),
  view_diffs_file_by_file: g.bool().optional(),
  website_url: g.string().optional(),
};

export const createUserParams = params(
  {
    email: g.string(),
    name: g.string(),
    username: g.string(),
    ...userAttributes,
    reset_password: g.bool().optional(),
    force_random_password: g.bool().optional(),
    skip_confirmation: g.bool().optional(),
  },
  [{ atLeastOneOf: ['password', 'reset_password', 'force_random_password'] }, { allOrNoneOf: ['extern_uid', 'provider'] }],
);

export const updateUserParams = params(
  {
    id: routeId(),
    email: g.string().optional(),
    name: g.string().optional(),
    username: g.string().optional(),
    ...userAttributes,
    skip_reconfirmation: g.bool().optional(),
  },
  [{ allOrNoneOf: ['extern_uid', 'provider'] }],
);

const withCustomAttributes = { with_custom_attributes: g.bool().default(false) };

/** GET /users (lib/api/users.rb `get` + `optional_index_params_ee`). */
export const listUsersParams = params(
  {
    username: g.string().optional(),
    extern_uid: g.string().optional(),
    provider: g.string().optional(),
    search: g.search().optional(),
    active: g.bool().default(false),
    external: g.bool().default(false),
    exclude_external: g.bool().default(false),
    blocked: g.bool().default(false),
    created_after: g.datetime().optional(),
    created_before: g.datetime().optional(),
    without_projects: g.bool().default(false),
    exclude_internal: g.bool().default(false),
    without_project_bots: g.bool().default(false),
    admins: g.bool().default(false),
    order_by: g.enum(['id', 'name', 'username', 'created_at', 'updated_at'] as const).default('id'),
    sort: g.enum(['asc', 'desc'] as const).default('desc'),
    two_factor: g.string().optional(),
    saml_provider_id: g.int().optional(),
    custom_attributes: g.hash().optional(),
    pagination: g.string().optional(),
    ...paginationParams,
    ...withCustomAttributes,
  },
  [{ allOrNoneOf: ['extern_uid', 'provider'] }],
);

export const getUserParams = params({ id: routeId(), ...withCustomAttributes });

/** Routes that take only the user id (block, unblock, activate, ... and custom attribute lists). */
export const userIdParams = params({ id: routeId() });

export const deleteUserParams = params({ id: routeId(), hard_delete: g.bool().optional() });

export const deleteIdentityParams = params({ id: routeId(), provider: g.string() });

export const customAttributeKeyParams = params({ id: routeId(), key: g.string() });

export const putCustomAttributeParams = params({ id: routeId(), key: g.string(), value: g.string() });
