/**
 * Approval rules and settings: the settings with their effective values, loading rules with their
 * users, groups, group members and protected branches, and whom a rule may name (GitLab
 * ee/app/models/approval_*.rb, ee/app/services/approval_rules/*). The merge request's approval state
 * is loaded by state-loader.ts, who may approve is decided in approval-access.ts.
 */
import { and, asc, eq, gt, inArray, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
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
  members,
  namespaces,
  projectApprovalSettings,
  protectedBranches,
  users,
} from '../db/schema';
import { ACCESS, activeMember, groupVisibleSql, type NamespaceRow } from '../projects/abilities';
import { planAllows } from '../platform/plan';
import type { MergeRequestRow, RuleType } from './state';
import { settingsOf } from '../settings/settings';
import { chunks } from '../platform/chunks';

export type ProjectRuleRow = typeof approvalProjectRules.$inferSelect;
export type MrRuleRow = typeof approvalMergeRequestRules.$inferSelect;
export type SettingsRow = typeof projectApprovalSettings.$inferSelect;
export type ProtectedBranchRow = typeof protectedBranches.$inferSelect;
export type ApprovalRow = typeof approvals.$inferSelect;

export const RULE_TYPES = ['regular', 'code_owner', 'report_approver', 'any_approver'] as const;
export const REPORT_TYPES = ['vulnerability', 'license_scanning', 'code_coverage'] as const;
export const SCANNERS = ['sast', 'secret_detection', 'dependency_scanning', 'container_scanning', 'dast', 'coverage_fuzzing', 'api_fuzzing'];
export const SEVERITY_LEVELS = ['info', 'unknown', 'low', 'medium', 'high', 'critical'];
export const DEFAULT_SEVERITIES = ['unknown', 'high', 'critical'];
export const VULNERABILITY_STATES = ['detected', 'confirmed', 'resolved', 'dismissed', 'newly_detected', 'new_needs_triage', 'new_dismissed'];
/** ApprovalRuleLike::ALL_MEMBERS. */
export const ALL_MEMBERS = 'All Members';
export const APPROVALS_REQUIRED_MAX = 100;

const USER_DEFINED = new Set(['regular', 'any_approver']);
export const isUserDefined = (ruleType: string) => USER_DEFINED.has(ruleType);

/** Settings with GitLab's column defaults when the project never saved any. */
export function defaultSettings(projectId: number): SettingsRow {
  return {
    projectId,
    approvalsBeforeMerge: 0,
    resetApprovalsOnPush: true,
    selectiveCodeOwnerRemovals: false,
    disableOverridingApproversPerMergeRequest: false,
    mergeRequestsAuthorApproval: false,
    mergeRequestsDisableCommittersApproval: false,
    requirePasswordToApprove: false,
    requireReauthenticationToApprove: false,
    updatedAt: 0,
  };
}

export async function loadSettings(db: Db, projectId: number): Promise<SettingsRow> {
  return (await db.select().from(projectApprovalSettings).where(eq(projectApprovalSettings.projectId, projectId)).get()) ?? defaultSettings(projectId);
}

/** Licensed features of the instance plan: merge_request_approvers and multiple_approval_rules are Premium. */
export const approvalsFeature = (c: Context<AppEnv>) => planAllows(c.var.config, 'premium');
export const multipleRulesFeature = (c: Context<AppEnv>) => planAllows(c.var.config, 'premium');

/**
 * Effective settings (EE Project): without the feature approvals_before_merge reads 0 and approvals
 * are not reset on push; require_password_to_approve also needs password sign-in on the web.
 */
export async function effectiveSettings(c: Context<AppEnv>, s: SettingsRow) {
  const feature = approvalsFeature(c);
  const settings = await settingsOf(c);
  return {
    approvalsBeforeMerge: feature ? s.approvalsBeforeMerge : 0,
    resetApprovalsOnPush: feature && s.resetApprovalsOnPush,
    requirePasswordToApprove: s.requirePasswordToApprove && settings.password_authentication_enabled_for_web !== false,
  };
}

