/**
 * Project-level approvals (GitLab ee/lib/api/project_approvals.rb, project_approval_rules.rb,
 * helpers/project_approval_rules_helpers.rb, ee/app/services/approval_rules/*). Every route runs
 * `authenticate!` (spec: all approvals endpoints require authentication). The merge-request-level
 * routes live in api/approval-merge-requests.ts.
 *
 * Abilities (EE ProjectPolicy): read_approvers, update_approvers, modify_approvers_rules and
 * manage_merge_request_settings are Maintainer+; listing rules also allows create_merge_request_in
 * (Developer+). Rules need the Premium feature merge_request_approvers (403 otherwise).
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import type { Db } from '../db/client';
import {
  approvalMergeRequestRules,
  approvalMergeRequestRulesGroups,
  approvalMergeRequestRulesUsers,
  approvalProjectRules,
  approvalProjectRulesGroups,
  approvalProjectRulesProtectedBranches,
  approvalProjectRulesUsers,
  approvals,
  mergeRequests,
  namespaces,
  projectApprovalSettings,
  protectedBranches,
  repoBranches,
  users,
} from '../db/schema';
import { approvalSettingsEntity, projectApprovalRuleEntity } from './approvals-entity';
import { protectedBranchEntity } from '../repository/protected-branch-entity';
import { ACCESS, featureAvailable, type NamespaceRow, type ProjectRow } from '../projects/abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { forbidden, recordNotFound, validationFailed } from '../platform/errors';
import { linkParamsFrom, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import {
  createProjectRuleParams,
  listProjectRulesParams,
  projectParams,
  projectRuleParams,
  updateProjectRuleParams,
  updateSettingsParams,
} from './approvals-params';
import {
  ALL_MEMBERS,
  APPROVALS_REQUIRED_MAX,
  approvalsFeature,
  accessibleGroupIds,
  DEFAULT_SEVERITIES,
  effectiveSettings,
  isUserDefined,
  type LoadedRule,
  loadProjectRules,
  loadSettings,
  multipleRulesFeature,
  RULE_TYPES,
  SCANNERS,
  SEVERITY_LEVELS,
  userIdsFrom,
  visibleGroupIds,
  visibleProjectRules,
  VULNERABILITY_STATES,
} from './rules';
import { projectMembersAmong } from '../projects/members';
import { attachLevels } from '../repository/protected-branches';
import { findReadableProject } from '../projects/projects';
import { addError, type ErrorMap, prohibited, ruleExtras, ruleLikeErrors, uniqueRuleError } from './rule-support';

const TAGS = ['project_approvals'];
const RULE_TAGS = ['approval_rules'];

const isMaintainer = (caller: Caller, level: number) => caller.isAdmin || level >= ACCESS.MAINTAINER;

async function presentProjectRules(c: Context<AppEnv>, caller: Caller, rules: LoadedRule[], level: number) {
  const x = await ruleExtras(c, caller, rules, level);
  const multiple = multipleRulesFeature(c);
  const branchIds = [...new Set(rules.flatMap((r) => r.protectedBranches.map((b) => b.id)))];
  const branches = new Map<number, unknown>();
  if (multiple && branchIds.length) {
    const rows = await c.var.db.select().from(protectedBranches).where(inArray(protectedBranches.id, branchIds)).all();
    const withLevels = await attachLevels(c.var.db, rows);
    const ext = await accessNames(c.var.db, withLevels.flatMap((b) => [...b.push, ...b.merge, ...b.unprotect]));
    for (const b of withLevels) branches.set(b.id, protectedBranchEntity(b, { premium: true, ...ext }));
  }
  return rules.map((r) => projectApprovalRuleEntity(r, { ...x, multiple, protectedBranch: (id) => branches.get(id) }));
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

interface ProjectRuleFields {
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
async function projectRuleErrors(db: Db, projectId: number, f: ProjectRuleFields, selfId: number | null): Promise<ErrorMap> {
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
async function filterApprovers(
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
async function filterProtectedBranches(c: Context<AppEnv>, caller: Caller, project: ProjectRow, level: number, ids: number[] | undefined): Promise<number[] | undefined> {
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

function linkStatements(db: Db, ruleId: number, userIds: number[] | undefined, groupIds: number[] | undefined, branchIds: number[] | undefined): BatchItem<'sqlite'>[] {
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

const runBatch = (db: Db, stmts: BatchItem<'sqlite'>[]) => db.batch(stmts as unknown as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);

export function mountApprovals(r: Router) {
  const api = r.withDefaults(() => ({ signedIn: true }));

  api.route(
    { method: 'GET', path: '/projects/:id/approvals', summary: 'Get all project approvers and related configuration', tags: TAGS, params: projectParams },
    async ({ c, p, caller }) => {
      const { project, level } = await findReadableProject(c, caller, p.id);
      // read_approvers (Maintainer+) unless admin_project: the same people.
      if (!isMaintainer(caller, level)) throw forbidden();
      const s = await loadSettings(c.var.db, project.id);
      return c.json(approvalSettingsEntity(s, await effectiveSettings(c, s)));
    },
  );

  api.route(
    { method: 'POST', path: '/projects/:id/approvals', summary: 'Change approval-related configuration', tags: TAGS, params: updateSettingsParams, status: 201 },
    async ({ c, p, caller }) => {
      const { project, level } = await findReadableProject(c, caller, p.id);
      if (!isMaintainer(caller, level)) throw forbidden();
      const db = c.var.db;
      const current = await loadSettings(db, project.id);
      const eff = await effectiveSettings(c, current);
      // MergeRequest::ApprovalRemovalSettings: selective code owner removals need approvals kept on push.
      const reset = p.reset_approvals_on_push ?? eff.resetApprovalsOnPush;
      const selective = p.selective_code_owner_removals ?? current.selectiveCodeOwnerRemovals;
      if (reset && selective) throw validationFailed({ base: ['selective_code_owner_removals can only be enabled when reset_approvals_on_push is disabled'] });
      const now = Date.now();
      const next = {
        projectId: project.id,
        approvalsBeforeMerge: p.approvals_before_merge ?? current.approvalsBeforeMerge,
        resetApprovalsOnPush: p.reset_approvals_on_push ?? current.resetApprovalsOnPush,
        selectiveCodeOwnerRemovals: selective,
        disableOverridingApproversPerMergeRequest: p.disable_overriding_approvers_per_merge_request ?? current.disableOverridingApproversPerMergeRequest,
        mergeRequestsAuthorApproval: p.merge_requests_author_approval ?? current.mergeRequestsAuthorApproval,
        mergeRequestsDisableCommittersApproval: p.merge_requests_disable_committers_approval ?? current.mergeRequestsDisableCommittersApproval,
        // One setting under two names (EE Project: setting either sets both; the later parameter wins).
        requirePasswordToApprove: p.require_reauthentication_to_approve ?? p.require_password_to_approve ?? current.requirePasswordToApprove,
        requireReauthenticationToApprove: p.require_reauthentication_to_approve ?? p.require_password_to_approve ?? current.requireReauthenticationToApprove,
        updatedAt: now,
      };
      if (next.approvalsBeforeMerge < 0) throw validationFailed({ approvals_before_merge: ['must be greater than or equal to 0'] });
      const stmts: BatchItem<'sqlite'>[] = [
        db.insert(projectApprovalSettings).values(next).onConflictDoUpdate({ target: projectApprovalSettings.projectId, set: { ...next, projectId: undefined } }),
      ];
      // DeprecatedApprovalsBeforeMerge: a changed approvals_before_merge sets the any_approver rule's count.
      if (p.approvals_before_merge !== undefined && p.approvals_before_merge !== current.approvalsBeforeMerge) {
        const n = Math.min(p.approvals_before_merge, APPROVALS_REQUIRED_MAX);
        stmts.push(
          db
            .insert(approvalProjectRules)
            .values({ projectId: project.id, name: ALL_MEMBERS, ruleType: 'any_approver', approvalsRequired: n, severityLevels: JSON.stringify(DEFAULT_SEVERITIES), createdAt: now, updatedAt: now })
            .onConflictDoUpdate({ target: approvalProjectRules.projectId, targetWhere: sql.raw(`rule_type = 'any_approver'`), set: { approvalsRequired: n, updatedAt: now } }),
        );
      }
      // Turning reset_approvals_on_push on resets nothing by itself: approvals given while it was off
      // are re-stamped at their merge request's current HEAD, so only the next push removes them.
      if (!eff.resetApprovalsOnPush && next.resetApprovalsOnPush && approvalsFeature(c)) {
        stmts.push(
          db
            .update(approvals)
            .set({
              sha: sql`(SELECT b.commit_sha FROM ${repoBranches} b JOIN ${mergeRequests} m ON m.id = ${approvals.mergeRequestId}
                WHERE b.project_id = m.source_project_id AND b.name = m.source_branch)`,
              // The diff they were given for is not known any more: only this HEAD keeps them.
              patchIdSha: null,
            })
            .where(inArray(approvals.mergeRequestId, db.select({ id: mergeRequests.id }).from(mergeRequests).where(and(eq(mergeRequests.projectId, project.id), inArray(mergeRequests.state, ['opened', 'locked']))))),
        );
      }
      await runBatch(db, stmts);
      const s = await loadSettings(db, project.id);
      return c.json(approvalSettingsEntity(s, await effectiveSettings(c, s)), 201);
    },
  );

  api.route(
    { method: 'GET', path: '/projects/:id/approval_rules', summary: 'Get all project approval rules', tags: RULE_TAGS, params: listProjectRulesParams },
    async ({ c, p, caller }) => {
      checkFeature(c);
      const { project, level } = await findReadableProject(c, caller, p.id);
      authorizeReadRules(caller, project, level);
      const rules = visibleProjectRules(await loadProjectRules(c.var.db, project.id), multipleRulesFeature(c));
      // Kaminari.paginate_array over the visible rules.
      const req = pageRequest(p, (await requestParams(c)).per_page);
      const page = rules.slice(req.offset, req.offset + req.perPage);
      setPaginationHeaders(c, req, linkParamsFrom(await requestParams(c), {}), rules.length, page.length);
      return c.json(await presentProjectRules(c, caller, page, level));
    },
  );

  api.route(
    { method: 'POST', path: '/projects/:id/approval_rules', summary: 'Create new project approval rule', tags: RULE_TAGS, params: createProjectRuleParams, status: 201 },
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
    { method: 'GET', path: '/projects/:id/approval_rules/:approval_rule_id', summary: 'Get a single approval rule', tags: RULE_TAGS, params: projectRuleParams },
    async ({ c, p, caller }) => {
      checkFeature(c);
      const { project, level } = await findReadableProject(c, caller, p.id);
      authorizeReadRules(caller, project, level);
      const rule = await findProjectRule(c.var.db, project.id, p.approval_rule_id);
      return c.json((await presentProjectRules(c, caller, [rule], level))[0]);
    },
  );

  api.route(
    { method: 'PUT', path: '/projects/:id/approval_rules/:approval_rule_id', summary: 'Update project approval rule', tags: RULE_TAGS, params: updateProjectRuleParams },
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
    { method: 'DELETE', path: '/projects/:id/approval_rules/:approval_rule_id', summary: 'Destroy project approval rule', tags: RULE_TAGS, params: projectRuleParams, status: 204 },
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

const eqAnyApprover = () => eq(approvalProjectRules.ruleType, 'any_approver');
const unmergedState = () => inArray(mergeRequests.state, ['opened', 'closed', 'locked']);

function deleteProjectRules(db: Db, where: NonNullable<ReturnType<typeof and>>): BatchItem<'sqlite'>[] {
  const ids = db.select({ id: approvalProjectRules.id }).from(approvalProjectRules).where(where);
  return [
    db.delete(approvalProjectRulesUsers).where(inArray(approvalProjectRulesUsers.ruleId, ids)),
    db.delete(approvalProjectRulesGroups).where(inArray(approvalProjectRulesGroups.ruleId, ids)),
    db.delete(approvalProjectRulesProtectedBranches).where(inArray(approvalProjectRulesProtectedBranches.ruleId, ids)),
    db.delete(approvalProjectRules).where(where),
  ];
}
