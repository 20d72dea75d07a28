/** Users API parameters (GitLab lib/api/users.rb; spec document 2, Users). */
import { g, params } from '../lib/validate';

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
    id: g.int(),
    email: g.string().optional(),
    name: g.string().optional(),
    username: g.string().optional(),
    ...userAttributes,
    skip_reconfirmation: g.bool().optional(),
  },
  [{ allOrNoneOf: ['extern_uid', 'provider'] }],
);
