/**
 * Approval presenters, in GitLab's field order: ApprovalSettings, ApprovalRuleShort → ApprovalRule →
 * ProjectApprovalRule / MergeRequestApprovalRule → MergeRequestApprovalStateRule, ApprovalState
 * (ee/lib/api/entities/*.rb; an EE instance answers with ApprovalState on every plan).
 * Pure: handlers load rows, visibility and presented users/groups into the extras.
 */
import type { UserRow } from '../platform/context';
import type { NamespaceRow } from '../projects/abilities';
import { iso } from '../platform/time';
import type { LoadedRule, SettingsRow } from './rules';
import type { WrappedRule } from './state';

/** ApprovalSettings (GET/POST /projects/:id/approvals). */
export const approvalSettingsEntity = (s: SettingsRow, eff: { approvalsBeforeMerge: number; resetApprovalsOnPush: boolean; requirePasswordToApprove: boolean }) => ({
  // Deprecated, always empty (ApprovalSettings `approvers`/`approver_groups`).
  approvers: [],
  approver_groups: [],
  approvals_before_merge: eff.approvalsBeforeMerge,
  reset_approvals_on_push: eff.resetApprovalsOnPush,
  selective_code_owner_removals: s.selectiveCodeOwnerRemovals,
  disable_overriding_approvers_per_merge_request: s.disableOverridingApproversPerMergeRequest,
  merge_requests_author_approval: s.mergeRequestsAuthorApproval,
  merge_requests_disable_committers_approval: s.mergeRequestsDisableCommittersApproval,
  require_password_to_approve: eff.requirePasswordToApprove,
  require_reauthentication_to_approve: s.requireReauthenticationToApprove,
});

export interface RuleExtras {
  user: (u: UserRow) => unknown;
  group: (g: NamespaceRow) => unknown;
  /** Groups the caller may read; the others are hidden (ApprovalRules::GroupFinder). */
  visibleGroupIds: Set<number>;
  /** The caller is a member of the project (ApprovalRulePresenter#show_approvers?). */
  member: boolean;
}

/** ApprovalRuleShort. */
export const approvalRuleShort = (r: { id: number; name: string; ruleType: string }) => ({ id: r.id, name: r.name, rule_type: r.ruleType });

/**
 * ApprovalRule through ApprovalRulePresenter: hidden groups are left out and flagged; eligible
 * approvers are hidden from non-members when a hidden group is involved.
 */
export function approvalRuleEntity(r: LoadedRule, x: RuleExtras, o: { approvers?: UserRow[]; name?: string; approvalsRequired?: number } = {}) {
  const visible = r.groups.filter((g) => x.visibleGroupIds.has(g.id));
  const hidden = visible.length !== r.groups.length;
  const approvers = o.approvers ?? r.approvers;
  return {
    ...approvalRuleShort({ id: r.id, name: o.name ?? r.name, ruleType: r.ruleType }),
    eligible_approvers: x.member || !hidden ? approvers.map(x.user) : [],
    approvals_required: o.approvalsRequired ?? r.approvalsRequired,
    users: r.users.map(x.user),
    groups: visible.map(x.group),
    contains_hidden_groups: hidden,
    report_type: r.reportType,
  };
}

/** ProjectApprovalRule: protected_branches only with multiple approval rules (Premium). */
export const projectApprovalRuleEntity = (r: LoadedRule, x: RuleExtras & { multiple: boolean; protectedBranch: (id: number) => unknown }) => ({
  ...approvalRuleEntity(r, x),
  ...(x.multiple ? { protected_branches: r.protectedBranches.map((b) => x.protectedBranch(b.id)) } : {}),
  applies_to_all_protected_branches: r.appliesToAllProtectedBranches,
});

