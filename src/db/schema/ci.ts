import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const ts = (name: string) => integer(name);
const bool = (name: string) => integer(name, { mode: 'boolean' });

/**
 * CI runners (GitLab's ci_runners): instance, group or project runners. The authentication token
 * is stored only as a digest; `token_expires_at` comes from the runner_token_expiration_interval
 * settings when the token is issued.
 */
export const ciRunners = sqliteTable(
  'ci_runners',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** `instance_type`, `group_type` or `project_type`. */
    runnerType: text('runner_type').notNull(),
    description: text('description').notNull().default(''),
    maintenanceNote: text('maintenance_note'),
    tokenDigest: text('token_digest').notNull(),
    tokenExpiresAt: ts('token_expires_at'),
    /** GitLab's `active`: a paused runner receives no jobs. */
    active: bool('active').notNull().default(true),
    locked: bool('locked').notNull().default(false),
    runUntagged: bool('run_untagged').notNull().default(true),
    /** JSON array of tag names, in the order given (the list filter asks for all of them). */
    tagList: text('tag_list', { mode: 'json' }).$type<string[]>().notNull().default([]),
    /** `not_protected` or `ref_protected`. */
    accessLevel: text('access_level').notNull().default('not_protected'),
    /** Seconds, at least 600, or null for no limit. */
    maximumTimeout: integer('maximum_timeout'),
    /** What the runner reports in `info`. */
    name: text('name'),
    version: text('version'),
    revision: text('revision'),
    platform: text('platform'),
    architecture: text('architecture'),
    executorType: text('executor_type'),
    ipAddress: text('ip_address'),
    /** Written at most every 40-55 minutes (GitLab's UPDATE_CONTACT_COLUMN_EVERY); readers add the isolate's newer contact. */
    contactedAt: ts('contacted_at'),
    /** `registration_token` (POST /runners) or `authenticated_user` (POST /user/runners). */
    registrationType: text('registration_type').notNull(),
    createdById: integer('created_by_id'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('ci_runners_token_digest').on(t.tokenDigest), index('ci_runners_type').on(t.runnerType, t.id)],
);

/** The projects a project runner is enabled in (the first is its owner). */
export const ciRunnerProjects = sqliteTable(
  'ci_runner_projects',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    runnerId: integer('runner_id').notNull(),
    projectId: integer('project_id').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('ci_runner_projects_pair').on(t.runnerId, t.projectId), index('ci_runner_projects_project').on(t.projectId)],
);

/** The group of a group runner. */
export const ciRunnerNamespaces = sqliteTable(
  'ci_runner_namespaces',
  {
    runnerId: integer('runner_id').notNull(),
    namespaceId: integer('namespace_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.runnerId, t.namespaceId] }), index('ci_runner_namespaces_namespace').on(t.namespaceId)],
);

/**
 * Registration tokens of the instance (`owner_id` 0), of each group and of each project, stored as
 * digests: a value is shown once, by the reset that issues it.
 */
export const ciRegistrationTokens = sqliteTable(
  'ci_registration_tokens',
  {
    /** `instance`, `group` or `project`. */
    scope: text('scope').notNull(),
    ownerId: integer('owner_id').notNull(),
    tokenDigest: text('token_digest').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.ownerId] }), uniqueIndex('ci_registration_tokens_digest').on(t.tokenDigest)],
);

/**
 * What changed which runner, for the other isolates' runner caches (src/ci/runner-tokens.ts): every
 * write to a runner adds a row in the same batch; each isolate reads the rows past the last id it saw
 * at most every 10 s and drops the runners they name. `runner_id` null names every runner. Rows
 * older than an hour are pruned by the writes themselves.
 */
export const ciRunnerChanges = sqliteTable(
  'ci_runner_changes',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    runnerId: integer('runner_id'),
    changedAt: ts('changed_at').notNull(),
  },
  (t) => [index('ci_runner_changes_changed_at').on(t.changedAt)],
);
