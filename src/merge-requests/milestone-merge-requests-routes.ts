/**
 * GET /projects/:id/milestones/:milestone_id/merge_requests and the group twin
 * (lib/api/milestone_responses.rb `milestone_issuables_for`): MergeRequestsFinder with the
 * milestone's title, scoped to the project or to the group and its subgroups, in `label_priority`
 * order, presented as MergeRequestBasic. The paths belong to milestones; the list presents merge
 * requests, so it lives here, like the milestone's issue list lives in the issues domain.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import { canReadMergeRequests } from '../projects/abilities';
import type { AppEnv, Caller } from '../platform/context';
import { linkParamsFrom, pageRequest } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { milestoneItemsParams } from '../planning/milestones-params';
import { loadParent, type Parent } from '../planning/milestones-routes';
import { and, eq, sql } from 'drizzle-orm';
import { milestones } from '../db/schema';
import { recordNotFound } from '../platform/errors';
import { buildMergeRequestQuery, labelPriorityOrder, milestoneTitleCondition } from './finder';
import { MergeRequestBasicSchema } from './merge-request-entity';
import { presentMergeRequestPage } from './list-page';
import type { MergeRequestListParams } from './merge-requests-params';

export function mountMilestoneMergeRequests(r: Router) {
  for (const kind of ['project', 'group'] as const) {
    const noun = kind === 'project' ? 'project' : 'group';
    r.route(
      {
        signedIn: true,
        method: 'GET',
        path: `/${kind === 'project' ? 'projects' : 'groups'}/:id/milestones/:milestone_id/merge_requests`,
        summary: `List merge requests of a ${noun} milestone`,
        tags: ['milestones'],
        params: milestoneItemsParams,
        responses: { 200: z.array(MergeRequestBasicSchema) },
      },
      async ({ c, p, caller }) => milestoneMergeRequests(c, caller, await loadParent(c, caller, kind, p.id), p),
    );
  }
}

async function milestoneMergeRequests(c: Context<AppEnv>, caller: Caller, parent: Parent, p: { milestone_id: number; page?: number; per_page?: number }) {
  const db = c.var.db;
  // `parent.milestones.find(id)` (planning's findMilestone) rides in the page's batch: its title
  // filters the page there, through a sub-select, and a missing one answers 404 before anything is shown.
  const own = parent.kind === 'project' ? eq(milestones.projectId, parent.project.id) : eq(milestones.groupId, parent.group.id);
  const found = db.select({ id: milestones.id }).from(milestones).where(and(own, eq(milestones.id, p.milestone_id))).limit(1);
  const title = sql`(SELECT t.title FROM milestones t WHERE t.id = ${p.milestone_id} AND ${parent.kind === 'project' ? sql`t.project_id = ${parent.project.id}` : sql`t.group_id = ${parent.group.id}`})`;
  // The finder's own parameters: every state, no archived-project filter (that default belongs to
  // the list endpoints' `non_archived` parameter, which this one does not have).
  const finderParams = { state: 'all', scope: 'all', non_archived: false } as MergeRequestListParams;
  const q = await buildMergeRequestQuery(db, caller, parent.kind === 'project' ? { kind: 'project', project: parent.project } : { kind: 'group', group: parent.group }, finderParams);
  q.where = and(q.where, milestoneTitleCondition(title));
  // A project whose merge requests the caller may not read lists none (the finder, not a 403).
  if (parent.kind === 'project' && !canReadMergeRequests(caller, parent.project, parent.level)) q.possible = false;
  q.orderBy = labelPriorityOrder();
  const raw = await requestParams(c);
  // The page, its count and what presenting it reads, in one batch (list-page.ts).
  return c.json(await presentMergeRequestPage(c, caller, q, pageRequest(p, raw.per_page), linkParamsFrom(raw, {}), parent.kind === 'project' ? { project: parent.project } : { group: parent.group }, undefined, {
      reads: [found],
      check: ([rows]) => {
        if (!(rows as unknown[]).length) throw recordNotFound();
      },
    }),
  );
}