/** MergeRequestApprovalRule: `source_rule` is `{approvals_required}` of the project rule it came from. */
export const mergeRequestApprovalRuleEntity = (r: LoadedRule, x: RuleExtras, o: { approvers?: UserRow[]; overridden: boolean; name?: string; approvalsRequired?: number }) => ({
  ...approvalRuleEntity(r, x, o),
  section: r.section,
  source_rule: r.source ? { approvals_required: r.source.approvalsRequired } : null,
  overridden: o.overridden,
});

/** MergeRequestApprovalStateRule over a wrapped rule (project rules have no source and are never overridden). */
export const approvalStateRuleEntity = (w: WrappedRule, r: LoadedRule, x: RuleExtras & { usersById: Map<number, UserRow>; overridden: boolean }) => {
  const users = (ids: number[]) => ids.map((id) => x.usersById.get(id)).filter((u): u is UserRow => !!u);
  return {
    ...mergeRequestApprovalRuleEntity(r.kind === 'project' ? { ...r, source: null, section: null } : r, x, {
      approvers: users(w.approverIds),
      overridden: r.kind === 'project' ? false : x.overridden,
      // ApprovalWrappedAnyApproverRule#name.
      name: r.ruleType === 'any_approver' ? 'All Members' : r.name,
      approvalsRequired: w.approvalsRequired,
    }),
    code_owner: r.ruleType === 'code_owner',
    approved_by: users(w.approvedIds).map(x.user),
    approved: w.approved,
  };
};

export interface MrHead {
  id: number;
  iid: number;
  projectId: number;
  title: string;
  description: string | null;
  state: string;
  createdAt: number;
  updatedAt: number;
  mergeStatus: string;
}

/** IssuableEntity, merged into ApprovalState. */
const issuable = (m: MrHead) => ({
  id: m.id,
  iid: m.iid,
  project_id: m.projectId,
  title: m.title,
  description: m.description,
  state: m.state,
  created_at: iso(m.createdAt),
  updated_at: iso(m.updatedAt),
});

/** MergeRequest#public_merge_status: transitional states read as their outcome. */
export const publicMergeStatus = (s: string) => (s === 'checking' ? 'unchecked' : s === 'cannot_be_merged_rechecking' ? 'cannot_be_merged' : s);

/** Entities::Approvals: `{user, approved_at}`. */
export const approvalEntity = (a: { createdAt: number }, user: unknown) => ({ user, approved_at: iso(a.createdAt) });

export interface ApprovalStateView {
  approved: boolean;
  approvalsRequired: number;
  approvalsLeft: number;
  requirePasswordToApprove: boolean;
  approvedBy: { user: unknown; approved_at: string | null }[];
  suggestedApprovers: unknown[];
  approvers: unknown[];
  approverGroups: unknown[];
  userHasApproved: boolean;
  userCanApprove: boolean;
  approvalRulesLeft: { id: number; name: string; rule_type: string }[];
  hasApprovalRules: boolean;
  mergeRequestApproversAvailable: boolean;
  multipleApprovalRulesAvailable: boolean;
  invalidApproversRules: { id: number; name: string; rule_type: string }[];
}

/** EE ApprovalState (GET/POST approvals, approve, unapprove). */
export const approvalStateEntity = (m: MrHead, v: ApprovalStateView) => ({
  ...issuable(m),
  merge_status: publicMergeStatus(m.mergeStatus),
  approved: v.approved,
  approvals_required: v.approvalsRequired,
  approvals_left: v.approvalsLeft,
  require_password_to_approve: v.requirePasswordToApprove,
  approved_by: v.approvedBy,
  suggested_approvers: v.suggestedApprovers,
  approvers: v.approvers,
  approver_groups: v.approverGroups,
  user_has_approved: v.userHasApproved,
  user_can_approve: v.userCanApprove,
  approval_rules_left: v.approvalRulesLeft,
  has_approval_rules: v.hasApprovalRules,
  merge_request_approvers_available: v.mergeRequestApproversAvailable,
  multiple_approval_rules_available: v.multipleApprovalRulesAvailable,
  invalid_approvers_rules: v.invalidApproversRules,
});
