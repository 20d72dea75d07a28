/**
 * Project approval rules (GitLab ee/lib/api/project_approval_rules.rb,
 * helpers/project_approval_rules_helpers.rb, ee/app/services/approval_rules/*). Rules need the
 * Premium feature merge_request_approvers (403 otherwise); listing them also allows
 * create_merge_request_in (Developer+), changing them needs modify_approvers_rules (Maintainer+):
 * the writes live in project-approval-rule-writes.ts.
 */
import { z } from 'zod';
import { ProjectApprovalRuleSchema } from './approvals-entity';
import { recordNotFound } from '../platform/errors';
import { linkParamsFrom, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { listProjectRulesParams, projectRuleParams } from './approvals-params';
import { multipleRulesFeature, visibleProjectRules } from './rules';
import { findReadableProjectWith } from '../projects/projects';
import { withReadMemo } from '../platform/read-memo';
import { projectRulesFrom } from './state-reads';
import { authorizeReadRules, checkFeature, presentProjectRules, rulesWithBranchReads, splitRuleReads } from './project-rule-present';
import { mountProjectApprovalRuleWrites } from './project-approval-rule-writes';

const RULE_TAGS = ['approval_rules'];

export function mountProjectApprovalRules(r: Router) {
  const api = r.withDefaults(() => ({ signedIn: true }));

  api.route(
    { method: 'GET', path: '/projects/:id/approval_rules', summary: 'Get all project approval rules', tags: RULE_TAGS, params: listProjectRulesParams, responses: { 200: z.array(ProjectApprovalRuleSchema) } },
    async ({ c, p, caller }) => withReadMemo(c, async () => {
      checkFeature(c);
      // The rules and everything they present come with the project (state-reads.ts).
      const { project, level, reads } = await findReadableProjectWith(c, caller, p.id, (pid) => rulesWithBranchReads(c.var.db, caller, pid));
      const [ruleReads, branchReads] = splitRuleReads(reads);
      authorizeReadRules(caller, project, level);
      const rules = visibleProjectRules(projectRulesFrom(c, ruleReads), multipleRulesFeature(c));
      // Kaminari.paginate_array over the visible rules.
      const req = pageRequest(p, (await requestParams(c)).per_page);
      const page = rules.slice(req.offset, req.offset + req.perPage);
      setPaginationHeaders(c, req, linkParamsFrom(await requestParams(c), {}), rules.length, page.length);
      return c.json(await presentProjectRules(c, caller, page, level, branchReads));
    }),
  );

  api.route(
    { method: 'GET', path: '/projects/:id/approval_rules/:approval_rule_id', summary: 'Get a single approval rule', tags: RULE_TAGS, params: projectRuleParams, responses: { 200: ProjectApprovalRuleSchema } },
    async ({ c, p, caller }) => withReadMemo(c, async () => {
      checkFeature(c);
      const { project, level, reads } = await findReadableProjectWith(c, caller, p.id, (pid) => rulesWithBranchReads(c.var.db, caller, pid));
      const [ruleReads, branchReads] = splitRuleReads(reads);
      authorizeReadRules(caller, project, level);
      const rule = projectRulesFrom(c, ruleReads).find((r) => r.id === p.approval_rule_id);
      if (!rule) throw recordNotFound();
      return c.json((await presentProjectRules(c, caller, [rule], level, branchReads))[0]);
    }),
  );

  mountProjectApprovalRuleWrites(r);
}
