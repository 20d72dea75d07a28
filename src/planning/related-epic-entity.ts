/**
 * Linked epics' entities (GitLab ee/lib/api/entities/related_epic.rb, related_epic_link.rb). Pure:
 * the epics come already presented (`presentEpics`), the link row says how they are linked.
 */
import { z } from 'zod';
import type { relatedEpicLinks } from '../db/schema';
import { id, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import { type Epic, EpicSchema } from './epic-entity';

export type LinkRow = typeof relatedEpicLinks.$inferSelect;

/** What a client may ask for; `is_blocked_by` is stored as the reverse `blocks` (ee IssuableLinks::CreateService#set_link_type). */
export const LINK_TYPES = ['relates_to', 'blocks', 'is_blocked_by'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

/** The Epic entity and the link as the listed epic's neighbour sees it (spec "LinkedEpic"). */
export const RelatedEpicSchema = EpicSchema.extend({
  related_epic_link_id: id,
  link_type: z.enum(LINK_TYPES),
  link_created_at: timestamp,
  link_updated_at: timestamp,
}).meta({ id: 'RelatedEpic' });
export type RelatedEpic = z.infer<typeof RelatedEpicSchema>;

/** A stored link: its two epics as stored (source blocks target), never `is_blocked_by`. */
export const RelatedEpicLinkSchema = obj({
  id,
  source_epic: EpicSchema,
  target_epic: EpicSchema,
  link_type: z.enum(['relates_to', 'blocks']),
  created_at: timestamp,
  updated_at: timestamp,
}).meta({ id: 'RelatedEpicLink' });
export type RelatedEpicLink = z.infer<typeof RelatedEpicLinkSchema>;

/**
 * The link type from `epicId`'s side (Epic#related_epics, IssuableLink.inverse_link_type): a
 * `blocks` link reads `blocks` from its source and `is_blocked_by` from its target.
 */
export const linkTypeFrom = (link: Pick<LinkRow, 'sourceId' | 'linkType'>, epicId: number): LinkType =>
  link.linkType === 'blocks' && link.sourceId !== epicId ? 'is_blocked_by' : (link.linkType as LinkType);

/** `epic`, a neighbour of the epic with id `fromEpicId` through `link`. */
export function relatedEpicEntity(epic: Epic, link: LinkRow, fromEpicId: number): RelatedEpic {
  return {
    ...epic,
    related_epic_link_id: link.id,
    link_type: linkTypeFrom(link, fromEpicId),
    link_created_at: iso(link.createdAt),
    link_updated_at: iso(link.updatedAt),
  };
}

export function relatedEpicLinkEntity(link: LinkRow, source: Epic, target: Epic): RelatedEpicLink {
  return {
    id: link.id,
    source_epic: source,
    target_epic: target,
    link_type: link.linkType as RelatedEpicLink['link_type'],
    created_at: iso(link.createdAt),
    updated_at: iso(link.updatedAt),
  };
}
