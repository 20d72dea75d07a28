/**
 * Entities::Deployment (lib/api/entities/deployment.rb) and DeploymentExtended, which EE extends with
 * the deployment's approvals and the approvals still pending (Premium). Deployments made through the
 * API have no CI job: `deployable` is null.
 */
import { z } from 'zod';
import type { deployments } from '../db/schema';
import type { UserRow } from '../platform/context';
import { id, int, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import { userBasic, UserBasicSchema } from '../users/user-entity';
import { approvalSummary, ApprovalSummarySchema, type ApprovalContext, deploymentApproval, DeploymentApprovalSchema, pendingApprovalCount } from './deployment-approvals';
import { environmentBasic, EnvironmentBasicSchema, type EnvironmentRow } from './environment-basic';

export type DeploymentRow = typeof deployments.$inferSelect;
export const STATUSES = ['created', 'running', 'success', 'failed', 'canceled', 'skipped', 'blocked'] as const;

export const DeploymentSchema = obj({
  id,
  iid: int,
  ref: z.string(),
  sha: z.string(),
  created_at: timestamp,
  updated_at: timestamp,
  user: UserBasicSchema.nullable(),
  environment: EnvironmentBasicSchema,
  deployable: z.null(),
  status: z.enum(STATUSES),
}).meta({ id: 'Deployment' });
export type Deployment = z.infer<typeof DeploymentSchema>;

export const DeploymentExtendedSchema = DeploymentSchema.extend({
  /** Premium. */
  pending_approval_count: int.optional(),
  approvals: z.array(DeploymentApprovalSchema).optional(),
  approval_summary: ApprovalSummarySchema.optional(),
}).meta({ id: 'DeploymentExtended' });
export type DeploymentExtended = z.infer<typeof DeploymentExtendedSchema>;

export function deploymentEntity(d: DeploymentRow, env: EnvironmentRow, user: UserRow | null, base: string): Deployment {
  return {
    id: d.id,
    iid: d.iid,
    ref: d.ref,
    sha: d.sha,
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
    user: user ? userBasic(user, { base }) : null,
    environment: environmentBasic(env),
    deployable: null,
    status: d.status as Deployment['status'],
  };
}

const NO_APPROVALS: ApprovalContext = { pe: undefined, entries: [], approvals: [] };

/** DeploymentExtended: on Premium, the approvals given, those still pending and the summary per approval rule. */
export function deploymentExtended(d: DeploymentRow, env: EnvironmentRow, user: UserRow | null, base: string, premium: boolean, ctx: ApprovalContext = NO_APPROVALS): DeploymentExtended {
  const out = deploymentEntity(d, env, user, base);
  if (!premium) return out;
  return {
    ...out,
    pending_approval_count: pendingApprovalCount(d.status, ctx),
    approvals: ctx.approvals.map((x) => deploymentApproval(x.a, x.user, base)),
    approval_summary: approvalSummary(ctx, base),
  };
}
