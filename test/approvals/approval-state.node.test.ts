/**
 * The approval arithmetic against a table of cases written from GitLab's model
 * (ee/app/models/approval_state.rb, approval_wrapped_rule.rb, approval_wrapped_any_approver_rule.rb,
 * approval_wrapped_code_owner_rule.rb; reference gitlab-behaviour-1.md §4.3). Each case names the rule
 * of the model it exercises. Users: 1 author, 2 committer, 10..19 approvers.
 */
import { describe, expect, it } from 'vitest';
import {
  type ApprovalStateInput,
  appliesToBranch,
  computeApprovalState,
  eligibleForApproval,
  type RuleInput,
  refMatches,
} from '../../src/approvals/state';

const AUTHOR = 1;
const COMMITTER = 2;

let nextId = 100;
const rule = (over: Partial<RuleInput> & Pick<RuleInput, 'ruleType' | 'approvalsRequired'>): RuleInput => ({
  id: nextId++,
  name: `r${nextId}`,
  approverIds: [],
  branchScope: null,
  ...over,
});
const regular = (approvalsRequired: number, approverIds: number[], over: Partial<RuleInput> = {}) =>
  rule({ ruleType: 'regular', approvalsRequired, approverIds, ...over });
const anyApprover = (approvalsRequired: number, over: Partial<RuleInput> = {}) => rule({ ruleType: 'any_approver', approvalsRequired, ...over });

const base: ApprovalStateInput = {
  featureAvailable: true,
  multipleRulesAvailable: true,
  canOverrideApprovers: true,
  projectRules: [],
  mergeRequestRules: [],
  targetBranch: 'main',
  approvedUserIds: [],
  authorId: AUTHOR,
  committerIds: [COMMITTER],
  authorApproval: false,
  disableCommittersApproval: false,
  codeOwnerApprovalRequired: false,
};

interface Case {
  name: string;
  input: Partial<ApprovalStateInput>;
  required: number;
  left: number;
  approved: boolean;
  overwritten?: boolean;
  /** Per wrapped rule, in order: [approvals_left, approved, approved_by ids]. */
  perRule?: [number, boolean, number[]][];
}

