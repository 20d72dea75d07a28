/**
 * Merge request approval rules' writes (GitLab ee/app/services/approval_rules/*,
 * ee/app/models/approval_merge_request_rule.rb) and the merge request lookup every approvals route
 * of a merge request starts with (`find_merge_request_with_access`).
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import type { Db } from '../db/client';
import { approvalMergeRequestRules, approvalMergeRequestRulesGroups, approvalMergeRequestRulesUsers, approvalProjectRules, mergeRequests } from '../db/schema';
import type { NamespaceRow, ProjectRow } from '../projects/abilities';
import { forbidden, recordNotFound, validationFailed } from '../platform/errors';
import { findReadableProjectWith } from '../projects/projects';
import { canReadMergeRequests } from '../projects/abilities';
import { isMemoised, memo } from '../platform/read-memo';
import { approvalStateReads, type ApprovalStateReads, primeApprovalState } from './state-reads';
import { projectMembersAmong } from '../projects/members';
import { accessibleGroupIds, type LoadedRule, loadMergeRequestRules, loadProjectRules, loadSettings, multipleRulesFeature, overridden, userIdsFrom, visibleGroupIds } from './rules';
import { assigneeIds, canApproveMergeRequest, canUpdateMergeRequest } from './approval-access';
import type { MergeRequestRow } from './state';
import { ensureSystemRules } from './system-rules';
import { type ErrorMap, ruleLikeErrors, runBatch, uniqueRuleError } from './rule-support';

export interface Found {
  project: ProjectRow;
  namespace: NamespaceRow;
  level: number;
  mr: MergeRequestRow;
  /** approve_merge_request, when already decided. */
  canApprove?: boolean;
}

/** `find_merge_request_with_access(iid, ability)`: 404 Project Not Found, 404 Not found (find_by!), then 403. */
export async function findMergeRequest(c: Context<AppEnv>, caller: Caller, projectId: string, iid: number, ability: 'read' | 'update' | 'approve' | 'update_approvers'): Promise<Found> {
  const { project, namespace, level, mr } = await findMergeRequestWithState(c, caller, projectId, iid);
  const db = c.var.db;
  // Code owner rules follow the branches: rebuilt here when a push or retargeting made them stale.
  await ensureSystemRules(c, mr);
  if (ability === 'update' || ability === 'update_approvers') {
    if (!canUpdateMergeRequest(caller, project, level, mr, await memo(c, `assignees:${mr.id}`, () => assigneeIds(db, mr.id)))) throw forbidden();
    // EE MergeRequestPolicy: `~can_override_approvers` prevents update_approvers.
    if (ability === 'update_approvers' && (await memo(c, `approval-settings:${project.id}`, () => loadSettings(db, project.id))).disableOverridingApproversPerMergeRequest) throw forbidden();
  }
  if (ability === 'approve') {
    if (!(await canApproveMergeRequest(c, caller, project, level, mr))) throw forbidden();
    return { project, namespace, level, mr, canApprove: true };
  }
  return { project, namespace, level, mr };
}

export async function findMrRule(db: Db, mr: MergeRequestRow, id: number): Promise<LoadedRule> {
  const [rule] = Number.isSafeInteger(id) ? await loadMergeRequestRules(db, mr, [id]) : [];
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
  const { reads, ...pr } = await findReadableProjectWith(c, caller, projectId, (pid) => (safe && isMemoised(c) ? approvalStateReads(c.var.db, caller, pid, iid) : ([] as const)));
  if (!safe) throw recordNotFound();
  const mr = reads.length ? (reads as unknown as ApprovalStateReads)[0][0] : await c.var.db.select().from(mergeRequests).where(and(eq(mergeRequests.projectId, pr.project.id), eq(mergeRequests.iid, iid))).get();
  if (!mr) throw recordNotFound();
  if (!canReadMergeRequests(caller, pr.project, pr.level)) throw forbidden();
  if (reads.length) primeApprovalState(c, mr, reads as unknown as ApprovalStateReads);
  return { ...pr, mr };
}

