/**
 * Approval arithmetic of a merge request, as GitLab computes it (ee/app/models/approval_state.rb,
 * approval_wrapped_rule.rb, approval_wrapped_any_approver_rule.rb, approval_wrapped_code_owner_rule.rb;
 * reference gitlab-behaviour-1.md §4.3). `computeApprovalState` is pure: the loader
 * (state-loader.ts `loadApprovalState`) gathers rules, eligible approvers (users plus
 * group members, active users only), the approvals valid at the current HEAD, the author, the
 * committers and the settings; this file only counts.
 */
import type { mergeRequests } from '../db/schema';

export type MergeRequestRow = typeof mergeRequests.$inferSelect;

export type RuleType = 'regular' | 'any_approver' | 'code_owner' | 'report_approver';

/** Protected branches a project rule is scoped to (ApprovalProjectRule#applies_to_branch?). */
export interface BranchScope {
  /** Names or wildcard patterns of the linked protected branches (all of the project's when applies_to_all). */
  protectedBranches: string[];
  appliesToAllProtectedBranches: boolean;
}

export interface RuleInput {
  id: number;
  name: string;
  ruleType: RuleType;
  approvalsRequired: number;
  /** Users of the rule plus members of its groups, active users only, de-duplicated. */
  approverIds: number[];
  /**
   * Which target branches the rule applies to; null applies everywhere. A merge request rule copied
   * from a project rule and not modified since carries its source's scope
   * (ApprovalMergeRequestRule#applicable_to_branch?).
   */
  branchScope: BranchScope | null;
  /** Code owner rules: the rule's CODEOWNERS section is optional (`^[Section]`), so it never requires approval. */
  optionalSection?: boolean;
}

export interface ApprovalStateInput {
  /** Licensed feature `merge_request_approvers` (Premium): without it there are no rules at all. */
  featureAvailable: boolean;
  /** Licensed feature `multiple_approval_rules` (Premium): without it one user-defined rule counts. */
  multipleRulesAvailable: boolean;
  /** !disable_overriding_approvers_per_merge_request (Project#can_override_approvers?). */
  canOverrideApprovers: boolean;
  projectRules: RuleInput[];
  mergeRequestRules: RuleInput[];
  targetBranch: string;
  /** Ids of users whose approval is valid at the current HEAD, in approval order. */
  approvedUserIds: number[];
  authorId: number | null;
  committerIds: number[];
  /** merge_requests_author_approval: true lets the author approve. */
  authorApproval: boolean;
  /** merge_requests_disable_committers_approval. */
  disableCommittersApproval: boolean;
  /** The target branch's protected branch requires code owner approval (and the plan has it). */
  codeOwnerApprovalRequired: boolean;
  merged?: boolean;
}

export interface WrappedRule {
  rule: RuleInput;
  source: 'project' | 'merge_request';
  /** Eligible approvers after the author and committer filters. */
  approverIds: number[];
  /** Eligible approvers who approved (any_approver: every counted approval). */
  approvedIds: number[];
  approvalsRequired: number;
  approvalsLeft: number;
  approved: boolean;
  invalid: boolean;
}

export interface ApprovalState {
  approvalRulesOverwritten: boolean;
  /** wrapped_approval_rules: user-defined, then code owner, then report approver rules. */
  rules: WrappedRule[];
  userDefinedRules: WrappedRule[];
  approvalsRequired: number;
  approvalsLeft: number;
  approved: boolean;
  approvalRulesLeft: WrappedRule[];
  invalidApproversRules: WrappedRule[];
  /** Eligible approvers of every rule who have not approved (ApprovalState#unactioned_approvers). */
  unactionedApproverIds: number[];
}

/** RefMatcher: `*` matches any run of characters, everything else literally. */
export function refMatches(pattern: string, ref: string): boolean {
  if (!pattern.includes('*')) return pattern === ref;
  const re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*?')}$`, 's');
  return re.test(ref);
}

/** ApprovalProjectRule#applies_to_branch?: no linked branches means every branch, unless scoped to "all protected" (then none). */
export function appliesToBranch(scope: BranchScope | null, branch: string): boolean {
  if (!scope) return true;
  if (scope.protectedBranches.length === 0) return !scope.appliesToAllProtectedBranches;
  return scope.protectedBranches.some((p) => refMatches(p, branch));
}

const sum = (rules: WrappedRule[], f: (r: WrappedRule) => number) => rules.reduce((n, r) => n + f(r), 0);
const uniq = (ids: number[]) => [...new Set(ids)];

/** any_approver first, then regular rules by id (ApprovalState#user_defined_merge_request_rules, Project#user_defined_rules). */
function orderUserDefined(rules: RuleInput[]): RuleInput[] {
  const any = rules.filter((r) => r.ruleType === 'any_approver');
  const regular = rules.filter((r) => r.ruleType === 'regular').sort((a, b) => a.id - b.id);
  return [...any, ...regular];
}

