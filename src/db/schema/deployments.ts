import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const ts = (name: string) => integer(name);
const bool = (name: string) => integer(name, { mode: 'boolean' });

/**
 * Environments of a project (GitLab's `environments`): a name unique in the project, a slug made
 * from it once (Gitlab::Slug::Environment), a tier (given or guessed from the name) and a state
 * (`available`, `stopping`, `stopped`).
 */
export const environments = sqliteTable(
  'environments',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id').notNull(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    externalUrl: text('external_url'),
    /** `production`, `staging`, `testing`, `development` or `other`. */
    tier: text('tier').notNull(),
    state: text('state').notNull().default('available'),
    description: text('description'),
    autoStopAt: ts('auto_stop_at'),
    /** Set by DELETE /projects/:id/environments/review_apps (Environment.schedule_to_delete). */
    autoDeleteAt: ts('auto_delete_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('environments_project_name').on(t.projectId, t.name), uniqueIndex('environments_project_slug').on(t.projectId, t.slug)],
);

/** Protected environments (EE `protected_environments`): who may deploy to an environment of this name, and how many approvals a deployment needs. */
export const protectedEnvironments = sqliteTable(
  'protected_environments',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id').notNull(),
    name: text('name').notNull(),
    requiredApprovalCount: integer('required_approval_count').notNull().default(0),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('protected_environments_project_name').on(t.projectId, t.name)],
);

/**
 * The entries of a protected environment: `deploy` rows (ProtectedEnvironments::DeployAccessLevel)
 * and `approval` rows (ProtectedEnvironments::ApprovalRule, with `required_approvals`). Each names
 * exactly one of a role (`access_level`), a user or a group.
 */
export const protectedEnvironmentEntries = sqliteTable(
  'protected_environment_entries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    protectedEnvironmentId: integer('protected_environment_id').notNull(),
    kind: text('kind').notNull(),
    accessLevel: integer('access_level'),
    userId: integer('user_id'),
    groupId: integer('group_id'),
    groupInheritanceType: integer('group_inheritance_type').notNull().default(0),
    requiredApprovals: integer('required_approvals'),
  },
  (t) => [index('protected_environment_entries_parent').on(t.protectedEnvironmentId, t.kind, t.id)],
);

/** Deployments (GitLab's `deployments`): what was deployed where, with GitLab's status machine. */
export const deployments = sqliteTable(
  'deployments',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id').notNull(),
    iid: integer('iid').notNull(),
    environmentId: integer('environment_id').notNull(),
    ref: text('ref').notNull(),
    tag: bool('tag').notNull().default(false),
    sha: text('sha').notNull(),
    userId: integer('user_id'),
    /** `created`, `running`, `success`, `failed`, `canceled`, `skipped` or `blocked`. */
    status: text('status').notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    finishedAt: ts('finished_at'),
  },
  (t) => [uniqueIndex('deployments_project_iid').on(t.projectId, t.iid), index('deployments_environment').on(t.environmentId, t.id)],
);

/**
 * Approvals of blocked deployments (EE `deployment_approvals`): one per user and approval rule (the
 * rule is null when the protected environment counts approvals without rules), `approved` or `rejected`.
 */
export const deploymentApprovals = sqliteTable(
  'deployment_approvals',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    deploymentId: integer('deployment_id').notNull(),
    userId: integer('user_id').notNull(),
    /** The protected environment's approval entry this approval counts for (protected_environment_entries.id). */
    approvalRuleId: integer('approval_rule_id'),
    status: text('status').notNull(),
    comment: text('comment'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [index('deployment_approvals_deployment').on(t.deploymentId, t.userId, t.approvalRuleId)],
);

/** The merge requests a successful deployment shipped (GitLab's `deployment_merge_requests`), with the environment so "already shipped here" is one index probe. */
export const deploymentMergeRequests = sqliteTable(
  'deployment_merge_requests',
  {
    deploymentId: integer('deployment_id').notNull(),
    mergeRequestId: integer('merge_request_id').notNull(),
    environmentId: integer('environment_id').notNull(),
  },
  (t) => [uniqueIndex('deployment_merge_requests_pk').on(t.deploymentId, t.mergeRequestId), index('deployment_merge_requests_env').on(t.environmentId, t.mergeRequestId)],
);
