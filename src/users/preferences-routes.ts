/** User preferences (GET/PUT /user/preferences; GitLab lib/api/users.rb, lib/api/entities/user_preferences.rb). */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { userPreferences, users } from '../db/schema';
import { writeThenRead } from '../db/batch-reads';
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
      const pass = p.pass_user_identities_to_ci_jwt;
      // The two diff flags are columns of users; the rest lives in user_preferences, created here if it
      // does not exist yet. One batch writes both and reads the row back.
      const row = db.insert(userPreferences).values({ userId: user.id, ...(pass === undefined ? {} : { passUserIdentitiesToCiJwt: pass }) });
      const [[prefs]] = await writeThenRead(
        db,
        [
          db.update(users).set({ viewDiffsFileByFile: p.view_diffs_file_by_file, showWhitespaceInDiffs: p.show_whitespace_in_diffs }).where(eq(users.id, user.id)),
          pass === undefined
            ? row.onConflictDoNothing({ target: userPreferences.userId })
            : row.onConflictDoUpdate({ target: userPreferences.userId, set: { passUserIdentitiesToCiJwt: pass } }),
        ],
        [db.select().from(userPreferences).where(eq(userPreferences.userId, user.id)).limit(1)],
      );
      invalidateCaller(db, { userId: user.id });
      return c.json(preferencesEntity(prefs, { ...user, viewDiffsFileByFile: p.view_diffs_file_by_file, showWhitespaceInDiffs: p.show_whitespace_in_diffs }));
    },
  );
}

/**
 * GitLab builds a user's preference row on first use (User#user_preference). Insert-if-absent on the unique
 * user_id, then read: concurrent first reads agree on one row and one id.
 */
async function ensurePreferences(db: Db, userId: number): Promise<PreferencesRow> {
  const read = () => db.select().from(userPreferences).where(eq(userPreferences.userId, userId)).limit(1);
  const [found] = await read();
  if (found) return found;
  const [[created]] = await writeThenRead(db, [db.insert(userPreferences).values({ userId }).onConflictDoNothing({ target: userPreferences.userId })], [read()]);
  return created;
}
