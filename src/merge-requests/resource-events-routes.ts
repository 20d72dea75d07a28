/**
 * A merge request's resource events (GitLab lib/api/resource_label_events.rb,
 * resource_milestone_events.rb, resource_state_events.rb, `MergeRequest` eventable): list
 * (paginated, id order) and one event. `before { authenticate! }`; `find_noteable` is the merge
 * request lookup (a merge request the caller may not read is the same 404 as a missing one); the
 * events, their users, labels and milestones ride the lookup's round trip.
 */
import { z } from 'zod';
import { recordNotFound } from '../platform/errors';
import { baseUrl, paginationParams } from '../platform/pagination';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { EVENT_KINDS, eventEntity, eventIdOf, eventPage, eventReads, presentPage, SCHEMAS, SEGMENTS } from '../planning/resource-events';
import { findProjectMergeRequestWith } from './merge-request-access';

const listParams = params({ id: g.string(), merge_request_iid: g.int(), ...paginationParams });
const oneParams = params({ id: g.string(), merge_request_iid: g.int(), event_id: g.string() });

export function mountMergeRequestResourceEvents(r: Router) {
  for (const kind of EVENT_KINDS) {
    const segment = SEGMENTS[kind];
    r.route(
      { method: 'GET', path: `/projects/:id/merge_requests/:merge_request_iid/${segment}`, summary: `List a merge request's ${kind} events`, tags: [segment], params: listParams, responses: { 200: z.array(SCHEMAS[kind]) } },
      async ({ c, p, caller }) => {
        const page = await eventPage(c, p);
        const found = await findProjectMergeRequestWith(c, caller, p.id, p.merge_request_iid, (mrId) => ({
          list: [...eventReads(c.var.db, kind, { type: 'MergeRequest', id: mrId }, { page: page.req })],
          unflatten: (rows) => rows as unknown as Awaited<ReturnType<typeof eventReads>[number]>[],
        }));
        const [rows, total] = found.loaded as unknown as [Parameters<typeof presentPage>[4], Parameters<typeof presentPage>[5]];
        return c.json(presentPage(c, kind, 'MergeRequest', page, rows, total));
      },
    );
    r.route(
      { method: 'GET', path: `/projects/:id/merge_requests/:merge_request_iid/${segment}/:event_id`, summary: `Get a merge request's ${kind} event`, tags: [segment], params: oneParams, responses: { 200: SCHEMAS[kind] } },
      async ({ c, p, caller }) => {
        const found = await findProjectMergeRequestWith(c, caller, p.id, p.merge_request_iid, (mrId) => ({
          list: [...eventReads(c.var.db, kind, { type: 'MergeRequest', id: mrId }, { eventId: eventIdOf(p.event_id) })],
          unflatten: (rows) => rows,
        }));
        const [[row]] = found.loaded as unknown as [Parameters<typeof presentPage>[4]];
        // `eventable.resource_*_events.find(params[:event_id])`: ActiveRecord's 404.
        if (!row) throw recordNotFound();
        return c.json(eventEntity(kind, row, 'MergeRequest', baseUrl(c)));
      },
    );
  }
}
