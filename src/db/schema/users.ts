import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Timestamps are epoch milliseconds; presenters format them (lib/time.ts). */
const ts = (name: string) => integer(name);
const bool = (name: string) => integer(name, { mode: 'boolean' });

export const users = sqliteTable(
  'users',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    username: text('username').notNull(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    /** active | blocked | ldap_blocked | deactivated | blocked_pending_approval | banned */
    state: text('state').notNull().default('active'),
    /** human | ghost | alert_bot | support_bot | project_bot | … (GitLab `user_type`) */
    userType: text('user_type').notNull().default('human'),
    isAdmin: bool('is_admin').notNull().default(false),
    external: bool('external').notNull().default(false),
    privateProfile: bool('private_profile').notNull().default(false),
    bio: text('bio').notNull().default(''),
    location: text('location'),
    publicEmail: text('public_email'),
    commitEmail: text('commit_email'),
    skype: text('skype').notNull().default(''),
    linkedin: text('linkedin').notNull().default(''),
    twitter: text('twitter').notNull().default(''),
    discord: text('discord').notNull().default(''),
    websiteUrl: text('website_url').notNull().default(''),
    organization: text('organization'),
    jobTitle: text('job_title').notNull().default(''),
    pronouns: text('pronouns'),
    note: text('note'),
    themeId: integer('theme_id').notNull().default(3),
    colorSchemeId: integer('color_scheme_id').notNull().default(1),
    projectsLimit: integer('projects_limit').notNull().default(100000),
    canCreateGroup: bool('can_create_group').notNull().default(true),
    passwordDigest: text('password_digest'),
    passwordAutomaticallySet: bool('password_automatically_set').notNull().default(false),
    passwordExpiresAt: ts('password_expires_at'),
    confirmedAt: ts('confirmed_at'),
    unconfirmedEmail: text('unconfirmed_email'),
    avatarPath: text('avatar_path'),
    createdById: integer('created_by_id'),
    twoFactorEnabled: bool('two_factor_enabled').notNull().default(false),
    lastSignInAt: ts('last_sign_in_at'),
    currentSignInAt: ts('current_sign_in_at'),
    lastSignInIp: text('last_sign_in_ip'),
    currentSignInIp: text('current_sign_in_ip'),
    signInCount: integer('sign_in_count').notNull().default(0),
    lastActivityOn: text('last_activity_on'),
    viewDiffsFileByFile: bool('view_diffs_file_by_file').notNull().default(false),
    showWhitespaceInDiffs: bool('show_whitespace_in_diffs').notNull().default(true),
    sharedRunnersMinutesLimit: integer('shared_runners_minutes_limit'),
    extraSharedRunnersMinutesLimit: integer('extra_shared_runners_minutes_limit'),
    isAuditor: bool('is_auditor').notNull().default(false),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    // Username and email are unique case-insensitively (GitLab validates with `lower()`).
    uniqueIndex('users_username_lower').on(sql`lower(${t.username})`),
    uniqueIndex('users_email_lower').on(sql`lower(${t.email})`),
    index('users_state').on(t.state, t.id),
    index('users_created_at').on(t.createdAt),
    // GET /users filters and orders (lib/api/users.rb, users_finder.rb): each one has an index.
    index('users_updated_at').on(t.updatedAt, t.id),
    index('users_name').on(t.name, t.id),
    index('users_username_order').on(t.username, t.id),
    index('users_external').on(t.external, t.id),
    index('users_user_type').on(t.userType, t.id),
    index('users_is_admin').on(t.isAdmin, t.id),
    index('users_two_factor').on(t.twoFactorEnabled, t.id),
    index('users_created_by').on(t.createdById),
  ],
);

/**
 * Namespaces: one per user (path = username) and one per group. A top-level path is unique across
 * users and groups, which is how GitLab keeps usernames from colliding with group paths.
 */
export const namespaces = sqliteTable(
  'namespaces',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** User | Group */
    kind: text('kind').notNull(),
    name: text('name').notNull(),
    path: text('path').notNull(),
    fullPath: text('full_path').notNull(),
    parentId: integer('parent_id'),
    ownerId: integer('owner_id'),
    visibility: text('visibility').notNull().default('private'),
    description: text('description').notNull().default(''),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    /**
     * Group namespaces: `/<root id>/.../<own id>/` (GitLab `traversal_ids`). Membership of a group and
     * of every ancestor is one `source_id IN (...)` lookup, descendants one range scan (lib/abilities.ts).
     * Null for personal namespaces.
     */
    traversalPath: text('traversal_path'),
    requestAccessEnabled: bool('request_access_enabled').notNull().default(true),
    lfsEnabled: bool('lfs_enabled').notNull().default(true),
    /** noone | owner | maintainer | developer (Group#project_creation_level_str). */
    projectCreationLevel: text('project_creation_level').notNull().default('developer'),
    /** owner | maintainer (Group#subgroup_creation_level_str). */
    subgroupCreationLevel: text('subgroup_creation_level').notNull().default('maintainer'),
    shareWithGroupLock: bool('share_with_group_lock').notNull().default(false),
    mentionsDisabled: bool('mentions_disabled'),
    emailsEnabled: bool('emails_enabled').notNull().default(true),
    requireTwoFactorAuthentication: bool('require_two_factor_authentication').notNull().default(false),
    twoFactorGracePeriod: integer('two_factor_grace_period').notNull().default(48),
    defaultBranchName: text('default_branch_name'),
    avatarPath: text('avatar_path'),
  },
  (t) => [
    index('namespaces_traversal_path').on(t.traversalPath),
    uniqueIndex('namespaces_full_path_lower').on(sql`lower(${t.fullPath})`),
    index('namespaces_owner').on(t.ownerId),
    index('namespaces_parent').on(t.parentId),
  ],
);

export const identities = sqliteTable(
  'identities',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: integer('user_id').notNull(),
    provider: text('provider').notNull(),
    externUid: text('extern_uid').notNull(),
    samlProviderId: integer('saml_provider_id'),
    createdAt: ts('created_at').notNull(),
    /** For If-Unmodified-Since on DELETE /users/:id/identities/:provider; null until first changed. */
    updatedAt: ts('updated_at'),
  },
  (t) => [
    uniqueIndex('identities_provider_uid').on(t.provider, sql`lower(${t.externUid})`),
    uniqueIndex('identities_user_provider').on(t.userId, t.provider),
    // GET /users?saml_provider_id= (Premium).
    index('identities_saml_provider').on(t.samlProviderId, t.userId),
  ],
);

export const userCustomAttributes = sqliteTable(
  'user_custom_attributes',
  {
    userId: integer('user_id').notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] }), index('user_custom_attributes_kv').on(t.key, t.value)],
);
