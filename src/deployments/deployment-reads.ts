/**
 * Deployments with their environment and user, one statement (joined columns named apart: a D1
 * batch keys rows by column name), for the batch that finds the project.
 */
import { desc, eq, type SQL, sql } from 'drizzle-orm';
import { aliasedColumns } from '../db/aliased-columns';
import type { Db } from '../db/client';
import { deployments, environments, users } from '../db/schema';
import type { UserRow } from '../platform/context';
import type { EnvironmentRow } from './environment-basic';
import type { DeploymentRow } from './deployment-entity';

const ENV = aliasedColumns(environments, 'e_');
const USER = aliasedColumns(users, 'u_');

export const deploymentsJoined = (db: Db) =>
  db.select({ d: deployments, env: ENV, user: USER }).from(deployments).innerJoin(environments, eq(environments.id, deployments.environmentId)).leftJoin(users, eq(users.id, deployments.userId)).$dynamic();

export type JoinedRow = { d: DeploymentRow; env: EnvironmentRow; user: UserRow | null };

/** A left-joined user that is missing comes back with null columns. */
export const joined = (r: { d: DeploymentRow; env: EnvironmentRow; user: Partial<UserRow> | null }): JoinedRow => ({ d: r.d, env: r.env, user: r.user?.id != null ? (r.user as UserRow) : null });

/** One deployment of project `pid` by id. */
export const deploymentRead = (db: Db, pid: SQL, id: number) => deploymentsJoined(db).where(sql`${deployments.id} = ${id} AND ${deployments.projectId} = ${pid}`).limit(1);

/** Environment#last_deployment: its last successful deployment (`success.ordered`: latest finished first). */
export const lastSuccessfulOrder = [desc(deployments.finishedAt), desc(deployments.id)];
export const lastDeploymentRead = (db: Db, pid: SQL, environmentId: number | SQL) =>
  deploymentsJoined(db)
    .where(sql`${deployments.environmentId} = ${environmentId} AND ${deployments.projectId} = ${pid} AND ${deployments.status} = 'success'`)
    .orderBy(...lastSuccessfulOrder)
    .limit(1);
