/**
 * An issue's resource events (GitLab lib/api/resource_label_events.rb, resource_milestone_events.rb,
 * resource_state_events.rb, `Issue` eventable): list (paginated, id order) and one event.
 * `before { authenticate! }`; `find_noteable` is the issue lookup (its 404s); the events, their
 * users, labels and milestones ride the lookup's round trip.
 */
import { z } from 'zod';
import { baseUrl, paginationParams } from '../platform/pagination';
import { recordNotFound } from '../platform/errors';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { findReadableIssueWith } from './issues';
import { EVENT_KINDS, eventEntity, eventIdOf, eventPage, eventReads, presentPage, SCHEMAS, SEGMENTS } from '../planning/resource-events';

const listParams = params({ id: g.string(), issue_iid: g.int(), ...paginationParams });
const oneParams = params({ id: g.string(), issue_iid: g.int(), event_id: g.string() });

export function mountIssueResourceEvents(r: Router) {
  for (const kind of EVENT_KINDS) {
    const segment = SEGMENTS[kind];
    r.route(
      { method: 'GET', path: `/projects/:id/issues/:issue_iid/${segment}`, summary: `List an issue's ${kind} events`, tags: [segment], params: listParams, responses: { 200: z.array(SCHEMAS[kind]) } },
      async ({ c, p, caller }) => {
        const page = await eventPage(c, p);
        const found = await findReadableIssueWith(c, caller, p.id, p.issue_iid, (issueId) => eventReads(c.var.db, kind, { type: 'Issue', id: issueId }, { page: page.req }));
        const [rows, total] = found.reads;
        return c.json(presentPage(c, kind, 'Issue', page, rows, total));
      },
    );
    r.route(
      { method: 'GET', path: `/projects/:id/issues/:issue_iid/${segment}/:event_id`, summary: `Get an issue's ${kind} event`, tags: [segment], params: oneParams, responses: { 200: SCHEMAS[kind] } },
      async ({ c, p, caller }) => {
        const found = await findReadableIssueWith(c, caller, p.id, p.issue_iid, (issueId) => eventReads(c.var.db, kind, { type: 'Issue', id: issueId }, { eventId: eventIdOf(p.event_id) }));
        const [[row]] = found.reads;
        // `eventable.resource_*_events.find(params[:event_id])`: ActiveRecord's 404.
        if (!row) throw recordNotFound();
        return c.json(eventEntity(kind, row, 'Issue', baseUrl(c)));
      },
    );
  }
}
