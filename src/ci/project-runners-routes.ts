/**
 * Runners of a project and of a group (lib/api/ci/runners.rb, `resource :projects` and
 * `resource :groups` of the 14.x API): the runners a project or group can use, and enabling or
 * disabling a project runner in another project. Projects need `admin_project` (maintainers),
 * groups `admin_group` (owners); a hidden project or group is its 404.
 */
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { ciRunnerProjects, ciRunners } from '../db/schema';
import { checkUnmodifiedSince } from '../platform/conditional';
import { forbidden, notFound, validationFailed } from '../platform/errors';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { ACCESS, requireProjectLevel, traversalIds } from '../projects/abilities';
import { findReadableGroup } from '../projects/groups';
import { findReadableProject, findReadableProjectWith } from '../projects/projects';
import { runnerEntity, RunnerSchema } from './runner-entity';
import { filterShape, runnerFilters, SCOPES, scopeShape } from './runner-filters';
import { groupRunnersSql, loadedRunner, noAccess, projectRunnersSql, type RunnerReadResults, runnerReads } from './runner-reads';
import { forgetRunner, knownContact } from './runner-tokens';
import { listRunners } from './runners-routes';

const TAGS = ['runners'];

export function mountProjectRunners(r: Router) {
  r.route(
    { method: 'GET', path: '/projects/:id/runners', summary: "List project's runners", tags: TAGS, params: params({ id: g.string(), ...scopeShape, ...filterShape }), responses: { 200: z.array(RunnerSchema) } },
    async ({ c, p, caller }) => {
      const found = await findReadableProject(c, caller, p.id);
      requireProjectLevel(caller, found.level, ACCESS.MAINTAINER);
      // Ci::Runner.owned_or_instance_wide: every scope is accepted here.
      const ofProject = projectRunnersSql(found.project.id, traversalIds(found.namespace));
      return listRunners(c, p, [ofProject, ...runnerFilters(p, SCOPES)]);
    },
  );

  r.route(
    { method: 'GET', path: '/groups/:id/runners', summary: "List group's runners", tags: TAGS, params: params({ id: g.string(), ...filterShape }), responses: { 200: z.array(RunnerSchema) } },
    async ({ c, p, caller }) => {
      const found = await findReadableGroup(c, caller, p.id);
      if (!caller.isAdmin && found.level < ACCESS.OWNER) throw forbidden();
      // Ci::Runner.group_or_instance_wide: the group's and its ancestors' runners, and the instance's (no `scope` here).
      const ofGroup = groupRunnersSql(traversalIds(found.group));
      return listRunners(c, p, [ofGroup, ...runnerFilters(p)]);
    },
  );

  r.route(
    { method: 'POST', path: '/projects/:id/runners', summary: 'Enable a runner in a project', tags: TAGS, params: params({ id: g.string(), runner_id: g.int() }), responses: { 201: RunnerSchema } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      // The project and the runner (with the caller's level in its projects and groups): one round trip.
      const found = await findReadableProjectWith(c, caller, p.id, () => runnerReads(db, caller, p.runner_id));
      requireProjectLevel(caller, found.level, ACCESS.MAINTAINER);
      const loaded = loadedRunner(caller, found.reads as unknown as RunnerReadResults);
      const runner = loaded.runner;
      // authenticate_enable_runner!
      if (runner.runnerType === 'group_type') throw forbidden('Runner is a group runner');
      if (!caller.isAdmin) {
        if (runner.locked) throw forbidden('Runner is locked');
        if (!loaded.owned) throw noAccess();
      }
      // Ci::Runner#assign_to: a runner is enabled in a project once (RunnerProject's uniqueness).
      if (loaded.projects.some((x) => x.id === found.project.id)) throw validationFailed({ assign_to: ['Validation failed: Runner has already been taken'] });
      const now = Date.now();
      // An instance runner an administrator assigns becomes a project runner (14.x assign_to).
      const runnerType = runner.runnerType === 'instance_type' ? 'project_type' : runner.runnerType;
      await db.batch([
        db.insert(ciRunnerProjects).values({ runnerId: runner.id, projectId: found.project.id, createdAt: now }).onConflictDoNothing(),
        db.update(ciRunners).set({ runnerType, updatedAt: now }).where(eq(ciRunners.id, runner.id)),
      ]);
      forgetRunner(db, runner.id);
      const updated = { ...runner, runnerType, updatedAt: now };
      return c.json(runnerEntity(updated, knownContact(db, updated)), 201);
    },
  );

  r.route(
    {
      method: 'DELETE',
      path: '/projects/:id/runners/:runner_id',
      summary: 'Disable a runner in a project',
      tags: TAGS,
      params: params({ id: g.string(), runner_id: g.int() }),
      responses: { 204: null },
    },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const found = await findReadableProjectWith(c, caller, p.id, (projectId) => [
        db
          .select({ id: ciRunnerProjects.id, createdAt: ciRunnerProjects.createdAt })
          .from(ciRunnerProjects)
          .where(and(eq(ciRunnerProjects.runnerId, p.runner_id), sql`${ciRunnerProjects.projectId} = ${projectId}`))
          .limit(1),
        db.select({ n: sql<number>`count(*)` }).from(ciRunnerProjects).where(eq(ciRunnerProjects.runnerId, p.runner_id)),
      ]);
      requireProjectLevel(caller, found.level, ACCESS.MAINTAINER);
      const [[link], [count]] = found.reads;
      if (!link) throw notFound('Runner');
      if (Number(count?.n ?? 0) === 1) throw forbidden('Only one project associated with the runner. Please remove the runner instead');
      checkUnmodifiedSince(c, link.createdAt);
      await db.delete(ciRunnerProjects).where(eq(ciRunnerProjects.id, link.id)).run();
      forgetRunner(db, p.runner_id);
      return c.body(null, 204);
    },
  );
}