export async function usersByIds(db: Db, ids: number[]): Promise<Map<number, UserRow>> {
  const out = new Map<number, UserRow>();
  for (const part of chunks([...new Set(ids)])) {
    for (const u of await db.select().from(users).where(inArray(users.id, part)).all()) out.set(u.id, u);
  }
  return out;
}

/**
 * Group#users of the groups `groupIds` names (a list or a sub-select): direct members above minimal
 * access whose membership is in force, with their level (approve_merge_request), by user id. Unexecuted.
 */
export const groupUsersRead = (db: Db, groupIds: readonly number[] | SQL) =>
  db
    .select({ groupId: members.sourceId, userId: members.userId, accessLevel: members.accessLevel })
    .from(members)
    .where(and(eq(members.sourceType, 'Namespace'), inArray(members.sourceId, groupIds as number[]), gt(members.accessLevel, ACCESS.MINIMAL), activeMember()))
    .orderBy(asc(members.userId));

/** Group#users of each group. */
async function groupMemberIds(db: Db, groupIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  for (const part of chunks([...new Set(groupIds)])) {
    const rows = await groupUsersRead(db, part).all();
    for (const r of rows) out.set(r.groupId, [...(out.get(r.groupId) ?? []), r.userId]);
  }
  return out;
}

/** A rule with everything its entity and the arithmetic need. */
export interface LoadedRule {
  kind: 'project' | 'merge_request';
  id: number;
  name: string;
  ruleType: RuleType;
  reportType: string | null;
  approvalsRequired: number;
  section: string | null;
  appliesToAllProtectedBranches: boolean;
  updatedAt: number;
  users: UserRow[];
  groups: NamespaceRow[];
  /** users ∪ group members, active users only, by id (ApprovalRuleLike#approvers). */
  approvers: UserRow[];
  /** Project rules: the protected branches linked (or all of the project's when applies_to_all). */
  protectedBranches: ProtectedBranchRow[];
  /** Merge request rules: the project rule it came from. */
  source: LoadedRule | null;
  modifiedFromProjectRule: boolean;
}

export interface RawRule {
  id: number;
  name: string;
  ruleType: string;
  reportType: string | null;
  approvalsRequired: number;
  updatedAt: number;
  section?: string | null;
  appliesToAllProtectedBranches?: boolean;
  approvalProjectRuleId?: number | null;
  modifiedFromProjectRule?: boolean;
}

export async function hydrate(
  db: Db,
  kind: 'project' | 'merge_request',
  rows: RawRule[],
  projectId: number | null,
  branches?: ProtectedBranchRow[],
  /** The rules' user and group links when the caller read them with the rules (a merge request's rules only). */
  read?: { userLinks: { ruleId: number; userId: number }[]; groupLinks: { ruleId: number; groupId: number }[] },
): Promise<LoadedRule[]> {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const usersT = kind === 'project' ? approvalProjectRulesUsers : approvalMergeRequestRulesUsers;
  const groupsT = kind === 'project' ? approvalProjectRulesGroups : approvalMergeRequestRulesGroups;
  const userLinks: { ruleId: number; userId: number }[] = [...(read?.userLinks ?? [])];
  const groupLinks: { ruleId: number; groupId: number }[] = [...(read?.groupLinks ?? [])];
  const pbLinks: { ruleId: number; protectedBranchId: number }[] = [];
  for (const part of read ? [] : chunks(ids)) {
    userLinks.push(...(await db.select().from(usersT).where(inArray(usersT.ruleId, part)).all()));
    groupLinks.push(...(await db.select().from(groupsT).where(inArray(groupsT.ruleId, part)).all()));
    if (kind === 'project') pbLinks.push(...(await db.select().from(approvalProjectRulesProtectedBranches).where(inArray(approvalProjectRulesProtectedBranches.ruleId, part)).all()));
  }
  const groupIds = [...new Set(groupLinks.map((l) => l.groupId))];
  const groupRows = new Map<number, NamespaceRow>();
  for (const part of chunks(groupIds)) for (const g of await db.select().from(namespaces).where(inArray(namespaces.id, part)).all()) groupRows.set(g.id, g);
  const memberIds = await groupMemberIds(db, groupIds);
  const userRows = await usersByIds(db, [...userLinks.map((l) => l.userId), ...[...memberIds.values()].flat()]);
  let allBranches: ProtectedBranchRow[] = branches ?? [];
  if (kind === 'project' && projectId != null && !branches) {
    allBranches = await db.select().from(protectedBranches).where(eq(protectedBranches.projectId, projectId)).orderBy(asc(protectedBranches.id)).all();
  }
  return hydrateFrom(kind, rows, { userLinks, groupLinks, pbLinks, groupRows, memberIds, userRows, allBranches });
}

