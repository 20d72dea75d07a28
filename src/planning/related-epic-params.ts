/** Linked epics API parameters (GitLab ee/lib/api/related_epic_links.rb). */
import { paginationParams } from '../platform/pagination';
import { g, params } from '../platform/validate';
import { LINK_TYPES } from './related-epic-entity';

export const relatedEpicsParams = params({ id: g.string(), epic_iid: g.int() });

export const createRelatedEpicParams = params({
  id: g.string(),
  epic_iid: g.int(),
  target_group_id: g.string(),
  target_epic_iid: g.int(),
  link_type: g.enum(LINK_TYPES).optional(),
});

export const deleteRelatedEpicParams = params({ id: g.string(), epic_iid: g.int(), related_epic_link_id: g.int() });

export const relatedEpicLinksParams = params({
  id: g.string(),
  updated_before: g.datetime().optional(),
  updated_after: g.datetime().optional(),
  created_before: g.datetime().optional(),
  created_after: g.datetime().optional(),
  ...paginationParams,
});
