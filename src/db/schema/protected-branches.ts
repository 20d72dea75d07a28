import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const ts = (name: string) => integer(name);
const bool = (name: string) => integer(name, { mode: 'boolean' });

/**
 * Project protected branches (GitLab `protected_branches`): an exact branch name or a wildcard
 * (`release/*`). Names are unique per project, case-sensitive as in GitLab (the unique index settles
 * concurrent creates: the loser answers 409).
 */
export const protectedBranches = sqliteTable(
  'protected_branches',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id').notNull(),
    name: text('name').notNull(),
    allowForcePush: bool('allow_force_push').notNull().default(false),
    codeOwnerApprovalRequired: bool('code_owner_approval_required').notNull().default(false),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('protected_branches_project_name').on(t.projectId, t.name)],
);

/**
 * Push, merge and unprotect access levels of a protected branch (GitLab's three tables
 * `protected_branch_{push,merge,unprotect}_access_levels`, one table here with `kind`). A row is a
 * role (`access_level` 0/30/40/60), a user, a group or a deploy key. The partial unique indexes are
 * GitLab's uniqueness validations, so two racing writes cannot both add the same entry.
 */
export const protectedBranchAccessLevels = sqliteTable(
  'protected_branch_access_levels',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    protectedBranchId: integer('protected_branch_id').notNull(),
    /** push | merge | unprotect */
    kind: text('kind').notNull(),
    accessLevel: integer('access_level'),
    userId: integer('user_id'),
    groupId: integer('group_id'),
    deployKeyId: integer('deploy_key_id'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('pb_access_levels_role')
      .on(t.protectedBranchId, t.kind, t.accessLevel)
      .where(sql`user_id IS NULL AND group_id IS NULL AND deploy_key_id IS NULL`),
    uniqueIndex('pb_access_levels_user').on(t.protectedBranchId, t.kind, t.userId),
    uniqueIndex('pb_access_levels_group').on(t.protectedBranchId, t.kind, t.groupId),
    uniqueIndex('pb_access_levels_deploy_key').on(t.protectedBranchId, t.kind, t.deployKeyId),
    index('pb_access_levels_user_id').on(t.userId),
    index('pb_access_levels_group_id').on(t.groupId),
  ],
);
