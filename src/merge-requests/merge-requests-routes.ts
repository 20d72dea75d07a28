/**
 * Merge requests (GitLab lib/api/merge_requests.rb): the three lists, get and delete here; create,
 * update, the actions and the sub-resources in the `*-routes.ts` files this module mounts. The list
 * query is finder.ts, the presenter merge-request-presenter.ts.
 */
import { z } from 'zod';
import { and, eq, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { mergeRequests } from '../db/schema';
import { ACCESS, canReadMergeRequests, type NamespaceRow, type ProjectRow } from '../projects/abilities';
import { checkUnmodifiedSince } from '../platform/conditional';
import { forbidden, grapeError, recordNotFound, unauthorized } from '../platform/errors';
import { linkParamsFrom, pageRequest } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { requireUser } from '../platform/guards';
import { applicationLimit, clientIp } from '../settings/rate-limits';
import {
  allMergeRequestsParams,
  getMergeRequestParams,
  groupMergeRequestsParams,
  type MergeRequestListParams,
  mergeRequestRefParams,
  mrListDefaults,
  mrNotRuleErrors,
  projectMergeRequestsParams,
} from './merge-requests-params';
import { findReadableGroupWith } from '../projects/groups';
import { groupIdRef } from '../projects/group-queries';
import { findReadableProject } from '../projects/projects';
import { projectIdRef } from '../projects/project-queries';
import { buildMergeRequestQuery } from './finder';
import { autoMergeIfReady } from './merge';
import { findMergeRequestToPresent } from './merge-request-find';
import { MergeRequestBasicSchema, MergeRequestSchema, MergeRequestSimpleSchema } from './merge-request-entity';
import { presentMergeRequest } from './merge-request-presenter';
import { presentPageThenKnown, presentProjectMergeRequestPage } from './list-page';
import type { BatchItem } from 'drizzle-orm/batch';
import { withReadMemo } from '../platform/read-memo';
import { today } from '../platform/time';
import { mountMergeRequestActions } from './actions-routes';
import { mountMergeRequestClosesIssues } from './closes-issues-routes';
import { mountMergeRequestCreate } from './merge-request-create-routes';
import { mountMergeRequestDiffs } from './diffs-routes';
import { mountMergeRequestParticipants } from './participants-routes';
import { mountMergeRequestPipelines } from './pipelines-routes';
import { mountMergeRequestRebase } from './rebase-routes';
import { mountMergeRequestTimeTracking } from './time-tracking-routes';
import { mountMergeRequestUpdate } from './merge-request-update-routes';
import { asBatch, cascade } from '../platform/cascade';

const TAGS = ['merge_requests'];

/** `view=simple` lists answer MergeRequestSimple. */
const MergeRequestListSchema = z.union([z.array(MergeRequestBasicSchema), z.array(MergeRequestSimpleSchema)]);

// The modules mount where their routes always stood, so routes keep their order (Hono matches and
// the OpenAPI document lists them in registration order).
export function mountMergeRequests(r: Router) {
  // ------------------------------------------------------------------------------------------
  // Lists

  r.route({ method: 'GET', path: '/merge_requests', summary: 'List merge requests', tags: TAGS, params: allMergeRequestsParams, responses: { 200: MergeRequestListSchema } }, async ({ c, p, caller }) => {
    // `authenticate! unless params[:scope] == 'all'`.
    if (p.scope !== 'all' && !caller.user) throw unauthorized();
    const raw = await checkListParams(c, caller, p);
    const q = await buildMergeRequestQuery(c.var.db, caller, { kind: 'all' }, p);
    // The page and its count, then what it shows by the page's ids (list-page.ts).
    return c.json(await presentPageThenKnown(c, caller, q, pageRequest(p, raw.per_page), linkParamsFrom(raw, mrListDefaults('all')), { withLabelsDetails: p.with_labels_details }, p.view, listRenderKeyOf(caller, p)));
  });

  r.route({ method: 'GET', path: '/groups/:id/merge_requests', summary: 'List group merge requests', tags: TAGS, params: groupMergeRequestsParams, responses: { 200: MergeRequestListSchema } }, async ({ c, p, caller }) => {
    const raw = await checkListParams(c, caller, p);
    // The page goes in the round trip that finds the group (list-page.ts), so the query is built on its id as SQL.
    const q = await buildMergeRequestQuery(c.var.db, caller, { kind: 'groupId', groupId: groupIdRef(p.id) }, p);
    const lookup = async (reads: readonly BatchItem<'sqlite'>[]) => {
      const found = await findReadableGroupWith(c, caller, p.id, () => reads);
      return { reads: found.reads, options: { group: found.group } };
    };
    const req = pageRequest(p, raw.per_page);
    const key = listRenderKeyOf(caller, p);
    const o = { withLabelsDetails: p.with_labels_details };
    return c.json(await presentPageThenKnown(c, caller, q, req, linkParamsFrom(raw, mrListDefaults('group')), o, p.view, key === undefined ? undefined : `group:${key}`, lookup));
  });

  r.route({ method: 'GET', path: '/projects/:id/merge_requests', summary: 'List project merge requests', tags: TAGS, params: projectMergeRequestsParams, responses: { 200: MergeRequestListSchema } }, async ({ c, p, caller }) => {
    const raw = await checkListParams(c, caller, p);
    // The page goes in the round trip that finds the project (list-page.ts), so the query is built on its id as SQL.
    const q = await buildMergeRequestQuery(c.var.db, caller, { kind: 'projectId', projectId: projectIdRef(p.id) }, p);
    const o = { withLabelsDetails: p.with_labels_details };
    return c.json(
      await presentProjectMergeRequestPage(c, caller, p.id, q, pageRequest(p, raw.per_page), linkParamsFrom(raw, mrListDefaults('project')), o, p.view, (project, level) => {
        // `authorize! :read_merge_request, user_project`.
        if (!canReadMergeRequests(caller, project, level)) throw forbidden();
      }, renderKeyOf(caller, p)),
    );
  });

  mountMergeRequestCreate(r);

  // ------------------------------------------------------------------------------------------
  // Single merge request

  r.route({ method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid', summary: 'Get a merge request', tags: TAGS, params: getMergeRequestParams, responses: { 200: MergeRequestSchema } }, async ({ c, p, caller }) => {
    const presenting = { project: undefined, firstContribution: true, includeRebaseInProgress: p.include_rebase_in_progress, includeDivergedCommitsCount: p.include_diverged_commits_count };
    // One read memo for the request: the approval state's reads, seeded below, serve the presenter.
    return withReadMemo(c, async () => {
      // The merge request, everything its entity shows and its approval state in the round trip that finds the project.
      const found = await findMergeRequestToPresent(c, caller, p.id, p.merge_request_iid, presenting);
      let loaded: typeof found.loaded | undefined = found.loaded;
      // AutoMergeProcessWorker runs asynchronously in GitLab; here a queued automatic merge whose
      // checks now pass (an approval arrived) completes no later than the next read.
      if (found.mr.mergeWhenPipelineSucceeds && found.mr.state === 'opened' && (await autoMergeIfReady(c, found.mr.id))) {
        found.mr = (await c.var.db.select().from(mergeRequests).where(eq(mergeRequests.id, found.mr.id)).get()) ?? found.mr;
        loaded = undefined;
      }
      return c.json(await presentMergeRequest(c, caller, found.mr, { ...presenting, project: found.project, approvalsPrimed: loaded !== undefined && found.approvalsPrimed }, loaded));
    });
  });

  mountMergeRequestUpdate(r);

  r.route(
    { method: 'DELETE', path: '/projects/:id/merge_requests/:merge_request_iid', summary: 'Delete a merge request', tags: TAGS, params: mergeRequestRefParams, responses: { 204: null } },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const pr = await findReadableProject(c, caller, p.id);
      const db = c.var.db;
      // `find_project_merge_request`, then `authorize!(:destroy_merge_request)`: owners and administrators.
      const mr = Number.isSafeInteger(p.merge_request_iid)
        ? await db.select().from(mergeRequests).where(and(eq(mergeRequests.projectId, pr.project.id), eq(mergeRequests.iid, p.merge_request_iid))).get()
        : undefined;
      // MergeRequestsFinder hides what the caller may not read: the same 404 as a missing one.
      if (!mr || !canReadMergeRequests(caller, pr.project, pr.level)) throw recordNotFound();
      if (!(caller.isAdmin || pr.level >= ACCESS.OWNER)) throw forbidden();
      checkUnmodifiedSince(c, mr.updatedAt);
      await db.batch(asBatch((await cascade(db, 'mergeRequest', sql`(${mr.id})`)).statements));
      return c.body(null, 204);
    },
  );

  mountMergeRequestParticipants(r);
  mountMergeRequestClosesIssues(r);
  mountMergeRequestActions(r);
  mountMergeRequestDiffs(r);
  mountMergeRequestPipelines(r);
  mountMergeRequestRebase(r);
  mountMergeRequestTimeTracking(r);
}

