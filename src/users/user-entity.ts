/**
 * User presenters, GitLab's entity chain (lib/api/entities/user_*.rb; reference B §1.1):
 * UserSafe → UserBasic → User → UserPublic → UserWithAdmin → UserDetailsWithAdmin.
 * Pure: handlers preload what a presenter needs into `UserExtras`.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { requestScope } from '../db/riders';
import type { UserRow } from '../platform/context';
import { date, id, int, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import { customAttributeEntity, CustomAttributeSchema } from './custom-attribute-entity';

export interface UserExtras {
  base: string;
  identities?: { provider: string; externUid: string; samlProviderId: number | null }[];
  followers?: number;
  following?: number;
  isFollowed?: boolean;
  namespaceId?: number | null;
  createdBy?: UserRow | null;
  customAttributes?: { key: string; value: string }[];
  /** The viewer may read the full profile (own, admin, or a public profile). */
  canReadProfile?: boolean;
  /** The instance plan includes Premium: UserWithAdmin then carries the Premium attributes (default true). */
  premium?: boolean;
}

export const isBot = (u: UserRow) => u.userType !== 'human';

/** Gravatar URLs by email: a function of the email, kept per isolate (a list page shows the same people many times; each hash cost ~2 µs). */
const gravatars = new Map<string, string>();

/**
 * Requests served while the instance setting `avatarsvc_enabled` (GitLab's `gravatar_enabled`) is off.
 * Presenters are pure and synchronous, so authentication notes the setting for the request once
 * (auth/authenticate.ts, from the settings it reads anyway) and `avatarUrl` looks it up here.
 */
const avatarServiceOff = new WeakSet<object>();

/** Notes the request's `avatarsvc_enabled` setting; outside a request there is nothing to note. */
export function noteAvatarService(enabled: boolean): void {
  const scope = requestScope();
  if (scope && !enabled) avatarServiceOff.add(scope);
}

export function avatarUrl(u: UserRow, base: string): string | null {
  if (u.avatarPath) return `${base}${u.avatarPath}`;
  // No upload and the avatar service off: no URL (User#avatar_url falls back to GravatarService#execute,
  // which returns nil unless `gravatar_enabled?`: app/models/user.rb, app/services/gravatar_service.rb).
  const scope = requestScope();
  if (scope && avatarServiceOff.has(scope)) return null;
  // Gravatar default, as GitLab renders it when no avatar was uploaded.
  let url = gravatars.get(u.email);
  if (url === undefined) {
    url = `https://www.gravatar.com/avatar/${createHash('md5').update(u.email.trim().toLowerCase()).digest('hex')}?s=80&d=identicon`;
    if (gravatars.size >= 4096) gravatars.clear();
    gravatars.set(u.email, url);
  }
  return url;
}

const customAttributes = (x: UserExtras) => (x.customAttributes ? { custom_attributes: x.customAttributes.map(customAttributeEntity) } : {});

export const UserSafeSchema = obj({ id, username: z.string(), name: z.string() }).meta({ id: 'UserSafe' });
export type UserSafe = z.infer<typeof UserSafeSchema>;

export const UserBasicSchema = UserSafeSchema.extend({
  state: z.string(),
  avatar_url: z.string().nullable(),
  /** Administrators, with `with_custom_attributes` (users.rb). */
  custom_attributes: z.array(CustomAttributeSchema).optional(),
  web_url: z.string(),
}).meta({ id: 'UserBasic', description: 'The nested user object everywhere (UserBasic)', examples: [{ id: 1, username: 'root', name: 'Administrator', state: 'active', avatar_url: null, web_url: 'https://gitlab.example.com/root' }] });
export type UserBasic = z.infer<typeof UserBasicSchema>;

export const userSafe = (u: UserRow): UserSafe => ({ id: u.id, username: u.username, name: u.name });

/** UserRef / UserBasic: the nested user object everywhere. */
export const userBasic = (u: UserRow, x: UserExtras): UserBasic => ({
  ...userSafe(u),
  state: u.state,
  avatar_url: avatarUrl(u, x.base),
  ...customAttributes(x),
  web_url: `${x.base}/${u.username}`,
});

export const UserSchema = UserBasicSchema.extend({
  /** Left out of a private profile the viewer may not read. */
  created_at: timestamp.optional(),
  bio: z.string(),
  location: z.string().nullable(),
  public_email: z.string(),
  skype: z.string(),
  linkedin: z.string(),
  twitter: z.string(),
  discord: z.string(),
  website_url: z.string(),
  organization: z.string(),
  job_title: z.string(),
  pronouns: z.string().nullable(),
  bot: z.boolean(),
  work_information: z.string().nullable(),
  followers: int.optional(),
  following: int.optional(),
  is_followed: z.boolean().optional(),
  local_time: z.string().nullable(),
}).meta({ id: 'User' });
export type User = z.infer<typeof UserSchema>;

