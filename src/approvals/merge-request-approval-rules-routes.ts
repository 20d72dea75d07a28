/** Merge request approval rules (GitLab ee/lib/api/merge_request_approval_rules.rb, ee/app/services/approval_rules/*). */
import { eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { approvalMergeRequestRules } from '../db/schema';
import { type MergeRequestApprovalRule, mergeRequestApprovalRuleEntity, MergeRequestApprovalRuleSchema } from './approvals-entity';
import { checkUnmodifiedSince } from '../platform/conditional';
import { ApiError, recordNotFound } from '../platform/errors';
import { memo, withReadMemo } from '../platform/read-memo';
import { linkParamsFrom, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { createMrRuleParams, listMrRulesParams, mrRuleParams, updateMrRuleParams } from './approvals-params';
import { isUserDefined, type LoadedRule, loadSettings, overridden } from './rules';
import type { MergeRequestRow } from './state';
import { prohibited, ruleExtras, runBatch } from './rule-support';
import { createMrRule, deleteMrRules, type Found, findMergeRequest, findMrRule, mrRulesOf, updateMrRule, writeThenPresent } from './merge-request-rules';

const RULE_TAGS = ['merge_request_approval_rules'];

export function mountMergeRequestApprovalRules(r: Router) {
  const api = r.withDefaults(() => ({ signedIn: true }));
  const base = '/projects/:id/merge_requests/:merge_request_iid';

  api.route({ method: 'GET', path: `${base}/approval_rules`, summary: 'Get all merge request approval rules', tags: RULE_TAGS, params: listMrRulesParams, responses: { 200: z.array(MergeRequestApprovalRuleSchema) } }, async ({ c, p, caller }) => withReadMemo(c, async () => {
    // The rules, their approvers and the settings come with the merge request (state-reads.ts, through the memo).
    const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'read');
    const rules = await mrRulesOf(c, f.mr);
    const raw = await requestParams(c);
    const req = pageRequest(p, raw.per_page);
    const page = rules.slice(req.offset, req.offset + req.perPage);
    setPaginationHeaders(c, req, linkParamsFrom(raw, {}), rules.length, page.length);
    return c.json(await presentMrRules(c, caller, f, page));
  }));

  // Writes: the merge request, its rules and settings in one round trip (state-reads.ts, through the
  // memo), then the write with the rules read back in the same batch (writeThenPresent), the rebuild
  // of stale system rules (after a push) at its head: the rules a write may touch are user-defined
  // ones, which the rebuild leaves alone, so they are checked against the rules read first.
  api.route(
    { method: 'POST', path: `${base}/approval_rules`, summary: 'Create new merge request approval rules', tags: RULE_TAGS, params: createMrRuleParams, responses: { 201: MergeRequestApprovalRuleSchema } },
    async ({ c, p, caller }) => {
      const { f, writes, ruleOf } = await withReadMemo(c, async () => {
        const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'update_approvers', { deferRebuild: true });
        return { f, ...(await createMrRule(c, caller, f, p)) };
      });
      return writeThenPresent(c, caller, f, writes, async (f) => c.json((await presentMrRules(c, caller, f, [found(ruleOf(await mrRulesOf(c, f.mr)))]))[0], 201));
    },
  );

  api.route({ method: 'GET', path: `${base}/approval_rules/:approval_rule_id`, summary: 'Get merge request approval rule', tags: RULE_TAGS, params: mrRuleParams, responses: { 200: MergeRequestApprovalRuleSchema } }, async ({ c, p, caller }) => withReadMemo(c, async () => {
    const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'read');
    const rule = (await mrRulesOf(c, f.mr)).find((r) => r.id === p.approval_rule_id);
    if (!rule) throw recordNotFound();
    return c.json((await presentMrRules(c, caller, f, [rule]))[0]);
  }));

  api.route(
    { method: 'PUT', path: `${base}/approval_rules/:approval_rule_id`, summary: 'Update merge request approval rule', tags: RULE_TAGS, params: updateMrRuleParams, responses: { 200: MergeRequestApprovalRuleSchema } },
    async ({ c, p, caller }) => {
      const { f, rule, writes } = await withReadMemo(c, async () => {
        const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'update_approvers', { deferRebuild: true });
        const rule = await findMrRule(c, f.mr, p.approval_rule_id);
        // ApprovalMergeRequestRulePolicy: only user-defined rules are editable.
        if (!isUserDefined(rule.ruleType)) throw prohibited();
        return { f, rule, writes: await updateMrRule(c, caller, f, rule, p) };
      });
      return writeThenPresent(c, caller, f, writes, async (f) => c.json((await presentMrRules(c, caller, f, [found((await mrRulesOf(c, f.mr)).find((r) => r.id === rule.id))]))[0]));
    },
  );

  api.route(
    { method: 'DELETE', path: `${base}/approval_rules/:approval_rule_id`, summary: 'Destroy merge request approval rule', tags: RULE_TAGS, params: mrRuleParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      const { f, rule } = await withReadMemo(c, async () => {
        const f = await findMergeRequest(c, caller, p.id, p.merge_request_iid, 'update_approvers', { deferRebuild: true });
        return { f, rule: await findMrRule(c, f.mr, p.approval_rule_id) };
      });
      checkUnmodifiedSince(c, rule.updatedAt);
      if (!isUserDefined(rule.ruleType)) throw prohibited();
      if (f.mr.state === 'merged') throw new ApiError(400, { message: 'Merge request already merged' });
      const db = c.var.db;
      await runBatch(db, [...f.rebuild, ...deleteMrRules(db, eq(approvalMergeRequestRules.id, rule.id))]);
      return c.body(null, 204);
    },
  );
}

/** The rule a write read back (gone only if a concurrent request deleted it meanwhile). */
function found(rule: LoadedRule | undefined): LoadedRule {
  if (!rule) throw recordNotFound();
  return rule;
}

/** ApprovalMergeRequestRule#approvers: the author is not eligible unless authors may approve. */
function mrRuleApprovers(rule: LoadedRule, mr: MergeRequestRow, authorApproval: boolean): UserRow[] {
  return authorApproval ? rule.approvers : rule.approvers.filter((u) => u.id !== mr.authorId);
}

async function presentMrRules(c: Context<AppEnv>, caller: Caller, f: Found, rules: LoadedRule[]): Promise<MergeRequestApprovalRule[]> {
  const x = await ruleExtras(c, caller, rules, f.level);
  const settings = await memo(c, `approval-settings:${f.project.id}`, () => loadSettings(c.var.db, f.project.id));
  return rules.map((r) => mergeRequestApprovalRuleEntity(r, x, { approvers: mrRuleApprovers(r, f.mr, settings.mergeRequestsAuthorApproval), overridden: overridden(r) }));
}
