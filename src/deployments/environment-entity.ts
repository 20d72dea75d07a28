/**
 * Entities::EnvironmentBasic and Entities::Environment (lib/api/entities/environment*.rb): the
 * project is shown in lists and writes, `last_deployment` only by GET of one environment (which
 * leaves the project out).
 */
import { z } from 'zod';
import { BasicProjectDetailsSchema, type BasicProjectDetails } from '../projects/project-entity';
import { timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import { environmentBasic, EnvironmentBasicSchema, type EnvironmentRow } from './environment-basic';
import { DeploymentSchema } from './deployment-entity';

export { environmentBasic, EnvironmentBasicSchema, type EnvironmentRow };

/** The last deployment as GET of one environment shows it (`except: [{ last_deployment: [:environment] }]`). */
export const LastDeploymentSchema = DeploymentSchema.omit({ environment: true }).meta({ id: 'EnvironmentLastDeployment' });

export const EnvironmentSchema = EnvironmentBasicSchema.extend({
  tier: z.string(),
  project: BasicProjectDetailsSchema.optional(),
  /** Only GET /projects/:id/environments/:environment_id; null until something is deployed. */
  last_deployment: LastDeploymentSchema.nullable().optional(),
  state: z.enum(['available', 'stopping', 'stopped']),
  auto_stop_at: timestamp.nullable(),
  description: z.string().nullable(),
}).meta({ id: 'Environment' });
export type Environment = z.infer<typeof EnvironmentSchema>;

/** `project` for lists and writes; `lastDeployment` (null or a Deployment) for GET of one environment. */
export function environmentEntity(e: EnvironmentRow, x: { project?: BasicProjectDetails; lastDeployment?: z.infer<typeof LastDeploymentSchema> | null }): Environment {
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
