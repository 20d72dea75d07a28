/**
 * Project approval rules' writes (GitLab ee/app/services/approval_rules/*, ee/app/models/approval_project_rule.rb):
 * their validations, the approvers and protected branches a rule may name, and the rows linking them.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import type { Db } from '../db/client';
import { approvalProjectRules, approvalProjectRulesGroups, approvalProjectRulesProtectedBranches, approvalProjectRulesUsers, mergeRequests, protectedBranches } from '../db/schema';
import { ACCESS, type NamespaceRow, type ProjectRow } from '../projects/abilities';
import { projectMembersAmong } from '../projects/members';
import { accessibleGroupIds, multipleRulesFeature, SCANNERS, SEVERITY_LEVELS, userIdsFrom, VULNERABILITY_STATES } from './rules';
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

/** ApprovalProjectRule validations (uniqueness is settled by the indexes, checked first for the message). */
export async function projectRuleErrors(db: Db, projectId: number, f: ProjectRuleFields, selfId: number | null): Promise<ErrorMap> {
  const e = ruleLikeErrors(f);
  const same = await db.select({ id: approvalProjectRules.id, ruleType: approvalProjectRules.ruleType, name: approvalProjectRules.name }).from(approvalProjectRules).where(eq(approvalProjectRules.projectId, projectId)).all();
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

/** ApprovalRules::Updater: users among project members, groups the caller can access, protected branches of the project. */
export async function filterApprovers(
  c: Context<AppEnv>,
  caller: Caller,
  project: ProjectRow,
  ns: NamespaceRow,
  p: { user_ids?: number[]; usernames?: string[]; group_ids?: number[] },
) {
  const db = c.var.db;
  const userIds = p.user_ids !== undefined || p.usernames !== undefined ? await projectMembersAmong(db, project, ns, await userIdsFrom(db, p.user_ids ?? [], p.usernames ?? [])) : undefined;
  const groupIds = p.group_ids !== undefined ? await accessibleGroupIds(db, caller, p.group_ids) : undefined;
  return { userIds, groupIds };
}

/** Protected branches of the project among `ids`; applied only with multiple approval rules and admin_project. */
export async function filterProtectedBranches(c: Context<AppEnv>, caller: Caller, project: ProjectRow, level: number, ids: number[] | undefined): Promise<number[] | undefined> {
  if (ids === undefined) return undefined;
  if (!multipleRulesFeature(c) || !isMaintainer(caller, level)) return undefined;
  const safe = [...new Set(ids.filter((x) => Number.isSafeInteger(x)))];
  if (!safe.length) return [];
  const rows: number[] = [];
  for (let i = 0; i < safe.length; i += 90) {
    const part = safe.slice(i, i + 90);
    rows.push(...(await c.var.db.select({ id: protectedBranches.id }).from(protectedBranches).where(and(eq(protectedBranches.projectId, project.id), inArray(protectedBranches.id, part))).all()).map((r) => r.id));
  }
  return rows;
}

export function linkStatements(db: Db, ruleId: number, userIds: number[] | undefined, groupIds: number[] | undefined, branchIds: number[] | undefined): BatchItem<'sqlite'>[] {
  const out: BatchItem<'sqlite'>[] = [];
  if (userIds !== undefined) {
    out.push(db.delete(approvalProjectRulesUsers).where(eq(approvalProjectRulesUsers.ruleId, ruleId)));
    for (let i = 0; i < userIds.length; i += 40) out.push(db.insert(approvalProjectRulesUsers).values(userIds.slice(i, i + 40).map((userId) => ({ ruleId, userId }))).onConflictDoNothing());
  }
  if (groupIds !== undefined) {
    out.push(db.delete(approvalProjectRulesGroups).where(eq(approvalProjectRulesGroups.ruleId, ruleId)));
    for (let i = 0; i < groupIds.length; i += 40) out.push(db.insert(approvalProjectRulesGroups).values(groupIds.slice(i, i + 40).map((groupId) => ({ ruleId, groupId }))).onConflictDoNothing());
  }
  if (branchIds !== undefined) {
    out.push(db.delete(approvalProjectRulesProtectedBranches).where(eq(approvalProjectRulesProtectedBranches.ruleId, ruleId)));
    for (let i = 0; i < branchIds.length; i += 40) {
      out.push(db.insert(approvalProjectRulesProtectedBranches).values(branchIds.slice(i, i + 40).map((protectedBranchId) => ({ ruleId, protectedBranchId }))).onConflictDoNothing());
    }
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
