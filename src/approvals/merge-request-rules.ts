/**
 * Merge request approval rules' writes (GitLab ee/app/services/approval_rules/*,
 * ee/app/models/approval_merge_request_rule.rb) and the merge request lookup every approvals route
 * of a merge request starts with (`find_merge_request_with_access`).
 */
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import type { Db } from '../db/client';
import { approvalMergeRequestRules, approvalMergeRequestRulesGroups, approvalMergeRequestRulesUsers, mergeRequests } from '../db/schema';
import type { NamespaceRow, ProjectRow } from '../projects/abilities';
import { forbidden, recordNotFound, validationFailed } from '../platform/errors';
import { findReadableProjectWith } from '../projects/projects';
import { canReadMergeRequests } from '../projects/abilities';
import { isMemoised, memo, withReadMemo } from '../platform/read-memo';
import { writeThenRead } from '../db/batch-reads';
import { cachedQueries } from '../db/prepared';
import { projectIdRefOf } from '../projects/project-queries';
import { today } from '../platform/time';
import { approvalStateReads, type ApprovalStateReads, primeApprovalState } from './state-reads';
import { type LoadedRule, loadMergeRequestRules, loadSettings, multipleRulesFeature, overridden } from './rules';
import { assigneeIds, canApproveMergeRequest, canUpdateMergeRequest } from './approval-access';
import type { MergeRequestRow } from './state';
import { approvalConfig } from './state-loader';
import { ensureSystemRules, systemRulesRebuild } from './system-rules';
import { eligibleApprovers } from './approver-reads';
import { type ErrorMap, ruleLikeErrors, uniqueRuleError } from './rule-support';

export interface Found {
  project: ProjectRow;
  namespace: NamespaceRow;
  level: number;
  mr: MergeRequestRow;
  /** approve_merge_request, when already decided. */
  canApprove?: boolean;
  /** The stale system rules' rebuild, left for the caller's write batch (findMergeRequest's deferRebuild). */
  rebuild: BatchItem<'sqlite'>[];
}

/** `find_merge_request_with_access(iid, ability)`: 404 Project Not Found, 404 Not found (find_by!), then 403. */
export async function findMergeRequest(
  c: Context<AppEnv>,
  caller: Caller,
  projectId: string,
  iid: number,
  ability: 'read' | 'update' | 'approve' | 'update_approvers',
  /** A write of the merge request's rules sends the rebuild of stale system rules with its own batch (f.rebuild). */
  o: { deferRebuild?: boolean } = {},
): Promise<Found> {
  const { project, namespace, level, mr } = await findMergeRequestWithState(c, caller, projectId, iid);
  const db = c.var.db;
  // Code owner rules follow the branches: rebuilt here when a push or retargeting made them stale.
  const rebuild = o.deferRebuild ? ((await systemRulesRebuild(c, mr))?.writes ?? []) : (await ensureSystemRules(c, mr), []);
  if (ability === 'update' || ability === 'update_approvers') {
    if (!canUpdateMergeRequest(caller, project, level, mr, await memo(c, `assignees:${mr.id}`, () => assigneeIds(db, mr.id)))) throw forbidden();
    // EE MergeRequestPolicy: `~can_override_approvers` prevents update_approvers.
    if (ability === 'update_approvers' && (await memo(c, `approval-settings:${project.id}`, () => loadSettings(db, project.id))).disableOverridingApproversPerMergeRequest) throw forbidden();
  }
  if (ability === 'approve') {
    if (!(await canApproveMergeRequest(c, caller, project, level, mr))) throw forbidden();
    return { project, namespace, level, mr, canApprove: true, rebuild };
  }
  return { project, namespace, level, mr, rebuild };
}

/** The merge request's rules, from the memo when the approval state was read with the merge request (state-reads.ts). */
export const mrRulesOf = (c: Context<AppEnv>, mr: MergeRequestRow) => memo(c, `mr-rules:${mr.id}`, () => loadMergeRequestRules(c.var.db, mr));

export async function findMrRule(c: Context<AppEnv>, mr: MergeRequestRow, id: number): Promise<LoadedRule> {
  const rule = Number.isSafeInteger(id) ? (await mrRulesOf(c, mr)).find((r) => r.id === id) : undefined;
  if (!rule) throw recordNotFound();
  return rule;
}

/**
 * findReadableMergeRequest (merge-requests/merge-request-access.ts) with everything the approval
 * state reads in the same round trip (state-reads.ts), seeding the read memo when one is open:
 * 404 Project Not Found, 404 Not found (find_by!), then 403 without read_merge_request.
 */
