/**
 * The user-facing runner API (lib/api/ci/runners.rb, `resource :runners`): the caller's runners and
 * all runners, a runner's details, updating, pausing and deleting it, its jobs and its token reset.
 * Every write drops the runner from this isolate's token cache (runner-tokens.ts `forgetRunner`),
 * so its next poll sees the change, and logs the change in its batch for the other isolates
 * (runner-changes.ts).
 */
import { and, asc, eq, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import { z } from 'zod';
import { ciRunnerNamespaces, ciRunnerProjects, ciRunners } from '../db/schema';
import { checkUnmodifiedSince } from '../platform/conditional';
import type { AppEnv } from '../platform/context';
import { forbidden, grapeError, validationFailed } from '../platform/errors';
import { requireAdmin } from '../platform/guards';
import { countUpToQuery, linkParamsFrom, paginate, pageRequest, paginationParams } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { iso } from '../platform/time';
import { g, params } from '../platform/validate';
import { settingsOf } from '../settings/settings';
import { RunnerDetailsSchema, runnerEntity, RunnerJobSchema, RunnerSchema, RunnerTokenSchema } from './runner-entity';
import { filterShape, runnerFilters, SCOPES, scopeShape, STATUSES } from './runner-filters';
import { loadRunner, ownedRunnersSql, presentDetails, requireOwner, requireShow } from './runner-reads';
import { digestOf, forgetRunner, knownContact, newAuthenticationToken, type RunnerRow, type RunnerType, tokenExpiry } from './runner-tokens';
import { runnerChangeStatements } from './runner-changes';
import { runnerErrors } from './runner-validation';

const TAGS = ['runners'];
const UPDATE_KEYS = ['description', 'active', 'paused', 'tag_list', 'run_untagged', 'locked', 'access_level', 'maximum_timeout', 'maintenance_note'];
const allListParams = params({ ...scopeShape, ...filterShape });
// GET /runners declares `scope` with `values: AVAILABLE_STATUSES`: Grape refuses `shared` or
// `specific` there (`scope does not have a valid value`) before filter_runners could.
const ownedListParams = params({ scope: g.enum(STATUSES).optional(), ...filterShape });
const idParams = params({ id: g.int() });
/** Ci::Build::AVAILABLE_STATUSES. */
const JOB_STATUSES = ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'success', 'failed', 'canceled', 'skipped', 'manual', 'scheduled'] as const;

/** One page of runners matching `conds`, ordered by id (the paginate helper's default order), with GitLab's headers. */
export async function listRunners(c: Context<AppEnv>, p: { page?: number; per_page?: number }, conds: (SQL | undefined)[]) {
  const raw = await requestParams(c);
  const db = c.var.db;
  const where = and(...conds);
  const rows = await paginate(
    c,
    pageRequest(p, raw.per_page),
    linkParamsFrom(raw, {}),
    (limit, offset) => db.select().from(ciRunners).where(where).orderBy(asc(ciRunners.id)).limit(limit).offset(offset),
    (limit) => countUpToQuery(db, ciRunners, where, limit),
  );
  const now = Date.now();
  return c.json(rows.map((r: RunnerRow) => runnerEntity(r, knownContact(db, r), now)));
}

/** Ci::Runner's attributes after an update (tag_list as acts_as_taggable parses it: trimmed, unique, no blanks). */
function updatedAttributes(r: RunnerRow, p: { description?: string; active?: boolean; paused?: boolean; tag_list?: string[]; run_untagged?: boolean; locked?: boolean; access_level?: string; maximum_timeout?: number | null; maintenance_note?: string }) {
  return {
    description: p.description ?? r.description,
    active: p.paused !== undefined ? !p.paused : (p.active ?? r.active),
    tagList: p.tag_list !== undefined ? [...new Set(p.tag_list.map((t) => t.trim()).filter(Boolean))] : r.tagList,
    runUntagged: p.run_untagged ?? r.runUntagged,
    locked: p.locked ?? r.locked,
    accessLevel: p.access_level ?? r.accessLevel,
    maximumTimeout: p.maximum_timeout !== undefined ? p.maximum_timeout : r.maximumTimeout,
    maintenanceNote: p.maintenance_note ?? r.maintenanceNote,
  };
}

/**
 * Blank values the parameter types set aside as absent but GitLab applies: `maximum_timeout` null or
 * '' (Grape coerces '' to nil) removes the limit; `tag_list` null or '' (CommaSeparatedToArray
 * gives `[]`; acts_as_taggable reads nil as no tags) removes every tag.
 */
function blanksThatClear(raw: Record<string, unknown>): { maximum_timeout?: null; tag_list?: string[] } {
  const out: { maximum_timeout?: null; tag_list?: string[] } = {};
  if ('maximum_timeout' in raw && (raw.maximum_timeout === null || raw.maximum_timeout === '')) out.maximum_timeout = null;
  if ('tag_list' in raw && (raw.tag_list === null || raw.tag_list === '')) out.tag_list = [];
  return out;
}

