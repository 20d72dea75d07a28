/**
 * Project approval rules' writes (ee/lib/api/project_approval_rules.rb, ee/app/services/approval_rules/*)
 * in two round trips once the caller is cached: the project with its rules, protected branches and
 * what presenting them needs in one batch (state-reads.ts projectRuleReads), then the write with the
 * rules read back in the same batch. Approvers named by id, username or group add one batch of reads
 * (approver-reads.ts).
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { approvalMergeRequestRules, approvalMergeRequestRulesGroups, approvalMergeRequestRulesUsers, approvalProjectRules, mergeRequests } from '../db/schema';
import { ProjectApprovalRuleSchema } from './approvals-entity';
import type { ProjectRow } from '../projects/abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { recordNotFound, validationFailed } from '../platform/errors';
import type { Router } from '../platform/router';
import { createProjectRuleParams, projectRuleParams, updateProjectRuleParams } from './approvals-params';
import { DEFAULT_SEVERITIES, isUserDefined, type LoadedRule, multipleRulesFeature, RULE_TYPES } from './rules';
import { findReadableProjectWith } from '../projects/projects';
import { withReadMemo } from '../platform/read-memo';
import { writeThenRead } from '../db/batch-reads';
import { projectRuleReads, type ProjectRuleReads, projectRulesFrom } from './state-reads';
import { prohibited, uniqueRuleError } from './rule-support';
import { eligibleApprovers } from './approver-reads';
import { deleteProjectRules, eqAnyApprover, filterProtectedBranches, linkStatements, type ProjectRuleFields, projectRuleErrors, unmergedState } from './project-rules';
import { authorizeWriteRules, checkFeature, presentProjectRules, rulesWithBranchReads, splitRuleReads } from './project-rule-present';

const RULE_TAGS = ['approval_rules'];

/** The project with its rules (hydrated and as rows), for a rule write: 404, then 403 without modify_approvers_rules. */
async function findForWrite(c: Context<AppEnv>, caller: Caller, id: string) {
  checkFeature(c);
  const { project, namespace, level, reads } = await findReadableProjectWith(c, caller, id, (pid) => projectRuleReads(c.var.db, caller, pid));
  authorizeWriteRules(caller, project, level);
  const r = reads as unknown as ProjectRuleReads;
  return { project, namespace, level, rows: r[0], branches: r[4], rules: projectRulesFrom(c, r) };
}

/** The write with the project's rules read back in the same batch, then the rule `ruleOf` finds there, presented without another query. */
async function writeThenPresent(c: Context<AppEnv>, caller: Caller, project: ProjectRow, level: number, writes: BatchItem<'sqlite'>[], ruleOf: (rules: LoadedRule[]) => LoadedRule | undefined) {
  const db = c.var.db;
  const pid = sql`${project.id}`;
  let reads: readonly unknown[];
  try {
    reads = await writeThenRead(db, writes, rulesWithBranchReads(db, caller, pid));
  } catch (err) {
    throw uniqueRuleError(err, 'project') ?? err;
  }
  return withReadMemo(c, async () => {
    const [ruleReads, branchReads] = splitRuleReads(reads);
    const rule = ruleOf(projectRulesFrom(c, ruleReads));
    if (!rule) throw recordNotFound();
    return (await presentProjectRules(c, caller, [rule], level, branchReads))[0];
  });
}

