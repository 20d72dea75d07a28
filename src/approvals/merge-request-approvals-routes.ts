/**
 * Merge-request-level approvals (GitLab lib/api/merge_request_approvals.rb with its EE prepend,
 * app/services/merge_requests/approval_service.rb and remove_approval_service.rb). Every route runs `authenticate!`
 * (spec: all approvals endpoints require authentication).
 *
 * An approval row keeps the HEAD sha it was given at; with reset_approvals_on_push only approvals
 * at the current HEAD count or show, so a push removes them and an approval racing a push never
 * counts at the new HEAD. One row per (merge request, user): concurrent approvals make one row.
 * The approval rules of a merge request live in merge-request-approval-rules-routes.ts.
 */
import { and, asc, eq, isNull, ne, or, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { approvals, mergeRequestReviewers } from '../db/schema';
import {
  approvalEntity,
  approvalRuleShort,
  type ApprovalState,
  approvalStateEntity,
  ApprovalStateSchema,
  approvalStateRuleEntity,
  mergeRequestApprovalStateEntity,
  MergeRequestApprovalStateSchema,
} from './approvals-entity';
import { userBasic } from '../users/user-entity';
import { verifyPassword } from '../platform/crypto';
import { conflict, grapeError, notFound, unauthorized } from '../platform/errors';
import { baseUrl } from '../platform/pagination';
import type { Router } from '../platform/router';
import { approveParams, mergeRequestParams, setApprovalsRequiredParams } from './approvals-params';
import { ALL_MEMBERS, type ApprovalRow, approvalsFeature, type LoadedRule, loadSettings, multipleRulesFeature, overridden } from './rules';
import { type LoadedState, loadApprovalState, mergeRequestHead, patchIdAt, withApprovals } from './state-loader';
import { canApproveMergeRequest } from './approval-access';
import { computeApprovalState, eligibleForApproval } from './state';
import { liveState } from '../merge-requests/live-state';
import { autoMergeIfReady } from '../merge-requests/merge';
import { systemNoteInsert, systemNoteInsertWhen } from '../issuables/system-notes';
import { forgetMemo, memo, primeMemo, withReadMemo } from '../platform/read-memo';
import { ruleExtras, runBatch } from './rule-support';
import { cachedQueries } from '../db/prepared';
import type { Db } from '../db/client';
import { createMrRule, type Found, findMergeRequest, mrRulesOf, updateMrRule, writeThenPresent } from './merge-request-rules';
import { mountMergeRequestApprovalRules } from './merge-request-approval-rules-routes';
import { recordEvent } from '../platform/events';

const TAGS = ['merge_request_approvals'];

export function mountApprovalMergeRequests(r: Router) {
  const api = r.withDefaults(() => ({ signedIn: true }));
  const base = '/projects/:id/merge_requests/:merge_request_iid';

  // The read-only routes and the read phase of approve and unapprove run inside a read memo
  // (platform/read-memo.ts): the access check, the system rules, the approval state, the patch id and the
  // merge status all ask for the same branch heads, merge base and manifests.
  api.route({ method: 'GET', path: `${base}/approvals`, summary: 'List approvals for merge request', tags: TAGS, params: mergeRequestParams, responses: { 200: ApprovalStateSchema } }, async ({ c, p, caller }) =>
    withReadMemo(c, async () => {
      const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'read');
      return c.json(await presentApprovalState(c, caller, f));
    }),
  );

  api.route(
    { method: 'POST', path: `${base}/approvals`, summary: 'Change approval-related configuration (deprecated)', tags: TAGS, params: setApprovalsRequiredParams, responses: { 201: ApprovalStateSchema } },
    async ({ c, p, caller }) => {
      // The merge request, its rules and settings in one round trip (state-reads.ts, through the memo),
      // then the rule's write with the approval state read back in the same batch.
      const { f, writes } = await withReadMemo(c, async () => {
        const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'update', { deferRebuild: true });
        // ee/lib/ee/api/merge_request_approvals.rb: `error!` with a string, hence the `error` key.
        if ((await memo(c, `approval-settings:${f.project.id}`, () => loadSettings(c.var.db, f.project.id))).disableOverridingApproversPerMergeRequest) throw grapeError('Overriding approvals is disabled', 422);
        const existing = (await mrRulesOf(c, f.mr)).find((r) => r.ruleType === 'any_approver');
        const writes = existing
          ? await updateMrRule(c, caller, f, existing, { approvals_required: p.approvals_required })
          : (await createMrRule(c, caller, f, { name: ALL_MEMBERS, approvals_required: p.approvals_required })).writes;
        return { f, writes };
      });
      return writeThenPresent(c, caller, f, writes, async (f) => c.json(await presentApprovalState(c, caller, f), 201));
    },
  );

  api.route({ method: 'GET', path: `${base}/approval_state`, summary: 'Get approval state of merge request', tags: TAGS, params: mergeRequestParams, responses: { 200: MergeRequestApprovalStateSchema } }, async ({ c, p, caller }) => withReadMemo(c, async () => {
    const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'read');
    const s = await loadApprovalState(c, f.mr);
    const x = await ruleExtras(c, caller, [...s.projectRules, ...s.mergeRequestRules], f.level);
    const users = await usersOf(c, s);
    return c.json(
      mergeRequestApprovalStateEntity(
        s.state.approvalRulesOverwritten,
        s.state.rules.map((w) => {
          const rule = findLoaded(s, w.source, w.rule.id)!;
          return approvalStateRuleEntity(w, rule, { ...x, usersById: users, overridden: overridden(rule) });
        }),
      ),
    );
  }));

  api.route(
    { method: 'POST', path: `${base}/approve`, summary: 'Approve a merge request', tags: TAGS, params: approveParams, responses: { 201: ApprovalStateSchema } },
    async ({ c, p, caller }) => withReadMemo(c, async () => {
      const db = c.var.db;
      const user = caller.user!;
      const { f, head, s, patchIdSha } = await (async () => {
        const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'approve');
        // The HEAD this approval is given at: read once, checked against `sha`, stored with the approval.
        const head = await mergeRequestHead(c, f.mr);
        // check_sha_param!
        if (p.sha !== undefined && p.sha !== head) throw conflict(`SHA does not match HEAD of source branch: ${head ?? ''}`);
        const s = await loadApprovalState(c, f.mr);
        // The diff it approves: a later HEAD with the same diff (a rebase) keeps the approval.
        return { f, head, s, patchIdSha: await patchIdAt(c, f.mr, head) };
      })();
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
      // EE ApprovalService#execute_approval_hooks: `approved` once no approval is left, else `approval`.
      const left = computeApprovalState({ ...s.input, approvedUserIds: [...s.input.approvedUserIds, user.id] }).approvalsLeft;
      const action = left === 0 ? 'approved' : 'approval';
      const results = await runBatch(db, [...recordEvent(c, { kind: 'merge_request', projectId: f.project.id, objectId: f.mr.id, action, actorId: user.id }), ...approveWrites(db, head == null, { mr: f.mr.id, user: user.id, project: f.project.id, head, patchIdSha, writeId, now })]);
      const rows = results[results.length - 1] as ApprovalRow[];
      if (!rows.some((a) => a.userId === user.id && a.writeId === writeId)) throw unauthorized();
      // The memo's approvals are those before the write; nothing else it holds was written.
      forgetMemo(c, `approvals:${f.mr.id}`);
      primeMemo(c, [[`user:${user.id}`, user]]);
      // A merge queued with merge_when_pipeline_succeeds completes once the approval makes it mergeable
      // (the row was read in this request: a merge request queued since is merged by the next approval or push).
      if (f.mr.mergeWhenPipelineSucceeds) await autoMergeIfReady(c, f.mr.id);
      return c.json(await presentApprovalState(c, caller, f, await withApprovals(c, s, rows)), 201);
    }),
  );

  api.route({ method: 'POST', path: `${base}/unapprove`, summary: 'Remove an approval from a merge request', tags: TAGS, params: mergeRequestParams, responses: { 201: ApprovalStateSchema } }, async ({ c, p, caller }) => withReadMemo(c, async () => {
    const db = c.var.db;
    const user = caller.user!;
    const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'approve');
    const s = await loadApprovalState(c, f.mr);
    // RemoveApprovalService returns nil unless the caller approved (or when merged): 404.
    if (!s.input.approvedUserIds.includes(user.id) || f.mr.state === 'merged') throw notFound();
    // EE RemoveApprovalService: `unapproved` only when this removal ends the approval, else `unapproval`.
    const wasApproved = computeApprovalState(s.input).approvalsLeft === 0;
    const isApproved = computeApprovalState({ ...s.input, approvedUserIds: s.input.approvedUserIds.filter((id) => id !== user.id) }).approvalsLeft === 0;
    const action = wasApproved && !isApproved ? 'unapproved' : 'unapproval';
    await runBatch(db, [...recordEvent(c, { kind: 'merge_request', projectId: f.project.id, objectId: f.mr.id, action, actorId: user.id }), ...unapproveWrites(db, { mr: f.mr.id, user: user.id, project: f.project.id, now: Date.now() })]);
    // The answer is computed from what was read minus the removed approval (the memo's approvals are those before the delete).
    forgetMemo(c, `approvals:${f.mr.id}`);
    return c.json(await presentApprovalState(c, caller, f, await withApprovals(c, s, s.approvals.filter((a) => a.userId !== user.id))), 201);
  }));

  api.route(
    { method: 'PUT', path: `${base}/reset_approvals`, summary: 'Remove all merge request approvals', tags: TAGS, params: mergeRequestParams, responses: { 202: null } },
    async ({ c, p, caller }) => {
      // The merge request and what approve_merge_request asks in one round trip (state-reads.ts, through the memo), then the delete.
      const f = await withReadMemo(c, async () => {
        const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'read');
        // reset_merge_request_approvals: approve_merge_request held by a bot (project or group access
        // token users); people and merged merge requests get 401.
        const bot = caller.user != null && caller.user.userType !== 'human';
        if (!bot || f.mr.state === 'merged' || !(await canApproveMergeRequest(c, caller, f.project, f.level, f.mr))) throw unauthorized();
        return f;
      });
      await c.var.db.delete(approvals).where(eq(approvals.mergeRequestId, f.mr.id)).run();
      return c.body(null, 202);
    },
  );

  mountMergeRequestApprovalRules(r);
}

