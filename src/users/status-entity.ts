/**
 * UserStatus presenter (GitLab lib/api/entities/user_status.rb, app/models/user_status.rb).
 * Key order follows spec document 2 (UserStatus: emoji, availability, message, message_html, clear_status_at).
 */
import { z } from 'zod';
import type { userStatuses } from '../db/schema';
import { renderEmojiMessage } from '../platform/emoji';
import { obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';

export type UserStatusRow = typeof userStatuses.$inferSelect;

/** UserStatus::CLEAR_STATUS_QUICK_OPTIONS, in milliseconds. */
export const CLEAR_STATUS_AFTER = {
  '30_minutes': 30 * 60_000,
  '3_hours': 3 * 3_600_000,
  '8_hours': 8 * 3_600_000,
  '1_day': 86_400_000,
  '3_days': 3 * 86_400_000,
  '7_days': 7 * 86_400_000,
  '30_days': 30 * 86_400_000,
} as const;

export type ClearStatusAfter = keyof typeof CLEAR_STATUS_AFTER;

export const DEFAULT_EMOJI = 'speech_balloon';
export const AVAILABILITIES = ['not_set', 'busy'] as const;
export const MESSAGE_MAX_LENGTH = 100;

/**
 * A status whose clear_status_at has passed is gone (UserStatus.scheduled_for_cleanup:
 * clear_status_at <= now). GitLab clears it with a cron job; we treat it as absent on read.
 */
export const isStatusExpired = (s: Pick<UserStatusRow, 'clearStatusAt'>, nowMs: number): boolean =>
  s.clearStatusAt != null && s.clearStatusAt <= nowMs;

/** Every field is null when the user has no status. */
export const UserStatusSchema = obj({
  emoji: z.string().nullable(),
  availability: z.enum(AVAILABILITIES).nullable(),
  message: z.string().nullable(),
  message_html: z.string().nullable(),
  clear_status_at: timestamp.nullable(),
}).meta({ id: 'UserStatus' });
export type UserStatus = z.infer<typeof UserStatusSchema>;

/** `present user.status || {}`: no status (or an expired one) renders every field as null. */
export function userStatusEntity(s: UserStatusRow | null | undefined): UserStatus {
  if (!s) return { emoji: null, availability: null, message: null, message_html: null, clear_status_at: null };
  return {
    emoji: s.emoji,
    availability: s.availability as UserStatus['availability'],
    message: s.message,
    // MarkupHelper.markdown_field answers '' for a blank message.
    message_html: s.message ? renderEmojiMessage(s.message) : '',
    clear_status_at: iso(s.clearStatusAt),
  };
}
