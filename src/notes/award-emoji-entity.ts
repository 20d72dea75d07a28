/** The AwardEmoji entity (GitLab lib/api/entities/award_emoji.rb). Pure. */
import type { awardEmoji } from '../db/schema';
import { iso } from '../platform/time';

export type AwardRow = typeof awardEmoji.$inferSelect;

/** `url` is set only for custom emoji; this service has none. */
export const awardEmojiEntity = (a: AwardRow, user: object | null) => ({
  id: a.id,
  name: a.name,
  user,
  created_at: iso(a.createdAt),
  updated_at: iso(a.updatedAt),
  awardable_id: a.awardableId,
  awardable_type: a.awardableType,
  url: null,
});