async function findMergeRequestWithState(c: Context<AppEnv>, caller: Caller, projectId: string, iid: number) {
  const safe = Number.isSafeInteger(iid);
  // The statements are built once per Db, caller and day (db/prepared.ts): what shapes them beside
  // the placeholders is the caller (the groups' visibility) and the day (membership expiry).
  const who = `${caller.isAdmin ? 'admin' : ''}${caller.user ? `${caller.user.id}${caller.user.external ? 'x' : ''}` : 'anonymous'}:${today()}`;
  const { reads, ...pr } = await findReadableProjectWith(c, caller, projectId, (_pid, ref) =>
    safe && isMemoised(c)
      ? cachedQueries(c.var.db, `approval-state:${ref.shape}:${who}`, (d) => approvalStateReads(d, caller, projectIdRefOf(ref.shape), sql`${sql.placeholder('iid')}`), { ...ref.values, iid })
      : ([] as const),
  );
  if (!safe) throw recordNotFound();
  const mr = reads.length ? (reads as unknown as ApprovalStateReads)[0][0] : await c.var.db.select().from(mergeRequests).where(and(eq(mergeRequests.projectId, pr.project.id), eq(mergeRequests.iid, iid))).get();
  if (!mr) throw recordNotFound();
  if (!canReadMergeRequests(caller, pr.project, pr.level)) throw forbidden();
  if (reads.length) primeApprovalState(c, mr, reads as unknown as ApprovalStateReads);
  return { ...pr, mr };
}

/** The rule's users and groups replaced (`ruleId` may be a sub-select of the rule inserted in the same batch); one statement per list whatever its length. */
export function mrLinkStatements(db: Db, ruleId: number | SQL, userIds: number[] | undefined, groupIds: number[] | undefined): BatchItem<'sqlite'>[] {
  const out: BatchItem<'sqlite'>[] = [];
  if (userIds !== undefined) {
    out.push(db.delete(approvalMergeRequestRulesUsers).where(eq(approvalMergeRequestRulesUsers.ruleId, ruleId as number)));
    if (userIds.length) out.push(db.insert(approvalMergeRequestRulesUsers).select(sql`SELECT ${ruleId}, value FROM json_each(${JSON.stringify(userIds)}) WHERE true`).onConflictDoNothing());
  }
  if (groupIds !== undefined) {
    out.push(db.delete(approvalMergeRequestRulesGroups).where(eq(approvalMergeRequestRulesGroups.ruleId, ruleId as number)));
    if (groupIds.length) out.push(db.insert(approvalMergeRequestRulesGroups).select(sql`SELECT ${ruleId}, value FROM json_each(${JSON.stringify(groupIds)}) WHERE true`).onConflictDoNothing());
  }
  return out;
}

export function deleteMrRules(db: Db, where: NonNullable<ReturnType<typeof and>>): BatchItem<'sqlite'>[] {
  const ids = db.select({ id: approvalMergeRequestRules.id }).from(approvalMergeRequestRules).where(where);
  return [
    db.delete(approvalMergeRequestRulesUsers).where(inArray(approvalMergeRequestRulesUsers.ruleId, ids)),
    db.delete(approvalMergeRequestRulesGroups).where(inArray(approvalMergeRequestRulesGroups.ruleId, ids)),
    db.delete(approvalMergeRequestRules).where(where),
  ];
}

/** ApprovalMergeRequestRule validations against the merge request's rules (the indexes settle races with the same messages). */
export function mrRuleErrors(rules: LoadedRule[], mr: MergeRequestRow, f: { name: string; approvalsRequired: number; ruleType: string }, selfId: number | null): ErrorMap {
  const e = ruleLikeErrors({ ...f, reportType: null });
  const others = rules.filter((r) => r.id !== selfId);
  if (others.some((r) => r.ruleType === f.ruleType && r.name === f.name && r.section == null)) (e.name ??= []).push('has already been taken');
  if (f.ruleType === 'any_approver' && others.some((r) => r.ruleType === 'any_approver')) (e.rule_type ??= []).push('any-approver for the merge request already exists');
  if (mr.state === 'merged') (e.merge_request ??= []).push('must not be merged');
  return e;
}

/** A rule written in this request, as the merge request's rules read back after the write show it. */
export type RuleOf = (rules: LoadedRule[]) => LoadedRule | undefined;

/**
 * ApprovalRules::CreateService for a merge request (also the deprecated POST .../approvals): the
 * statements (the rule and its links, which find it by its unique (merge request, type, name)) and
 * how to find it among the rules read back. Validated against the rules read with the merge request.
 */
