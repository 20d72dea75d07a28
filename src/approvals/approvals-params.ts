/**
 * Approvals API parameters (GitLab ee/lib/api/project_approvals.rb, project_approval_rules.rb,
 * helpers/project_approval_rules_helpers.rb, merge_request_approval_rules.rb,
 * ee/lib/ee/api/merge_request_approvals.rb, lib/api/merge_request_approvals.rb).
 */
import { paginationParams } from '../platform/pagination';
import { g, LONG_LIST_MAX, params } from '../platform/validate';

const id = g.string();
const merge_request_iid = g.int();
const approval_rule_id = g.int();

export const projectParams = params({ id });

const SETTINGS = [
  'approvals_before_merge',
  'reset_approvals_on_push',
  'selective_code_owner_removals',
  'disable_overriding_approvers_per_merge_request',
  'merge_requests_author_approval',
  'merge_requests_disable_committers_approval',
  'require_password_to_approve',
  'require_reauthentication_to_approve',
];

export const updateSettingsParams = params(
  {
    id,
    approvals_before_merge: g.int().optional(),
    reset_approvals_on_push: g.bool().optional(),
    selective_code_owner_removals: g.bool().optional(),
    disable_overriding_approvers_per_merge_request: g.bool().optional(),
    merge_requests_author_approval: g.bool().optional(),
    merge_requests_disable_committers_approval: g.bool().optional(),
    require_password_to_approve: g.bool().optional(),
    require_reauthentication_to_approve: g.bool().optional(),
  },
  [{ atLeastOneOf: SETTINGS }],
);

export const listProjectRulesParams = params({ id, ...paginationParams });
export const projectRuleParams = params({ id, approval_rule_id });

/** Deprecated aliases `users`/`groups` (as: :user_ids/:group_ids) come in as their own keys. */
const approverShape = {
  users: g.intCsv({ max: LONG_LIST_MAX }).optional(),
  user_ids: g.intCsv({ max: LONG_LIST_MAX }).optional(),
  groups: g.intCsv({ max: LONG_LIST_MAX }).optional(),
  group_ids: g.intCsv({ max: LONG_LIST_MAX }).optional(),
  usernames: g.csv({ max: LONG_LIST_MAX }).optional(),
};

/** The deprecated vulnerability-check attributes are accepted and stored (spec: Project-level approvals). */
const vulnerabilityShape = {
  vulnerabilities_allowed: g.int().optional(),
  scanners: g.array(g.string()).optional(),
  severity_levels: g.array(g.string()).optional(),
  vulnerability_states: g.array(g.string()).optional(),
};

export const createProjectRuleParams = params({
  id,
  name: g.string(),
  approvals_required: g.int(),
  rule_type: g.string().optional(),
  ...approverShape,
  protected_branch_ids: g.intCsv({ max: LONG_LIST_MAX }).optional(),
  applies_to_all_protected_branches: g.bool().default(false),
  report_type: g.enum(['vulnerability', 'license_scanning', 'code_coverage']).optional(),
  ...vulnerabilityShape,
});

/** Spec: `name` and `approvals_required` are required on update too. */
export const updateProjectRuleParams = params({
  id,
  approval_rule_id,
  name: g.string(),
  approvals_required: g.int(),
  ...approverShape,
  protected_branch_ids: g.intCsv({ max: LONG_LIST_MAX }).optional(),
  applies_to_all_protected_branches: g.bool().default(false),
  remove_hidden_groups: g.bool().optional(),
  ...vulnerabilityShape,
});

export const mergeRequestParams = params({ id, merge_request_iid });

export const setApprovalsRequiredParams = params({ id, merge_request_iid, approvals_required: g.int() });

export const approveParams = params({
  id,
  merge_request_iid,
  sha: g.string().optional(),
  approval_password: g.string().optional(),
  publish_review: g.bool().optional(),
});

export const listMrRulesParams = params({ id, merge_request_iid, ...paginationParams });
export const mrRuleParams = params({ id, merge_request_iid, approval_rule_id });

export const createMrRuleParams = params({
  id,
  merge_request_iid,
  name: g.string(),
  approvals_required: g.int(),
  approval_project_rule_id: g.int().optional(),
  user_ids: g.intCsv({ max: LONG_LIST_MAX }).optional(),
  group_ids: g.intCsv({ max: LONG_LIST_MAX }).optional(),
  usernames: g.csv({ max: LONG_LIST_MAX }).optional(),
});

export const updateMrRuleParams = params({
  id,
  merge_request_iid,
  approval_rule_id,
  name: g.string(),
  approvals_required: g.int(),
  user_ids: g.intCsv({ max: LONG_LIST_MAX }).optional(),
  group_ids: g.intCsv({ max: LONG_LIST_MAX }).optional(),
  usernames: g.csv({ max: LONG_LIST_MAX }).optional(),
  remove_hidden_groups: g.bool().optional(),
});