export function mrLinkStatements(db: Db, ruleId: number, userIds: number[] | undefined, groupIds: number[] | undefined): BatchItem<'sqlite'>[] {
  const out: BatchItem<'sqlite'>[] = [];
  if (userIds !== undefined) {
    out.push(db.delete(approvalMergeRequestRulesUsers).where(eq(approvalMergeRequestRulesUsers.ruleId, ruleId)));
    for (let i = 0; i < userIds.length; i += 40) out.push(db.insert(approvalMergeRequestRulesUsers).values(userIds.slice(i, i + 40).map((userId) => ({ ruleId, userId }))).onConflictDoNothing());
  }
  if (groupIds !== undefined) {
    out.push(db.delete(approvalMergeRequestRulesGroups).where(eq(approvalMergeRequestRulesGroups.ruleId, ruleId)));
    for (let i = 0; i < groupIds.length; i += 40) out.push(db.insert(approvalMergeRequestRulesGroups).values(groupIds.slice(i, i + 40).map((groupId) => ({ ruleId, groupId }))).onConflictDoNothing());
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

/** ApprovalMergeRequestRule validations (the indexes settle races with the same messages). */
export async function mrRuleErrors(db: Db, mr: MergeRequestRow, f: { name: string; approvalsRequired: number; ruleType: string }, selfId: number | null): Promise<ErrorMap> {
  const e = ruleLikeErrors({ ...f, reportType: null });
  const others = (await db.select().from(approvalMergeRequestRules).where(eq(approvalMergeRequestRules.mergeRequestId, mr.id)).all()).filter((r) => r.id !== selfId);
  if (others.some((r) => r.ruleType === f.ruleType && r.name === f.name && r.section == null)) (e.name ??= []).push('has already been taken');
  if (f.ruleType === 'any_approver' && others.some((r) => r.ruleType === 'any_approver')) (e.rule_type ??= []).push('any-approver for the merge request already exists');
  if (mr.state === 'merged') (e.merge_request ??= []).push('must not be merged');
  return e;
}

/** ApprovalRules::CreateService for a merge request (also the deprecated POST .../approvals). */
export async function createMrRule(
  c: Context<AppEnv>,
  caller: Caller,
  f: Found,
  p: { name: string; approvals_required: number; approval_project_rule_id?: number; user_ids?: number[]; group_ids?: number[]; usernames?: string[] },
): Promise<number> {
  const db = c.var.db;
  let name = p.name;
  let userIds: number[] | undefined;
  let groupIds: number[] | undefined;
  let sourceId: number | null = null;
  const approversSet = p.user_ids !== undefined || p.group_ids !== undefined || p.usernames !== undefined;
  if (p.approval_project_rule_id !== undefined) {
    // copy_approval_project_rule_properties: the project rule's name, and its users and groups unless approvers were sent.
    const source = Number.isSafeInteger(p.approval_project_rule_id)
      ? await db.select().from(approvalProjectRules).where(eq(approvalProjectRules.id, p.approval_project_rule_id)).get()
      : undefined;
    if (!source || source.projectId !== f.project.id) throw validationFailed({ approval_project_rule: ['must be for the same project'] });
    sourceId = source.id;
    name = source.name;
    if (!approversSet) {
      const [loaded] = await loadProjectRules(db, f.project.id, [source.id]);
      userIds = loaded.users.map((u) => u.id);
      groupIds = loaded.groups.map((g) => g.id);
    }
  }
  if (approversSet) {
    if (p.user_ids !== undefined || p.usernames !== undefined) userIds = await projectMembersAmong(db, f.project, f.namespace, await userIdsFrom(db, p.user_ids ?? [], p.usernames ?? []));
    if (p.group_ids !== undefined) groupIds = await accessibleGroupIds(db, caller, p.group_ids);
  }
  const approversPresent = [p.user_ids, p.group_ids, p.usernames].some((v) => v !== undefined && v.length > 0) || Boolean(userIds?.length || groupIds?.length);
  const ruleType = approversPresent ? 'regular' : 'any_approver';
  const pre: BatchItem<'sqlite'>[] = [];
  if (approversPresent && !multipleRulesFeature(c)) pre.push(...deleteMrRules(db, and(eq(approvalMergeRequestRules.mergeRequestId, f.mr.id), eq(approvalMergeRequestRules.ruleType, 'any_approver'))!));
  const errors = await mrRuleErrors(db, f.mr, { name, approvalsRequired: p.approvals_required, ruleType }, null);
  if (pre.length) delete errors.rule_type;
  if (Object.keys(errors).length) throw validationFailed(errors);
  const now = Date.now();
  try {
    if (pre.length) await runBatch(db, pre);
    const row = await db
      .insert(approvalMergeRequestRules)
      .values({ mergeRequestId: f.mr.id, name, approvalsRequired: p.approvals_required, ruleType, approvalProjectRuleId: sourceId, createdAt: now, updatedAt: now })
      .returning({ id: approvalMergeRequestRules.id })
      .get();
    const links = mrLinkStatements(db, row.id, userIds ?? [], groupIds ?? []);
    if (links.length) await runBatch(db, links);
    return row.id;
  } catch (err) {
    throw uniqueRuleError(err, 'merge request') ?? err;
  }
}

/** ApprovalRules::UpdateService for a merge request rule; records modified_from_project_rule. */
export async function updateMrRule(
  c: Context<AppEnv>,
  caller: Caller,
  f: Found,
  rule: LoadedRule,
  p: { name?: string; approvals_required?: number; user_ids?: number[]; group_ids?: number[]; usernames?: string[]; remove_hidden_groups?: boolean },
) {
  const db = c.var.db;
  const name = p.name ?? rule.name;
  const approvalsRequired = p.approvals_required ?? rule.approvalsRequired;
  const errors = await mrRuleErrors(db, f.mr, { name, approvalsRequired, ruleType: rule.ruleType }, rule.id);
  if (Object.keys(errors).length) throw validationFailed(errors);
  const userIds = p.user_ids !== undefined || p.usernames !== undefined ? await projectMembersAmong(db, f.project, f.namespace, await userIdsFrom(db, p.user_ids ?? [], p.usernames ?? [])) : undefined;
  let groupIds = p.group_ids !== undefined ? await accessibleGroupIds(db, caller, p.group_ids) : undefined;
  if (groupIds !== undefined && !p.remove_hidden_groups) {
    const visible = await visibleGroupIds(db, caller, rule.groups.map((g) => g.id));
    groupIds = [...new Set([...groupIds, ...rule.groups.filter((g) => !visible.has(g.id)).map((g) => g.id)])];
  }
  // compare_with_project_rule (before_update): overridden? after the change.
  const after: LoadedRule = {
    ...rule,
    name,
    approvalsRequired,
    users: userIds !== undefined ? userIds.map((id) => ({ id }) as UserRow) : rule.users,
    groups: groupIds !== undefined ? groupIds.map((id) => ({ id }) as NamespaceRow) : rule.groups,
  };
  const now = Date.now();
  try {
    await runBatch(db, [
      db.update(approvalMergeRequestRules).set({ name, approvalsRequired, modifiedFromProjectRule: overridden(after), updatedAt: now }).where(eq(approvalMergeRequestRules.id, rule.id)),
      ...mrLinkStatements(db, rule.id, userIds, groupIds),
    ]);
  } catch (err) {
    throw uniqueRuleError(err, 'merge request') ?? err;
  }
}
