/**
 * The merge requests a deployment shipped (Deployments::LinkMergeRequestsService, run by GitLab's
 * LinkMergeRequestWorker when a deployment succeeds) and
 * `GET /projects/:id/deployments/:deployment_id/merge_requests` (lib/api/deployments.rb:
 * MergeRequestsFinder with the deployment's id and the merge request list's parameters, as
 * MergeRequestBasic). Here the links are written in the batch that makes the deployment succeed.
 */
import { and, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { deploymentMergeRequests, deployments, mergeRequests } from '../db/schema';
import { forbidden, recordNotFound } from '../platform/errors';
import { linkParamsFrom, pageRequest } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { canReadMergeRequests } from '../projects/abilities';
import { findReadableProject } from '../projects/projects';
import { buildMergeRequestQuery } from '../merge-requests/finder';
import { presentMergeRequestPage } from '../merge-requests/list-page';
import { MergeRequestBasicSchema, MergeRequestSimpleSchema } from '../merge-requests/merge-request-entity';
import { mrListDefaults, projectMergeRequestsParams } from '../merge-requests/merge-requests-params';
import { requireReadEnvironment } from './environments';

/**
 * The statement linking deployment `deploymentId` (of `environmentId`, deploying `ref` in project
 * `projectId`) to the merge requests merged into its ref and not yet shipped to that environment:
 * those merged since the environment's previous successful deployment, which linked everything
 * before them. `when` keeps the link to the transition it belongs to (a refused one links nothing).
 */
export function linkMergeRequests(db: Db, d: { deploymentId: number | SQL; environmentId: number | SQL; projectId: number; ref: string }, when?: SQL) {
  return db.insert(deploymentMergeRequests).select(
    db
      .select({ deploymentId: sql`${d.deploymentId}`.as('deployment_id'), mergeRequestId: mergeRequests.id, environmentId: sql`${d.environmentId}`.as('environment_id') })
      .from(mergeRequests)
      .where(
        and(
          sql`${mergeRequests.projectId} = ${d.projectId} AND ${mergeRequests.targetBranch} = ${d.ref} AND ${mergeRequests.state} = 'merged'`,
          sql`NOT EXISTS (SELECT 1 FROM ${deploymentMergeRequests} dm WHERE dm.environment_id = ${d.environmentId} AND dm.merge_request_id = "merge_requests"."id")`,
          when,
        ),
      ),
  );
}

const listParams = params({ ...projectMergeRequestsParams.shape, deployment_id: g.int() }, projectMergeRequestsParams.rules);

export function mountDeploymentMergeRequests(r: Router) {
  r.route(
    {
      method: 'GET',
      path: '/projects/:id/deployments/:deployment_id/merge_requests',
      summary: 'List of merge requests associated with a deployment',
      tags: ['deployments'],
      jobToken: true,
      params: listParams,
      // `view=simple` answers MergeRequestSimple, as the merge request lists.
      responses: { 200: z.union([z.array(MergeRequestBasicSchema), z.array(MergeRequestSimpleSchema)]) },
    },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const found = await findReadableProject(c, caller, p.id);
      // `authorize! :read_deployment`, then the deployment of this project (404 `404 Not found`).
      requireReadEnvironment(caller, found);
      if (!canReadMergeRequests(caller, found.project, found.level)) throw forbidden();
      const raw = await requestParams(c);
      const q = await buildMergeRequestQuery(db, caller, { kind: 'project', project: found.project }, p);
      q.where = and(q.where, sql`${mergeRequests.id} IN (SELECT dm.merge_request_id FROM ${deploymentMergeRequests} dm WHERE dm.deployment_id = ${p.deployment_id})`);
      const deployment = db.select({ id: deployments.id }).from(deployments).where(sql`${deployments.id} = ${p.deployment_id} AND ${deployments.projectId} = ${found.project.id}`).limit(1);
      // The page, its count, what it shows and the deployment's lookup in one batch (list-page.ts).
      return c.json(
        await presentMergeRequestPage(c, caller, q, pageRequest(p, raw.per_page), linkParamsFrom(raw, mrListDefaults('project')), { withLabelsDetails: p.with_labels_details, project: found.project }, p.view, {
          reads: [deployment],
          check: ([rows]) => {
            if (!(rows as unknown[]).length) throw recordNotFound();
          },
        }),
      );
    },
  );
}
