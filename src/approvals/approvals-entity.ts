/**
 * Approval presenters, in GitLab's field order: ApprovalSettings, ApprovalRuleShort → ApprovalRule →
 * ProjectApprovalRule / MergeRequestApprovalRule → MergeRequestApprovalStateRule, ApprovalState
 * (ee/lib/api/entities/*.rb; an EE instance answers with ApprovalState on every plan).
 * Pure: handlers load rows, visibility and presented users/groups into the extras.
 */
import { z } from 'zod';
import type { UserRow } from '../platform/context';
import { id, int, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import { type Group, GroupSchema } from '../projects/group-entity';
import type { NamespaceRow } from '../projects/abilities';
import { type ProtectedBranch, ProtectedBranchSchema } from '../repository/protected-branch-entity';
import { type UserBasic, UserBasicSchema } from '../users/user-entity';
import { type LoadedRule, REPORT_TYPES, RULE_TYPES, type SettingsRow } from './rules';
import type { WrappedRule } from './state';
import { MergeRequestState } from '../merge-requests/merge-request-entity';

/** EE::API::Entities::Approver: `{user}`. */
export const ApproverSchema = obj({ user: UserBasicSchema }).meta({ id: 'Approver' });
export type Approver = z.infer<typeof ApproverSchema>;

/** EE::API::Entities::ApproverGroup: `{group}`. */
export const ApproverGroupSchema = obj({ group: GroupSchema }).meta({ id: 'ApproverGroup' });
export type ApproverGroup = z.infer<typeof ApproverGroupSchema>;

export const ApprovalSettingsSchema = obj({
  approvers: z.array(ApproverSchema),
  approver_groups: z.array(ApproverGroupSchema),
  approvals_before_merge: int,
  reset_approvals_on_push: z.boolean(),
  selective_code_owner_removals: z.boolean(),
  disable_overriding_approvers_per_merge_request: z.boolean(),
  merge_requests_author_approval: z.boolean(),
  merge_requests_disable_committers_approval: z.boolean(),
  require_password_to_approve: z.boolean(),
  require_reauthentication_to_approve: z.boolean(),
}).meta({ id: 'ApprovalSettings' });
export type ApprovalSettings = z.infer<typeof ApprovalSettingsSchema>;

/** ApprovalSettings (GET/POST /projects/:id/approvals). */
export const approvalSettingsEntity = (s: SettingsRow, eff: { approvalsBeforeMerge: number; resetApprovalsOnPush: boolean; requirePasswordToApprove: boolean }): ApprovalSettings => ({
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
  user: (u: UserRow) => UserBasic;
  group: (g: NamespaceRow) => Group;
  /** Groups the caller may read; the others are hidden (ApprovalRules::GroupFinder). */
  visibleGroupIds: Set<number>;
  /** The caller is a member of the project (ApprovalRulePresenter#show_approvers?). */
  member: boolean;
}

export const ApprovalRuleShortSchema = obj({ id, name: z.string(), rule_type: z.enum(RULE_TYPES) }).meta({ id: 'ApprovalRuleShort' });
export type ApprovalRuleShort = z.infer<typeof ApprovalRuleShortSchema>;

/** ApprovalRuleShort. */
export const approvalRuleShort = (r: { id: number; name: string; ruleType: ApprovalRuleShort['rule_type'] }): ApprovalRuleShort => ({ id: r.id, name: r.name, rule_type: r.ruleType });

export const ApprovalRuleSchema = ApprovalRuleShortSchema.extend({
  eligible_approvers: z.array(UserBasicSchema),
  approvals_required: int,
  users: z.array(UserBasicSchema),
  groups: z.array(GroupSchema),
  contains_hidden_groups: z.boolean(),
  /** Report approver rules only. */
  report_type: z.enum(REPORT_TYPES).nullable(),
}).meta({ id: 'ApprovalRule' });
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;

/**
 * ApprovalRule through ApprovalRulePresenter: hidden groups are left out and flagged; eligible
 * approvers are hidden from non-members when a hidden group is involved.
 */
export function approvalRuleEntity(r: LoadedRule, x: RuleExtras, o: { approvers?: UserRow[]; name?: string; approvalsRequired?: number } = {}): ApprovalRule {
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
    // Stored only through the report_type enum (project rules) and copied from there.
    report_type: r.reportType as ApprovalRule['report_type'],
  };
}

/** Written out: the OpenAPI example generator stops before the access levels of a list's protected branches. */
function projectApprovalRuleExample() {
  const user = { id: 5, username: 'jdoe', name: 'John Doe', state: 'active', avatar_url: null, web_url: 'https://gitlab.example.com/jdoe' };
  const access = (id: number) => ({ id, access_level: 40, access_level_description: 'Maintainers', user_id: null, group_id: null });
  return {
    id: 1,
    name: 'security',
    rule_type: 'regular',
    eligible_approvers: [user],
    approvals_required: 1,
    users: [user],
    groups: [],
    contains_hidden_groups: false,
    report_type: null,
    protected_branches: [
      { id: 1, name: 'main', push_access_levels: [access(1)], merge_access_levels: [access(2)], allow_force_push: false, unprotect_access_levels: [], code_owner_approval_required: false, inherited: false },
    ],
    applies_to_all_protected_branches: false,
  };
}

export const ProjectApprovalRuleSchema = ApprovalRuleSchema.extend({
  /** With multiple approval rules (Premium) only. */
  protected_branches: z.array(ProtectedBranchSchema).optional(),
  applies_to_all_protected_branches: z.boolean(),
}).meta({ id: 'ProjectApprovalRule', examples: [projectApprovalRuleExample()] });
export type ProjectApprovalRule = z.infer<typeof ProjectApprovalRuleSchema>;

/** ProjectApprovalRule: protected_branches only with multiple approval rules (Premium). */
export const projectApprovalRuleEntity = (r: LoadedRule, x: RuleExtras & { multiple: boolean; protectedBranch: (id: number) => ProtectedBranch }): ProjectApprovalRule => ({
  ...approvalRuleEntity(r, x),
  ...(x.multiple ? { protected_branches: r.protectedBranches.map((b) => x.protectedBranch(b.id)) } : {}),
  applies_to_all_protected_branches: r.appliesToAllProtectedBranches,
});

export const MergeRequestApprovalRuleSchema = ApprovalRuleSchema.extend({
  section: z.string().nullable(),
  /** MergeRequestApprovalRule::SourceRule. */
  source_rule: obj({ approvals_required: int }).nullable(),
  overridden: z.boolean(),
}).meta({ id: 'MergeRequestApprovalRule' });
export type MergeRequestApprovalRule = z.infer<typeof MergeRequestApprovalRuleSchema>;

/** MergeRequestApprovalRule: `source_rule` is `{approvals_required}` of the project rule it came from. */
export const mergeRequestApprovalRuleEntity = (r: LoadedRule, x: RuleExtras, o: { approvers?: UserRow[]; overridden: boolean; name?: string; approvalsRequired?: number }): MergeRequestApprovalRule => ({
  ...approvalRuleEntity(r, x, o),
  section: r.section,
  source_rule: r.source ? { approvals_required: r.source.approvalsRequired } : null,
  overridden: o.overridden,
});

export const MergeRequestApprovalStateRuleSchema = MergeRequestApprovalRuleSchema.extend({
  code_owner: z.boolean(),
  approved_by: z.array(UserBasicSchema),
  approved: z.boolean(),
}).meta({ id: 'MergeRequestApprovalStateRule' });
export type MergeRequestApprovalStateRule = z.infer<typeof MergeRequestApprovalStateRuleSchema>;

/** MergeRequestApprovalStateRule over a wrapped rule (project rules have no source and are never overridden). */
export const approvalStateRuleEntity = (w: WrappedRule, r: LoadedRule, x: RuleExtras & { usersById: Map<number, UserRow>; overridden: boolean }): MergeRequestApprovalStateRule => {
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

export const MergeRequestApprovalStateSchema = obj({
  approval_rules_overwritten: z.boolean(),
  rules: z.array(MergeRequestApprovalStateRuleSchema),
}).meta({ id: 'MergeRequestApprovalState' });
export type MergeRequestApprovalState = z.infer<typeof MergeRequestApprovalStateSchema>;

/** MergeRequestApprovalState (GET approval_state). */
export const mergeRequestApprovalStateEntity = (overwritten: boolean, rules: MergeRequestApprovalStateRule[]): MergeRequestApprovalState => ({
  approval_rules_overwritten: overwritten,
  rules,
});

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
const IssuableSchema = obj({
  id,
  iid: int,
  project_id: int,
  title: z.string(),
  description: z.string().nullable(),
  state: MergeRequestState,
  created_at: timestamp,
  updated_at: timestamp,
});
type Issuable = z.infer<typeof IssuableSchema>;

const issuable = (m: MrHead): Issuable => ({
  id: m.id,
  iid: m.iid,
  project_id: m.projectId,
  title: m.title,
  description: m.description,
  state: m.state as Issuable['state'],
  created_at: iso(m.createdAt),
  updated_at: iso(m.updatedAt),
});

/** MergeRequest#public_merge_status: transitional states read as their outcome. */
export const publicMergeStatus = (s: string) => (s === 'checking' ? 'unchecked' : s === 'cannot_be_merged_rechecking' ? 'cannot_be_merged' : s);

/** Entities::Approvals: who approved and when. */
export const ApprovalsSchema = obj({ user: UserBasicSchema, approved_at: timestamp }).meta({ id: 'Approvals' });
export type Approvals = z.infer<typeof ApprovalsSchema>;

export const approvalEntity = (a: { createdAt: number }, user: UserBasic): Approvals => ({ user, approved_at: iso(a.createdAt) });

export interface ApprovalStateView {
  approved: boolean;
  approvalsRequired: number;
  approvalsLeft: number;
  requirePasswordToApprove: boolean;
  approvedBy: Approvals[];
  suggestedApprovers: UserBasic[];
  approvers: Approver[];
  approverGroups: ApproverGroup[];
  userHasApproved: boolean;
  userCanApprove: boolean;
  approvalRulesLeft: ApprovalRuleShort[];
  hasApprovalRules: boolean;
  mergeRequestApproversAvailable: boolean;
  multipleApprovalRulesAvailable: boolean;
  invalidApproversRules: ApprovalRuleShort[];
}

export const ApprovalStateSchema = IssuableSchema.extend({
  merge_status: z.string(),
  approved: z.boolean(),
  approvals_required: int,
  approvals_left: int,
  require_password_to_approve: z.boolean(),
  approved_by: z.array(ApprovalsSchema),
  suggested_approvers: z.array(UserBasicSchema),
  approvers: z.array(ApproverSchema),
  approver_groups: z.array(ApproverGroupSchema),
  user_has_approved: z.boolean(),
  user_can_approve: z.boolean(),
  approval_rules_left: z.array(ApprovalRuleShortSchema),
  has_approval_rules: z.boolean(),
  merge_request_approvers_available: z.boolean(),
  multiple_approval_rules_available: z.boolean(),
  invalid_approvers_rules: z.array(ApprovalRuleShortSchema),
}).meta({ id: 'ApprovalState' });
export type ApprovalState = z.infer<typeof ApprovalStateSchema>;

/** EE ApprovalState (GET/POST approvals, approve, unapprove). */
export const approvalStateEntity = (m: MrHead, v: ApprovalStateView): ApprovalState => ({
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
