/** State changes of a user (GitLab lib/api/users.rb, app/services/users/*_service.rb). */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { z } from 'zod';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { findUserById } from './user-queries';
import { users } from '../db/schema';
import { ApiError, forbidden, notFound } from '../platform/errors';
import { obj, type Responses } from '../platform/response-schemas';
import type { Router } from '../platform/router';
import { requireAdmin, requireUser } from '../platform/guards';
import { userIdParams } from './users-params';
import { actorStamp, isBlockedState, isInternalUser, upsertCustomAttribute } from './users';
import { settingsOf } from '../settings/settings';
import { cascade, runDeletion } from '../platform/cascade';
import { invalidateCaller } from './caller-cache';

/** The endpoint's return value: whether the transition happened, `null` when already in the target state. */
const Outcome = z.boolean().nullable();
/** approve and reject: `{ message: 'Success' }`. */
const Success = obj({ message: z.literal('Success') });

/**
 * Block, unblock, deactivate, activate, ban, unban, approve, reject (lib/api/users.rb and
 * app/services/users/*_service.rb). Grape answers POST with 201; `true`/`false` bodies are the
 * endpoint's return value and `null` is its early `break` (already in the target state).
 * Transitions are conditional updates so concurrent requests cannot skip a state check.
 */
export function mountUserStateActions(r: Router) {
  const action = (
    name: string,
    summary: string,
    handler: (ctx: { c: Context<AppEnv>; caller: Caller; user: UserRow }) => Promise<Response>,
    { adminFirst = true as boolean | string, responses = { 201: Outcome } as Responses } = {},
  ) =>
    r.route({ method: 'POST', path: `/users/:id/${name}`, summary, tags: ['users'], params: userIdParams, responses }, async ({ c, p, caller }) => {
      if (adminFirst === true) requireAdmin(caller);
      else requireUser(caller);
      // Approve and reject refuse non-administrators in their services' words, but before the user
      // is looked up (reference B §7), so the answer does not tell whether the id exists.
      if (typeof adminFirst === 'string' && !caller.isAdmin) throw apiError(adminFirst, 403);
      const user = await findUserById(c.var.db, p.id);
      if (!user) throw notFound('User');
      return handler({ c, caller, user });
    });
  const transition = async (c: Context<AppEnv>, user: UserRow, from: readonly string[], to: string, extra: BatchItem<'sqlite'>[] = []) => {
    const db = c.var.db;
    const upd = db
      .update(users)
      .set({ state: to, updatedAt: Date.now() })
      .where(and(eq(users.id, user.id), inArray(users.state, [...from])))
      .returning({ id: users.id });
    const [rows] = (await db.batch([upd, ...extra] as [typeof upd, ...BatchItem<'sqlite'>[]])) as [{ id: number }[], ...unknown[]];
    // Blocked, banned, deactivated: the user's cached credentials go, so the new state applies at once.
    invalidateCaller(db, { userId: user.id });
    return rows.length > 0;
  };
  const apiError = (message: string, status: number) => new ApiError(status, { message });

  action('block', 'Block a user (administrators)', async ({ c, caller, user }) => {
    if (user.state === 'ldap_blocked') throw forbidden('LDAP blocked users cannot be modified by the API');
    if (user.id === caller.user!.id) throw forbidden('The API initiating user cannot be blocked by the API');
    if (isBlockedState(user.state)) return c.json(null, 201);
    if (isInternalUser(user)) throw apiError('An internal user cannot be blocked', 403);
    const now = Date.now();
    // Users::BlockService#after_block_hook records who blocked the user as a custom attribute.
    const ok = await transition(c, user, ['active', 'deactivated'], 'blocked', [upsertCustomAttribute(c.var.db, user.id, 'blocked_by', actorStamp(caller.user!, now))]);
    return c.json(ok, 201);
  });

  action('unblock', 'Unblock a user (administrators)', async ({ c, caller, user }) => {
    if (user.state === 'ldap_blocked') throw forbidden('LDAP blocked users cannot be unblocked by the API');
    if (user.state === 'deactivated') throw forbidden('Deactivated users cannot be unblocked by the API');
    // `user.activate` has no transition from active: the endpoint then answers `false`.
    if (user.state === 'active') return c.json(false, 201);
    const ok = await transition(c, user, ['blocked', 'blocked_pending_approval', 'banned'], 'active', [
      upsertCustomAttribute(c.var.db, user.id, 'unblocked_by', actorStamp(caller.user!, Date.now())),
    ]);
    return c.json(ok, 201);
  });

  action('deactivate', 'Deactivate a user (administrators)', async ({ c, user }) => {
    if (user.state === 'deactivated') return c.json(null, 201);
    if (isBlockedState(user.state)) throw apiError('Error occurred. A blocked user cannot be deactivated', 403);
    if (isInternalUser(user)) throw apiError('Internal users cannot be deactivated', 403);
    const settings = await settingsOf(c);
    const days = Number(settings.deactivate_dormant_users_period ?? 90);
    // User#can_be_deactivated?: no activity (last_activity_on or current sign-in) within the dormant period.
    const lastActive = user.lastActivityOn ? Date.parse(user.lastActivityOn) : user.currentSignInAt;
    if (lastActive != null && lastActive > Date.now() - days * 86_400_000) {
      throw apiError(`The user you are trying to deactivate has been active in the past ${days} days and cannot be deactivated`, 403);
    }
    return c.json(await transition(c, user, ['active'], 'deactivated'), 201);
  });

  action('activate', 'Activate a deactivated user (administrators)', async ({ c, user }) => {
    if (isBlockedState(user.state)) throw forbidden('A blocked user must be unblocked to be activated');
    if (user.state === 'active') return c.json(false, 201);
    return c.json(await transition(c, user, ['deactivated'], 'active'), 201);
  });

  action('ban', 'Ban a user (administrators)', async ({ c, user }) => {
    // Users::BannedUserBaseService#state_error.
    if (user.state !== 'active') throw apiError(`You cannot ban ${user.state} users.`, 403);
    if (!(await transition(c, user, ['active'], 'banned'))) throw apiError(`You cannot ban ${(await findUserById(c.var.db, user.id))?.state ?? 'deleted'} users.`, 403);
    return c.json(true, 201);
  });

  action('unban', 'Unban a user (administrators)', async ({ c, user }) => {
    if (user.state !== 'banned') throw apiError(`You cannot unban ${user.state} users.`, 403);
    if (!(await transition(c, user, ['banned'], 'active'))) throw apiError('You cannot unban active users.', 403);
    return c.json(true, 201);
  });

  // approve and reject authorize inside their services (Users::ApproveService, Users::RejectService), after the lookup.
  action(
    'approve',
    'Approve a user pending approval (administrators)',
    async ({ c, caller, user }) => {
      if (user.state !== 'blocked_pending_approval') throw apiError('The user you are trying to approve is not pending approval', 409);
      if (!(await transition(c, user, ['blocked_pending_approval'], 'active'))) throw apiError('The user you are trying to approve is not pending approval', 409);
      return c.json({ message: 'Success' }, 201);
    },
    { adminFirst: 'You are not allowed to approve a user', responses: { 201: Success } },
  );

  action(
    'reject',
    'Reject a user pending approval (administrators)',
    async ({ c, caller, user }) => {
      if (user.state !== 'blocked_pending_approval') throw apiError('This user does not have a pending request', 409);
      // A rejected user is hard-deleted (RejectService: delete_async with hard_delete: true).
      await runDeletion(c.var.db, c.var.blobs, cascade(c.var.db, 'user', sql`(${user.id})`));
      invalidateCaller(c.var.db, { userId: user.id });
      return c.json({ message: 'Success' }, 200);
    },
    { adminFirst: 'You are not allowed to reject a user', responses: { 200: Success } },
  );
}
