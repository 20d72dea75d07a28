/**
 * Environments of a project (lib/api/environments.rb, Environments::EnvironmentsFinder,
 * Environments::StopService, EnvironmentPolicy). Every route runs `authenticate!` first; reading
 * needs `read_environment` (reporters and above), creating and updating developers; a stop by
 * someone without `stop_environment` changes nothing and still answers the environment; deleting
 * needs `destroy_environment`, which a developer has only on a stopped environment (403 otherwise).
 * Every route takes a CI job token (`job_token_allowed: true`), acting as the job's user.
 */
import { and, asc, eq, inArray, isNull, lt, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { writeThenRead } from '../db/batch-reads';
import type { Db } from '../db/client';
import { deployments, environments } from '../db/schema';
import { checkUnmodifiedSince } from '../platform/conditional';
import { ApiError, badRequest, forbidden, grapeError, recordNotFound, validationFailed } from '../platform/errors';
import { baseUrl, countUpToQuery, linkParamsFrom, MAX_COUNT, pageRequest, paginationParams, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { deploymentDependents } from './cascade';
import { isUniqueViolation } from '../platform/unique';
import { g, params } from '../platform/validate';
import { ACCESS, hasProjectLevel, requireProjectLevel } from '../projects/abilities';
import { findReadableProjectWith } from '../projects/projects';
import { environmentBasic, EnvironmentBasicSchema, environmentEntity, EnvironmentSchema, type EnvironmentRow } from './environment-entity';
import { obj } from '../platform/response-schemas';
import { blankToNull, environmentErrors, environmentSlug, guessTier, requireReadEnvironment, STATES, TIERS } from './environments';
import { presentProjectBasic, projectBasicReads } from './project-presence';
import { deployEntriesRead, deployGuard, protectedFrom } from './protected-environments';
import { planAllows } from '../platform/plan';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { joined, lastDeploymentRead } from './deployment-reads';
import { deploymentEntity } from './deployment-entity';

const TAGS = ['environments'];
/** API::Environments::MIN_SEARCH_LENGTH (feature flag environment_search_api_min_chars, on). */
const MIN_SEARCH_LENGTH = 3;

const slugParam = { slug: z.unknown().optional() };
/** `optional :slug, absence: { message: "is automatically generated and cannot be changed" }`. */
function refuseSlug(p: { slug?: unknown }) {
  if (p.slug !== undefined && p.slug !== null) throw grapeError('slug is automatically generated and cannot be changed');
}

const listParams = params({ id: g.string(), ...paginationParams, name: g.string().optional(), search: g.string().optional(), states: g.enum(STATES).optional() });
const oneParams = params({ id: g.string(), environment_id: g.int() });
const createParams = params({ id: g.string(), name: g.string(), external_url: g.string().optional(), tier: g.enum(TIERS).optional(), description: g.string().optional(), ...slugParam });
const updateParams = params({
  id: g.string(),
  environment_id: g.int(),
  name: g.string().optional(),
  external_url: g.string().optional(),
  tier: g.enum(TIERS).optional(),
  description: g.string().optional(),
  ...slugParam,
});
const reviewAppsParams = params({ id: g.string(), before: g.datetime().optional(), limit: g.int().refine((n) => n >= 1 && n <= 1000, { message: 'does not have a valid value' }).default(100), dry_run: g.bool().default(true) });
const ReviewAppsSchema = obj({ scheduled_entries: z.array(EnvironmentBasicSchema), unprocessable_entries: z.array(EnvironmentBasicSchema) }).meta({ id: 'ReviewAppsDeletion' });
const DAY = 24 * 60 * 60 * 1000;
const stopParams = params({ id: g.string(), environment_id: g.int(), force: g.bool().optional() });

export function mountEnvironments(r: Router) {
  r.route(
    { method: 'GET', path: '/projects/:id/environments', summary: 'List environments', tags: TAGS, jobToken: true, params: listParams, responses: { 200: z.array(EnvironmentSchema) } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const raw = await requestParams(c);
      // mutually_exclusive :name, :search, message: 'cannot be used together'
      if (raw.name != null && raw.search != null) throw grapeError('name, search cannot be used together');
      const req = pageRequest(p, raw.per_page);
      const where = (pid: SQL) =>
        and(
          sql`${environments.projectId} = ${pid}`,
          p.name !== undefined ? eq(environments.name, p.name) : undefined,
          // Environment.for_name_like: a case-insensitive prefix (compared by length: no LIKE pattern limits).
          p.search ? sql`lower(substr(${environments.name}, 1, ${[...p.search].length})) = lower(${p.search})` : undefined,
          p.states ? eq(environments.state, p.states) : undefined,
        );
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [
        db.select().from(environments).where(where(pid)).orderBy(environments.id).limit(req.perPage).offset(req.offset),
        countUpToQuery(db, environments, where(pid), MAX_COUNT + 1),
        ...projectBasicReads(db, pid),
      ] as const);
      requireReadEnvironment(caller, found);
      if (p.search && [...p.search].length < MIN_SEARCH_LENGTH) throw badRequest(`Search query is less than ${MIN_SEARCH_LENGTH} characters`);
      const [rows, counted, names, owners] = found.reads;
      const n = Number(counted[0]?.n ?? 0);
      setPaginationHeaders(c, req, linkParamsFrom(raw, {}), n > MAX_COUNT ? null : n, rows.length);
      const project = presentProjectBasic(c, caller, found, [names, owners]);
      return c.json(rows.map((e) => environmentEntity(e, { project })));
    },
  );

  r.route(
    { method: 'GET', path: '/projects/:id/environments/:environment_id', summary: 'Get a specific environment', tags: TAGS, jobToken: true, params: oneParams, responses: { 200: EnvironmentSchema } },
    async ({ c, p, caller }) => {
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [environmentRead(c.var.db, pid, p.environment_id), lastDeploymentRead(c.var.db, pid, p.environment_id)] as const);
      requireReadEnvironment(caller, found);
      const [[env], [last]] = found.reads;
      if (!env) throw recordNotFound();
      let lastDeployment = null;
      if (last) {
        const x = joined(last);
        const { environment: _, ...rest } = deploymentEntity(x.d, x.env, x.user, baseUrl(c));
        lastDeployment = rest;
      }
      return c.json(environmentEntity(env, { lastDeployment }));
    },
  );

  r.route(
    { method: 'POST', path: '/projects/:id/environments', summary: 'Create a new environment', tags: TAGS, jobToken: true, params: createParams, responses: { 201: EnvironmentSchema } },
    async ({ c, p, caller }) => {
      refuseSlug(p);
      const db = c.var.db;
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [nameTakenRead(db, pid, p.name), ...projectBasicReads(db, pid)] as const);
      requireProjectLevel(caller, found.level, ACCESS.DEVELOPER);
      const [taken, names, owners] = found.reads;
      const externalUrl = blankToNull(p.external_url);
      const errors = environmentErrors({ name: p.name, nameTaken: taken.length > 0, externalUrl });
      if (Object.keys(errors).length) throw validationFailed(errors);
      const now = Date.now();
      const projectId = found.project.id;
      const values = {
        projectId,
        name: p.name,
        slug: environmentSlug(p.name),
        externalUrl,
        tier: p.tier ?? guessTier(p.name),
        description: blankToNull(p.description),
        createdAt: now,
        updatedAt: now,
      };
      const [rows] = await writeGuarded(() => writeThenRead(db, [db.insert(environments).values(values)], [db.select().from(environments).where(and(eq(environments.projectId, projectId), eq(environments.name, p.name))).limit(1)] as const));
      return c.json(environmentEntity(rows[0], { project: presentProjectBasic(c, caller, found, [names, owners]) }), 201);
    },
  );

  r.route(
    { method: 'PUT', path: '/projects/:id/environments/:environment_id', summary: 'Update an existing environment', tags: TAGS, jobToken: true, params: updateParams, responses: { 200: EnvironmentSchema } },
    async ({ c, p, caller }) => {
      refuseSlug(p);
      const db = c.var.db;
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [environmentRead(db, pid, p.environment_id), nameTakenRead(db, pid, p.name ?? ''), ...projectBasicReads(db, pid)] as const);
      requireProjectLevel(caller, found.level, ACCESS.DEVELOPER);
      const [envRows, taken, names, owners] = found.reads;
      const env = envRows[0];
      if (!env) throw recordNotFound();
      const externalUrl = p.external_url !== undefined ? blankToNull(p.external_url) : undefined;
      const nameTaken = p.name !== undefined && taken.some((t) => t.id !== env.id);
      const errors = environmentErrors({ name: p.name, nameTaken, externalUrl });
      if (Object.keys(errors).length) throw validationFailed(errors);
      const changes: Partial<EnvironmentRow> = {
        ...(p.name !== undefined ? { name: p.name } : {}),
        ...(externalUrl !== undefined ? { externalUrl } : {}),
        ...(p.tier !== undefined ? { tier: p.tier } : {}),
        ...(p.description !== undefined ? { description: blankToNull(p.description) } : {}),
      };
      const updated = await writeGuarded(async () => {
        if (!Object.keys(changes).length) return env;
        const [rows] = await writeThenRead(db, [db.update(environments).set({ ...changes, updatedAt: Date.now() }).where(eq(environments.id, env.id))], [db.select().from(environments).where(eq(environments.id, env.id)).limit(1)] as const);
        return rows[0];
      });
      return c.json(environmentEntity(updated, { project: presentProjectBasic(c, caller, found, [names, owners]) }));
    },
  );

  // Before DELETE .../:environment_id, which would take `review_apps` for an id.
  r.route(
    { method: 'DELETE', path: '/projects/:id/environments/review_apps', summary: 'Delete multiple stopped review apps', tags: TAGS, jobToken: true, params: reviewAppsParams, responses: { 200: ReviewAppsSchema } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const before = p.before ?? Date.now() - 30 * DAY;
      // Environment.stopped_review_apps: stopped, in the `review/` folder, created before `before`, oldest first; not already scheduled.
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [
        db
          .select()
          .from(environments)
          .where(
            and(
              sql`${environments.projectId} = ${pid}`,
              eq(environments.state, 'stopped'),
              sql`${environments.name} GLOB 'review/*[^/]*'`,
              isNull(environments.autoDeleteAt),
              lt(environments.createdAt, before),
            ),
          )
          .orderBy(asc(environments.createdAt), asc(environments.id))
          .limit(p.limit),
      ] as const);
      requireReadEnvironment(caller, found);
      // ScheduleToDeleteReviewAppsService#validate: `destroy_environment` on the project (developers).
      if (!hasProjectLevel(caller, found.level, ACCESS.DEVELOPER)) {
        // GitLab adds the two (empty) lists to this body; error bodies here keep GitLab's `{message}` shape (response-check.ts).
        throw new ApiError(401, { message: 'You do not have permission to destroy environments in this project' });
      }
      const scheduled = found.reads[0];
      if (!p.dry_run && scheduled.length) {
        // Environment.schedule_to_delete: a week from now.
        await db.update(environments).set({ autoDeleteAt: Date.now() + 7 * DAY }).where(inArray(environments.id, scheduled.map((e) => e.id)));
      }
      return c.json({ scheduled_entries: scheduled.map(environmentBasic), unprocessable_entries: [] });
    },
  );

  r.route(
    { method: 'DELETE', path: '/projects/:id/environments/:environment_id', summary: 'Delete an environment', tags: TAGS, jobToken: true, params: oneParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [environmentRead(db, pid, p.environment_id), deployEntriesRead(db, pid, ENV_NAME(p.environment_id), caller.user?.id)] as const);
      requireReadEnvironment(caller, found);
      const [[env], guards] = found.reads;
      if (!env) throw recordNotFound();
      // EnvironmentPolicy: `destroy_environment` (developers) is prevented while the environment is not
      // stopped, and (EE) on a protected environment the caller may not deploy to.
      requireProjectLevel(caller, found.level, ACCESS.DEVELOPER);
      if (env.state !== 'stopped' || protectedFrom(premium(c), caller, found.level, deployGuard(guards))) throw forbidden();
      checkUnmodifiedSince(c, env.updatedAt);
      // `has_many :all_deployments` goes with it (use_fast_destroy).
      await db.batch([
        ...deploymentDependents(db, sql`(SELECT d.id FROM ${deployments} d WHERE d.environment_id = ${env.id})`),
        db.delete(deployments).where(eq(deployments.environmentId, env.id)),
        db.delete(environments).where(eq(environments.id, env.id)),
      ]);
      return c.body(null, 204);
    },
  );

  r.route(
    { method: 'POST', path: '/projects/:id/environments/:environment_id/stop', summary: 'Stop an environment', tags: TAGS, jobToken: true, params: stopParams, responses: { 200: EnvironmentSchema } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [environmentRead(db, pid, p.environment_id), ...projectBasicReads(db, pid), deployEntriesRead(db, pid, ENV_NAME(p.environment_id), caller.user?.id)] as const);
      requireReadEnvironment(caller, found);
      const [envRows, names, owners, guards] = found.reads;
      let env = envRows[0];
      if (!env) throw recordNotFound();
      // StopService answers an error the API ignores when the caller may not stop (no stop actions: `update_environment`).
      // With no stop jobs, `stop` and `stop_complete` both end in `stopped` (auto_stop_at cleared).
      const mayStop = hasProjectLevel(caller, found.level, ACCESS.DEVELOPER) && !protectedFrom(premium(c), caller, found.level, deployGuard(guards));
      if (mayStop && (env.state === 'available' || (p.force && env.state === 'stopping'))) {
        const [rows] = await writeThenRead(
          db,
          [db.update(environments).set({ state: 'stopped', autoStopAt: null, updatedAt: Date.now() }).where(eq(environments.id, env.id))],
          [db.select().from(environments).where(eq(environments.id, env.id)).limit(1)] as const,
        );
        env = rows[0] ?? env;
      }
      return c.json(environmentEntity(env, { project: presentProjectBasic(c, caller, found, [names, owners]) }));
    },
  );
}

/** The name of an environment by id, for the protection reads that hang off the project's lookup. */
const ENV_NAME = (id: number) => sql`(SELECT ${environments.name} FROM ${environments} WHERE ${environments.id} = ${id})`;
const premium = (c: Context<AppEnv>) => planAllows(c.var.config, 'premium');

const environmentRead = (db: Db, pid: SQL, id: number) =>
  db.select().from(environments).where(and(eq(environments.id, id), sql`${environments.projectId} = ${pid}`)).limit(1);

function nameTakenRead(db: Db, pid: SQL, name: string) {
  return db.select({ id: environments.id }).from(environments).where(and(sql`${environments.projectId} = ${pid}`, eq(environments.name, name))).limit(1);
}

/** A name taken by a concurrent request between the check and the write: the uniqueness validation's answer. */
async function writeGuarded<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err, 'slug')) throw validationFailed({ slug: ['has already been taken'] });
    if (isUniqueViolation(err)) throw validationFailed({ name: ['has already been taken'] });
    throw err;
  }
}
