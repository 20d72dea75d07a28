import { index, integer, sqliteTable, sqliteView, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * A project shared with a group (GitLab ProjectGroupLink): the group's members, inherited ones
 * included, get min(their level, `group_access`) in the project until `expires_at`.
 */
export const projectGroupLinks = sqliteTable(
  'project_group_links',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id').notNull(),
    groupId: integer('group_id').notNull(),
    groupAccess: integer('group_access').notNull(),
    /** `YYYY-MM-DD`; the link ends at the start of that day (as members' `expires_at`). */
    expiresAt: text('expires_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('project_group_links_project_group').on(t.projectId, t.groupId), index('project_group_links_group').on(t.groupId)],
);

/**
 * A group shared with another group (GitLab GroupGroupLink): members of `shared_with_group` get
 * min(their level, `group_access`) in `shared_group` and everything below it until `expires_at`.
 */
export const groupGroupLinks = sqliteTable(
  'group_group_links',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sharedGroupId: integer('shared_group_id').notNull(),
    sharedWithGroupId: integer('shared_with_group_id').notNull(),
    groupAccess: integer('group_access').notNull(),
    expiresAt: text('expires_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('group_group_links_shared_with').on(t.sharedGroupId, t.sharedWithGroupId), index('group_group_links_shared_with_group').on(t.sharedWithGroupId)],
);

/**
 * The access shares give, one row per (link, member of the linked group or of its ancestors):
 * GitLab's project_authorizations for shares, precomputed so that every access check stays one
 * indexed probe (the view below) instead of walking links, groups and ancestors per row. Rows are
 * rewritten in the batch of every write that changes them: a link's create/update/delete (by link),
 * a group membership change (by user), a group transfer (by the links of the moved groups) and
 * deletions (src/projects/share-grants.ts). Expiry is stored, not applied: `expires_at` is the
 * earlier of the link's and the membership's, compared with today at read time as for `members`.
 */
export const shareGrants = sqliteTable(
  'share_grants',
  {
    /** 'project' (project_group_links) or 'group' (group_group_links). */
    linkKind: text('link_kind').notNull(),
    linkId: integer('link_id').notNull(),
    userId: integer('user_id').notNull(),
    /** What the share opens, as in `members`: 'Project' or 'Namespace' (a group and everything below it). */
    sourceType: text('source_type').notNull(),
    sourceId: integer('source_id').notNull(),
    accessLevel: integer('access_level').notNull(),
    expiresAt: text('expires_at'),
  },
  (t) => [index('share_grants_user_source').on(t.userId, t.sourceType, t.sourceId), index('share_grants_link').on(t.linkKind, t.linkId)],
);

/**
 * `members` and `share_grants` as one relation (migration 0041 creates the view): what the access
 * checks in src/projects/abilities.ts read. SQLite pushes `user_id`/`source_type` (and an EXISTS's
 * `source_id`) into both arms, so a probe is two index searches. Level sub-selects read the two
 * tables separately instead: a `max()` over the view would materialize it for every outer row.
 */
export const accessGrants = sqliteView('access_grants', {
  userId: integer('user_id').notNull(),
  sourceType: text('source_type').notNull(),
  sourceId: integer('source_id').notNull(),
  accessLevel: integer('access_level').notNull(),
  expiresAt: text('expires_at'),
}).existing();
