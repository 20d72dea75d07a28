/**
 * Deployment approvals (EE Deployments::ApprovalService, Deployments::Approval, EE::Deployment,
 * Deployments::ApprovalSummary). A protected environment asks for approvals through its approval
 * rules (each a role, user or group with `required_approvals`) or, in older setups, through
 * `required_approval_count`. A deployment made to such an environment waits `blocked`; approvals
 * unblock it (`created`) once every rule has enough of them, a rejection fails it.
 */
import { z } from 'zod';
import type { deploymentApprovals } from '../db/schema';
import { ApiError } from '../platform/errors';
import type { UserRow } from '../platform/context';
import { obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import { userBasic, UserBasicSchema } from '../users/user-entity';
import { EnvironmentApprovalRuleSchema, type EntryRow, type ProtectedEnvironmentRow } from './protected-environment-entity';
import { entryAdmits, protectedFrom } from './protected-environments';

export type ApprovalRow = typeof deploymentApprovals.$inferSelect;
export const APPROVAL_STATUSES = ['approved', 'rejected'] as const;

/** An entry of a protected environment with the names it may be represented as, and whether the caller is in the group it names (`inGroupSql`). */
export interface RuleRow {
  e: EntryRow;
  userName: string | null;
  groupName: string | null;
  inGroup: number | boolean | null;
}

/** The entry as access is checked on it. */
export const guardOf = (r: RuleRow) => ({ ...r.e, inGroup: r.inGroup });

/** What a deployment's approvals are judged on: its protected environment (if any), that environment's entries, the approvals given. */
export interface ApprovalContext {
  pe: ProtectedEnvironmentRow | undefined;
  entries: RuleRow[];
  approvals: { a: ApprovalRow; user: UserRow }[];
}

export const DeploymentApprovalSchema = obj({ user: UserBasicSchema, status: z.enum(APPROVAL_STATUSES), created_at: timestamp, comment: z.string().nullable() }).meta({ id: 'DeploymentApproval' });
export type DeploymentApproval = z.infer<typeof DeploymentApprovalSchema>;

export const ApprovalSummarySchema = obj({
  rules: z.array(EnvironmentApprovalRuleSchema.extend({ deployment_approvals: z.array(DeploymentApprovalSchema) }).meta({ id: 'ProtectedEnvironmentApprovalRuleForSummary' })),
}).meta({ id: 'DeploymentApprovalSummary' });
export type ApprovalSummary = z.infer<typeof ApprovalSummarySchema>;

export const deploymentApproval = (a: ApprovalRow, user: UserRow, base: string): DeploymentApproval => ({
  user: userBasic(user, { base }),
  status: a.status as DeploymentApproval['status'],
  created_at: iso(a.createdAt),
  comment: a.comment ?? null,
});

const rulesOf = (ctx: ApprovalContext) => ctx.entries.filter((r) => r.e.kind === 'approval');
const required = (r: RuleRow) => r.e.requiredApprovals ?? 1;

/** Environment#needs_approval?: approvals are asked for by rules or by the environment's count. */
export function needsApproval(ctx: Pick<ApprovalContext, 'pe' | 'entries'>): boolean {
  if (!ctx.pe) return false;
  return rulesOf(ctx as ApprovalContext).reduce((n, r) => n + required(r), 0) > 0 || ctx.pe.requiredApprovalCount > 0;
}

const approvedFor = (ctx: ApprovalContext, ruleId: number | null) => ctx.approvals.filter((x) => x.a.status === 'approved' && (ruleId === null || x.a.approvalRuleId === ruleId)).length;

/**
 * Deployment#pending_approval_count: none unless the deployment waits; with rules, what each rule
 * still lacks, summed; otherwise the environment's count less the approvals given.
 */
export function pendingApprovalCount(status: string, ctx: ApprovalContext): number {
  if (status !== 'blocked' || !ctx.pe) return 0;
  const rules = rulesOf(ctx);
  if (rules.length) return rules.reduce((n, r) => n + Math.max(required(r) - approvedFor(ctx, r.e.id), 0), 0);
  return Math.max(ctx.pe.requiredApprovalCount - approvedFor(ctx, null), 0);
}

/** ProtectedEnvironments::ApprovalRule#humanize: the user's or the group's name, or the role's. */
const HUMAN_ACCESS_LEVELS: Record<number, string> = { 40: 'Maintainers', 30: 'Developers + Maintainers' };
const humanize = (r: RuleRow) => (r.e.userId != null ? r.userName : r.e.groupId != null ? r.groupName : (HUMAN_ACCESS_LEVELS[r.e.accessLevel ?? -1] ?? null));

/** ApprovalSummary: every rule with the approvals given for it. */
export function approvalSummary(ctx: ApprovalContext, base: string): ApprovalSummary {
  return {
    rules: rulesOf(ctx).map((r) => ({
      id: r.e.id,
      user_id: r.e.userId,
      group_id: r.e.groupId,
      access_level: r.e.userId == null && r.e.groupId == null ? r.e.accessLevel : null,
      access_level_description: humanize(r),
      required_approvals: required(r),
      group_inheritance_type: r.e.groupInheritanceType,
      deployment_approvals: ctx.approvals.filter((x) => x.a.approvalRuleId === r.e.id).map((x) => deploymentApproval(x.a, x.user, base)),
    })),
  };
}

/** ApprovalRule#check_access (Authorizable): as a deploy entry, a rule naming a group admitting its members. */
const ruleAdmits = (r: RuleRow, caller: { isAdmin: boolean; user?: { id: number } | null }, level: number) => entryAdmits(guardOf(r), caller, level);

export interface Approver {
  isAdmin: boolean;
  user: { id: number } | null;
}

/**
 * Deployments::ApprovalService#validate, its seven refusals in GitLab's order (400 `{"message": …}`),
 * then the approval rule the approval counts for (null without rules).
 */
export function validateApproval(
  d: { userId: number | null; status: string },
  ctx: ApprovalContext,
  caller: Approver,
  level: number,
  status: string,
  representedAs: string | undefined,
): { ruleId: number | null } {
  const refuse = (message: string) => new ApiError(400, { message });
  if (!(APPROVAL_STATUSES as readonly string[]).includes(status)) throw refuse('Unrecognized approval status.');
  if (!ctx.pe) throw refuse('This environment is not protected.');
  // `allow_pipeline_trigger_approve_deployment` is a project setting this server does not offer: it stays off.
  if (caller.user && d.userId === caller.user.id && status === 'approved') {
    throw refuse('You cannot approve your own deployment. This configuration can be adjusted in the protected environment settings.');
  }
  if (!needsApproval(ctx)) throw refuse('Deployment approvals is not configured for this environment.');
  if (pendingApprovalCount(d.status, ctx) <= 0) throw refuse('This deployment is not waiting for approvals.');
  const rules = rulesOf(ctx);
  const mine = rules.filter((r) => ruleAdmits(r, caller, level));
  // :approve_deployment: a rule admitting the caller or, without rules, the right to deploy there.
  const deployers = ctx.entries.filter((r) => r.e.kind === 'deploy').map(guardOf);
  const allowed = rules.length ? mine.length > 0 : !!caller.user && !protectedFrom(true, caller, level, { isProtected: true, entries: deployers });
  if (!allowed) throw refuse("You don't have permission to approve this deployment. Contact the project or group owner for help.");
  if (!rules.length) return { ruleId: null };
  // Environment#find_approval_rule_for: the rule represented, or the caller's first.
  const rule = representedAs ? mine.find((r) => humanize(r) === representedAs) : mine[0];
  if (!rule) throw refuse('There are no approval rules for the given `represent_as` parameter. Use a valid User/Group/Role name instead.');
  return { ruleId: rule.e.id };
}