export const userEntity = (u: UserRow, x: UserExtras): User => {
  const readProfile = x.canReadProfile ?? !u.privateProfile;
  return {
    ...userBasic(u, x),
    ...(readProfile ? { created_at: iso(u.createdAt) } : {}),
    bio: u.bio,
    // Nullable (spec: User public view, "location (nullable)").
    location: u.location ?? null,
    public_email: u.publicEmail ?? '',
    skype: u.skype,
    linkedin: u.linkedin,
    twitter: u.twitter,
    discord: u.discord,
    website_url: u.websiteUrl,
    organization: u.organization ?? '',
    job_title: u.jobTitle,
    pronouns: u.pronouns,
    bot: isBot(u),
    work_information: workInformation(u),
    ...(readProfile ? { followers: x.followers ?? 0, following: x.following ?? 0, is_followed: x.isFollowed ?? false } : {}),
    local_time: null,
  };
};

function workInformation(u: UserRow): string | null {
  const org = u.organization?.trim();
  const job = u.jobTitle?.trim();
  if (org && job) return `${job} at ${org}`;
  return job || org || null;
}

const Identity = obj({ provider: z.string(), extern_uid: z.string(), saml_provider_id: int.nullable() });

export const UserPublicSchema = UserSchema.extend({
  last_sign_in_at: timestamp.nullable(),
  confirmed_at: timestamp.nullable(),
  last_activity_on: date.nullable(),
  email: z.string(),
  theme_id: int,
  color_scheme_id: int,
  projects_limit: int,
  current_sign_in_at: timestamp.nullable(),
  identities: z.array(Identity),
  can_create_group: z.boolean(),
  can_create_project: z.boolean(),
  two_factor_enabled: z.boolean(),
  external: z.boolean(),
  private_profile: z.boolean(),
  commit_email: z.string(),
}).meta({ id: 'UserPublic', description: 'What a user sees of themself' });
export type UserPublic = z.infer<typeof UserPublicSchema>;

/** What a user sees of themself (GET /user for non-administrators). */
export const userPublic = (u: UserRow, x: UserExtras): UserPublic => ({
  ...userEntity(u, { ...x, canReadProfile: true }),
  last_sign_in_at: iso(u.lastSignInAt),
  confirmed_at: iso(u.confirmedAt),
  last_activity_on: u.lastActivityOn,
  email: u.email,
  theme_id: u.themeId,
  color_scheme_id: u.colorSchemeId,
  projects_limit: u.projectsLimit,
  current_sign_in_at: iso(u.currentSignInAt),
  identities: (x.identities ?? []).map((i) => ({ provider: i.provider, extern_uid: i.externUid, saml_provider_id: i.samlProviderId })),
  can_create_group: u.canCreateGroup,
  can_create_project: u.projectsLimit > 0,
  two_factor_enabled: u.twoFactorEnabled,
  external: u.external,
  private_profile: u.privateProfile,
  commit_email: u.commitEmail ?? u.email,
});

export const UserWithAdminSchema = UserPublicSchema.extend({
  is_admin: z.boolean(),
  note: z.string().nullable(),
  namespace_id: int.nullable(),
  created_by: UserBasicSchema.nullable(),
  // Premium attributes: left out on the free plan.
  shared_runners_minutes_limit: int.nullable().optional(),
  extra_shared_runners_minutes_limit: int.nullable().optional(),
  is_auditor: z.boolean().optional(),
  provisioned_by_group_id: int.nullable().optional(),
  using_license_seat: z.boolean().optional(),
}).meta({ id: 'UserWithAdmin', description: 'A user as administrators see it' });
export type UserWithAdmin = z.infer<typeof UserWithAdminSchema>;

export const userWithAdmin = (u: UserRow, x: UserExtras): UserWithAdmin => ({
  ...userPublic(u, x),
  is_admin: u.isAdmin,
  note: u.note,
  namespace_id: x.namespaceId ?? null,
  created_by: x.createdBy ? userBasic(x.createdBy, { base: x.base }) : null,
  // Premium attributes (spec: User administrator view, "Premium adds ...").
  ...(x.premium === false
    ? {}
    : {
        shared_runners_minutes_limit: u.sharedRunnersMinutesLimit,
        extra_shared_runners_minutes_limit: u.extraSharedRunnersMinutesLimit,
        is_auditor: u.isAuditor,
        provisioned_by_group_id: null,
        using_license_seat: u.userType === 'human' && u.state === 'active',
      }),
});

export const UserDetailsWithAdminSchema = UserWithAdminSchema.extend({
  highest_role: int,
  current_sign_in_ip: z.string().nullable(),
  last_sign_in_ip: z.string().nullable(),
  sign_in_count: int,
  plan: z.string().nullable(),
  trial: z.boolean(),
}).meta({ id: 'UserDetailsWithAdmin', description: 'GET /users/:id and GET /user as an administrator' });
export type UserDetailsWithAdmin = z.infer<typeof UserDetailsWithAdminSchema>;

export const userDetailsWithAdmin = (u: UserRow, x: UserExtras & { highestRole?: number }): UserDetailsWithAdmin => ({
  ...userWithAdmin(u, x),
  highest_role: x.highestRole ?? 0,
  current_sign_in_ip: u.currentSignInIp,
  last_sign_in_ip: u.lastSignInIp,
  sign_in_count: u.signInCount,
  plan: null,
  trial: false,
});
