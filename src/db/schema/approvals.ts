import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const ts = (name: string) => integer(name);
const bool = (name: string) => integer(name, { mode: 'boolean' });

/**
 * A project's approval settings (GitLab keeps them as columns of `projects` and `project_settings`).
 * One row per project, written on the first POST /projects/:id/approvals; no row means GitLab's
 * column defaults (reset_approvals_on_push true, everything else off).
 */
export const projectApprovalSettings = sqliteTable('project_approval_settings', {
  projectId: integer('project_id').primaryKey(),
  approvalsBeforeMerge: integer('approvals_before_merge').notNull().default(0),
  resetApprovalsOnPush: bool('reset_approvals_on_push').notNull().default(true),
  selectiveCodeOwnerRemovals: bool('selective_code_owner_removals').notNull().default(false),
  disableOverridingApproversPerMergeRequest: bool('disable_overriding_approvers_per_merge_request').notNull().default(false),
  mergeRequestsAuthorApproval: bool('merge_requests_author_approval').notNull().default(false),
  mergeRequestsDisableCommittersApproval: bool('merge_requests_disable_committers_approval').notNull().default(false),
  requirePasswordToApprove: bool('require_password_to_approve').notNull().default(false),
  requireReauthenticationToApprove: bool('require_reauthentication_to_approve').notNull().default(false),
  updatedAt: ts('updated_at').notNull(),
});

/**
 * Project-level approval rules (GitLab `approval_project_rules`). rule_type: regular | any_approver |
 * code_owner | report_approver. The vulnerability attributes are deprecated and only stored.
 */
export const approvalProjectRules = sqliteTable(
  'approval_project_rules',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id').notNull(),
    name: text('name').notNull(),
    approvalsRequired: integer('approvals_required').notNull().default(0),
    ruleType: text('rule_type').notNull().default('regular'),
    /** vulnerability | license_scanning | code_coverage (report_approver rules). */
    reportType: text('report_type'),
    appliesToAllProtectedBranches: bool('applies_to_all_protected_branches').notNull().default(false),
    vulnerabilitiesAllowed: integer('vulnerabilities_allowed').notNull().default(0),
    /** JSON arrays. */
    scanners: text('scanners').notNull().default('[]'),
    severityLevels: text('severity_levels').notNull().default('[]'),
    vulnerabilityStates: text('vulnerability_states').notNull().default('[]'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    // ApprovalProjectRule validations: name unique per (project, rule_type); one any_approver rule per project.
    // The indexes settle racing creates (a lost race answers the same 400 as the validation).
    uniqueIndex('approval_project_rules_name').on(t.projectId, t.ruleType, t.name),
    uniqueIndex('approval_project_rules_any_approver').on(t.projectId).where(sql`rule_type = 'any_approver'`),
  ],
);

export const approvalProjectRulesUsers = sqliteTable(
  'approval_project_rules_users',
  {
    ruleId: integer('approval_project_rule_id').notNull(),
    userId: integer('user_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.userId] }), index('approval_project_rules_users_user').on(t.userId)],
);

export const approvalProjectRulesGroups = sqliteTable(
  'approval_project_rules_groups',
  {
    ruleId: integer('approval_project_rule_id').notNull(),
    groupId: integer('group_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.groupId] }), index('approval_project_rules_groups_group').on(t.groupId)],
);

export const approvalProjectRulesProtectedBranches = sqliteTable(
  'approval_project_rules_protected_branches',
  {
    ruleId: integer('approval_project_rule_id').notNull(),
    protectedBranchId: integer('protected_branch_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.protectedBranchId] }), index('approval_project_rules_pb_branch').on(t.protectedBranchId)],
);

/**
 * Merge-request-level approval rules (GitLab `approval_merge_request_rules`, with the
 * `approval_merge_request_rule_sources` link folded in as `approval_project_rule_id`).
 */
export const approvalMergeRequestRules = sqliteTable(
  'approval_merge_request_rules',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    mergeRequestId: integer('merge_request_id').notNull(),
    name: text('name').notNull(),
    approvalsRequired: integer('approvals_required').notNull().default(0),
    ruleType: text('rule_type').notNull().default('regular'),
    reportType: text('report_type'),
    section: text('section'),
    /** The project rule it was created from (`source_rule`), or null. */
    approvalProjectRuleId: integer('approval_project_rule_id'),
    /** Set on update when it differs from its source rule (ApprovalMergeRequestRule#compare_with_project_rule). */
    modifiedFromProjectRule: bool('modified_from_project_rule').notNull().default(false),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    // Names are unique per (merge request, rule type, section): code owner rules are one per CODEOWNERS
    // (section, pattern), user-defined rules have no section.
    uniqueIndex('approval_merge_request_rules_name').on(t.mergeRequestId, t.ruleType, t.name).where(sql`rule_type <> 'code_owner'`),
    uniqueIndex('approval_merge_request_rules_code_owner').on(t.mergeRequestId, t.section, t.name).where(sql`rule_type = 'code_owner'`),
    // One report approver rule per report type (ApprovalProjectRule#merge_request_report_approver_rule).
    uniqueIndex('approval_merge_request_rules_report_type').on(t.mergeRequestId, t.reportType).where(sql`rule_type = 'report_approver'`),
    uniqueIndex('approval_merge_request_rules_any_approver').on(t.mergeRequestId).where(sql`rule_type = 'any_approver'`),
    index('approval_merge_request_rules_source').on(t.approvalProjectRuleId),
    // Every approval-state read asks for a merge request's rules: the partial unique indexes above cannot serve it.
    index('approval_merge_request_rules_mr').on(t.mergeRequestId),
  ],
);

export const approvalMergeRequestRulesUsers = sqliteTable(
  'approval_merge_request_rules_users',
  {
    ruleId: integer('approval_merge_request_rule_id').notNull(),
    userId: integer('user_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.userId] }), index('approval_merge_request_rules_users_user').on(t.userId)],
);

export const approvalMergeRequestRulesGroups = sqliteTable(
  'approval_merge_request_rules_groups',
  {
    ruleId: integer('approval_merge_request_rule_id').notNull(),
    groupId: integer('group_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.groupId] }), index('approval_merge_request_rules_groups_group').on(t.groupId)],
);

/**
 * Approvals of merge requests. `sha` is the merge request's HEAD when the approval was given: with
 * reset_approvals_on_push an approval counts (and shows) only while it equals the current HEAD, so
 * a push removes approvals without a hook and an approval racing a push never counts at the new
 * HEAD. One row per (merge request, user) (Approval.safe_ensure_unique): concurrent approvals by one
 * user make one row.
 */
export const approvals = sqliteTable(
  'approvals',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    mergeRequestId: integer('merge_request_id').notNull(),
    userId: integer('user_id').notNull(),
    sha: text('sha'),
    /** Random id of the request that last wrote the row: its other statements in the batch run only if it won. */
    writeId: text('write_id'),
    /**
     * The merge request's diff identity when approved (GitLab approvals.patch_id_sha): with
     * reset_approvals_on_push an approval also counts at another HEAD with the same diff (a rebase).
     */
    patchIdSha: text('patch_id_sha'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('approvals_merge_request_user').on(t.mergeRequestId, t.userId), index('approvals_user').on(t.userId)],
);