export function computeApprovalState(input: ApprovalStateInput): ApprovalState {
  const approvedSet = new Set(input.approvedUserIds);
  // ApprovalWrappedCodeOwnerRule#branch_requires_code_owner_approval?
  const requiresCodeOwnerApproval = (rule: RuleInput) => input.codeOwnerApprovalRequired && !rule.optionalSection;
  const committers = new Set(input.committerIds);
  // ApprovalState.filter_author / filter_committers.
  const filter = (ids: number[]) =>
    uniq(ids).filter(
      (id) => (input.authorApproval || id !== input.authorId) && !(input.disableCommittersApproval && committers.has(id)),
    );

  const wrap = (rule: RuleInput, source: WrappedRule['source']): WrappedRule => {
    const approverIds = filter(rule.approverIds);
    const any = rule.ruleType === 'any_approver';
    // ApprovalWrappedAnyApproverRule#approved_approvers: every approval, minus author/committers by setting.
    const approvedIds = any ? filter(input.approvedUserIds) : approverIds.filter((id) => approvedSet.has(id));
    let approvalsRequired = rule.approvalsRequired;
    if (rule.ruleType === 'code_owner') {
      // ApprovalWrappedCodeOwnerRule: required only on branches requiring code owner approval and
      // outside optional sections, at least 1 (the section's count otherwise); once merged, the
      // count the merge finalized.
      approvalsRequired = input.merged
        ? rule.approvalsRequired
        : requiresCodeOwnerApproval(rule) && approverIds.length > 0
          ? Math.max(rule.approvalsRequired, 1)
          : 0;
    }
    const approvalsLeft = Math.max(approvalsRequired - approvedIds.length, 0);
    const invalid = !any && approvalsRequired > approverIds.length;
    // An invalid rule (more approvals required than eligible approvers) is approved: invalid rules may
    // merge unless they come from a security policy, which this service does not have.
    const approved = any ? approvalsLeft <= 0 : approvalsLeft <= 0 || invalid;
    return { rule, source, approverIds, approvedIds, approvalsRequired, approvalsLeft, approved, invalid };
  };

  // MergeRequest#approval_rules.applicable_to_branch(target_branch), wrapped.
  const mrRules = input.mergeRequestRules.filter((r) => appliesToBranch(r.branchScope, input.targetBranch));
  let mrUserDefined = orderUserDefined(mrRules);
  if (!input.multipleRulesAvailable) mrUserDefined = mrUserDefined.slice(0, 1);
  const overwritten = input.canOverrideApprovers && mrUserDefined.length > 0;

  let userDefined: WrappedRule[];
  if (overwritten || (input.merged && mrUserDefined.length > 0)) {
    userDefined = mrUserDefined.map((r) => wrap(r, 'merge_request'));
  } else {
    // Project#visible_user_defined_rules(branch:): one rule without multiple rules, else those applying to the branch.
    const projectUserDefined = orderUserDefined(input.projectRules);
    const visible = input.multipleRulesAvailable
      ? projectUserDefined.filter((r) => appliesToBranch(r.branchScope, input.targetBranch))
      : projectUserDefined.slice(0, 1);
    userDefined = visible.map((r) => wrap(r, 'project'));
  }
  const codeOwner = mrRules.filter((r) => r.ruleType === 'code_owner').map((r) => wrap(r, 'merge_request'));
  const reportApprover = mrRules.filter((r) => r.ruleType === 'report_approver').map((r) => wrap(r, 'merge_request'));

  const all = input.featureAvailable ? [...userDefined, ...codeOwner, ...reportApprover] : [];
  const invalidApproversRules = all.filter((r) => {
    if (r.rule.ruleType === 'any_approver') return false;
    if (r.approverIds.length > 0 && r.approverIds.length >= r.approvalsRequired) return false;
    if (r.rule.ruleType === 'code_owner') return requiresCodeOwnerApproval(r.rule);
    return r.approvalsRequired > r.approverIds.length;
  });
  // After merging, only the rules that were valid and approved remain (wrapped_approval_rules).
  const rules = input.merged ? all.filter((r) => !invalidApproversRules.includes(r) && r.approved) : all;

  const regular = rules.filter((r) => r.rule.ruleType === 'regular');
  const anyApprover = rules.filter((r) => r.rule.ruleType === 'any_approver');
  const requiredOthers = sum(regular, (r) => r.approvalsRequired) + sum(codeOwner, (r) => r.approvalsRequired) + sum(reportApprover, (r) => r.approvalsRequired);
  const leftOthers = sum(regular, (r) => r.approvalsLeft) + sum(codeOwner, (r) => r.approvalsLeft) + sum(reportApprover, (r) => r.approvalsLeft);
  const anyRequired = sum(anyApprover, (r) => r.approvalsRequired);
  const anyLeft = sum(anyApprover, (r) => r.approvalsLeft);
  // Without the feature the sums cover no rule: nothing required.
  const approvalsRequired = input.featureAvailable ? Math.max(requiredOthers, anyRequired) : 0;
  const approvalsLeft = input.featureAvailable ? Math.max(leftOthers, anyLeft) : 0;

  const approvalRulesLeft = (anyLeft <= leftOthers ? rules.filter((r) => r.rule.ruleType !== 'any_approver') : rules).filter((r) => !r.approved);
  const approvers = filter([...userDefined, ...reportApprover, ...codeOwner].flatMap((r) => r.rule.approverIds));
  const unactionedApproverIds = approvers.filter((id) => !approvedSet.has(id));

  return {
    approvalRulesOverwritten: overwritten,
    rules,
    userDefinedRules: userDefined,
    approvalsRequired,
    approvalsLeft,
    approved: rules.every((r) => r.approved),
    approvalRulesLeft,
    invalidApproversRules,
    unactionedApproverIds,
  };
}

/**
 * ApprovalState#eligible_for_approval_by?: the caller holds approve_merge_request, has not approved
 * yet, and is neither the author (unless authors may approve) nor a committer (when committers may not).
 * Any developer may give an optional approval beyond the rules.
 */
export function eligibleForApproval(
  input: Pick<ApprovalStateInput, 'approvedUserIds' | 'authorId' | 'committerIds' | 'authorApproval' | 'disableCommittersApproval'>,
  userId: number | null,
  canApprove: boolean,
): boolean {
  if (userId == null || !canApprove) return false;
  if (input.approvedUserIds.includes(userId)) return false;
  if (!input.authorApproval && input.authorId === userId) return false;
  if (input.disableCommittersApproval && input.committerIds.includes(userId)) return false;
  return true;
}
