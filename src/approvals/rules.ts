/**
 * Approval rules and settings: loading them with their users, groups, group members and protected
 * branches, the merge request's approval state (feeding services/approval-state.ts), and who may
 * approve (GitLab ee/app/models/approval_*.rb, ee/app/services/approval_rules/*, merge_request_policy.rb).
 */
import { and, asc, eq, gt, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
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
  mergeRequestAssignees,
  mergeRequests,
  members,
  namespaces,
  projectApprovalSettings,
  protectedBranches,
  users,
} from '../db/schema';
import { ACCESS, activeMember, groupVisibleSql, type NamespaceRow, type ProjectRow } from '../projects/abilities';
import { planAllows } from '../platform/plan';
import { isMemoised, memo, peekMemo, primeMemo } from '../platform/read-memo';
import { canUpdateMergeRequest as mrCanUpdate, repo } from '../merge-requests/merge-requests';
import { commitsBetween } from '../repository/repository';
import { memoProtectedBranchRows } from '../repository/protected-branches';
import { type ApprovalState, type ApprovalStateInput, computeApprovalState, type MergeRequestRow, type RuleInput, type RuleType } from './state';
import { codeOwnersFileAt, ensureSystemRules } from './system-rules';
import { type CodeOwnersFile, isOptionalSection } from './code-owners';
import { mergeRequestPatchId } from '../repository/patch-id';
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

async function usersByIds(db: Db, ids: number[]): Promise<Map<number, UserRow>> {
  const out = new Map<number, UserRow>();
  for (const part of chunks([...new Set(ids)])) {
    for (const u of await db.select().from(users).where(inArray(users.id, part)).all()) out.set(u.id, u);
  }
  return out;
}

