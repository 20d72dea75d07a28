/** The AwardEmoji entity (GitLab lib/api/entities/award_emoji.rb). Pure. */
import { z } from 'zod';
import type { awardEmoji } from '../db/schema';
import { id, int, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import { type UserBasic, UserBasicSchema } from '../users/user-entity';

export type AwardRow = typeof awardEmoji.$inferSelect;

/** `url` is set only for custom emoji; this service has none. */
export const AwardEmojiSchema = obj({
  id,
  name: z.string(),
  user: UserBasicSchema.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  awardable_id: int,
  awardable_type: z.enum(['Issue', 'MergeRequest', 'Note', 'Epic']),
  url: z.string().nullable(),
}).meta({ id: 'AwardEmoji' });
export type AwardEmoji = z.infer<typeof AwardEmojiSchema>;

export const awardEmojiEntity = (a: AwardRow, user: UserBasic | null): AwardEmoji => ({
  id: a.id,
  name: a.name,
  user,
  created_at: iso(a.createdAt),
  updated_at: iso(a.updatedAt),
  awardable_id: a.awardableId,
  awardable_type: a.awardableType as AwardEmoji['awardable_type'],
  url: null,
});