const cases: Case[] = [
  {
    name: 'no rules: nothing required and vacuously approved (ApprovalState#approved? over no rules)',
    input: {},
    required: 0,
    left: 0,
    approved: true,
  },
  {
    name: 'one regular project rule, no approvals: required = left = its approvals_required',
    input: { projectRules: [regular(2, [10, 11, 12])] },
    required: 2,
    left: 2,
    approved: false,
    perRule: [[2, false, []]],
  },
  {
    name: 'regular rule counts only its own eligible approvers (approved_approvers = approvers ∩ approvals)',
    input: { projectRules: [regular(2, [10, 11, 12])], approvedUserIds: [10, 13] },
    required: 2,
    left: 1,
    approved: false,
    perRule: [[1, false, [10]]],
  },
  {
    name: 'regular rule satisfied: left floors at 0 (max(required - approved, 0))',
    input: { projectRules: [regular(1, [10, 11])], approvedUserIds: [10, 11] },
    required: 1,
    left: 0,
    approved: true,
    perRule: [[0, true, [10, 11]]],
  },
  {
    name: 'regular rules add up: required = Σ regular',
    input: { projectRules: [regular(1, [10, 11]), regular(2, [12, 13, 14])], approvedUserIds: [10, 12] },
    required: 3,
    left: 1,
    approved: false,
    perRule: [
      [0, true, [10]],
      [1, false, [12]],
    ],
  },
  {
    name: 'one approval satisfies two rules that share the approver',
    input: { projectRules: [regular(1, [10, 11]), regular(1, [10, 12])], approvedUserIds: [10] },
    required: 2,
    left: 0,
    approved: true,
  },
  {
    name: 'any_approver rule: every approval counts',
    input: { projectRules: [anyApprover(2)], approvedUserIds: [13] },
    required: 2,
    left: 1,
    approved: false,
    perRule: [[1, false, [13]]],
  },
  {
    name: 'any_approver with approvals_required 0 (the pre-configured default) requires nothing',
    input: { projectRules: [anyApprover(0)] },
    required: 0,
    left: 0,
    approved: true,
  },
  {
    name: 'totals are max(Σ regular, Σ any_approver): any_approver larger',
    input: { projectRules: [anyApprover(3), regular(1, [10, 11])], approvedUserIds: [10] },
    required: 3,
    left: 2,
    approved: false,
    perRule: [
      [2, false, [10]],
      [0, true, [10]],
    ],
  },
  {
    name: 'totals are max(Σ regular, Σ any_approver): regular larger',
    input: { projectRules: [anyApprover(1), regular(2, [10, 11, 12])], approvedUserIds: [15] },
    required: 2,
    left: 2,
    approved: false,
  },
  {
    name: 'author is not an eligible approver unless merge_requests_author_approval (filter_author)',
    input: { projectRules: [regular(1, [AUTHOR, 10])], approvedUserIds: [AUTHOR] },
    required: 1,
    left: 1,
    approved: false,
    perRule: [[1, false, []]],
  },
  {
    name: 'author approval allowed: the author counts',
    input: { projectRules: [regular(1, [AUTHOR, 10])], approvedUserIds: [AUTHOR], authorApproval: true },
    required: 1,
    left: 0,
    approved: true,
    perRule: [[0, true, [AUTHOR]]],
  },
  {
    name: "any_approver does not count the author's approval when authors may not approve",
    input: { projectRules: [anyApprover(1)], approvedUserIds: [AUTHOR] },
    required: 1,
    left: 1,
    approved: false,
  },
  {
    name: 'committers count while committer approval is allowed',
    input: { projectRules: [regular(1, [COMMITTER, 10])], approvedUserIds: [COMMITTER] },
    required: 1,
    left: 0,
    approved: true,
  },
  {
    name: 'merge_requests_disable_committers_approval removes committers (filter_committers)',
    input: { projectRules: [regular(1, [COMMITTER, 10])], approvedUserIds: [COMMITTER], disableCommittersApproval: true },
    required: 1,
    left: 1,
    approved: false,
    perRule: [[1, false, []]],
  },
  {
    name: 'invalid rule (required > eligible approvers) is approved but still counts as left (ApprovalWrappedRule#approved?)',
    input: { projectRules: [regular(3, [10, 11])], approvedUserIds: [10] },
    required: 3,
    left: 2,
    approved: true,
  },
  {
    name: 'a rule made invalid by the author filter is approved',
    input: { projectRules: [regular(1, [AUTHOR])] },
    required: 1,
    left: 1,
    approved: true,
  },
  {
    name: 'rule scoped to a protected branch that does not match the target branch is left out (applies_to_branch?)',
    input: { projectRules: [regular(1, [10], { branchScope: { protectedBranches: ['release'], appliesToAllProtectedBranches: false } })] },
    required: 0,
    left: 0,
    approved: true,
  },
  {
    name: 'rule scoped to a wildcard protected branch matching the target branch applies',
    input: {
      targetBranch: 'release/1.0',
      projectRules: [regular(1, [10], { branchScope: { protectedBranches: ['release/*'], appliesToAllProtectedBranches: false } })],
    },
    required: 1,
    left: 1,
    approved: false,
  },
  {
    name: 'applies_to_all_protected_branches with no protected branch applies nowhere',
    input: { projectRules: [regular(1, [10], { branchScope: { protectedBranches: [], appliesToAllProtectedBranches: true } })] },
    required: 0,
    left: 0,
    approved: true,
  },
  {
    name: 'merge request rules overwrite project rules when overriding is allowed (approval_rules_overwritten?)',
    input: { projectRules: [regular(3, [10, 11, 12])], mergeRequestRules: [regular(1, [13, 14])], approvedUserIds: [13] },
    required: 1,
    left: 0,
    approved: true,
    overwritten: true,
  },
  {
    name: 'disable_overriding_approvers_per_merge_request: project rules are used, merge request rules ignored',
    input: { canOverrideApprovers: false, projectRules: [regular(2, [10, 11, 12])], mergeRequestRules: [regular(1, [13])], approvedUserIds: [13] },
    required: 2,
    left: 2,
    approved: false,
    overwritten: false,
  },
  {
    name: 'merge request rule copied from a branch-scoped project rule keeps its scope (applicable_to_branch?)',
    input: {
      projectRules: [regular(2, [10, 11])],
      mergeRequestRules: [regular(1, [12], { branchScope: { protectedBranches: ['stable'], appliesToAllProtectedBranches: false } })],
    },
    required: 2,
    left: 2,
    approved: false,
    overwritten: false,
  },
  {
    name: 'without multiple approval rules only the first user-defined rule counts (any_approver first)',
    input: { multipleRulesAvailable: false, projectRules: [regular(2, [10, 11]), anyApprover(1)], approvedUserIds: [15] },
    required: 1,
    left: 0,
    approved: true,
  },
  {
    name: 'without multiple approval rules the lowest-id regular rule is the one',
    input: { multipleRulesAvailable: false, projectRules: [regular(1, [10]), regular(2, [11, 12])] },
    required: 1,
    left: 1,
    approved: false,
  },
  {
    name: 'without the merge_request_approvers feature there are no rules (wrapped_approval_rules is empty)',
    input: { featureAvailable: false, projectRules: [regular(2, [10, 11])] },
    required: 0,
    left: 0,
    approved: true,
  },
  {
    name: 'report_approver rules come from the merge request and add to the regular sum',
    input: { projectRules: [regular(1, [10])], mergeRequestRules: [rule({ ruleType: 'report_approver', approvalsRequired: 1, approverIds: [11] })] },
    required: 2,
    left: 2,
    approved: false,
    overwritten: false,
  },
  {
    name: 'code_owner rule requires nothing when the branch does not require code owner approval',
    input: { mergeRequestRules: [rule({ ruleType: 'code_owner', approvalsRequired: 0, approverIds: [10] })] },
    required: 0,
    left: 0,
    approved: true,
  },
  {
    name: 'code_owner rule requires at least one approval on a branch requiring code owner approval',
    input: { codeOwnerApprovalRequired: true, mergeRequestRules: [rule({ ruleType: 'code_owner', approvalsRequired: 0, approverIds: [10] })] },
    required: 1,
    left: 1,
    approved: false,
  },
  {
    name: 'approval rules that are not approved make the merge request unapproved even when the any_approver rule is met',
    input: { projectRules: [anyApprover(1), regular(1, [10])], approvedUserIds: [11] },
    required: 1,
    left: 1,
    approved: false,
  },
];

