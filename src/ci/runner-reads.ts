/**
 * Reading runners for users (lib/api/ci/runners.rb, app/policies/ci/runner_policy.rb and
 * User#ci_owned_runners of the 14.x API the spec describes): a runner with its projects and groups
 * and the caller's level in each, in one batch, and who may do what with it; the SQL of the owned
 * runners and of the list filters.
 *
 * A user "owns" a runner (RunnerPolicy `owned_runner`) when they are a maintainer of one of its
 * projects or an owner of its group (or of an ancestor). Owners may read, update, reset, assign and
 * delete it; administrators may everything; instance runners are readable by every signed-in user.
 */
import { asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import { ciRunnerNamespaces, ciRunnerProjects, ciRunners, namespaces, projects } from '../db/schema';
import type { AppEnv, Caller } from '../platform/context';
import { ApiError, forbidden, recordNotFound } from '../platform/errors';
import { baseUrl } from '../platform/pagination';
import { today } from '../platform/time';
import { ACCESS, groupLevelSql, projectLevelSql } from '../projects/abilities';
import { namespaceFullNameSql } from '../projects/group-queries';
import { type BasicGroupDetails, runnerDetails, type RunnerProject } from './runner-entity';
import { knownContact, type RunnerRow } from './runner-tokens';

/** The runner, its projects and its groups, with the caller's level in each: three reads for one batch. */
export function runnerReads(db: Db, caller: Caller, runnerId: number | SQL) {
  const uid = caller.user?.id;
  const idValue = typeof runnerId === 'number' ? sql`${runnerId}` : runnerId;
  return [
    db.select().from(ciRunners).where(sql`${ciRunners.id} = ${idValue}`).limit(1),
    db
      .select({
        id: projects.id,
        name: projects.name,
        path: projects.path,
        fullPath: namespaces.fullPath,
        fullName: namespaceFullNameSql().as('full_name'),
        level: (uid === undefined ? sql<number>`0` : projectLevelSql(uid)).as('level'),
      })
      .from(ciRunnerProjects)
      .innerJoin(projects, eq(projects.id, ciRunnerProjects.projectId))
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(sql`${ciRunnerProjects.runnerId} = ${idValue}`)
      .orderBy(asc(ciRunnerProjects.id)),
    db
      .select({ id: namespaces.id, name: namespaces.name, fullPath: namespaces.fullPath, level: (uid === undefined ? sql<number>`0` : groupLevelSql(uid)).as('level') })
      .from(ciRunnerNamespaces)
      .innerJoin(namespaces, eq(namespaces.id, ciRunnerNamespaces.namespaceId))
      .where(sql`${ciRunnerNamespaces.runnerId} = ${idValue}`),
  ] as const;
}

type Reads = ReturnType<typeof runnerReads>;
export type RunnerReadResults = [Awaited<Reads[0]>, Awaited<Reads[1]>, Awaited<Reads[2]>];

export interface LoadedRunner {
  runner: RunnerRow;
  /** Every project the runner is enabled in, with the caller's level. */
  projects: RunnerReadResults[1];
  groups: RunnerReadResults[2];
  /** RunnerPolicy `owned_runner` or an administrator: read, update, reset, assign, delete. */
  owned: boolean;
}

/** The runner of the reads, or `404 Not found` (`::Ci::Runner.find` raises RecordNotFound). */
export function loadedRunner(caller: Caller, [rows, projectRows, groupRows]: RunnerReadResults): LoadedRunner {
  const runner = rows[0];
  if (!runner) throw recordNotFound();
  const owned =
    caller.isAdmin || projectRows.some((p) => Number(p.level) >= ACCESS.MAINTAINER) || groupRows.some((g) => Number(g.level) >= ACCESS.OWNER);
  return { runner, projects: projectRows, groups: groupRows, owned };
}

/** Reads and loads a runner in one round trip. */
export async function loadRunner(c: Context<AppEnv>, caller: Caller, runnerId: number): Promise<LoadedRunner> {
  const db = c.var.db;
  const results = (await db.batch(runnerReads(db, caller, runnerId) as never)) as unknown as RunnerReadResults;
  return loadedRunner(caller, results);
}

/** `forbidden!("No access granted")`. */
export const noAccess = (): ApiError => forbidden('No access granted');

/** authenticate_show_runner!: instance runners for every signed-in user, others for owners. */
export function requireShow(caller: Caller, loaded: LoadedRunner): void {
  if (loaded.runner.runnerType === 'instance_type' || caller.isAdmin) return;
  if (!loaded.owned) throw noAccess();
}

/** authenticate_update_runner! (and the token reset, and the job list: `read_runner` is ownership here). */
export function requireOwner(loaded: LoadedRunner): void {
  if (!loaded.owned) throw noAccess();
}

/**
 * RunnerDetails for the caller: all projects and groups for administrators, for others only those
 * they are authorized for (User#authorized_projects / authorized_groups: any membership).
 */
export function presentDetails(c: Context<AppEnv>, caller: Caller, loaded: LoadedRunner, runner: RunnerRow = loaded.runner) {
  const base = baseUrl(c);
  const projects: RunnerProject[] = loaded.projects
    .filter((p) => caller.isAdmin || Number(p.level) >= ACCESS.GUEST)
    .map((p) => ({ id: p.id, name: p.name, name_with_namespace: `${p.fullName} / ${p.name}`, path: p.path, path_with_namespace: `${p.fullPath}/${p.path}` }));
  const groups: BasicGroupDetails[] = loaded.groups
    .filter((g) => caller.isAdmin || Number(g.level) >= ACCESS.GUEST)
    .map((g) => ({ id: g.id, web_url: `${base}/groups/${g.fullPath}`, name: g.name }));
  return runnerDetails(runner, { contactedAt: knownContact(c.var.db, runner), canUpdate: loaded.owned, projects, groups });
}

// ---- lists ----

const activeMembership = () => sql`(m.expires_at IS NULL OR m.expires_at > ${today()})`;

/**
 * User#ci_owned_runners: runners of projects the user maintains (directly, through a group, or in
 * their personal namespace) and runners of groups the user owns (or whose ancestor they own).
 * Starts from the user's memberships, so it costs what the user's memberships cost, not the fleet.
 */
export function ownedRunnersSql(uid: number): SQL {
  const inTree = sql`n.traversal_path >= a.traversal_path AND n.traversal_path < a.traversal_path || ':'`;
  const maintained = sql`SELECT m.source_id FROM members m WHERE m.user_id = ${uid} AND m.source_type = 'Project' AND m.access_level >= ${ACCESS.MAINTAINER} AND ${activeMembership()}
    UNION SELECT p.id FROM members m JOIN namespaces a ON a.id = m.source_id JOIN namespaces n ON ${inTree} JOIN projects p ON p.namespace_id = n.id
      WHERE m.user_id = ${uid} AND m.source_type = 'Namespace' AND m.access_level >= ${ACCESS.MAINTAINER} AND ${activeMembership()}
    UNION SELECT p.id FROM namespaces n JOIN projects p ON p.namespace_id = n.id WHERE n.kind = 'User' AND n.owner_id = ${uid}`;
  const ownedGroups = sql`SELECT rn.runner_id FROM members m JOIN namespaces a ON a.id = m.source_id JOIN namespaces n ON ${inTree} JOIN ci_runner_namespaces rn ON rn.namespace_id = n.id
      WHERE m.user_id = ${uid} AND m.source_type = 'Namespace' AND m.access_level >= ${ACCESS.OWNER} AND ${activeMembership()}`;
  return sql`${ciRunners.id} IN (SELECT rp.runner_id FROM ci_runner_projects rp WHERE rp.project_id IN (${maintained}) UNION ${ownedGroups})`;
}

/** Ci::Runner.owned_or_instance_wide: the project's runners, its groups' and their ancestors' runners, and the instance's. */
export function projectRunnersSql(projectId: number, groupIds: number[]): SQL {
  const groups = groupIds.length ? sql` OR ${ciRunners.id} IN (SELECT runner_id FROM ci_runner_namespaces WHERE namespace_id IN (SELECT value FROM json_each(${JSON.stringify(groupIds)})))` : sql``;
  return sql`(${ciRunners.id} IN (SELECT runner_id FROM ci_runner_projects WHERE project_id = ${projectId})${groups} OR ${ciRunners.runnerType} = 'instance_type')`;
}

/** Ci::Runner.group_or_instance_wide: runners of the group and its ancestors, and the instance's. */
export function groupRunnersSql(groupIds: number[]): SQL {
  return sql`(${ciRunners.id} IN (SELECT runner_id FROM ci_runner_namespaces WHERE namespace_id IN (SELECT value FROM json_each(${JSON.stringify(groupIds)}))) OR ${ciRunners.runnerType} = 'instance_type')`;
}