/** What rules are assembled from, however it was read (here rule by rule, or in one batch: state-reads.ts). */
export interface RuleLinks {
  userLinks: { ruleId: number; userId: number }[];
  groupLinks: { ruleId: number; groupId: number }[];
  pbLinks: { ruleId: number; protectedBranchId: number }[];
  groupRows: Map<number, NamespaceRow>;
  /** Group id -> member user ids (Group#users). */
  memberIds: Map<number, number[]>;
  userRows: Map<number, UserRow>;
  allBranches: ProtectedBranchRow[];
}

/** Rules with their users, groups, approvers and protected branches, from rows already read. */
export function hydrateFrom(kind: 'project' | 'merge_request', rows: RawRule[], { userLinks, groupLinks, pbLinks, groupRows, memberIds, userRows, allBranches }: RuleLinks): LoadedRule[] {
  return rows.map((r) => {
    const ruleUsers = userLinks.filter((l) => l.ruleId === r.id).map((l) => userRows.get(l.userId)).filter((u): u is UserRow => !!u).sort((a, b) => a.id - b.id);
    const ruleGroups = groupLinks.filter((l) => l.ruleId === r.id).map((l) => groupRows.get(l.groupId)).filter((g): g is NamespaceRow => !!g).sort((a, b) => a.id - b.id);
    const approverIds = new Set<number>([...ruleUsers.map((u) => u.id), ...ruleGroups.flatMap((g) => memberIds.get(g.id) ?? [])]);
    const approvers = [...approverIds].map((id) => userRows.get(id)).filter((u): u is UserRow => !!u && u.state === 'active').sort((a, b) => a.id - b.id);
    const appliesToAll = Boolean(r.appliesToAllProtectedBranches);
    const linked = pbLinks.filter((l) => l.ruleId === r.id).map((l) => allBranches.find((b) => b.id === l.protectedBranchId)).filter((b): b is ProtectedBranchRow => !!b);
    return {
      kind,
      id: r.id,
      name: r.name,
      ruleType: r.ruleType as RuleType,
      reportType: r.reportType,
      approvalsRequired: r.approvalsRequired,
      section: r.section ?? null,
      appliesToAllProtectedBranches: appliesToAll,
      updatedAt: r.updatedAt,
      users: ruleUsers,
      groups: ruleGroups,
      approvers,
      // ApprovalProjectRule#protected_branches: all of the project's when applies_to_all_protected_branches.
      protectedBranches: appliesToAll ? allBranches : linked,
      source: null,
      modifiedFromProjectRule: Boolean(r.modifiedFromProjectRule),
    };
  });
}

export async function loadProjectRules(db: Db, projectId: number, ids?: number[], branches?: ProtectedBranchRow[]): Promise<LoadedRule[]> {
  const where = ids ? and(eq(approvalProjectRules.projectId, projectId), inArray(approvalProjectRules.id, ids)) : eq(approvalProjectRules.projectId, projectId);
  const rows = await db.select().from(approvalProjectRules).where(where).orderBy(asc(approvalProjectRules.id)).all();
  return hydrate(db, 'project', rows, projectId, branches);
}