describe('computeApprovalState (GitLab ApprovalState)', () => {
  for (const k of cases) {
    it(k.name, () => {
      const s = computeApprovalState({ ...base, ...k.input });
      expect({ required: s.approvalsRequired, left: s.approvalsLeft, approved: s.approved }).toEqual({ required: k.required, left: k.left, approved: k.approved });
      if (k.overwritten !== undefined) expect(s.approvalRulesOverwritten).toBe(k.overwritten);
      if (k.perRule) expect(s.rules.map((r) => [r.approvalsLeft, r.approved, r.approvedIds])).toEqual(k.perRule);
    });
  }

  it('approval_rules_left leaves out any_approver when the other rules need at least as many', () => {
    const any = anyApprover(1);
    const reg = regular(2, [10, 11]);
    const s = computeApprovalState({ ...base, projectRules: [any, reg] });
    expect(s.approvalRulesLeft.map((r) => r.rule.id)).toEqual([reg.id]);
    const s2 = computeApprovalState({ ...base, projectRules: [anyApprover(3), regular(1, [10])] });
    expect(s2.approvalRulesLeft.map((r) => r.rule.ruleType)).toEqual(['any_approver', 'regular']);
  });

  it('invalid_approvers_rules lists rules requiring more approvals than eligible approvers, never any_approver', () => {
    const bad = regular(2, [10]);
    const s = computeApprovalState({ ...base, projectRules: [anyApprover(5), bad, regular(1, [11])] });
    expect(s.invalidApproversRules.map((r) => r.rule.id)).toEqual([bad.id]);
  });

  it('a merged merge request keeps only valid approved rules', () => {
    const s = computeApprovalState({ ...base, merged: true, projectRules: [regular(1, [10]), regular(2, [11]), regular(1, [12])], approvedUserIds: [10] });
    expect(s.rules.map((r) => r.approvedIds)).toEqual([[10]]);
    expect(s.approved).toBe(true);
  });
});

describe('eligibleForApproval (ApprovalState#eligible_for_approval_by?)', () => {
  const inp = { approvedUserIds: [10], authorId: AUTHOR, committerIds: [COMMITTER], authorApproval: false, disableCommittersApproval: false };
  it('a developer who is not a rule approver may give an optional approval', () => expect(eligibleForApproval(inp, 20, true)).toBe(true));
  it('only callers holding approve_merge_request', () => expect(eligibleForApproval(inp, 20, false)).toBe(false));
  it('users can only approve once', () => expect(eligibleForApproval(inp, 10, true)).toBe(false));
  it('the author only with author approval on', () => {
    expect(eligibleForApproval(inp, AUTHOR, true)).toBe(false);
    expect(eligibleForApproval({ ...inp, authorApproval: true }, AUTHOR, true)).toBe(true);
  });
  it('committers unless committer approval is disabled', () => {
    expect(eligibleForApproval(inp, COMMITTER, true)).toBe(true);
    expect(eligibleForApproval({ ...inp, disableCommittersApproval: true }, COMMITTER, true)).toBe(false);
  });
  it('anonymous callers never', () => expect(eligibleForApproval(inp, null, true)).toBe(false));
});

describe('branch matching (ProtectedBranch.matching / RefMatcher)', () => {
  it('exact names and wildcards', () => {
    expect(refMatches('main', 'main')).toBe(true);
    expect(refMatches('main', 'main2')).toBe(false);
    expect(refMatches('release-*', 'release-1.2')).toBe(true);
    expect(refMatches('*-stable', 'x/y-stable')).toBe(true);
    expect(refMatches('a.b', 'axb')).toBe(false);
  });
  it('scope', () => {
    expect(appliesToBranch(null, 'x')).toBe(true);
    expect(appliesToBranch({ protectedBranches: [], appliesToAllProtectedBranches: false }, 'x')).toBe(true);
    expect(appliesToBranch({ protectedBranches: ['main'], appliesToAllProtectedBranches: true }, 'main')).toBe(true);
  });
});
