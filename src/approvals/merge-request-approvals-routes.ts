/**
 * Merge-request-level approvals (GitLab lib/api/merge_request_approvals.rb with its EE prepend,
 * ee/lib/api/merge_request_approval_rules.rb, app/services/merge_requests/approval_service.rb and
 * remove_approval_service.rb, ee/app/services/approval_rules/*). Every route runs `authenticate!`
 * (spec: all approvals endpoints require authentication).
 *
 * An approval row keeps the HEAD sha it was given at; with reset_approvals_on_push only approvals
 * at the current HEAD count or show, so a push removes them and an approval racing a push never
 * counts at the new HEAD. One row per (merge request, user): concurrent approvals make one row.
 */
import { and, asc, eq, inArray, isNull, ne, or, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import type { Db } from '../db/client';
import {
  approvalMergeRequestRules,
  approvalMergeRequestRulesGroups,
  approvalMergeRequestRulesUsers,
  approvalProjectRules,
  approvals,
  mergeRequestReviewers,
} from '../db/schema';
import { approvalRuleShort, approvalStateEntity, approvalStateRuleEntity, mergeRequestApprovalRuleEntity } from './approvals-entity';
import { userBasic } from '../users/user-entity';
import type { NamespaceRow, ProjectRow } from '../projects/abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { iso } from '../platform/time';
import { verifyPassword } from '../platform/crypto';
import { ApiError, conflict, forbidden, grapeError, notFound, recordNotFound, unauthorized, validationFailed } from '../platform/errors';
import { baseUrl, linkParamsFrom, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import {
  approveParams,
  createMrRuleParams,
  listMrRulesParams,
  mergeRequestParams,
  mrRuleParams,
  setApprovalsRequiredParams,
  updateMrRuleParams,
} from './approvals-params';
import {
  ALL_MEMBERS,
  accessibleGroupIds,
  approvalsFeature,
  assigneeIds,
  canApproveMergeRequest,
  canUpdateMergeRequest,
  isUserDefined,
  type LoadedRule,
  type LoadedState,
  loadApprovalState,
  loadMergeRequestRules,
  loadProjectRules,
  loadSettings,
  mergeRequestHead,
  multipleRulesFeature,
  overridden,
  userIdsFrom,
  visibleGroupIds,
  withApprovals,
} from './rules';
import { projectMembersAmong } from '../projects/members';
import { eligibleForApproval, type MergeRequestRow } from './state';
import { autoMergeIfReady, findReadableMergeRequest, liveState } from '../merge-requests/merge-requests';
import { systemNoteInsert, systemNoteInsertWhen } from '../issuables/system-notes';
import { ensureSystemRules } from './system-rules';
import { mergeRequestPatchId } from '../repository/patch-id';
import { withReadMemo } from '../platform/read-memo';
import { prohibited, ruleExtras, ruleLikeErrors, uniqueRuleError } from './rule-support';

const TAGS = ['merge_request_approvals'];
const RULE_TAGS = ['merge_request_approval_rules'];

const runBatch = (db: Db, stmts: BatchItem<'sqlite'>[]) => db.batch(stmts as unknown as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);

interface Found {
  project: ProjectRow;
  namespace: NamespaceRow;
  level: number;
  mr: MergeRequestRow;
  /** approve_merge_request, when already decided. */
  canApprove?: boolean;
}

/** `find_merge_request_with_access(iid, ability)`: 404 Project Not Found, 404 Not found (find_by!), then 403. */
async function findMergeRequest(c: Context<AppEnv>, caller: Caller, projectId: string, iid: number, ability: 'read' | 'update' | 'approve' | 'update_approvers'): Promise<Found> {
  const { project, namespace, level, mr } = await findReadableMergeRequest(c, caller, projectId, iid);
  const db = c.var.db;
  // Code owner rules follow the branches: rebuilt here when a push or retargeting made them stale.
  await ensureSystemRules(c, mr);
  if (ability === 'update' || ability === 'update_approvers') {
    if (!canUpdateMergeRequest(caller, project, level, mr, await assigneeIds(db, mr.id))) throw forbidden();
    // EE MergeRequestPolicy: `~can_override_approvers` prevents update_approvers.
    if (ability === 'update_approvers' && (await loadSettings(db, project.id)).disableOverridingApproversPerMergeRequest) throw forbidden();
  }
  if (ability === 'approve') {
    if (!(await canApproveMergeRequest(db, caller, project, level, mr))) throw forbidden();
    return { project, namespace, level, mr, canApprove: true };
  }
  return { project, namespace, level, mr };
}

/** ApprovalState entity of a merge request for the caller. */
async function presentApprovalState(c: Context<AppEnv>, caller: Caller, f: Found, loaded?: LoadedState) {
  const s = loaded ?? (await loadApprovalState(c, f.mr));
  const base = baseUrl(c);
  const user = (u: UserRow) => userBasic(u, { base });
  const allRules = [...s.projectRules, ...s.mergeRequestRules];
  const x = await ruleExtras(c, caller, allRules, f.level);
  const uid = caller.user?.id ?? null;
  const canApprove = uid != null && (f.canApprove ?? (await canApproveMergeRequest(c.var.db, caller, f.project, f.level, f.mr)));
  const users = await usersOf(c, s);
  const first = s.state.userDefinedRules[0];
  const firstRule = first ? findLoaded(s, first.source, first.rule.id) : undefined;
  // suggested_approvers: approvers of rules without hidden groups, minus those who approved.
  const suggestedIds = new Set<number>();
  for (const w of s.state.rules) {
    const r = findLoaded(s, w.source, w.rule.id);
    if (r && r.groups.some((g) => !x.visibleGroupIds.has(g.id))) continue;
    for (const id of w.approverIds) if (!s.input.approvedUserIds.includes(id)) suggestedIds.add(id);
  }
  const short = (w: (typeof s.state.rules)[number]) => approvalRuleShort({ id: w.rule.id, name: w.rule.ruleType === 'any_approver' ? ALL_MEMBERS : w.rule.name, ruleType: w.rule.ruleType });
  // merge_status as the merge request entity shows it (read live for open merge requests).
  const live = await liveState(c, f.mr);
  return approvalStateEntity(
    { ...f.mr, mergeStatus: live.mergeStatus },
    {
      approved: s.state.approved,
      approvalsRequired: s.state.approvalsRequired,
      approvalsLeft: s.state.approvalsLeft,
      requirePasswordToApprove: s.requirePasswordToApprove,
      approvedBy: s.approvals.map((a) => ({ user: user(s.approvalUsers.get(a.userId)!), approved_at: iso(a.createdAt) })).filter((a) => a.user),
      suggestedApprovers: [...suggestedIds].map((id) => users.get(id)).filter((u): u is UserRow => !!u).map(user),
      approvers: firstRule ? firstRule.users.map((u) => ({ user: user(u) })) : [],
      approverGroups: firstRule ? firstRule.groups.filter((g) => x.visibleGroupIds.has(g.id)).map((g) => ({ group: x.group(g) })) : [],
      userHasApproved: uid != null && s.input.approvedUserIds.includes(uid),
      userCanApprove: eligibleForApproval(s.input, uid, canApprove),
      approvalRulesLeft: s.state.approvalRulesLeft.map(short),
      hasApprovalRules: s.state.userDefinedRules.length > 0,
      mergeRequestApproversAvailable: approvalsFeature(c),
      multipleApprovalRulesAvailable: multipleRulesFeature(c),
      invalidApproversRules: s.state.invalidApproversRules.map(short),
    },
  );
}

function findLoaded(s: LoadedState, source: 'project' | 'merge_request', id: number): LoadedRule | undefined {
  return (source === 'project' ? s.projectRules : s.mergeRequestRules).find((r) => r.id === id);
}

async function usersOf(_c: Context<AppEnv>, s: LoadedState): Promise<Map<number, UserRow>> {
  const out = new Map<number, UserRow>(s.approvalUsers);
  for (const r of [...s.projectRules, ...s.mergeRequestRules]) for (const u of [...r.users, ...r.approvers]) out.set(u.id, u);
  return out;
}

/** ApprovalMergeRequestRule#approvers: the author is not eligible unless authors may approve. */
function mrRuleApprovers(rule: LoadedRule, mr: MergeRequestRow, authorApproval: boolean): UserRow[] {
  return authorApproval ? rule.approvers : rule.approvers.filter((u) => u.id !== mr.authorId);
}

async function presentMrRules(c: Context<AppEnv>, caller: Caller, f: Found, rules: LoadedRule[]) {
  const x = await ruleExtras(c, caller, rules, f.level);
  const settings = await loadSettings(c.var.db, f.project.id);
  return rules.map((r) => mergeRequestApprovalRuleEntity(r, x, { approvers: mrRuleApprovers(r, f.mr, settings.mergeRequestsAuthorApproval), overridden: overridden(r) }));
}

async function findMrRule(db: Db, mr: MergeRequestRow, id: number): Promise<LoadedRule> {
  const [rule] = Number.isSafeInteger(id) ? await loadMergeRequestRules(db, mr, [id]) : [];
  if (!rule) throw recordNotFound();
  return rule;
}

function mrLinkStatements(db: Db, ruleId: number, userIds: number[] | undefined, groupIds: number[] | undefined): BatchItem<'sqlite'>[] {
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

function deleteMrRules(db: Db, where: NonNullable<ReturnType<typeof and>>): BatchItem<'sqlite'>[] {
  const ids = db.select({ id: approvalMergeRequestRules.id }).from(approvalMergeRequestRules).where(where);
  return [
    db.delete(approvalMergeRequestRulesUsers).where(inArray(approvalMergeRequestRulesUsers.ruleId, ids)),
    db.delete(approvalMergeRequestRulesGroups).where(inArray(approvalMergeRequestRulesGroups.ruleId, ids)),
    db.delete(approvalMergeRequestRules).where(where),
  ];
}

type ErrorMap = Record<string, string[]>;

/** ApprovalMergeRequestRule validations (the indexes settle races with the same messages). */
async function mrRuleErrors(db: Db, mr: MergeRequestRow, f: { name: string; approvalsRequired: number; ruleType: string }, selfId: number | null): Promise<ErrorMap> {
  const e = ruleLikeErrors({ ...f, reportType: null });
  const others = (await db.select().from(approvalMergeRequestRules).where(eq(approvalMergeRequestRules.mergeRequestId, mr.id)).all()).filter((r) => r.id !== selfId);
  if (others.some((r) => r.ruleType === f.ruleType && r.name === f.name && r.section == null)) (e.name ??= []).push('has already been taken');
  if (f.ruleType === 'any_approver' && others.some((r) => r.ruleType === 'any_approver')) (e.rule_type ??= []).push('any-approver for the merge request already exists');
  if (mr.state === 'merged') (e.merge_request ??= []).push('must not be merged');
  return e;
}

/** ApprovalRules::CreateService for a merge request (also the deprecated POST .../approvals). */
async function createMrRule(
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
async function updateMrRule(
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

export function mountApprovalMergeRequests(r: Router) {
  const api = r.withDefaults(() => ({ signedIn: true }));
  const base = '/projects/:id/merge_requests/:merge_request_iid';

  // The read-only routes and the read phase of approve and unapprove run inside a read memo
  // (lib/read-memo.ts): the access check, the system rules, the approval state, the patch id and the
  // merge status all ask for the same branch heads, merge base and manifests.
  api.route({ method: 'GET', path: `${base}/approvals`, summary: 'List approvals for merge request', tags: TAGS, params: mergeRequestParams }, async ({ c, p, caller }) =>
    withReadMemo(c, async () => {
      const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'read');
      return c.json(await presentApprovalState(c, caller, f));
    }),
  );

  api.route(
    { method: 'POST', path: `${base}/approvals`, summary: 'Change approval-related configuration (deprecated)', tags: TAGS, params: setApprovalsRequiredParams, status: 201 },
    async ({ c, p, caller }) => {
      const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'update');
      const db = c.var.db;
      // ee/lib/ee/api/merge_request_approvals.rb: `error!` with a string, hence the `error` key.
      if ((await loadSettings(db, f.project.id)).disableOverridingApproversPerMergeRequest) throw grapeError('Overriding approvals is disabled', 422);
      const existing = await db
        .select()
        .from(approvalMergeRequestRules)
        .where(and(eq(approvalMergeRequestRules.mergeRequestId, f.mr.id), eq(approvalMergeRequestRules.ruleType, 'any_approver')))
        .get();
      if (existing) {
        const [rule] = await loadMergeRequestRules(db, f.mr, [existing.id]);
        await updateMrRule(c, caller, f, rule, { approvals_required: p.approvals_required });
      } else {
        await createMrRule(c, caller, f, { name: ALL_MEMBERS, approvals_required: p.approvals_required });
      }
      return c.json(await presentApprovalState(c, caller, f), 201);
    },
  );

  api.route({ method: 'GET', path: `${base}/approval_state`, summary: 'Get approval state of merge request', tags: TAGS, params: mergeRequestParams }, async ({ c, p, caller }) => withReadMemo(c, async () => {
    const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'read');
    const s = await loadApprovalState(c, f.mr);
    const x = await ruleExtras(c, caller, [...s.projectRules, ...s.mergeRequestRules], f.level);
    const users = await usersOf(c, s);
    return c.json({
      approval_rules_overwritten: s.state.approvalRulesOverwritten,
      rules: s.state.rules.map((w) => {
        const rule = findLoaded(s, w.source, w.rule.id)!;
        return approvalStateRuleEntity(w, rule, { ...x, usersById: users, overridden: overridden(rule) });
      }),
    });
  }));

  api.route(
    { method: 'POST', path: `${base}/approve`, summary: 'Approve a merge request', tags: TAGS, params: approveParams, status: 201 },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const user = caller.user!;
      const { f, head, s, patchIdSha } = await withReadMemo(c, async () => {
        const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'approve');
        // The HEAD this approval is given at: read once, checked against `sha`, stored with the approval.
        const head = await mergeRequestHead(c, f.mr);
        // check_sha_param!
        if (p.sha !== undefined && p.sha !== head) throw conflict(`SHA does not match HEAD of source branch: ${head ?? ''}`);
        const s = await loadApprovalState(c, f.mr);
        // The diff it approves: a later HEAD with the same diff (a rebase) keeps the approval.
        return { f, head, s, patchIdSha: await mergeRequestPatchId(c, f.mr, head) };
      });
      // ApprovalService returning nil answers 401 Unauthorized (reference §4.1, GitLab 17/18's
      // lib/api/merge_request_approvals.rb): already approved at this HEAD, ineligible (author,
      // committer), a wrong or missing password, or a merged merge request. (The newest GitLab
      // answers 304 for a repeated approval; the reference and the clients here expect 401.)
      if (s.input.approvedUserIds.includes(user.id)) throw unauthorized();
      if (s.requirePasswordToApprove && !(typeof p.approval_password === 'string' && (await verifyPassword(p.approval_password, user.passwordDigest)))) throw unauthorized();
      if (!eligibleForApproval(s.input, user.id, true) || f.mr.state === 'merged') throw unauthorized();
      const now = Date.now();
      // One row per (merge request, user): a stale row (given at another HEAD) is replaced; a
      // concurrent approve at the same HEAD leaves the first row alone and, like a later one, finds
      // the merge request already approved by the caller (401), so racing approves answer one 201.
      // The row carries this request's write id, so the reviewer state and the system note of the
      // same batch are written only by the request whose approval was stored.
      const writeId = crypto.randomUUID();
      const mine = sql`EXISTS (SELECT 1 FROM ${approvals} WHERE ${approvals.mergeRequestId} = ${f.mr.id} AND ${approvals.userId} = ${user.id} AND ${approvals.writeId} = ${writeId})`;
      const results = await runBatch(db, [
        db
          .insert(approvals)
          .values({ mergeRequestId: f.mr.id, userId: user.id, sha: head, patchIdSha, writeId, createdAt: now, updatedAt: now })
          .onConflictDoUpdate({
            target: [approvals.mergeRequestId, approvals.userId],
            set: { sha: head, patchIdSha, writeId, createdAt: now, updatedAt: now },
            setWhere: head == null ? sql`${approvals.sha} IS NOT NULL` : or(isNull(approvals.sha), ne(approvals.sha, head)),
          }),
        // update_reviewer_state and SystemNoteService.approve_mr.
        db.update(mergeRequestReviewers).set({ state: 'approved' }).where(and(eq(mergeRequestReviewers.mergeRequestId, f.mr.id), eq(mergeRequestReviewers.userId, user.id), mine)),
        systemNoteInsertWhen(db, { noteableType: 'MergeRequest', noteableId: f.mr.id, projectId: f.project.id, authorId: user.id, body: 'approved this merge request', at: now }, mine),
        db.select({ won: sql<number>`1` }).from(approvals).where(and(eq(approvals.mergeRequestId, f.mr.id), eq(approvals.userId, user.id), eq(approvals.writeId, writeId))),
      ]);
      if (!(results[results.length - 1] as unknown[]).length) throw unauthorized();
      // A merge queued with merge_when_pipeline_succeeds completes once the approval makes it mergeable.
      await autoMergeIfReady(c, f.mr.id);
      const rows = await db.select().from(approvals).where(eq(approvals.mergeRequestId, f.mr.id)).orderBy(asc(approvals.createdAt), asc(approvals.id)).all();
      return c.json(await presentApprovalState(c, caller, f, await withApprovals(c, s, rows)), 201);
    },
  );

  api.route({ method: 'POST', path: `${base}/unapprove`, summary: 'Remove an approval from a merge request', tags: TAGS, params: mergeRequestParams, status: 201 }, async ({ c, p, caller }) => {
    const db = c.var.db;
    const user = caller.user!;
    const { f, s } = await withReadMemo(c, async () => {
      const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'approve');
      return { f, s: await loadApprovalState(c, f.mr) };
    });
    // RemoveApprovalService returns nil unless the caller approved (or when merged): 404.
    if (!s.input.approvedUserIds.includes(user.id) || f.mr.state === 'merged') throw notFound();
    await runBatch(db, [
      db.delete(approvals).where(and(eq(approvals.mergeRequestId, f.mr.id), eq(approvals.userId, user.id))),
      db.update(mergeRequestReviewers).set({ state: 'unapproved' }).where(and(eq(mergeRequestReviewers.mergeRequestId, f.mr.id), eq(mergeRequestReviewers.userId, user.id))),
      // RemoveApprovalService#create_note (SystemNoteService.unapprove_mr).
      systemNoteInsert(db, { noteableType: 'MergeRequest', noteableId: f.mr.id, projectId: f.project.id, authorId: user.id, body: 'unapproved this merge request', at: Date.now() }),
    ]);
    return c.json(await presentApprovalState(c, caller, f, await withApprovals(c, s, s.approvals.filter((a) => a.userId !== user.id))), 201);
  });

  api.route(
    { method: 'PUT', path: `${base}/reset_approvals`, summary: 'Remove all merge request approvals', tags: TAGS, params: mergeRequestParams, status: 202 },
    async ({ c, p, caller }) => {
      const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'read');
      // reset_merge_request_approvals: approve_merge_request held by a bot (project or group access
      // token users); people and merged merge requests get 401.
      const bot = caller.user != null && caller.user.userType !== 'human';
      if (!bot || f.mr.state === 'merged' || !(await canApproveMergeRequest(c.var.db, caller, f.project, f.level, f.mr))) throw unauthorized();
      await c.var.db.delete(approvals).where(eq(approvals.mergeRequestId, f.mr.id)).run();
      return c.body(null, 202);
    },
  );

  api.route({ method: 'GET', path: `${base}/approval_rules`, summary: 'Get all merge request approval rules', tags: RULE_TAGS, params: listMrRulesParams }, async ({ c, p, caller }) => {
    const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'read');
    const rules = await loadMergeRequestRules(c.var.db, f.mr);
    const raw = await requestParams(c);
    const req = pageRequest(p, raw.per_page);
    const page = rules.slice(req.offset, req.offset + req.perPage);
    setPaginationHeaders(c, req, linkParamsFrom(raw, {}), rules.length, page.length);
    return c.json(await presentMrRules(c, caller, f, page));
  });

  api.route(
    { method: 'POST', path: `${base}/approval_rules`, summary: 'Create new merge request approval rules', tags: RULE_TAGS, params: createMrRuleParams, status: 201 },
    async ({ c, p, caller }) => {
      const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'update_approvers');
      const id = await createMrRule(c, caller, f, p);
      return c.json((await presentMrRules(c, caller, f, [await findMrRule(c.var.db, f.mr, id)]))[0], 201);
    },
  );

  api.route({ method: 'GET', path: `${base}/approval_rules/:approval_rule_id`, summary: 'Get merge request approval rule', tags: RULE_TAGS, params: mrRuleParams }, async ({ c, p, caller }) => {
    const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'read');
    const rule = await findMrRule(c.var.db, f.mr, p.approval_rule_id);
    return c.json((await presentMrRules(c, caller, f, [rule]))[0]);
  });

  api.route(
    { method: 'PUT', path: `${base}/approval_rules/:approval_rule_id`, summary: 'Update merge request approval rule', tags: RULE_TAGS, params: updateMrRuleParams },
    async ({ c, p, caller }) => {
      const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'update_approvers');
      const rule = await findMrRule(c.var.db, f.mr, p.approval_rule_id);
      // ApprovalMergeRequestRulePolicy: only user-defined rules are editable.
      if (!isUserDefined(rule.ruleType)) throw prohibited();
      await updateMrRule(c, caller, f, rule, p);
      return c.json((await presentMrRules(c, caller, f, [await findMrRule(c.var.db, f.mr, rule.id)]))[0]);
    },
  );

  api.route(
    { method: 'DELETE', path: `${base}/approval_rules/:approval_rule_id`, summary: 'Destroy merge request approval rule', tags: RULE_TAGS, params: mrRuleParams, status: 204 },
    async ({ c, p, caller }) => {
      const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'update_approvers');
      const db = c.var.db;
      const rule = await findMrRule(db, f.mr, p.approval_rule_id);
      checkUnmodifiedSince(c, rule.updatedAt);
      if (!isUserDefined(rule.ruleType)) throw prohibited();
      if (f.mr.state === 'merged') throw new ApiError(400, { message: 'Merge request already merged' });
      await runBatch(db, deleteMrRules(db, eq(approvalMergeRequestRules.id, rule.id)));
      return c.body(null, 204);
    },
  );
}