export async function loadMergeRequestRules(db: Db, mr: MergeRequestRow, ids?: number[], projectRules?: LoadedRule[]): Promise<LoadedRule[]> {
  const where = ids ? and(eq(approvalMergeRequestRules.mergeRequestId, mr.id), inArray(approvalMergeRequestRules.id, ids)) : eq(approvalMergeRequestRules.mergeRequestId, mr.id);
  const rows = await db.select().from(approvalMergeRequestRules).where(where).orderBy(asc(approvalMergeRequestRules.id)).all();
  const loaded = await hydrate(db, 'merge_request', rows, null);
  const sourceIds = [...new Set(rows.map((r) => r.approvalProjectRuleId).filter((x): x is number => x != null))];
  if (sourceIds.length) attachSources(rows, loaded, projectRules ?? (await loadProjectRules(db, mr.projectId, sourceIds)));
  return loaded;
}

/** `source_rule`: the project rule each merge request rule was copied from. */
export function attachSources(rows: { approvalProjectRuleId: number | null }[], loaded: LoadedRule[], sources: LoadedRule[]) {
  for (const [i, r] of rows.entries()) loaded[i].source = r.approvalProjectRuleId == null ? null : (sources.find((s) => s.id === r.approvalProjectRuleId) ?? null);
}


/** Project-level rules listed by the API (Project#visible_approval_rules): user-defined ones, then report approver rules. */
export function visibleProjectRules(rules: LoadedRule[], multiple: boolean): LoadedRule[] {
  const userDefined = [...rules.filter((r) => r.ruleType === 'any_approver'), ...rules.filter((r) => r.ruleType === 'regular')];
  // report_approver_without_policy_report_types: license_scanning rules belong to security policies.
  return [...(multiple ? userDefined : userDefined.slice(0, 1)), ...rules.filter((r) => r.ruleType === 'report_approver' && r.reportType !== 'license_scanning')];
}

const idSet = (xs: { id: number }[]) => new Set(xs.map((x) => x.id));
const sameSet = (a: Set<number>, b: Set<number>) => a.size === b.size && [...a].every((x) => b.has(x));

/** ApprovalRuleLike#overridden?: differs from its source rule in name, approvals_required, users or groups. */
export function overridden(rule: LoadedRule): boolean {
  const s = rule.source;
  if (!s) return false;
  return s.name !== rule.name || s.approvalsRequired !== rule.approvalsRequired || !sameSet(idSet(s.users), idSet(rule.users)) || !sameSet(idSet(s.groups), idSet(rule.groups));
}

/** Group.id_in(ids).accessible_to_user(current_user). */
export async function accessibleGroupIds(db: Db, caller: Caller, ids: number[]): Promise<number[]> {
  const out: number[] = [];
  for (const part of chunks([...new Set(ids.filter((x) => Number.isSafeInteger(x)))], 80)) {
    const rows = await db
      .select({ id: namespaces.id })
      .from(namespaces)
      .where(and(inArray(namespaces.id, part), eq(namespaces.kind, 'Group'), groupVisibleSql(caller)))
      .all();
    out.push(...rows.map((r) => r.id));
  }
  return out;
}

/** Group ids among `ids` the caller may read (the others are hidden groups). */
export async function visibleGroupIds(db: Db, caller: Caller, ids: number[]): Promise<Set<number>> {
  return new Set(await accessibleGroupIds(db, caller, ids));
}

/**
 * DeprecatedApprovalsBeforeMerge for merge requests: a changed `approvals_before_merge` sets the
 * merge request's any_approver rule ("All Members"), creating it when missing. For the merge
 * request module's create/update batch (`mrId` may be a sub-select of the row being inserted).
 */
export function mergeRequestApprovalsBeforeMergeStatement(db: Db, mrId: number | SQL, approvalsBeforeMerge: number, now: number) {
  const n = Math.max(0, Math.min(approvalsBeforeMerge, APPROVALS_REQUIRED_MAX));
  return db
    .insert(approvalMergeRequestRules)
    .values({ mergeRequestId: mrId as number, name: ALL_MEMBERS, ruleType: 'any_approver', approvalsRequired: n, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: approvalMergeRequestRules.mergeRequestId, targetWhere: sql.raw(`rule_type = 'any_approver'`), set: { approvalsRequired: n, updatedAt: now } });
}

