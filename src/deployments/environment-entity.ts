/**
 * Entities::EnvironmentBasic and Entities::Environment (lib/api/entities/environment*.rb): the
 * project is shown in lists and writes, `last_deployment` only by GET of one environment (which
 * leaves the project out).
 */
import { z } from 'zod';
import type { environments } from '../db/schema';
import { BasicProjectDetailsSchema, type BasicProjectDetails } from '../projects/project-entity';
import { id, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';

export type EnvironmentRow = typeof environments.$inferSelect;

export const EnvironmentBasicSchema = obj({
  id,
  name: z.string(),
  slug: z.string(),
  external_url: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
}).meta({ id: 'EnvironmentBasic' });
export type EnvironmentBasic = z.infer<typeof EnvironmentBasicSchema>;

export const EnvironmentSchema = EnvironmentBasicSchema.extend({
  tier: z.string(),
  project: BasicProjectDetailsSchema.optional(),
  /** Only GET /projects/:id/environments/:environment_id; null until something is deployed. */
  last_deployment: z.unknown().nullable().optional(),
  state: z.enum(['available', 'stopping', 'stopped']),
  auto_stop_at: timestamp.nullable(),
  description: z.string().nullable(),
}).meta({ id: 'Environment' });
export type Environment = z.infer<typeof EnvironmentSchema>;

export const environmentBasic = (e: EnvironmentRow): EnvironmentBasic => ({
  id: e.id,
  name: e.name,
  slug: e.slug,
  external_url: e.externalUrl ?? null,
  created_at: iso(e.createdAt),
  updated_at: iso(e.updatedAt),
});

/** `project` for lists and writes; `lastDeployment` (null or a Deployment) for GET of one environment. */
export function environmentEntity(e: EnvironmentRow, x: { project?: BasicProjectDetails; lastDeployment?: unknown }): Environment {
  return {
    ...environmentBasic(e),
    tier: e.tier,
    ...(x.project ? { project: x.project } : {}),
    ...(x.lastDeployment !== undefined ? { last_deployment: x.lastDeployment } : {}),
    state: e.state as Environment['state'],
    auto_stop_at: iso(e.autoStopAt),
    description: e.description ?? null,
  };
}
