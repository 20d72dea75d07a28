/**
 * An epic's resource label events (GitLab lib/api/resource_label_events.rb with EE's `Epic`
 * eventable: `/groups/:id/epics/:epic_id/...`, the epic by id as NotesHelpers finds it): list
 * (paginated, id order) and one event. `before { authenticate! }`; Premium, as epics are.
 */
import { z } from 'zod';
import { recordNotFound } from '../platform/errors';
import { baseUrl, paginationParams } from '../platform/pagination';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { findReadableEpicWith } from './epics';
import { eventEntity, eventIdOf, eventPage, eventReads, presentPage, SCHEMAS } from './resource-events';

const listParams = params({ id: g.string(), epic_id: g.int(), ...paginationParams });
const oneParams = params({ id: g.string(), epic_id: g.int(), event_id: g.string() });

export function mountEpicResourceEvents(r: Router) {
  r.route(
    { method: 'GET', path: '/groups/:id/epics/:epic_id/resource_label_events', summary: "List an epic's label events", tags: ['resource_label_events'], params: listParams, responses: { 200: z.array(SCHEMAS.label) } },
    async ({ c, p, caller }) => {
      const page = await eventPage(c, p);
      const found = await findReadableEpicWith(c, caller, p.id, { id: p.epic_id }, (epicId) => eventReads(c.var.db, 'label', { type: 'Epic', id: epicId }, { page: page.req }));
      const [rows, total] = found.reads;
      return c.json(presentPage(c, 'label', 'Epic', page, rows, total));
    },
  );
  r.route(
    { method: 'GET', path: '/groups/:id/epics/:epic_id/resource_label_events/:event_id', summary: "Get an epic's label event", tags: ['resource_label_events'], params: oneParams, responses: { 200: SCHEMAS.label } },
    async ({ c, p, caller }) => {
      const found = await findReadableEpicWith(c, caller, p.id, { id: p.epic_id }, (epicId) => eventReads(c.var.db, 'label', { type: 'Epic', id: epicId }, { eventId: eventIdOf(p.event_id) }));
      const [[row]] = found.reads;
      if (!row) throw recordNotFound();
      return c.json(eventEntity('label', row, 'Epic', baseUrl(c)));
    },
  );
}
