import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

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
