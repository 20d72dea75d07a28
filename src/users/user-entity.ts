/**
 * User presenters, GitLab's entity chain (lib/api/entities/user_*.rb; reference B §1.1):
 * UserSafe → UserBasic → User → UserPublic → UserWithAdmin → UserDetailsWithAdmin.
 * Pure: handlers preload what a presenter needs into `UserExtras`.
 */
import { createHash } from 'node:crypto';
import type { UserRow } from '../platform/context';
import { iso } from '../platform/time';

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

export function avatarUrl(u: UserRow, base: string): string | null {
  if (u.avatarPath) return `${base}${u.avatarPath}`;
  // Gravatar default, as GitLab renders it when no avatar was uploaded.
  const hash = createHash('md5').update(u.email.trim().toLowerCase()).digest('hex');
  return `https://www.gravatar.com/avatar/${hash}?s=80&d=identicon`;
}

const customAttributes = (x: UserExtras) => (x.customAttributes ? { custom_attributes: x.customAttributes.map((a) => ({ key: a.key, value: a.value })) } : {});

export const userSafe = (u: UserRow) => ({ id: u.id, username: u.username, name: u.name });

/** UserRef / UserBasic: the nested user object everywhere. */
export const userBasic = (u: UserRow, x: UserExtras) => ({
  ...userSafe(u),
  state: u.state,
  avatar_url: avatarUrl(u, x.base),
  ...customAttributes(x),
  web_url: `${x.base}/${u.username}`,
});

export const userEntity = (u: UserRow, x: UserExtras) => {
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

/** What a user sees of themself (GET /user for non-administrators). */
export const userPublic = (u: UserRow, x: UserExtras) => ({
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

export const userWithAdmin = (u: UserRow, x: UserExtras) => ({
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

export const userDetailsWithAdmin = (u: UserRow, x: UserExtras & { highestRole?: number }) => ({
  ...userWithAdmin(u, x),
  highest_role: x.highestRole ?? 0,
  current_sign_in_ip: u.currentSignInIp,
  last_sign_in_ip: u.lastSignInIp,
  sign_in_count: u.signInCount,
  plan: null,
  trial: false,
});
