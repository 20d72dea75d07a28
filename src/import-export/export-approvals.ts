/**
 * Approval settings in an export (EE import_export.yml): the project's approval attributes go in
 * project.json, its rules in `approval_rules.ndjson` with their users and protected branches (by
 * name, which the importer maps to the new project's branches). Approver groups are not exported.
 */
import { asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client';
import { approvalProjectRules, approvalProjectRulesProtectedBranches, approvalProjectRulesUsers, projectApprovalSettings, protectedBranches } from '../db/schema';
import { iso } from '../platform/time';
import type { ExportScope } from './export-tree';

/** The approval attributes of project.json (defaults when the project never changed them). */
export async function approvalAttributes(db: Db, projectId: number) {
  const s = await db.select().from(projectApprovalSettings).where(eq(projectApprovalSettings.projectId, projectId)).get();
  return {
    approvals_before_merge: s?.approvalsBeforeMerge ?? 0,
    reset_approvals_on_push: s?.resetApprovalsOnPush ?? true,
    disable_overriding_approvers_per_merge_request: s?.disableOverridingApproversPerMergeRequest ?? false,
    merge_requests_author_approval: s?.mergeRequestsAuthorApproval ?? false,
    merge_requests_disable_committers_approval: s?.mergeRequestsDisableCommittersApproval ?? false,
    require_password_to_approve: s?.requirePasswordToApprove ?? false,
  };
}

export async function* approvalRuleLines({ db, project }: ExportScope): AsyncGenerator<Record<string, unknown>> {
  const ruleIds = db.select({ id: approvalProjectRules.id }).from(approvalProjectRules).where(eq(approvalProjectRules.projectId, project.id));
  const [rules, users, branches] = await db.batch([
    db.select().from(approvalProjectRules).where(eq(approvalProjectRules.projectId, project.id)).orderBy(asc(approvalProjectRules.id)),
    db.select().from(approvalProjectRulesUsers).where(inArray(approvalProjectRulesUsers.ruleId, ruleIds)),
    db
      .select({ ruleId: approvalProjectRulesProtectedBranches.ruleId, protectedBranchId: approvalProjectRulesProtectedBranches.protectedBranchId, branchName: protectedBranches.name })
      .from(approvalProjectRulesProtectedBranches)
      .innerJoin(protectedBranches, eq(protectedBranches.id, approvalProjectRulesProtectedBranches.protectedBranchId))
      .where(inArray(approvalProjectRulesProtectedBranches.ruleId, ruleIds)),
  ]);
  for (const r of rules)
    yield {
      id: r.id,
      created_at: iso(r.createdAt),
      updated_at: iso(r.updatedAt),
      project_id: r.projectId,
      approvals_required: r.approvalsRequired,
      name: r.name,
      rule_type: r.ruleType,
      report_type: r.reportType,
      applies_to_all_protected_branches: r.appliesToAllProtectedBranches,
      vulnerabilities_allowed: r.vulnerabilitiesAllowed,
      scanners: JSON.parse(r.scanners || '[]'),
      severity_levels: JSON.parse(r.severityLevels || '[]'),
      vulnerability_states: JSON.parse(r.vulnerabilityStates || '[]'),
      approval_project_rules_users: users.filter((u) => u.ruleId === r.id).map((u) => ({ approval_project_rule_id: r.id, user_id: u.userId })),
      approval_project_rules_protected_branches: branches
        .filter((b) => b.ruleId === r.id)
        .map((b) => ({ approval_project_rule_id: r.id, protected_branch_id: b.protectedBranchId, branch_name: b.branchName })),
    };
}
