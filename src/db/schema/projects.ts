import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const ts = (name: string) => integer(name);
const bool = (name: string) => integer(name, { mode: 'boolean' });

/** Projects live in a namespace (a user's or a group's); the full path is the namespace's plus `path`. */
export const projects = sqliteTable(
  'projects',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    namespaceId: integer('namespace_id').notNull(),
    name: text('name').notNull(),
    path: text('path').notNull(),
    description: text('description'),
    /** private | internal | public */
    visibility: text('visibility').notNull().default('private'),
    defaultBranch: text('default_branch'),
    /** JSON array of topic names. */
    topics: text('topics').notNull().default('[]'),
    creatorId: integer('creator_id'),
    archived: bool('archived').notNull().default(false),
    requestAccessEnabled: bool('request_access_enabled').notNull().default(true),
    lfsEnabled: bool('lfs_enabled').notNull().default(true),
    /** enabled | private | disabled per feature (ProjectFeature), JSON object. */
    features: text('features').notNull().default('{}'),
    /** merge | rebase_merge | ff (Project#merge_method: merge_requests_rebase_enabled, merge_requests_ff_only_enabled). */
    mergeMethod: text('merge_method').notNull().default('merge'),
    /** never | always | default_on | default_off (ProjectSetting#squash_option). */
    squashOption: text('squash_option').notNull().default('default_off'),
    /** Project#only_allow_merge_if_all_discussions_are_resolved: unresolved discussions block a merge. */
    onlyAllowMergeIfAllDiscussionsAreResolved: bool('only_allow_merge_if_all_discussions_are_resolved').notNull().default(false),
    avatarPath: text('avatar_path'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    lastActivityAt: ts('last_activity_at').notNull(),
  },
  (t) => [
    uniqueIndex('projects_namespace_path_lower').on(t.namespaceId, sql`lower(${t.path})`),
    uniqueIndex('projects_namespace_name_lower').on(t.namespaceId, sql`lower(${t.name})`),
    index('projects_visibility').on(t.visibility, t.id),
    index('projects_creator').on(t.creatorId),
    index('projects_name').on(t.name, t.id),
    index('projects_path').on(t.path, t.id),
    index('projects_created_at').on(t.createdAt, t.id),
    index('projects_updated_at').on(t.updatedAt, t.id),
    index('projects_last_activity').on(t.lastActivityAt, t.id),
  ],
);

/**
 * Memberships of users in groups (`source_type` Namespace) and projects (`source_type` Project),
 * GitLab's `members` table. A user has at most one row per source.
 */
export const members = sqliteTable(
  'members',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sourceType: text('source_type').notNull(),
    sourceId: integer('source_id').notNull(),
    userId: integer('user_id').notNull(),
    accessLevel: integer('access_level').notNull(),
    /** `YYYY-MM-DD`; the membership ends at the start of that day. */
    expiresAt: text('expires_at'),
    createdById: integer('created_by_id'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    // The access lookup: one user's rows for a handful of sources (lib/abilities.ts).
    uniqueIndex('members_user_source').on(t.userId, t.sourceType, t.sourceId),
    index('members_source').on(t.sourceType, t.sourceId, t.accessLevel),
  ],
);

/** Custom attributes of projects and groups (GitLab ProjectCustomAttribute, GroupCustomAttribute): administrators' key/value tags. */
export const projectCustomAttributes = sqliteTable(
  'project_custom_attributes',
  {
    projectId: integer('project_id').notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.key] }), index('project_custom_attributes_kv').on(t.key, t.value)],
);

export const groupCustomAttributes = sqliteTable(
  'group_custom_attributes',
  {
    groupId: integer('group_id').notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.key] }), index('group_custom_attributes_kv').on(t.key, t.value)],
);
