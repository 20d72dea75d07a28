/** User preferences (GET/PUT /user/preferences; GitLab lib/api/users.rb, lib/api/entities/user_preferences.rb). */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { userPreferences, users } from '../db/schema';
import { type PreferencesRow, preferencesEntity, UserPreferencesSchema } from './preferences-entity';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { requireUser } from '../platform/guards';
import { invalidateCaller } from './caller-cache';

// Spec document 2: both booleans are required on PUT (GitLab 14.x); the newer third flag stays optional.
const updatePreferencesParams = params({
  view_diffs_file_by_file: g.bool(),
  show_whitespace_in_diffs: g.bool(),
  pass_user_identities_to_ci_jwt: g.bool().optional(),
});

export function mountUserPreferences(r: Router) {
  r.route(
    { method: 'GET', path: '/user/preferences', summary: "Get the current user's preferences", tags: ['users'], scopes: ['read_user'], responses: { 200: UserPreferencesSchema } },
    async ({ c, caller }) => {
      const user = requireUser(caller);
      const prefs = await ensurePreferences(c.var.db, user.id);
      return c.json(preferencesEntity(prefs, user));
    },
  );

  r.route(
    {
      method: 'PUT',
      path: '/user/preferences',
      summary: "Update the current user's preferences",
      tags: ['users'],
      params: updatePreferencesParams,
      responses: { 200: UserPreferencesSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const db = c.var.db;
      const prefs = await ensurePreferences(db, user.id);
      const pass = p.pass_user_identities_to_ci_jwt ?? prefs.passUserIdentitiesToCiJwt;
      // The two diff flags are columns of users; the rest lives in user_preferences. One batch writes both.
      await db.batch([
        db.update(users).set({ viewDiffsFileByFile: p.view_diffs_file_by_file, showWhitespaceInDiffs: p.show_whitespace_in_diffs }).where(eq(users.id, user.id)),
        db.update(userPreferences).set({ passUserIdentitiesToCiJwt: pass }).where(eq(userPreferences.id, prefs.id)),
      ]);
      invalidateCaller(db, { userId: user.id });
      return c.json(
        preferencesEntity(
          { ...prefs, passUserIdentitiesToCiJwt: pass },
          { ...user, viewDiffsFileByFile: p.view_diffs_file_by_file, showWhitespaceInDiffs: p.show_whitespace_in_diffs },
        ),
      );
    },
  );
}

/**
 * GitLab builds a user's preference row on first use (User#user_preference). Insert-if-absent on the unique
 * user_id, then read: concurrent first reads agree on one row and one id.
 */
async function ensurePreferences(db: Db, userId: number): Promise<PreferencesRow> {
  const found = await db.select().from(userPreferences).where(eq(userPreferences.userId, userId)).get();
  if (found) return found;
  await db.insert(userPreferences).values({ userId }).onConflictDoNothing({ target: userPreferences.userId });
  return (await db.select().from(userPreferences).where(eq(userPreferences.userId, userId)).get())!;
}
