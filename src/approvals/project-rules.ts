/**
 * Project approval rules' writes (GitLab ee/app/services/approval_rules/*, ee/app/models/approval_project_rule.rb):
 * their validations, the approvers and protected branches a rule may name, and the rows linking them.
 */
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import type { Db } from '../db/client';
import { approvalProjectRules, approvalProjectRulesGroups, approvalProjectRulesProtectedBranches, approvalProjectRulesUsers, mergeRequests } from '../db/schema';
import { ACCESS } from '../projects/abilities';
import { multipleRulesFeature, SCANNERS, SEVERITY_LEVELS, VULNERABILITY_STATES } from './rules';
import { addError, type ErrorMap, ruleLikeErrors } from './rule-support';

/** admin_project, manage_merge_request_settings, modify_approvers_rules, read_approvers: Maintainer+. */
export const isMaintainer = (caller: Caller, level: number) => caller.isAdmin || level >= ACCESS.MAINTAINER;

export interface ProjectRuleFields {
  name: string;
  approvalsRequired: number;
  ruleType: string;
  reportType: string | null;
  appliesToAllProtectedBranches: boolean;
  vulnerabilitiesAllowed: number;
  scanners: string[];
  severityLevels: string[];
  vulnerabilityStates: string[];
}

/** ApprovalProjectRule validations against the project's rules (uniqueness is settled by the indexes, checked first for the message). */
export function projectRuleErrors(same: { id: number; ruleType: string; name: string }[], f: ProjectRuleFields, selfId: number | null): ErrorMap {
  const e = ruleLikeErrors(f);
  const others = same.filter((r) => r.id !== selfId);
  if (others.some((r) => r.ruleType === f.ruleType && r.name === f.name)) addError(e, 'name', 'has already been taken');
  // validate_security_report_approver_name: Coverage-Check belongs to code_coverage rules.
  if (f.name !== 'Coverage-Check' && f.reportType === 'code_coverage') addError(e, 'report_type', 'code_coverage only supports Coverage-Check name');
  else if (f.name === 'Coverage-Check' && f.reportType !== 'code_coverage') addError(e, 'name', 'Coverage-Check is reserved for code_coverage report type');
  if (f.ruleType === 'any_approver' && others.some((r) => r.ruleType === 'any_approver')) addError(e, 'rule_type', 'any-approver for the project already exists');
  if (!f.scanners.every((s) => SCANNERS.includes(s))) addError(e, 'scanners', 'is not included in the list');
  if (f.vulnerabilitiesAllowed < 0) addError(e, 'vulnerabilities_allowed', 'must be greater than or equal to 0');
  if (!f.severityLevels.every((s) => SEVERITY_LEVELS.includes(s))) addError(e, 'severity_levels', 'is not included in the list');
  if (!f.vulnerabilityStates.every((s) => VULNERABILITY_STATES.includes(s))) addError(e, 'vulnerability_states', 'is not included in the list');
  return e;
}

/** Protected branches of the project (`branches`, all of them) among `ids`; applied only with multiple approval rules and admin_project. */
export function filterProtectedBranches(c: Context<AppEnv>, caller: Caller, level: number, branches: { id: number }[], ids: number[] | undefined): number[] | undefined {
  if (ids === undefined) return undefined;
  if (!multipleRulesFeature(c) || !isMaintainer(caller, level)) return undefined;
  const wanted = new Set(ids);
  return branches.filter((b) => wanted.has(b.id)).map((b) => b.id);
}

/** The rule's users, groups and protected branches replaced (`ruleId` may be a sub-select of the rule inserted in the same batch); one statement per list. */
export function linkStatements(db: Db, ruleId: number | SQL, userIds: number[] | undefined, groupIds: number[] | undefined, branchIds: number[] | undefined): BatchItem<'sqlite'>[] {
  const out: BatchItem<'sqlite'>[] = [];
  const from = (ids: number[]) => sql`SELECT ${ruleId}, value FROM json_each(${JSON.stringify(ids)}) WHERE true`;
  if (userIds !== undefined) {
    out.push(db.delete(approvalProjectRulesUsers).where(eq(approvalProjectRulesUsers.ruleId, ruleId as number)));
    if (userIds.length) out.push(db.insert(approvalProjectRulesUsers).select(from(userIds)).onConflictDoNothing());
  }
  if (groupIds !== undefined) {
    out.push(db.delete(approvalProjectRulesGroups).where(eq(approvalProjectRulesGroups.ruleId, ruleId as number)));
    if (groupIds.length) out.push(db.insert(approvalProjectRulesGroups).select(from(groupIds)).onConflictDoNothing());
  }
  if (branchIds !== undefined) {
    out.push(db.delete(approvalProjectRulesProtectedBranches).where(eq(approvalProjectRulesProtectedBranches.ruleId, ruleId as number)));
    if (branchIds.length) out.push(db.insert(approvalProjectRulesProtectedBranches).select(from(branchIds)).onConflictDoNothing());
  }
  return out;
}

export const eqAnyApprover = () => eq(approvalProjectRules.ruleType, 'any_approver');
export const unmergedState = () => inArray(mergeRequests.state, ['opened', 'closed', 'locked']);

export function deleteProjectRules(db: Db, where: NonNullable<ReturnType<typeof and>>): BatchItem<'sqlite'>[] {
  const ids = db.select({ id: approvalProjectRules.id }).from(approvalProjectRules).where(where);
  return [
    db.delete(approvalProjectRulesUsers).where(inArray(approvalProjectRulesUsers.ruleId, ids)),
    db.delete(approvalProjectRulesGroups).where(inArray(approvalProjectRulesGroups.ruleId, ids)),
    db.delete(approvalProjectRulesProtectedBranches).where(inArray(approvalProjectRulesProtectedBranches.ruleId, ids)),
    db.delete(approvalProjectRules).where(where),
  ];
}
