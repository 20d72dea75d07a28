/**
 * Deployments of a project (lib/api/deployments.rb, Deployments::CreateService, DeploymentsFinder).
 * Every route runs `authenticate!`; reading needs `read_deployment` (as read_environment: reporters,
 * and everyone on a public project), creating and updating developers, deleting maintainers.
 * A deployment's approvals are approval-routes.ts, its merge requests deployment-merge-requests.ts.
 * Every route here (and its merge requests) takes a CI job token (`job_token_allowed: true`); the approval does not.
 */
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { writeThenRead } from '../db/batch-reads';
import { deployments, environments, projects, repoCommits } from '../db/schema';
import { ApiError, forbidden, recordNotFound, validationFailed } from '../platform/errors';
import { baseUrl, countUpToQuery, linkParamsFrom, MAX_COUNT, pageRequest, paginationParams, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { planAllows } from '../platform/plan';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { ACCESS, requireProjectLevel } from '../projects/abilities';
import { findReadableProjectWith } from '../projects/projects';
import { refSha } from '../repository/history-reads';
import { deploymentEntity, deploymentExtended, DeploymentExtendedSchema, DeploymentSchema, STATUSES } from './deployment-entity';
import { deploymentRead, deploymentsJoined, joined, lastDeploymentRead, lastSuccessfulOrder } from './deployment-reads';
import { checkFilter, invalidTransition, listOrder, listWhere, transition } from './deployments';
import { environmentErrors, environmentSlug, guessTier, requireReadEnvironment } from './environments';
import { protectedFrom } from './protected-environments';
import { linkMergeRequests } from './deployment-merge-requests';
import { deploymentDependents } from './cascade';
import { approvalContext, approvalContextReads, environmentNameOf } from './approval-reads';
import { type ApprovalContext, guardOf, needsApproval } from './deployment-approvals';
import { recordEvent } from '../platform/events';

/** The deploy entries of the protected environment (EE protected_from?). */
const deployGuards = (ctx: ApprovalContext) => ({ isProtected: !!ctx.pe, entries: ctx.entries.filter((r) => r.e.kind === 'deploy').map(guardOf) });

const TAGS = ['deployments'];
/** The statuses a client may set (spec: create and update accept `created` too). */
const SETTABLE = ['created', 'running', 'success', 'failed', 'canceled'] as const;

const listParams = params({
  id: g.string(),
  ...paginationParams,
  order_by: g.enum(['id', 'iid', 'created_at', 'updated_at', 'ref', 'finished_at'] as const).default('id'),
  sort: g.enum(['asc', 'desc'] as const).default('asc'),
  updated_after: g.datetime().optional(),
  updated_before: g.datetime().optional(),
  finished_after: g.datetime().optional(),
  finished_before: g.datetime().optional(),
  environment: g.string().optional(),
  status: g.enum(STATUSES).optional(),
});
const oneParams = params({ id: g.string(), deployment_id: g.int() });
const createParams = params({ id: g.string(), environment: g.string(), sha: g.string(), ref: g.string(), tag: g.bool(), status: g.enum(SETTABLE).optional() });
const updateParams = params({ id: g.string(), deployment_id: g.int(), status: g.enum(SETTABLE).optional() });

const blank = (name: string, v: string) => {
  if (v.trim() === '') throw new ApiError(400, { error: `${name} is empty` });
};

export function mountDeployments(r: Router) {
  r.route(
    { method: 'GET', path: '/projects/:id/deployments', summary: 'List project deployments', tags: TAGS, jobToken: true, params: listParams, responses: { 200: z.array(DeploymentSchema) } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      checkFilter(p);
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [
        deploymentsJoined(db).where(listWhere(pid, p)).orderBy(...listOrder(p)).limit(req.perPage).offset(req.offset),
        countUpToQuery(db, deployments, listWhere(pid, p), MAX_COUNT + 1),
      ] as const);
      requireReadEnvironment(caller, found);
      const [rows, counted] = found.reads;
      const n = Number(counted[0]?.n ?? 0);
      setPaginationHeaders(c, req, linkParamsFrom(raw, { order_by: p.order_by, sort: p.sort }), n > MAX_COUNT ? null : n, rows.length);
      const base = baseUrl(c);
      return c.json(rows.map((x) => joined(x)).map((x) => deploymentEntity(x.d, x.env, x.user, base)));
    },
  );

  r.route(
    { method: 'GET', path: '/projects/:id/deployments/:deployment_id', summary: 'Get a specific deployment', tags: TAGS, jobToken: true, params: oneParams, responses: { 200: DeploymentExtendedSchema } },
    async ({ c, p, caller }) => {
      const premium = planAllows(c.var.config, 'premium');
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [
        deploymentRead(c.var.db, pid, p.deployment_id),
        ...(premium ? approvalContextReads(c.var.db, pid, environmentNameOf(p.deployment_id), p.deployment_id, caller.user?.id) : []),
      ] as const);
      requireReadEnvironment(caller, found);
      const row = found.reads[0][0];
      if (!row) throw recordNotFound();
      const x = joined(row);
      return c.json(deploymentExtended(x.d, x.env, x.user, baseUrl(c), premium, premium ? approvalContext(found.reads.slice(1)) : undefined));
    },
  );

  r.route(
    { method: 'POST', path: '/projects/:id/deployments', summary: 'Create a deployment', tags: TAGS, jobToken: true, params: createParams, responses: { 201: DeploymentExtendedSchema } },
    async ({ c, p, caller }) => {
      blank('environment', p.environment);
      blank('sha', p.sha);
      blank('ref', p.ref);
      const db = c.var.db;
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [
        db.select().from(environments).where(and(sql`${environments.projectId} = ${pid}`, eq(environments.name, p.environment))).limit(1),
        // Deployment#valid_sha / #valid_ref: `project.commit(x)` resolves a branch or a commit id.
        db
          .select({
            sha: sql<string | null>`(SELECT rc.sha FROM ${repoCommits} rc WHERE rc.project_id = ${pid} AND rc.sha = ${refSha(pid, p.sha)})`.as('sha_found'),
            ref: sql<string | null>`(SELECT rc.sha FROM ${repoCommits} rc WHERE rc.project_id = ${pid} AND rc.sha = ${refSha(pid, p.ref)})`.as('ref_found'),
          })
          .from(projects)
          .where(sql`${projects.id} = ${pid}`),
        lastDeploymentRead(db, pid, sql`(SELECT id FROM ${environments} WHERE ${environments.projectId} = ${pid} AND ${environments.name} = ${p.environment})`),
        ...approvalContextReads(db, pid, p.environment, null, caller.user?.id),
      ] as const);
      requireProjectLevel(caller, found.level, ACCESS.DEVELOPER);
      const [envRows, [checks], [lastRow]] = found.reads;
      const ctx = approvalContext(found.reads.slice(3));
      const guards = deployGuards(ctx);
      const base = baseUrl(c);
      const premium = planAllows(c.var.config, 'premium');
      // Deployments::CreateService: the environment's last deployment answers again when it is the same one.
      const last = lastRow ? joined(lastRow) : undefined;
      if (last && checks?.sha && last.d.ref === p.ref && last.d.tag === p.tag && last.d.sha === checks.sha && last.d.status === p.status) {
        return c.json(deploymentExtended(last.d, last.env, last.user, base, premium), 201);
      }
      const projectId = found.project.id;
      const now = Date.now();
      // find_or_create_by_name: a new environment is saved even when the deployment then fails validation.
      const writes = [];
      const env = envRows[0];
      if (!env) {
        const errors = environmentErrors({ name: p.environment });
        if (Object.keys(errors).length) throw validationFailed(errors);
        writes.push(db.insert(environments).values({ projectId, name: p.environment, slug: environmentSlug(p.environment), tier: guessTier(p.environment), createdAt: now, updatedAt: now }).onConflictDoNothing());
      }
      // authorize!(:create_deployment, environment) after find_or_create_by_name: EE refuses a protected environment.
      if (protectedFrom(premium, caller, found.level, guards)) {
        if (writes.length) await db.batch(writes as [typeof writes[0]]);
        throw forbidden();
      }
      const errors: Record<string, string[]> = {};
      if (!checks?.sha) errors.sha = ['The commit does not exist'];
      if (!checks?.ref) errors.ref = ['The branch or tag does not exist'];
      if (Object.keys(errors).length) {
        if (writes.length) await db.batch(writes as [typeof writes[0]]);
        throw validationFailed(errors);
      }
      // This server runs no CI job to hold: a deployment to an environment asking for approvals waits
      // `blocked` whatever status was asked for, until approvals unblock it (deployment-approvals.ts).
      const blocked = premium && needsApproval(ctx);
      const state = blocked ? { status: 'blocked' } : p.status && p.status !== 'created' ? transition('created', p.status, now) : { status: 'created' };
      const envId = env ? env.id : sql`(SELECT id FROM ${environments} WHERE ${environments.projectId} = ${projectId} AND ${environments.name} = ${p.environment})`;
      // The deployment just inserted: the project's newest (last_insert_rowid() moves with the links' insert).
      const newest = sql`(SELECT max(d.id) FROM ${deployments} d WHERE d.project_id = ${projectId})`;
      const links = state.status === 'success' ? [linkMergeRequests(db, { deploymentId: newest, environmentId: envId, projectId, ref: p.ref })] : [];
      const [rows] = await writeThenRead(
        db,
        [
          ...writes,
          db.insert(deployments).values({
            projectId,
            // AtomicInternalId: the project's next iid, computed in the insert (the unique index settles a race).
            iid: sql`(SELECT coalesce(max(${deployments.iid}), 0) + 1 FROM ${deployments} WHERE ${deployments.projectId} = ${projectId})`,
            environmentId: envId as number,
            ref: p.ref,
            tag: p.tag,
            sha: checks.sha as string,
            userId: caller.user?.id ?? null,
            createdAt: now,
            updatedAt: now,
            ...state,
          }),
          ...links,
          ...(['running', 'success', 'failed', 'canceled'].includes(state.status) ? recordEvent(c, { kind: 'deployment', projectId, objectId: newest, action: state.status, actorId: caller.user?.id ?? 0, data: { status: state.status } }) : []),
        ],
        [deploymentsJoined(db).where(sql`${deployments.id} = ${newest}`).limit(1)] as const,
      );
      const x = joined(rows[0]);
      return c.json(deploymentExtended(x.d, x.env, x.user, base, premium, { ...ctx, approvals: [] }), 201);
    },
  );

  r.route(
    { method: 'PUT', path: '/projects/:id/deployments/:deployment_id', summary: 'Update a deployment', tags: TAGS, jobToken: true, params: updateParams, responses: { 200: DeploymentExtendedSchema } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [
        deploymentRead(db, pid, p.deployment_id),
        ...approvalContextReads(db, pid, environmentNameOf(p.deployment_id), p.deployment_id, caller.user?.id),
      ] as const);
      // `deployments.find` before `authorize! :update_deployment` (EE: not on a protected environment the caller may not deploy to).
      const [[row]] = found.reads;
      if (!row) throw recordNotFound();
      const ctx = approvalContext(found.reads.slice(1));
      requireProjectLevel(caller, found.level, ACCESS.DEVELOPER);
      if (protectedFrom(planAllows(c.var.config, 'premium'), caller, found.level, deployGuards(ctx))) throw forbidden();
      let x = joined(row);
      if (p.status) {
        const set = transition(x.d.status, p.status, Date.now());
        // Compare-and-set on the status read: a concurrent transition makes this one a no-op, answered as invalid.
        // Reaching success links the merge requests it shipped, only when this very transition happened.
        const links =
          p.status === 'success'
            ? [linkMergeRequests(db, { deploymentId: x.d.id, environmentId: x.d.environmentId, projectId: x.d.projectId, ref: x.d.ref }, sql`EXISTS (SELECT 1 FROM ${deployments} d WHERE d.id = ${x.d.id} AND d.status = 'success' AND d.updated_at = ${set.updatedAt})`)]
            : [];
        const [after] = await writeThenRead(db, [db.update(deployments).set(set).where(and(eq(deployments.id, x.d.id), eq(deployments.status, x.d.status))), ...links, ...recordEvent(c, { kind: 'deployment', projectId: x.d.projectId, objectId: x.d.id, action: p.status, actorId: caller.user?.id ?? 0, data: { status: p.status }, when: sql`EXISTS (SELECT 1 FROM deployments d WHERE d.id = ${x.d.id} AND d.status = ${p.status} AND d.updated_at = ${set.updatedAt})` })], [deploymentRead(db, sql`${x.d.projectId}`, x.d.id)] as const);
        const next = joined(after[0]);
        if (next.d.updatedAt !== set.updatedAt || next.d.status !== p.status) throw invalidTransition(p.status);
        x = next;
      }
      return c.json(deploymentExtended(x.d, x.env, x.user, baseUrl(c), planAllows(c.var.config, 'premium'), ctx));
    },
  );

  r.route(
    { method: 'DELETE', path: '/projects/:id/deployments/:deployment_id', summary: 'Delete a specific deployment', tags: TAGS, jobToken: true, params: oneParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const found = await findReadableProjectWith(c, caller, p.id, (pid) => [
        deploymentRead(db, pid, p.deployment_id),
        // The environment's last successful deployment (Environment#last_deployment).
        db
          .select({ id: deployments.id })
          .from(deployments)
          .where(sql`${deployments.environmentId} = (SELECT d2.environment_id FROM ${deployments} d2 WHERE d2.id = ${p.deployment_id}) AND ${deployments.status} = 'success'`)
          .orderBy(...lastSuccessfulOrder)
          .limit(1),
      ] as const);
      // `deployments.find` before `authorize! :destroy_deployment`.
      const [rows, [last]] = found.reads;
      const row = rows[0];
      if (!row) throw recordNotFound();
      requireProjectLevel(caller, found.level, ACCESS.MAINTAINER);
      const d = row.d;
      if (d.status === 'running') throw new ApiError(400, { message: 'Cannot destroy running deployment' });
      if (last?.id === d.id) throw new ApiError(400, { message: 'Deployment currently deployed to environment' });
      await db.batch([...deploymentDependents(db, sql`(${d.id})`), db.delete(deployments).where(eq(deployments.id, d.id))]);
      return c.body(null, 204);
    },
  );
}
