/** User status (GitLab lib/api/users.rb status routes, app/services/users/set_status_service.rb). */
import { and, eq, lte } from 'drizzle-orm';
import { z } from 'zod';
import type { UserRow } from '../platform/context';
import type { Db } from '../db/client';
import { findUserByIdOrUsername } from './user-queries';
import { visibleUser } from './user-visibility';
import { userStatuses } from '../db/schema';
import {
  AVAILABILITIES,
  CLEAR_STATUS_AFTER,
  DEFAULT_EMOJI,
  isStatusExpired,
  MESSAGE_MAX_LENGTH,
  userStatusEntity,
  UserStatusSchema,
  type ClearStatusAfter,
  type UserStatusRow,
} from './status-entity';
import { isEmojiName } from '../platform/emoji';
import { validationFailed } from '../platform/errors';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { now } from '../platform/time';
import { g, params } from '../platform/validate';
import { requireUser } from '../platform/guards';

/**
 * `availability` is a free String in users.rb and SetStatusService drops a blank one; other values must be
 * one of UserStatus.availabilities (answered here the Grape `values:` way).
 */
const availability = () =>
  z
    .unknown()
    .transform((v, ctx): string => {
      if (v === '' || (typeof v === 'string' && (AVAILABILITIES as readonly string[]).includes(v))) return v as string;
      ctx.addIssue({ code: 'custom', message: 'does not have a valid value', input: v });
      return z.NEVER;
    })
    .meta({ grapeType: 'String', jsonType: 'string', enum: [...AVAILABILITIES] });

/** users.rb `params :set_user_status_params`. */
const setStatusParams = params({
  emoji: g.string().optional(),
  message: g.string().optional(),
  availability: availability().optional(),
  clear_status_after: g.enum(Object.keys(CLEAR_STATUS_AFTER) as [ClearStatusAfter, ...ClearStatusAfter[]]).optional(),
});
const userStatusParams = params({ id_or_username: g.string() });

type SetStatusInput = { emoji?: string | null; message?: string | null; availability?: string | null; clear_status_after?: ClearStatusAfter | null };

export function mountUserStatus(r: Router) {
  r.route(
    { method: 'GET', path: '/user/status', summary: 'Get the status of the current user', tags: ['users'], scopes: ['read_user'], responses: { 200: UserStatusSchema } },
    async ({ c, caller }) => {
      const user = requireUser(caller);
      return c.json(userStatusEntity(await currentStatus(c.var.db, user.id, now())));
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/users/:id_or_username/status',
      summary: 'Get the status of a user (no authentication needed)',
      tags: ['users'],
      params: userStatusParams,
      scopes: ['read_user'],
      rateLimit: 'user_status',
      responses: { 200: UserStatusSchema },
    },
    async ({ c, p, caller }) => {
      const user = await visibleUser(c, caller, await findUserByIdOrUsername(c.var.db, p.id_or_username));
      return c.json(userStatusEntity(await currentStatus(c.var.db, user.id, now())));
    },
  );

  r.route(
    {
      method: 'PUT',
      path: '/user/status',
      summary: 'Set the status of the current user (parameters not passed are nullified)',
      tags: ['users'],
      params: setStatusParams,
      responses: { 200: UserStatusSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      // declared_params(include_missing: true): every parameter is present, missing ones as nil.
      const input: SetStatusInput = { emoji: p.emoji ?? null, message: p.message ?? null, availability: p.availability ?? null, clear_status_after: p.clear_status_after ?? null };
      return c.json(userStatusEntity(await setStatus(c.var.db, user, input)));
    },
  );

  r.route(
    {
      method: 'PATCH',
      path: '/user/status',
      summary: 'Set the status of the current user (parameters not passed are ignored)',
      tags: ['users'],
      params: setStatusParams,
      responses: { 200: UserStatusSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      // declared_params(include_missing: false): only the keys the client sent, an explicit null included.
      const raw = await requestParams(c);
      const input: SetStatusInput = {};
      for (const key of ['emoji', 'message', 'availability', 'clear_status_after'] as const) {
        if (Object.hasOwn(raw, key)) (input as Record<string, unknown>)[key] = p[key] ?? null;
      }
      const at = now();
      // users.rb: an empty PATCH answers 200 and changes nothing.
      if (Object.keys(input).length === 0) return c.json(userStatusEntity(await currentStatus(c.var.db, user.id, at)));
      return c.json(userStatusEntity(await setStatus(c.var.db, user, input, at)));
    },
  );
}

const blank = (v: string | null | undefined) => v == null || v.trim() === '';

/**
 * Users::SetStatusService#execute: any of emoji, message, availability present sets the status (blank emoji
 * becomes speech_balloon, blank availability keeps the stored one); otherwise the status is removed.
 */
async function setStatus(db: Db, user: UserRow, input: SetStatusInput, at = now()): Promise<UserStatusRow | null> {
  if (blank(input.emoji) && blank(input.message) && blank(input.availability)) {
    await db.delete(userStatuses).where(eq(userStatuses.userId, user.id));
    return null;
  }
  const emoji = blank(input.emoji) ? DEFAULT_EMOJI : input.emoji!;
  const errors: Record<string, string[]> = {};
  // UserStatus validations, in declaration order: emoji (gitlab/emoji_name), then message length.
  if (!isEmojiName(emoji)) errors.emoji = ['is not a valid emoji name'];
  if (input.message && [...input.message].length > MESSAGE_MAX_LENGTH) errors.message = [`is too long (maximum is ${MESSAGE_MAX_LENGTH} characters)`];
  if (Object.keys(errors).length) throw validationFailed(errors);

  const existing = await currentStatus(db, user.id, at);
  const row: UserStatusRow = {
    userId: user.id,
    emoji,
    message: 'message' in input ? (input.message ?? null) : (existing?.message ?? null),
    availability: blank(input.availability) ? (existing?.availability ?? 'not_set') : input.availability!,
    clearStatusAt:
      'clear_status_after' in input
        ? input.clear_status_after
          ? at + CLEAR_STATUS_AFTER[input.clear_status_after]
          : null
        : (existing?.clearStatusAt ?? null),
  };
  const { userId: _id, ...set } = row;
  await db.insert(userStatuses).values(row).onConflictDoUpdate({ target: userStatuses.userId, set });
  return row;
}

/**
 * The user's status as of `at`. A status past its clear_status_at reads as no status and is deleted on the
 * way (conditional, so a status set again in the meantime survives).
 */
export async function currentStatus(db: Db, userId: number, at: number): Promise<UserStatusRow | null> {
  const row = await db.select().from(userStatuses).where(eq(userStatuses.userId, userId)).get();
  if (!row) return null;
  if (isStatusExpired(row, at)) {
    await db.delete(userStatuses).where(and(eq(userStatuses.userId, userId), lte(userStatuses.clearStatusAt, at)));
    return null;
  }
  return row;
}