export async function createMrRule(
  c: Context<AppEnv>,
  caller: Caller,
  f: Found,
  p: { name: string; approvals_required: number; approval_project_rule_id?: number; user_ids?: number[]; group_ids?: number[]; usernames?: string[] },
): Promise<{ writes: BatchItem<'sqlite'>[]; ruleOf: RuleOf }> {
  const db = c.var.db;
  let name = p.name;
  let userIds: number[] | undefined;
  let groupIds: number[] | undefined;
  let sourceId: number | null = null;
  const approversSet = p.user_ids !== undefined || p.group_ids !== undefined || p.usernames !== undefined;
  if (p.approval_project_rule_id !== undefined) {
    // copy_approval_project_rule_properties: the project rule's name, and its users and groups unless approvers were sent.
    const source = (await approvalConfig(c, f.project.id)).projectRules.find((r) => r.id === p.approval_project_rule_id);
    if (!source) throw validationFailed({ approval_project_rule: ['must be for the same project'] });
    sourceId = source.id;
    name = source.name;
    if (!approversSet) {
      userIds = source.users.map((u) => u.id);
      groupIds = source.groups.map((g) => g.id);
    }
  }
  if (approversSet) ({ userIds, groupIds } = await eligibleApprovers(c, caller, f.project, f.namespace, p));
  const approversPresent = [p.user_ids, p.group_ids, p.usernames].some((v) => v !== undefined && v.length > 0) || Boolean(userIds?.length || groupIds?.length);
  const ruleType = approversPresent ? 'regular' : 'any_approver';
  const writes: BatchItem<'sqlite'>[] = [];
  // Without multiple approval rules, a rule with approvers replaces the any_approver rule.
  if (approversPresent && !multipleRulesFeature(c)) writes.push(...deleteMrRules(db, and(eq(approvalMergeRequestRules.mergeRequestId, f.mr.id), eq(approvalMergeRequestRules.ruleType, 'any_approver'))!));
  const errors = mrRuleErrors(await mrRulesOf(c, f.mr), f.mr, { name, approvalsRequired: p.approvals_required, ruleType }, null);
  if (writes.length) delete errors.rule_type;
  if (Object.keys(errors).length) throw validationFailed(errors);
  const now = Date.now();
  const ruleId = sql`(SELECT r.id FROM approval_merge_request_rules r WHERE r.merge_request_id = ${f.mr.id} AND r.rule_type = ${ruleType} AND r.name = ${name})`;
  writes.push(
    db.insert(approvalMergeRequestRules).values({ mergeRequestId: f.mr.id, name, approvalsRequired: p.approvals_required, ruleType, approvalProjectRuleId: sourceId, createdAt: now, updatedAt: now }),
    ...mrLinkStatements(db, ruleId, userIds ?? [], groupIds ?? []),
  );
  return { writes, ruleOf: (rules) => rules.find((r) => r.ruleType === ruleType && r.name === name) };
}

/** ApprovalRules::UpdateService for a merge request rule, as statements; records modified_from_project_rule. */
export async function updateMrRule(
  c: Context<AppEnv>,
  caller: Caller,
  f: Found,
  rule: LoadedRule,
  p: { name?: string; approvals_required?: number; user_ids?: number[]; group_ids?: number[]; usernames?: string[]; remove_hidden_groups?: boolean },
): Promise<BatchItem<'sqlite'>[]> {
  const db = c.var.db;
  const name = p.name ?? rule.name;
  const approvalsRequired = p.approvals_required ?? rule.approvalsRequired;
  const errors = mrRuleErrors(await mrRulesOf(c, f.mr), f.mr, { name, approvalsRequired, ruleType: rule.ruleType }, rule.id);
  if (Object.keys(errors).length) throw validationFailed(errors);
  const { userIds, groupIds: given, hidden } = await eligibleApprovers(c, caller, f.project, f.namespace, p, p.group_ids !== undefined && !p.remove_hidden_groups ? rule.groups.map((g) => g.id) : []);
  // UpdateService#filter_eligible_groups!: hidden groups stay unless remove_hidden_groups.
  const groupIds = given !== undefined ? [...new Set([...given, ...hidden])] : undefined;
  // compare_with_project_rule (before_update): overridden? after the change.
  const after: LoadedRule = {
    ...rule,
    name,
    approvalsRequired,
    users: userIds !== undefined ? userIds.map((id) => ({ id }) as UserRow) : rule.users,
    groups: groupIds !== undefined ? groupIds.map((id) => ({ id }) as NamespaceRow) : rule.groups,
  };
  return [
    db.update(approvalMergeRequestRules).set({ name, approvalsRequired, modifiedFromProjectRule: overridden(after), updatedAt: Date.now() }).where(eq(approvalMergeRequestRules.id, rule.id)),
    ...mrLinkStatements(db, rule.id, userIds, groupIds),
  ];
}

/**
 * A merge request's rule write and its answer: the statements, then the merge request and its
 * approval state read back in the same batch (one round trip), seeding a fresh read memo in which
 * `present` runs without another query. A duplicate rule (a lost race) answers GitLab's validation body.
 */
export async function writeThenPresent<T>(c: Context<AppEnv>, caller: Caller, f: Found, writes: BatchItem<'sqlite'>[], present: (f: Found) => Promise<T>): Promise<T> {
  const db = c.var.db;
  let reads: ApprovalStateReads;
  try {
    // The stale system rules' rebuild first (f.rebuild), so the rules read back are the rebuilt ones.
    reads = (await writeThenRead(db, [...f.rebuild, ...writes], approvalStateReads(db, caller, sql`${f.project.id}`, f.mr.iid))) as unknown as ApprovalStateReads;
  } catch (err) {
    throw uniqueRuleError(err, 'merge request') ?? err;
  }
  return withReadMemo(c, async () => {
    const mr = reads[0][0] ?? f.mr;
    primeApprovalState(c, mr, reads);
    return present({ ...f, mr });
  });
}
