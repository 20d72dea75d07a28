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
  approvals: z.array(obj({ user: UserBasicSchema, status: z.string(), created_at: timestamp, comment: z.string().nullable() })).optional(),
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

/** DeploymentExtended: approvals are not recorded yet, so none are given and none are pending. */
export function deploymentExtended(d: DeploymentRow, env: EnvironmentRow, user: UserRow | null, base: string, premium: boolean): DeploymentExtended {
  return { ...deploymentEntity(d, env, user, base), ...(premium ? { pending_approval_count: 0, approvals: [] } : {}) };
}
