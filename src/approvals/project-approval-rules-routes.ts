/**
 * Project approval rules (GitLab ee/lib/api/project_approval_rules.rb,
 * helpers/project_approval_rules_helpers.rb, ee/app/services/approval_rules/*). Rules need the
 * Premium feature merge_request_approvers (403 otherwise); listing them also allows
 * create_merge_request_in (Developer+), changing them needs modify_approvers_rules (Maintainer+).
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller } from '../platform/context';
import type { Db } from '../db/client';
import { approvalMergeRequestRules, approvalMergeRequestRulesGroups, approvalMergeRequestRulesUsers, approvalProjectRules, mergeRequests, namespaces, protectedBranches, users } from '../db/schema';
import { type ProjectApprovalRule, projectApprovalRuleEntity, ProjectApprovalRuleSchema } from './approvals-entity';
import { type ProtectedBranch, protectedBranchEntity } from '../repository/protected-branch-entity';
import { ACCESS, featureAvailable, type ProjectRow } from '../projects/abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { forbidden, recordNotFound, validationFailed } from '../platform/errors';
import { linkParamsFrom, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { createProjectRuleParams, listProjectRulesParams, projectRuleParams, updateProjectRuleParams } from './approvals-params';
import {
  approvalsFeature,
  DEFAULT_SEVERITIES,
  isUserDefined,
  type LoadedRule,
  loadProjectRules,
  multipleRulesFeature,
  RULE_TYPES,
  visibleGroupIds,
  visibleProjectRules,
} from './rules';
import { attachLevels } from '../repository/protected-branches';
import { findReadableProject, findReadableProjectWith } from '../projects/projects';
import { withReadMemo } from '../platform/read-memo';
import { projectRuleReads, type ProjectRuleReads, projectRulesFrom } from './state-reads';
import { prohibited, ruleExtras, runBatch, uniqueRuleError } from './rule-support';
import {
  deleteProjectRules,
  eqAnyApprover,
  filterApprovers,
  filterProtectedBranches,
  isMaintainer,
  linkStatements,
  type ProjectRuleFields,
  projectRuleErrors,
  unmergedState,
} from './project-rules';

const RULE_TAGS = ['approval_rules'];

export function mountProjectApprovalRules(r: Router) {
  const api = r.withDefaults(() => ({ signedIn: true }));

  api.route(
    { method: 'GET', path: '/projects/:id/approval_rules', summary: 'Get all project approval rules', tags: RULE_TAGS, params: listProjectRulesParams, responses: { 200: z.array(ProjectApprovalRuleSchema) } },
    async ({ c, p, caller }) => withReadMemo(c, async () => {
      checkFeature(c);
      // The rules and everything they present come with the project (state-reads.ts).
      const { project, level, reads } = await findReadableProjectWith(c, caller, p.id, (pid) => projectRuleReads(c.var.db, caller, pid));
      authorizeReadRules(caller, project, level);
      const rules = visibleProjectRules(projectRulesFrom(c, reads as unknown as ProjectRuleReads), multipleRulesFeature(c));
      // Kaminari.paginate_array over the visible rules.
      const req = pageRequest(p, (await requestParams(c)).per_page);
      const page = rules.slice(req.offset, req.offset + req.perPage);
      setPaginationHeaders(c, req, linkParamsFrom(await requestParams(c), {}), rules.length, page.length);
      return c.json(await presentProjectRules(c, caller, page, level));
    }),
  );

  api.route(
    { method: 'POST', path: '/projects/:id/approval_rules', summary: 'Create new project approval rule', tags: RULE_TAGS, params: createProjectRuleParams, responses: { 201: ProjectApprovalRuleSchema } },
    async ({ c, p, caller }) => {
      checkFeature(c);
      const { project, namespace, level } = await findReadableProject(c, caller, p.id);
      authorizeWriteRules(caller, project, level);
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
      const { userIds, groupIds } = await filterApprovers(c, caller, project, namespace, { user_ids: userIdsParam, usernames: p.usernames, group_ids: groupIdsParam });
      const branchIds = await filterProtectedBranches(c, caller, project, level, p.protected_branch_ids);
      const pre: BatchItem<'sqlite'>[] = [];
      // Without multiple approval rules, a rule with approvers replaces the any_approver rule.
      if (approversPresent && !multipleRulesFeature(c)) pre.push(...deleteProjectRules(db, and(eq(approvalProjectRules.projectId, project.id), eqAnyApprover())!));
      const errors = await projectRuleErrors(db, project.id, fields, null);
      if (approversPresent && !multipleRulesFeature(c)) delete errors.rule_type;
      if (Object.keys(errors).length) throw validationFailed(errors);
      const now = Date.now();
      let ruleId: number;
      try {
        if (pre.length) await runBatch(db, pre);
        const row = await db
          .insert(approvalProjectRules)
          .values({
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
          })
          .returning({ id: approvalProjectRules.id })
          .get();
        ruleId = row.id;
      } catch (err) {
        throw uniqueRuleError(err, 'project') ?? err;
      }
      const links = linkStatements(db, ruleId, userIds ?? [], groupIds ?? [], branchIds ?? []);
      if (links.length) await runBatch(db, links);
      const rule = await findProjectRule(db, project.id, ruleId);
      return c.json((await presentProjectRules(c, caller, [rule], level))[0], 201);
    },
  );

  api.route(
    { method: 'GET', path: '/projects/:id/approval_rules/:approval_rule_id', summary: 'Get a single approval rule', tags: RULE_TAGS, params: projectRuleParams, responses: { 200: ProjectApprovalRuleSchema } },
    async ({ c, p, caller }) => withReadMemo(c, async () => {
      checkFeature(c);
      const { project, level, reads } = await findReadableProjectWith(c, caller, p.id, (pid) => projectRuleReads(c.var.db, caller, pid));
      authorizeReadRules(caller, project, level);
      const rule = projectRulesFrom(c, reads as unknown as ProjectRuleReads).find((r) => r.id === p.approval_rule_id);
      if (!rule) throw recordNotFound();
      return c.json((await presentProjectRules(c, caller, [rule], level))[0]);
    }),
  );

  api.route(
    { method: 'PUT', path: '/projects/:id/approval_rules/:approval_rule_id', summary: 'Update project approval rule', tags: RULE_TAGS, params: updateProjectRuleParams, responses: { 200: ProjectApprovalRuleSchema } },
    async ({ c, p, caller }) => {
      checkFeature(c);
      const { project, namespace, level } = await findReadableProject(c, caller, p.id);
      authorizeWriteRules(caller, project, level);
      const db = c.var.db;
      const rule = await findProjectRule(db, project.id, p.approval_rule_id);
      // approval_rules.not_from_scan_result_policy.find: policy report types are not found.
      if (rule.reportType === 'license_scanning') throw recordNotFound();
      // Spec rule 3: report_approver and code_owner rules are system generated.
      if (!isUserDefined(rule.ruleType)) throw prohibited();
      const current = await db.select().from(approvalProjectRules).where(eq(approvalProjectRules.id, rule.id)).get();
      if (!current) throw recordNotFound();
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
      const errors = await projectRuleErrors(db, project.id, fields, rule.id);
      if (Object.keys(errors).length) throw validationFailed(errors);
      const { userIds, groupIds: given } = await filterApprovers(c, caller, project, namespace, { user_ids: p.user_ids ?? p.users, usernames: p.usernames, group_ids: p.group_ids ?? p.groups });
      let groupIds = given;
      // UpdateService#filter_eligible_groups!: hidden groups stay unless remove_hidden_groups.
      if (groupIds !== undefined && !p.remove_hidden_groups) {
        const visible = await visibleGroupIds(db, caller, rule.groups.map((g) => g.id));
        groupIds = [...new Set([...groupIds, ...rule.groups.filter((g) => !visible.has(g.id)).map((g) => g.id)])];
      }
      const branchIds = await filterProtectedBranches(c, caller, project, level, p.protected_branch_ids);
      const now = Date.now();
      try {
        await runBatch(db, [
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
              updatedAt: now,
            })
            .where(eq(approvalProjectRules.id, rule.id)),
          ...linkStatements(db, rule.id, userIds, groupIds, branchIds),
        ]);
      } catch (err) {
        throw uniqueRuleError(err, 'project') ?? err;
      }
      const updated = await findProjectRule(db, project.id, rule.id);
      return c.json((await presentProjectRules(c, caller, [updated], level))[0]);
    },
  );

  api.route(
    { method: 'DELETE', path: '/projects/:id/approval_rules/:approval_rule_id', summary: 'Destroy project approval rule', tags: RULE_TAGS, params: projectRuleParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      checkFeature(c);
      const { project, level } = await findReadableProject(c, caller, p.id);
      authorizeWriteRules(caller, project, level);
      const db = c.var.db;
      const rule = await findProjectRule(db, project.id, p.approval_rule_id);
      if (rule.reportType === 'license_scanning') throw recordNotFound();
      if (!isUserDefined(rule.ruleType)) throw prohibited();
      checkUnmodifiedSince(c, rule.updatedAt);
      // ProjectRuleDestroyService: the merge request rules copied from it go too, on unmerged merge requests.
      const unmerged = db.select({ id: mergeRequests.id }).from(mergeRequests).where(and(eq(mergeRequests.projectId, project.id), unmergedState()));
      const copies = db
        .select({ id: approvalMergeRequestRules.id })
        .from(approvalMergeRequestRules)
        .where(and(eq(approvalMergeRequestRules.approvalProjectRuleId, rule.id), inArray(approvalMergeRequestRules.mergeRequestId, unmerged)));
      await runBatch(db, [
        db.delete(approvalMergeRequestRulesUsers).where(inArray(approvalMergeRequestRulesUsers.ruleId, copies)),
        db.delete(approvalMergeRequestRulesGroups).where(inArray(approvalMergeRequestRulesGroups.ruleId, copies)),
        db.delete(approvalMergeRequestRules).where(inArray(approvalMergeRequestRules.id, copies)),
        ...deleteProjectRules(db, eq(approvalProjectRules.id, rule.id)),
      ]);
      return c.body(null, 204);
    },
  );
}

async function presentProjectRules(c: Context<AppEnv>, caller: Caller, rules: LoadedRule[], level: number): Promise<ProjectApprovalRule[]> {
  const x = await ruleExtras(c, caller, rules, level);
  const multiple = multipleRulesFeature(c);
  const branchIds = [...new Set(rules.flatMap((r) => r.protectedBranches.map((b) => b.id)))];
  const branches = new Map<number, ProtectedBranch>();
  if (multiple && branchIds.length) {
    const rows = await c.var.db.select().from(protectedBranches).where(inArray(protectedBranches.id, branchIds)).all();
    const withLevels = await attachLevels(c.var.db, rows);
    const ext = await accessNames(c.var.db, withLevels.flatMap((b) => [...b.push, ...b.merge, ...b.unprotect]));
    for (const b of withLevels) branches.set(b.id, protectedBranchEntity(b, { premium: true, ...ext }));
  }
  return rules.map((r) => projectApprovalRuleEntity(r, { ...x, multiple, protectedBranch: (id) => branches.get(id)! }));
}

/** Names for the access levels' descriptions. */
async function accessNames(db: Db, levels: { userId: number | null; groupId: number | null }[]) {
  const userIds = [...new Set(levels.map((l) => l.userId).filter((x): x is number => x != null))];
  const groupIds = [...new Set(levels.map((l) => l.groupId).filter((x): x is number => x != null))];
  const userNames = new Map<number, string>();
  const groupNames = new Map<number, string>();
  if (userIds.length) for (const u of await db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, userIds)).all()) userNames.set(u.id, u.name);
  if (groupIds.length) for (const g of await db.select({ id: namespaces.id, name: namespaces.name }).from(namespaces).where(inArray(namespaces.id, groupIds)).all()) groupNames.set(g.id, g.name);
  return { userNames, groupNames };
}

/** `check_feature_availability`: 403 without the merge_request_approvers feature. */
function checkFeature(c: Context<AppEnv>) {
  if (!approvalsFeature(c)) throw forbidden();
}

/** `authorize_read_project_approval_rule!`: manage_merge_request_settings, else create_merge_request_in (Developer+ with merge requests available). */
function authorizeReadRules(caller: Caller, project: ProjectRow, level: number) {
  if (isMaintainer(caller, level)) return;
  if (level >= ACCESS.DEVELOPER && featureAvailable(project, 'merge_requests', { level, isAdmin: caller.isAdmin })) return;
  throw forbidden();
}

/** manage_merge_request_settings and modify_approvers_rules: Maintainer+ (not on archived projects). */
function authorizeWriteRules(caller: Caller, project: ProjectRow, level: number) {
  if (!isMaintainer(caller, level) || project.archived) throw forbidden();
}

async function findProjectRule(db: Db, projectId: number, id: number): Promise<LoadedRule> {
  const [rule] = Number.isSafeInteger(id) ? await loadProjectRules(db, projectId, [id]) : [];
  if (!rule) throw recordNotFound();
  return rule;
}