export function mountProjectApprovalRuleWrites(r: Router) {
  const api = r.withDefaults(() => ({ signedIn: true }));

  api.route(
    { method: 'POST', path: '/projects/:id/approval_rules', summary: 'Create new project approval rule', tags: RULE_TAGS, params: createProjectRuleParams, responses: { 201: ProjectApprovalRuleSchema } },
    async ({ c, p, caller }) => {
      const { project, namespace, level, rows, branches } = await findForWrite(c, caller, p.id);
      const db = c.var.db;
      const userIdsParam = p.user_ids ?? p.users;
      const groupIdsParam = p.group_ids ?? p.groups;
      // CreateService#handle_any_approver_rule_creation: no approvers given makes an any_approver rule.
      const approversPresent = [userIdsParam, groupIdsParam, p.usernames].some((v) => v !== undefined && v.length > 0);
      const ruleType = p.rule_type ?? (approversPresent ? 'regular' : 'any_approver');
      if (!(RULE_TYPES as readonly string[]).includes(ruleType)) throw validationFailed({ rule_type: ['is not included in the list'] });
      const fields: ProjectRuleFields = {
        name: p.name,
        approvalsRequired: p.approvals_required,
        ruleType,
        reportType: p.report_type ?? null,
        appliesToAllProtectedBranches: p.applies_to_all_protected_branches,
        vulnerabilitiesAllowed: p.vulnerabilities_allowed ?? 0,
        scanners: p.scanners ?? [],
        severityLevels: p.severity_levels ?? DEFAULT_SEVERITIES,
        vulnerabilityStates: p.vulnerability_states ?? ['newly_detected'],
      };
      const { userIds, groupIds } = await eligibleApprovers(c, caller, project, namespace, { user_ids: userIdsParam, usernames: p.usernames, group_ids: groupIdsParam });
      const branchIds = filterProtectedBranches(c, caller, level, branches, p.protected_branch_ids);
      const writes: BatchItem<'sqlite'>[] = [];
      // Without multiple approval rules, a rule with approvers replaces the any_approver rule.
      const replacing = approversPresent && !multipleRulesFeature(c);
      if (replacing) writes.push(...deleteProjectRules(db, and(eq(approvalProjectRules.projectId, project.id), eqAnyApprover())!));
      const errors = projectRuleErrors(rows, fields, null);
      if (replacing) delete errors.rule_type;
      if (Object.keys(errors).length) throw validationFailed(errors);
      const now = Date.now();
      // The links find the new rule by its unique (project, type, name) in the same batch.
      const ruleId = sql`(SELECT r.id FROM approval_project_rules r WHERE r.project_id = ${project.id} AND r.rule_type = ${fields.ruleType} AND r.name = ${fields.name})`;
      writes.push(
        db.insert(approvalProjectRules).values({
          projectId: project.id,
          name: fields.name,
          approvalsRequired: fields.approvalsRequired,
          ruleType: fields.ruleType,
          reportType: fields.reportType,
          appliesToAllProtectedBranches: fields.appliesToAllProtectedBranches,
          vulnerabilitiesAllowed: fields.vulnerabilitiesAllowed,
          scanners: JSON.stringify(fields.scanners),
          severityLevels: JSON.stringify(fields.severityLevels),
          vulnerabilityStates: JSON.stringify(fields.vulnerabilityStates),
          createdAt: now,
          updatedAt: now,
        }),
        ...linkStatements(db, ruleId, userIds ?? [], groupIds ?? [], branchIds ?? []),
      );
      const rule = await writeThenPresent(c, caller, project, level, writes, (rules) => rules.find((r) => r.ruleType === fields.ruleType && r.name === fields.name));
      return c.json(rule, 201);
    },
  );

  api.route(
    { method: 'PUT', path: '/projects/:id/approval_rules/:approval_rule_id', summary: 'Update project approval rule', tags: RULE_TAGS, params: updateProjectRuleParams, responses: { 200: ProjectApprovalRuleSchema } },
    async ({ c, p, caller }) => {
      const { project, namespace, level, rows, branches, rules } = await findForWrite(c, caller, p.id);
      const db = c.var.db;
      const rule = rules.find((r) => r.id === p.approval_rule_id);
      const current = rows.find((r) => r.id === p.approval_rule_id);
      // approval_rules.not_from_scan_result_policy.find: policy report types are not found.
      if (!rule || !current || rule.reportType === 'license_scanning') throw recordNotFound();
      // Spec rule 3: report_approver and code_owner rules are system generated.
      if (!isUserDefined(rule.ruleType)) throw prohibited();
      const fields: ProjectRuleFields = {
        name: p.name,
        approvalsRequired: p.approvals_required,
        ruleType: rule.ruleType,
        reportType: rule.reportType,
        appliesToAllProtectedBranches: p.applies_to_all_protected_branches,
        vulnerabilitiesAllowed: p.vulnerabilities_allowed ?? current.vulnerabilitiesAllowed,
        scanners: p.scanners ?? JSON.parse(current.scanners),
        severityLevels: p.severity_levels ?? JSON.parse(current.severityLevels),
        vulnerabilityStates: p.vulnerability_states ?? JSON.parse(current.vulnerabilityStates),
      };
      const errors = projectRuleErrors(rows, fields, rule.id);
      if (Object.keys(errors).length) throw validationFailed(errors);
      const groupParam = p.group_ids ?? p.groups;
      // UpdateService#filter_eligible_groups!: hidden groups stay unless remove_hidden_groups.
      const keep = groupParam !== undefined && !p.remove_hidden_groups ? rule.groups.map((g) => g.id) : [];
      const { userIds, groupIds: given, hidden } = await eligibleApprovers(c, caller, project, namespace, { user_ids: p.user_ids ?? p.users, usernames: p.usernames, group_ids: groupParam }, keep);
      const groupIds = given !== undefined ? [...new Set([...given, ...hidden])] : undefined;
      const branchIds = filterProtectedBranches(c, caller, level, branches, p.protected_branch_ids);
      const writes = [
        db
          .update(approvalProjectRules)
          .set({
            name: fields.name,
            approvalsRequired: fields.approvalsRequired,
            appliesToAllProtectedBranches: fields.appliesToAllProtectedBranches,
            vulnerabilitiesAllowed: fields.vulnerabilitiesAllowed,
            scanners: JSON.stringify(fields.scanners),
            severityLevels: JSON.stringify(fields.severityLevels),
            vulnerabilityStates: JSON.stringify(fields.vulnerabilityStates),
            updatedAt: Date.now(),
          })
          .where(eq(approvalProjectRules.id, rule.id)),
        ...linkStatements(db, rule.id, userIds, groupIds, branchIds),
      ];
      return c.json(await writeThenPresent(c, caller, project, level, writes, (rules) => rules.find((r) => r.id === rule.id)));
    },
  );

  api.route(
    { method: 'DELETE', path: '/projects/:id/approval_rules/:approval_rule_id', summary: 'Destroy project approval rule', tags: RULE_TAGS, params: projectRuleParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      const { project, rules } = await findForWrite(c, caller, p.id);
      const db = c.var.db;
      const rule = rules.find((r) => r.id === p.approval_rule_id);
      if (!rule || rule.reportType === 'license_scanning') throw recordNotFound();
      if (!isUserDefined(rule.ruleType)) throw prohibited();
      checkUnmodifiedSince(c, rule.updatedAt);
      // ProjectRuleDestroyService: the merge request rules copied from it go too, on unmerged merge requests.
      const unmerged = db.select({ id: mergeRequests.id }).from(mergeRequests).where(and(eq(mergeRequests.projectId, project.id), unmergedState()));
      const copies = db
        .select({ id: approvalMergeRequestRules.id })
        .from(approvalMergeRequestRules)
        .where(and(eq(approvalMergeRequestRules.approvalProjectRuleId, rule.id), inArray(approvalMergeRequestRules.mergeRequestId, unmerged)));
      await db.batch([
        db.delete(approvalMergeRequestRulesUsers).where(inArray(approvalMergeRequestRulesUsers.ruleId, copies)),
        db.delete(approvalMergeRequestRulesGroups).where(inArray(approvalMergeRequestRulesGroups.ruleId, copies)),
        db.delete(approvalMergeRequestRules).where(inArray(approvalMergeRequestRules.id, copies)),
        ...deleteProjectRules(db, eq(approvalProjectRules.id, rule.id)),
      ]);
      return c.body(null, 204);
    },
  );
}