// ---------------------------------------------------------------------------------------------
// Helpers

/**
 * What shapes the project list's page and count statements (finder.ts): the params and the caller's
 * id (the `scope` and `my_reaction_emoji` filters write it in). Username filters write in the id they
 * resolve to, which a rename changes: those lists are rendered afresh (undefined).
 */
function renderKeyOf(caller: Caller, p: MergeRequestListParams): string | undefined {
  const names = [p.author_username, p.assignee_username, p.reviewer_username, p.merge_user_username, p.not?.author_username, p.not?.assignee_username, p.not?.reviewer_username];
  if (names.some((n) => n !== undefined)) return undefined;
  return JSON.stringify([caller.user?.id ?? null, p]);
}

/**
 * renderKeyOf for the lists across projects, whose visibility predicate (abilities.ts
 * mergeRequestVisibleSql) also writes in whether the caller is an administrator or external, and the day.
 */
function listRenderKeyOf(caller: Caller, p: MergeRequestListParams): string | undefined {
  const key = renderKeyOf(caller, p);
  return key === undefined ? undefined : `${key}:${caller.isAdmin ? 'a' : ''}${caller.user?.external ? 'x' : ''}:${today()}`;
}

/** The lists' checks beyond the declared params (Grape's mutually_exclusive rules, the plan's limits, the search rate limit); the raw params. */
async function checkListParams(c: Context<AppEnv>, caller: Caller, p: MergeRequestListParams) {
  const raw = await requestParams(c);
  const ruleErrors = mrNotRuleErrors(raw.not);
  if (ruleErrors.length) throw grapeError(ruleErrors.join(', '));
  for (const [name, list] of [['assignee_username', p.assignee_username], ['not[assignee_username]', p.not?.assignee_username]] as const) {
    if (list && list.length > 1 && c.var.config.plan === 'free') throw grapeError(`${name} allows one value, but found ${list.length}: ${list.join(', ')}`);
  }
  // validate_search_rate_limit!
  if (p.search) {
    if (caller.user) await applicationLimit(c, 'search_rate_limit', [caller.user.id]);
    else await applicationLimit(c, 'search_rate_limit_unauthenticated', [clientIp(c)]);
  }
  return raw;
}
