/** Who may see a user (GitLab app/policies/user_policy.rb), shared by the routes that read one publicly. */
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { notFound } from '../platform/errors';
import { settingsOf } from '../settings/settings';

/**
 * `not_found!('User') unless user && can?(current_user, :read_user, user)`: signed-in callers read
 * every user; anonymous callers only while the public visibility level is not restricted
 * (UserPolicy `~restricted_public_level`). A missing and an invisible user answer alike.
 */
export async function readableUser(c: Context<AppEnv>, caller: Caller, user: UserRow | undefined): Promise<UserRow> {
  if (!user) throw notFound('User');
  if (!caller.user) {
    const levels = ((await settingsOf(c)).restricted_visibility_levels ?? []).map(String);
    if (levels.includes('public') || levels.includes('20')) throw notFound('User');
  }
  return user;
}
