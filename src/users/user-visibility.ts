/**
 * `can?(current_user, :read_user, user)` (UserPolicy) for the public user endpoints: status, SSH
 * keys and GPG keys answer anyone, anonymous callers included, unless the administrator restricted
 * the public visibility level; a missing user and one the caller may not see are the same 404.
 */
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { notFound } from '../platform/errors';
import { settingsOf } from '../settings/settings';

export async function visibleUser(c: Context<AppEnv>, caller: Caller, user: UserRow | undefined): Promise<UserRow> {
  if (!user) throw notFound('User');
  if (!caller.user) {
    const levels = ((await settingsOf(c)).restricted_visibility_levels ?? []).map(String);
    if (levels.includes('public') || levels.includes('20')) throw notFound('User');
  }
  return user;
}