/** A statement's value, filled in when a statement built once runs (db/prepared.ts). */
const value = <T>(name: string) => sql.placeholder(name) as unknown as T;

/**
 * The approve's batch, built once per Db (db/prepared.ts: building its SQL cost more than running
 * it): the approval (a stale row, given at another HEAD, is replaced), the reviewer state and the
 * system note written only by the request whose approval was stored (its write id), and the
 * approvals after the write.
 */
function approveWrites(db: Db, noHead: boolean, values: { mr: number; user: number; project: number; head: string | null; patchIdSha: string | null; writeId: string; now: number }) {
  return cachedQueries(
    db,
    `approve:${noHead ? 'no-head' : 'head'}`,
    (d) => {
      const [mr, user, head, now] = [value<number>('mr'), value<number>('user'), value<string>('head'), value<number>('now')];
      const stored = { sha: head, patchIdSha: value<string>('patchIdSha'), writeId: value<string>('writeId'), createdAt: now, updatedAt: now };
      const mine = sql`EXISTS (SELECT 1 FROM ${approvals} WHERE ${approvals.mergeRequestId} = ${mr} AND ${approvals.userId} = ${user} AND ${approvals.writeId} = ${stored.writeId})`;
      return [
        d
          .insert(approvals)
          .values({ mergeRequestId: mr, userId: user, ...stored })
          .onConflictDoUpdate({ target: [approvals.mergeRequestId, approvals.userId], set: stored, setWhere: noHead ? sql`${approvals.sha} IS NOT NULL` : or(isNull(approvals.sha), ne(approvals.sha, head)) }),
        // update_reviewer_state and SystemNoteService.approve_mr.
        d.update(mergeRequestReviewers).set({ state: 'approved' }).where(and(eq(mergeRequestReviewers.mergeRequestId, mr), eq(mergeRequestReviewers.userId, user), mine)),
        systemNoteInsertWhen(d, { noteableType: 'MergeRequest', noteableId: mr, projectId: value<number>('project'), authorId: user, body: 'approved this merge request', at: now }, mine),
        // The approvals after the write, read back in the same batch: the answer's approved_by.
        d.select().from(approvals).where(eq(approvals.mergeRequestId, mr)).orderBy(asc(approvals.createdAt), asc(approvals.id)),
      ] as const;
    },
    values,
  );
}