/** Group#users (direct members, not minimal access, membership in force) of each group. */
async function groupMemberIds(db: Db, groupIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  for (const part of chunks([...new Set(groupIds)])) {
    const rows = await db
      .select({ groupId: members.sourceId, userId: members.userId })
      .from(members)
      .where(and(eq(members.sourceType, 'Namespace'), inArray(members.sourceId, part), gt(members.accessLevel, ACCESS.MINIMAL), activeMember()))
      .orderBy(asc(members.userId))
      .all();
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

interface RawRule {
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

async function hydrate(db: Db, kind: 'project' | 'merge_request', rows: RawRule[], projectId: number | null, branches?: ProtectedBranchRow[]): Promise<LoadedRule[]> {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const usersT = kind === 'project' ? approvalProjectRulesUsers : approvalMergeRequestRulesUsers;
  const groupsT = kind === 'project' ? approvalProjectRulesGroups : approvalMergeRequestRulesGroups;
  const userLinks: { ruleId: number; userId: number }[] = [];
  const groupLinks: { ruleId: number; groupId: number }[] = [];
  const pbLinks: { ruleId: number; protectedBranchId: number }[] = [];
  for (const part of chunks(ids)) {
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
function attachSources(rows: { approvalProjectRuleId: number | null }[], loaded: LoadedRule[], sources: LoadedRule[]) {
  for (const [i, r] of rows.entries()) loaded[i].source = r.approvalProjectRuleId == null ? null : (sources.find((s) => s.id === r.approvalProjectRuleId) ?? null);
}

/** A project's protected branches and approval rules, read once per memo (lib/read-memo.ts). */
function approvalConfig(c: Context<AppEnv>, projectId: number): Promise<{ branches: ProtectedBranchRow[]; projectRules: LoadedRule[] }> {
  return memo(c, `approval-config:${projectId}`, async () => {
    const branches = await memoProtectedBranchRows(c, projectId);
    return { branches, projectRules: await loadProjectRules(c.var.db, projectId, undefined, branches) };
  });
}

/**
 * For a page of merge requests inside a memo: their approvals, their rules and the approving users,
 * each in one query for the page instead of one per merge request (loadApprovalState reads them
 * from the memo). The system rules' lazy rebuild forgets a merge request's rules when it rewrites them.
 */
export async function primeApprovalReads(c: Context<AppEnv>, mrs: MergeRequestRow[]): Promise<void> {
  if (!isMemoised(c) || !mrs.length) return;
  const db = c.var.db;
  const ids = mrs.map((m) => m.id);
  const approvalRows: ApprovalRow[] = [];
  const ruleRows: (typeof approvalMergeRequestRules.$inferSelect)[] = [];
  for (const part of chunks(ids)) {
    approvalRows.push(...(await db.select().from(approvals).where(inArray(approvals.mergeRequestId, part)).orderBy(asc(approvals.createdAt), asc(approvals.id)).all()));
    ruleRows.push(...(await db.select().from(approvalMergeRequestRules).where(inArray(approvalMergeRequestRules.mergeRequestId, part)).orderBy(asc(approvalMergeRequestRules.id)).all()));
  }
  const [loaded, approvers] = await Promise.all([hydrate(db, 'merge_request', ruleRows, null), usersByIds(db, approvalRows.map((a) => a.userId))]);
  const entries: [string, unknown][] = [];
  for (const mr of mrs) {
    const at = ruleRows.flatMap((r, i) => (r.mergeRequestId === mr.id ? [i] : []));
    const rules = at.map((i) => loaded[i]);
    if (at.some((i) => ruleRows[i].approvalProjectRuleId != null)) attachSources(at.map((i) => ruleRows[i]), rules, (await approvalConfig(c, mr.projectId)).projectRules);
    entries.push([`mr-rules:${mr.id}`, rules], [`approvals:${mr.id}`, approvalRows.filter((a) => a.mergeRequestId === mr.id)]);
  }
  for (const [id, u] of approvers) entries.push([`user:${id}`, u]);
  primeMemo(c, entries);
}

/** usersByIds, taking the users a memo already holds. */
async function usersFor(c: Context<AppEnv>, ids: number[]): Promise<Map<number, UserRow>> {
  const out = new Map<number, UserRow>();
  const missing: number[] = [];
  for (const id of new Set(ids)) {
    const known = peekMemo<UserRow>(c, `user:${id}`);
    if (known) out.set(id, await known);
    else missing.push(id);
  }
  if (missing.length) for (const [id, u] of await usersByIds(c.var.db, missing)) out.set(id, u);
  return out;
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

function branchScopeOf(rule: LoadedRule): RuleInput['branchScope'] {
  const scoped = rule.kind === 'project' ? rule : !rule.modifiedFromProjectRule ? rule.source : null;
  if (!scoped) return null;
  return { protectedBranches: scoped.protectedBranches.map((b) => b.name), appliesToAllProtectedBranches: scoped.appliesToAllProtectedBranches };
}

const toInput = (r: LoadedRule): RuleInput => ({
  id: r.id,
  name: r.name,
  ruleType: r.ruleType,
  approvalsRequired: r.approvalsRequired,
  approverIds: r.approvers.map((u) => u.id),
  branchScope: branchScopeOf(r),
});

/**
 * The merge request's HEAD (`diff_head_sha`), as the merge request module reads it: an open one
 * follows its source branch live (a push moves it), a merged or closed one keeps its recorded sha.
 */
export async function mergeRequestHead(c: Context<AppEnv>, mr: MergeRequestRow): Promise<string | null> {
  if (mr.state !== 'opened' && mr.state !== 'locked') return mr.headSha ?? null;
  return (await repo.branchHead(c, mr.sourceProjectId, mr.sourceBranch)) ?? mr.headSha ?? null;
}

/**
 * MergeRequest#committers: users whose email is the committer email of a commit of the merge
 * request (reachable from HEAD, not from the target branch; base..head once merged or closed).
 */
export async function mergeRequestCommitterIds(c: Context<AppEnv>, mr: MergeRequestRow, head: string | null): Promise<number[]> {
  if (!head) return [];
  const db = c.var.db;
  const pid = mr.sourceProjectId;
  let stop: string | null = null;
  if (mr.state === 'opened' || mr.state === 'locked') {
    stop = (await repo.branchHead(c, mr.projectId, mr.targetBranch)) ?? null;
  } else {
    stop = mr.baseSha ?? null;
  }
  const emails = [...new Set((await commitsBetween(db, pid, stop, head)).map((k) => k.committerEmail.toLowerCase()))];
  const ids = new Set<number>();
  for (const part of chunks(emails, 45)) {
    const rows = await db
      .select({ id: users.id })
      .from(users)
      .where(or(inArray(sql`lower(${users.email})`, part), inArray(sql`lower(${users.commitEmail})`, part)))
      .all();
    for (const r of rows) ids.add(r.id);
  }
  return [...ids];
}

/**
 * Approvals that count: with reset_approvals_on_push, those given at the current HEAD, or at another
 * HEAD with the same diff (`patchId`, the current patch id: ResetApprovalsService keeps approvals
 * whose patch_id_sha matches, so a rebase keeps them).
 */
export function validApprovals(rows: ApprovalRow[], head: string | null, reset: boolean, patchId: string | null = null): ApprovalRow[] {
  return reset ? rows.filter((a) => a.sha === head || (patchId != null && a.patchIdSha === patchId)) : rows;
}

export interface LoadedState {
  state: ApprovalState;
  input: ApprovalStateInput;
  settings: SettingsRow;
  requirePasswordToApprove: boolean;
  projectRules: LoadedRule[];
  mergeRequestRules: LoadedRule[];
  /** Approvals counted at HEAD, oldest first. */
  approvals: ApprovalRow[];
  approvalUsers: Map<number, UserRow>;
  head: string | null;
  /** The current patch id when an approval given at another HEAD needed it. */
  patchId: string | null;
  mr: MergeRequestRow;
}

/** Everything ApprovalState reads for one merge request, then the arithmetic. */
export async function loadApprovalState(c: Context<AppEnv>, mr: MergeRequestRow): Promise<LoadedState> {
  const db = c.var.db;
  await ensureSystemRules(c, mr);
  // The project's configuration is the same for every merge request of a page (lib/read-memo.ts).
  const { branches, projectRules } = await approvalConfig(c, mr.projectId);
  const [settings, mergeRequestRules, head, rows] = await Promise.all([
    memo(c, `approval-settings:${mr.projectId}`, () => loadSettings(db, mr.projectId)),
    memo(c, `mr-rules:${mr.id}`, () => loadMergeRequestRules(db, mr, undefined, projectRules)),
    mergeRequestHead(c, mr),
    memo(c, `approvals:${mr.id}`, () => db.select().from(approvals).where(eq(approvals.mergeRequestId, mr.id)).orderBy(asc(approvals.createdAt), asc(approvals.id)).all()),
  ]);
  const committerIds: number[] = [];
  const eff = await effectiveSettings(c, settings);
  // Committers matter only when they may not approve (filter_committers, eligible_for_approval_by?).
  if (settings.mergeRequestsDisableCommittersApproval) committerIds.push(...(await mergeRequestCommitterIds(c, mr, head)));
  // The patch id costs two manifests: computed only when an approval from another HEAD could still count.
  const patchId = eff.resetApprovalsOnPush && rows.some((a) => a.sha !== head && a.patchIdSha) ? await mergeRequestPatchId(c, mr, head) : null;
  const valid = validApprovals(rows, head, eff.resetApprovalsOnPush, patchId);
  const approvalUsers = await usersFor(c, valid.map((a) => a.userId));
  const multiple = multipleRulesFeature(c);
  const targetPb = branches.filter((b) => refMatchesName(b.name, mr.targetBranch));
  // Gitlab::CodeOwners.optional_section? reads the target branch's CODEOWNERS as it is now.
  let codeOwners: CodeOwnersFile | null = null;
  if (mr.state !== 'merged' && mergeRequestRules.some((r) => r.ruleType === 'code_owner')) {
    codeOwners = await codeOwnersFileAt(c, mr.projectId, await repo.branchHead(c, mr.projectId, mr.targetBranch));
  }
  const input: ApprovalStateInput = {
    featureAvailable: approvalsFeature(c),
    multipleRulesAvailable: multiple,
    canOverrideApprovers: !settings.disableOverridingApproversPerMergeRequest,
    projectRules: projectRules.filter((r) => isUserDefined(r.ruleType)).map(toInput),
    mergeRequestRules: mergeRequestRules.map((r) => ({ ...toInput(r), optionalSection: r.ruleType === 'code_owner' && r.section != null && codeOwners != null && isOptionalSection(codeOwners, r.section) })),
    targetBranch: mr.targetBranch,
    approvedUserIds: valid.map((a) => a.userId),
    authorId: mr.authorId,
    committerIds,
    authorApproval: settings.mergeRequestsAuthorApproval,
    disableCommittersApproval: settings.mergeRequestsDisableCommittersApproval,
    // code_owner_approval_required is a Premium feature of protected branches.
    codeOwnerApprovalRequired: approvalsFeature(c) && targetPb.some((b) => b.codeOwnerApprovalRequired),
    merged: mr.state === 'merged',
  };
  return {
    state: computeApprovalState(input),
    input,
    settings,
    requirePasswordToApprove: eff.requirePasswordToApprove,
    projectRules,
    mergeRequestRules,
    approvals: valid,
    approvalUsers,
    head,
    patchId,
    mr,
  };
}

/** The same merge request with other approvals (after an approve or unapprove): the arithmetic again, no reload. */
export async function withApprovals(c: Context<AppEnv>, s: LoadedState, rows: ApprovalRow[]): Promise<LoadedState> {
  const reset = (await effectiveSettings(c, s.settings)).resetApprovalsOnPush;
  const patchId = s.patchId ?? (reset && rows.some((a) => a.sha !== s.head && a.patchIdSha) ? await mergeRequestPatchId(c, s.mr, s.head) : null);
  const valid = validApprovals(rows, s.head, reset, patchId);
  const approvalUsers = await usersByIds(c.var.db, valid.map((a) => a.userId));
  const input = { ...s.input, approvedUserIds: valid.map((a) => a.userId) };
  return { ...s, input, state: computeApprovalState(input), approvals: valid, approvalUsers };
}

function refMatchesName(pattern: string, ref: string): boolean {
  if (!pattern.includes('*')) return pattern === ref;
  return new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*?')}$`, 's').test(ref);
}

/** Assignee ids of a merge request. */
export async function assigneeIds(db: Db, mrId: number): Promise<number[]> {
  return (await db.select({ id: mergeRequestAssignees.userId }).from(mergeRequestAssignees).where(eq(mergeRequestAssignees.mergeRequestId, mrId)).all()).map((r) => r.id);
}

/** update_merge_request as the merge request module decides it, and nobody on an archived project (ArchivedAbilities). */
export function canUpdateMergeRequest(caller: Caller, project: ProjectRow, level: number, mr: MergeRequestRow, assignees: number[]): boolean {
  if (!caller.user || project.archived) return false;
  return mrCanUpdate(caller, project, level, mr, assignees);
}

/**
 * approve_merge_request (MergeRequestPolicy#can_approve?: update_merge_request and a project member;
 * EE: a Reporter+ member of a group named on an approval rule of the protected branch matching the
 * target branch).
 */
export async function canApproveMergeRequest(db: Db, caller: Caller, project: ProjectRow, level: number, mr: MergeRequestRow): Promise<boolean> {
  if (!caller.user || project.archived) return false;
  if (level >= ACCESS.GUEST && canUpdateMergeRequest(caller, project, level, mr, await assigneeIds(db, mr.id))) return true;
  const branch = (await db.select().from(protectedBranches).where(eq(protectedBranches.projectId, project.id)).orderBy(asc(protectedBranches.id)).all()).find((b) =>
    refMatchesName(b.name, mr.targetBranch),
  );
  if (!branch) return false;
  const hit = await db
    .select({ one: sql`1` })
    .from(approvalProjectRulesProtectedBranches)
    .innerJoin(approvalProjectRulesGroups, eq(approvalProjectRulesGroups.ruleId, approvalProjectRulesProtectedBranches.ruleId))
    .innerJoin(
      members,
      and(eq(members.sourceType, 'Namespace'), eq(members.sourceId, approvalProjectRulesGroups.groupId), eq(members.userId, caller.user.id), activeMember()),
    )
    .where(and(eq(approvalProjectRulesProtectedBranches.protectedBranchId, branch.id), sql`${members.accessLevel} >= ${ACCESS.REPORTER}`))
    .limit(1)
    .get();
  return Boolean(hit);
}

/** User.by_ids_or_usernames: ids plus users named by username (case-insensitive). */
export async function userIdsFrom(db: Db, ids: number[], usernames: string[]): Promise<number[]> {
  const out = new Set<number>();
  for (const part of chunks(ids.filter((x) => Number.isSafeInteger(x)))) for (const u of await db.select({ id: users.id }).from(users).where(inArray(users.id, part)).all()) out.add(u.id);
  for (const part of chunks(usernames.map((u) => u.toLowerCase()))) {
    for (const u of await db.select({ id: users.id }).from(users).where(inArray(sql`lower(${users.username})`, part)).all()) out.add(u.id);
  }
  return [...out];
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

/** Rows of approvals removed with merge requests (`mrIds`: a sub-select or list), for content deletion. */
export function approvalDeletionForMergeRequests(db: Db, mrIds: unknown): BatchItem<'sqlite'>[] {
  const ruleIds = db.select({ id: approvalMergeRequestRules.id }).from(approvalMergeRequestRules).where(inArray(approvalMergeRequestRules.mergeRequestId, mrIds as never));
  return [
    db.delete(approvalMergeRequestRulesUsers).where(inArray(approvalMergeRequestRulesUsers.ruleId, ruleIds)),
    db.delete(approvalMergeRequestRulesGroups).where(inArray(approvalMergeRequestRulesGroups.ruleId, ruleIds)),
    db.delete(approvalMergeRequestRules).where(inArray(approvalMergeRequestRules.mergeRequestId, mrIds as never)),
    db.delete(approvals).where(inArray(approvals.mergeRequestId, mrIds as never)),
  ];
}

/** Rows removed with projects (`projectIds`: a sub-select or list): their settings, project rules and the approvals of their merge requests. */
export function approvalDeletionForProjects(db: Db, projectIds: unknown): BatchItem<'sqlite'>[] {
  const ruleIds = db.select({ id: approvalProjectRules.id }).from(approvalProjectRules).where(inArray(approvalProjectRules.projectId, projectIds as never));
  const mrIds = db.select({ id: mergeRequests.id }).from(mergeRequests).where(inArray(mergeRequests.projectId, projectIds as never));
  return [
    ...approvalDeletionForMergeRequests(db, mrIds),
    db.delete(approvalProjectRulesUsers).where(inArray(approvalProjectRulesUsers.ruleId, ruleIds)),
    db.delete(approvalProjectRulesGroups).where(inArray(approvalProjectRulesGroups.ruleId, ruleIds)),
    db.delete(approvalProjectRulesProtectedBranches).where(inArray(approvalProjectRulesProtectedBranches.ruleId, ruleIds)),
    db.delete(approvalProjectRules).where(inArray(approvalProjectRules.projectId, projectIds as never)),
    db.delete(projectApprovalSettings).where(inArray(projectApprovalSettings.projectId, projectIds as never)),
  ];
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

/** Rows naming deleted users: their approvals and their places on approval rules (`userIds`: a sub-select or list). */
export function approvalUserDeletionStatements(db: Db, userIds: unknown): BatchItem<'sqlite'>[] {
  return [
    db.delete(approvals).where(inArray(approvals.userId, userIds as never)),
    db.delete(approvalProjectRulesUsers).where(inArray(approvalProjectRulesUsers.userId, userIds as never)),
    db.delete(approvalMergeRequestRulesUsers).where(inArray(approvalMergeRequestRulesUsers.userId, userIds as never)),
  ];
}

/** Rows naming deleted groups on approval rules (`groupIds`: a sub-select or list). */
export function approvalGroupDeletionStatements(db: Db, groupIds: unknown): BatchItem<'sqlite'>[] {
  return [
    db.delete(approvalProjectRulesGroups).where(inArray(approvalProjectRulesGroups.groupId, groupIds as never)),
    db.delete(approvalMergeRequestRulesGroups).where(inArray(approvalMergeRequestRulesGroups.groupId, groupIds as never)),
  ];
}

/**
 * For the merge service: true when the merge request's approval rules are satisfied
 * (ApprovalState#approved?, what MergeRequest#mergeable_approval? checks). `mr` is a merge_requests row.
 */
export async function mergeRequestApproved(c: Context<AppEnv>, mr: MergeRequestRow): Promise<boolean> {
  const loaded = await loadApprovalState(c, mr);
  return loaded.state.approved;
}
