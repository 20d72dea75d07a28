/**
 * Linked epics (Ultimate; GitLab ee/lib/api/related_epic_links.rb): an epic's linked epics, linking
 * and unlinking two epics, and the links of a group. Every route finds the group first (404), then
 * asks the plan for related epics (403), as the API's `before` block does after `user_group`.
 */
import { asc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { batchReads, inJson } from '../db/batch-reads';
import { epics, relatedEpicLinks } from '../db/schema';
import { ApiError, conflict, forbidden, notFound, recordNotFound, unprocessable } from '../platform/errors';
import { linkParamsFrom, MAX_COUNT, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { requirePlan } from '../platform/plan';
import type { Router } from '../platform/router';
import { requireUser } from '../platform/guards';
import { canReadGroupVisibly } from '../projects/abilities';
import { findReadableGroupWith } from '../projects/groups';
import { canReadConfidentialEpic, type EpicExtras, epicExtrasReads } from './epics';
import { createRelatedEpicParams, deleteRelatedEpicParams, relatedEpicLinksParams, relatedEpicsParams } from './related-epic-params';
import { RelatedEpicLinkSchema, RelatedEpicSchema, relatedEpicEntity, relatedEpicLinkEntity } from './related-epic-entity';
import {
  canAdminEpicRelation,
  createReads,
  epicByIid,
  epicIdByIid,
  groupLinksWhere,
  linkEndsReads,
  linkError,
  linkNotes,
  presentById,
  relatedEpicsReads,
} from './related-epic-links';

/** `authorize_related_epics_feature!` then `authorize_epics_feature!`: Ultimate, after the group is found. */
const requireRelatedEpics = (config: Parameters<typeof requirePlan>[0]) => requirePlan(config, 'ultimate');

export function mountRelatedEpics(r: Router) {
  r.route(
    { method: 'GET', path: '/groups/:id/epics/:epic_iid/related_epics', summary: 'List linked epics of an epic', tags: ['epics'], params: relatedEpicsParams, responses: { 200: z.array(RelatedEpicSchema) } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      // The group, the epic, its readable neighbours and their extras: one round trip.
      const { group, level, reads } = await findReadableGroupWith(c, caller, p.id, (gid) => [epicByIid(db, gid, p.epic_iid), ...relatedEpicsReads(db, caller, epicIdByIid(gid, p.epic_iid))] as const);
      requireRelatedEpics(c.var.config);
      const [[epic], rows, ...extras] = reads;
      // `authorize_can_read!` on `find_by(iid:)`: a missing epic is nil, and nil may not be read (403, not 404).
      if (!epic || (epic.confidential && !canReadConfidentialEpic(caller, level, epic))) throw forbidden();
      const byId = await presentById(c, caller, rows.map((r) => r.epic), extras as unknown as EpicExtras, group.id);
      return c.json(rows.map((r) => relatedEpicEntity(byId.get(r.epic.id)!, r.link, epic.id)));
    },
  );

  r.route(
    { method: 'POST', path: '/groups/:id/epics/:epic_iid/related_epics', summary: 'Link two epics', tags: ['epics'], params: createRelatedEpicParams, responses: { 201: RelatedEpicLinkSchema } },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const db = c.var.db;
      // Everything the checks need, in the order GitLab checks it, in the group lookup's round trip.
      const { group, level, reads } = await findReadableGroupWith(c, caller, p.id, (gid) => createReads(db, caller, gid, p));
      requireRelatedEpics(c.var.config);
      const [[source], [targetGroup], [target], [existing], [sourceLinks], [targetLinks]] = reads;
      // find_permissioned_epic!: `find_by_iid!` (ActiveRecord's 404), then `authorize!` (403).
      if (!source) throw recordNotFound();
      if (!canAdminEpicRelation(caller, level, source)) throw forbidden();
      const targetLevel = Number(targetGroup?.level ?? 0);
      if (!targetGroup || !(canReadGroupVisibly(caller, targetGroup.group, targetLevel) || targetGroup.below)) throw notFound('Group');
      if (!target) throw recordNotFound();
      if (!canAdminEpicRelation(caller, targetLevel, target)) throw forbidden();
      // IssuableLinks::CreateService: already related (either way) is 409, then the link's validations (422).
      if (existing) throw conflict('Epic(s) already assigned');
      const invalid = linkError(source, target, { source: sourceLinks?.n ?? 0, target: targetLinks?.n ?? 0 }, `&${target.iid}`);
      if (invalid) throw unprocessable(invalid);
      // `is_blocked_by` is the target blocking the source: stored as `blocks` with the ends swapped.
      const blockedBy = p.link_type === 'is_blocked_by';
      const [from, to] = blockedBy ? [target, source] : [source, target];
      const linkType = blockedBy ? 'blocks' : (p.link_type ?? 'relates_to');
      const now = Date.now();
      const ids = [from.id, to.id];
      const paths = new Map([[group.id, group.fullPath], [targetGroup.group.id, targetGroup.group.fullPath]]);
      const landed = sql`EXISTS (SELECT 1 FROM related_epic_links nl WHERE nl.source_id = ${from.id} AND nl.target_id = ${to.id} AND nl.created_at = ${now})`;
      // The insert, its notes and the answer's reads in one batch; a link that landed meanwhile (either way) leaves nothing inserted.
      const [[link], , , rows, ...extras] = await batchReads(db, [
        db.insert(relatedEpicLinks).values({ sourceId: from.id, targetId: to.id, linkType, createdAt: now, updatedAt: now }).onConflictDoNothing().returning(),
        ...linkNotes(db, { linkType, source: from, target: to }, paths, false, caller.user!.id, now, landed),
        db.select().from(epics).where(inJson(epics.id, ids)),
        ...epicExtrasReads(db, caller, (col) => inJson(col, ids), false),
      ] as const);
      if (!link) throw conflict('Epic(s) already assigned');
      const byId = await presentById(c, caller, rows, extras as unknown as EpicExtras, group.id);
      return c.json(relatedEpicLinkEntity(link, byId.get(link.sourceId)!, byId.get(link.targetId)!), 201);
    },
  );

  r.route(
    {
      method: 'DELETE',
      path: '/groups/:id/epics/:epic_iid/related_epics/:related_epic_link_id',
      summary: 'Unlink two epics',
      tags: ['epics'],
      params: deleteRelatedEpicParams,
      responses: { 200: RelatedEpicLinkSchema },
    },
    async ({ c, p, caller }) => {
      requireUser(caller);
      const db = c.var.db;
      const linkId = Number.isSafeInteger(p.related_epic_link_id) ? p.related_epic_link_id : -1;
      const { group, level, reads } = await findReadableGroupWith(c, caller, p.id, (gid) => {
        const epicId = epicIdByIid(gid, p.epic_iid);
        // `RelatedEpicLink.for_source_or_target(epic).find(id)`: a link of another epic is not found.
        const linkIds = sql`(SELECT ol.id FROM related_epic_links ol WHERE ol.id = ${linkId} AND (ol.source_id = ${epicId} OR ol.target_id = ${epicId}))`;
        return [epicByIid(db, gid, p.epic_iid), db.select().from(relatedEpicLinks).where(sql`${relatedEpicLinks.id} IN ${linkIds}`).limit(1), ...linkEndsReads(db, caller, linkIds)] as const;
      });
      requireRelatedEpics(c.var.config);
      const [[epic], [link], ends, ...extras] = reads;
      if (!epic) throw recordNotFound();
      if (!canAdminEpicRelation(caller, level, epic)) throw forbidden();
      if (!link) throw recordNotFound();
      // Epics::RelatedEpicLinks::DestroyService: both ends must be ones the caller may unlink, else its 404.
      const end = (id: number) => ends.find((e) => e.epic.id === id);
      const mayUnlink = [link.sourceId, link.targetId].every((id) => {
        const e = end(id);
        return e !== undefined && canAdminEpicRelation(caller, Number(e.level ?? 0), e.epic);
      });
      // `render_api_error!(message, 404)`: the service's own words.
      if (!mayUnlink) throw new ApiError(404, { message: 'No Related Epic Link found' });
      const byEnd = new Map(ends.map((e) => [e.epic.id, e.epic]));
      const paths = new Map(ends.map((e) => [e.epic.groupId, e.groupPath]));
      const still = sql`EXISTS (SELECT 1 FROM related_epic_links dl WHERE dl.id = ${link.id})`;
      // The notes first, while the link is there (a concurrent unlink that won leaves none), then the link: one batch.
      await db.batch([
        ...linkNotes(db, { linkType: link.linkType, source: byEnd.get(link.sourceId)!, target: byEnd.get(link.targetId)! }, paths, true, caller.user!.id, Date.now(), still),
        db.delete(relatedEpicLinks).where(eq(relatedEpicLinks.id, link.id)),
      ] as unknown as Parameters<typeof db.batch>[0]);
      const byId = await presentById(c, caller, ends.map((e) => e.epic), extras as unknown as EpicExtras, group.id);
      return c.json(relatedEpicLinkEntity(link, byId.get(link.sourceId)!, byId.get(link.targetId)!));
    },
  );

  r.route(
    { method: 'GET', path: '/groups/:id/related_epic_links', summary: 'List the epic links of a group', tags: ['epics'], params: relatedEpicLinksParams, responses: { 200: z.array(RelatedEpicLinkSchema) } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const raw = await requestParams(c);
      const req = pageRequest(p, raw.per_page);
      // The group, the page, its bounded count and both ends of the page's links with their extras: one round trip.
      const { group, reads } = await findReadableGroupWith(c, caller, p.id, (gid) => {
        const where = groupLinksWhere(caller, gid, p);
        const page = db.select().from(relatedEpicLinks).where(where).orderBy(asc(relatedEpicLinks.id)).limit(req.perPage).offset(req.offset);
        const total = db.select({ n: sql<number>`count(*)` }).from(db.select({ one: sql`1` }).from(relatedEpicLinks).where(where).limit(MAX_COUNT + 1).as('t'));
        return [page, total, ...linkEndsReads(db, caller, sql`(SELECT id FROM (${page.getSQL()}))`)] as const;
      });
      requireRelatedEpics(c.var.config);
      const [links, [n], ends, ...extras] = reads;
      const totalCount = Number(n?.n ?? 0);
      setPaginationHeaders(c, req, linkParamsFrom(raw, {}), totalCount > MAX_COUNT ? null : totalCount, links.length);
      const byId = await presentById(c, caller, ends.map((e) => e.epic), extras as unknown as EpicExtras, group.id);
      return c.json(links.map((l) => relatedEpicLinkEntity(l, byId.get(l.sourceId)!, byId.get(l.targetId)!)));
    },
  );
}