/** The unapprove's batch, built once per Db: the approval removed, the reviewer state, RemoveApprovalService#create_note (SystemNoteService.unapprove_mr). */
function unapproveWrites(db: Db, values: { mr: number; user: number; project: number; now: number }) {
  return cachedQueries(
    db,
    'unapprove',
    (d) => {
      const [mr, user, now] = [value<number>('mr'), value<number>('user'), value<number>('now')];
      return [
        d.delete(approvals).where(and(eq(approvals.mergeRequestId, mr), eq(approvals.userId, user))),
        d.update(mergeRequestReviewers).set({ state: 'unapproved' }).where(and(eq(mergeRequestReviewers.mergeRequestId, mr), eq(mergeRequestReviewers.userId, user))),
        systemNoteInsert(d, { noteableType: 'MergeRequest', noteableId: mr, projectId: value<number>('project'), authorId: user, body: 'unapproved this merge request', at: now }),
      ] as const;
    },
    values,
  );
}

/** ApprovalState entity of a merge request for the caller. */
async function presentApprovalState(c: Context<AppEnv>, caller: Caller, f: Found, loaded?: LoadedState): Promise<ApprovalState> {
  const s = loaded ?? (await loadApprovalState(c, f.mr));
  const base = baseUrl(c);
  const user = (u: UserRow) => userBasic(u, { base });
  const allRules = [...s.projectRules, ...s.mergeRequestRules];
  const x = await ruleExtras(c, caller, allRules, f.level);
  const uid = caller.user?.id ?? null;
  const canApprove = uid != null && (f.canApprove ?? (await canApproveMergeRequest(c, caller, f.project, f.level, f.mr)));
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
  const live = await liveState(c, f.mr, { mergeMethod: f.project.mergeMethod });
  return approvalStateEntity(
    { ...f.mr, mergeStatus: live.mergeStatus },
    {
      approved: s.state.approved,
      approvalsRequired: s.state.approvalsRequired,
      approvalsLeft: s.state.approvalsLeft,
      requirePasswordToApprove: s.requirePasswordToApprove,
      approvedBy: s.approvals.map((a) => approvalEntity(a, user(s.approvalUsers.get(a.userId)!))).filter((a) => a.user),
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