export function mountRunners(r: Router) {
  r.route({ method: 'GET', path: '/runners', summary: 'List owned runners', tags: TAGS, params: ownedListParams, responses: { 200: z.array(RunnerSchema) } }, async ({ c, p, caller }) => {
    // current_user.ci_owned_runners; `scope` here takes the statuses only.
    const conds = [...runnerFilters({ scope: p.scope }, STATUSES), ...runnerFilters(p)];
    return listRunners(c, p, [ownedRunnersSql(caller.user!.id), ...conds]);
  });

  r.route({ method: 'GET', path: '/runners/all', summary: 'List all runners', tags: TAGS, params: allListParams, responses: { 200: z.array(RunnerSchema) } }, async ({ c, p, caller }) => {
    requireAdmin(caller);
    return listRunners(c, p, runnerFilters(p, SCOPES));
  });

  r.route({ method: 'GET', path: '/runners/:id', summary: "Get runner's details", tags: TAGS, params: idParams, responses: { 200: RunnerDetailsSchema } }, async ({ c, p, caller }) => {
    const loaded = await loadRunner(c, caller, p.id);
    requireShow(caller, loaded);
    return c.json(presentDetails(c, caller, loaded));
  });

  r.route(
    {
      method: 'PUT',
      path: '/runners/:id',
      summary: "Update runner's details",
      tags: TAGS,
      params: params(
        {
          id: g.int(),
          description: g.string().optional(),
          active: g.bool().optional(),
          paused: g.bool().optional(),
          tag_list: g.csv().optional(),
          run_untagged: g.bool().optional(),
          locked: g.bool().optional(),
          access_level: g.enum(['not_protected', 'ref_protected']).optional(),
          maximum_timeout: g.int().optional(),
          maintenance_note: g.string().optional(),
        },
        [{ mutuallyExclusive: ['active', 'paused'] }],
      ),
      responses: { 200: RunnerDetailsSchema },
    },
    async ({ c, p, caller }) => {
      const raw = await requestParams(c);
      // `at_least_one_of` counts a key given as null (Grape checks key presence).
      if (!UPDATE_KEYS.some((k) => k in raw)) throw grapeError(`${UPDATE_KEYS.join(', ')} are missing, at least one parameter must be provided`);
      const loaded = await loadRunner(c, caller, p.id);
      requireOwner(loaded);
      const attrs = updatedAttributes(loaded.runner, { ...p, ...blanksThatClear(raw) });
      const errors = runnerErrors(attrs);
      if (Object.keys(errors).length) throw validationFailed(errors);
      const db = c.var.db;
      const updatedAt = Date.now();
      await db.batch([db.update(ciRunners).set({ ...attrs, updatedAt }).where(eq(ciRunners.id, loaded.runner.id)), ...runnerChangeStatements(db, loaded.runner.id, updatedAt)]);
      forgetRunner(db, loaded.runner.id);
      return c.json(presentDetails(c, caller, loaded, { ...loaded.runner, ...attrs, updatedAt }));
    },
  );

  r.route({ method: 'DELETE', path: '/runners/:id', summary: 'Delete a runner', tags: TAGS, params: idParams, responses: { 204: null } }, async ({ c, p, caller }) => {
    const loaded = await loadRunner(c, caller, p.id);
    // authenticate_delete_runner!: a runner of several projects first, then ownership.
    if (!caller.isAdmin) {
      if (loaded.projects.length > 1) throw forbidden('Runner associated with more than one project');
      requireOwner(loaded);
    }
    checkUnmodifiedSince(c, loaded.runner.updatedAt);
    const db = c.var.db;
    const id = loaded.runner.id;
    await db.batch([db.delete(ciRunnerProjects).where(eq(ciRunnerProjects.runnerId, id)), db.delete(ciRunnerNamespaces).where(eq(ciRunnerNamespaces.runnerId, id)), db.delete(ciRunners).where(eq(ciRunners.id, id)), ...runnerChangeStatements(db, id)]);
    forgetRunner(db, id);
    return c.body(null, 204);
  });

  r.route(
    {
      method: 'GET',
      path: '/runners/:id/jobs',
      summary: "List runner's jobs",
      tags: TAGS,
      params: params({ id: g.int(), status: g.enum(JOB_STATUSES).optional(), order_by: g.enum(['id']).optional(), sort: g.enum(['asc', 'desc']).default('desc'), ...paginationParams }),
      responses: { 200: z.array(RunnerJobSchema) },
    },
    async ({ c, p, caller }) => {
      const loaded = await loadRunner(c, caller, p.id);
      requireOwner(loaded);
      // No job is ever assigned to a runner here yet: the list is empty, with its headers.
      const raw = await requestParams(c);
      const jobs = await paginate(c, pageRequest(p, raw.per_page), linkParamsFrom(raw, { sort: p.sort }), async () => [] as never[], async () => 0);
      return c.json(jobs);
    },
  );

  r.route(
    { method: 'POST', path: '/runners/:id/reset_authentication_token', summary: "Reset runner's authentication token", tags: TAGS, params: idParams, responses: { 201: RunnerTokenSchema } },
    async ({ c, p, caller }) => {
      const [loaded, settings] = await Promise.all([loadRunner(c, caller, p.id), settingsOf(c)]);
      requireOwner(loaded);
      const runner = loaded.runner;
      const db = c.var.db;
      const now = Date.now();
      const token = newAuthenticationToken(runner.registrationType === 'authenticated_user' ? 'authenticated_user' : 'registration_token');
      const expiresAt = tokenExpiry(settings, runner.runnerType as RunnerType, now);
      await db.batch([db.update(ciRunners).set({ tokenDigest: await digestOf(c, token), tokenExpiresAt: expiresAt, updatedAt: now }).where(eq(ciRunners.id, runner.id)), ...runnerChangeStatements(db, runner.id, now)]);
      forgetRunner(db, runner.id);
      return c.json({ token, token_expires_at: iso(expiresAt) }, 201);
    },
  );
}
