/** User preferences presenter (GitLab lib/api/entities/user_preferences.rb). Pure. */
import { z } from 'zod';
import type { userPreferences } from '../db/schema';
import type { UserRow } from '../platform/context';
import { id, obj } from '../platform/response-schemas';

export type PreferencesRow = typeof userPreferences.$inferSelect;

export const UserPreferencesSchema = obj({
  id,
  user_id: id,
  view_diffs_file_by_file: z.boolean(),
  show_whitespace_in_diffs: z.boolean(),
  pass_user_identities_to_ci_jwt: z.boolean(),
}).meta({ id: 'UserPreferences' });
export type UserPreferences = z.infer<typeof UserPreferencesSchema>;

/** The two diff flags are columns of users; the rest lives in user_preferences. */
export const preferencesEntity = (prefs: PreferencesRow, user: Pick<UserRow, 'id' | 'viewDiffsFileByFile' | 'showWhitespaceInDiffs'>): UserPreferences => ({
  id: prefs.id,
  user_id: user.id,
  view_diffs_file_by_file: user.viewDiffsFileByFile,
  show_whitespace_in_diffs: user.showWhitespaceInDiffs,
  pass_user_identities_to_ci_jwt: prefs.passUserIdentitiesToCiJwt,
});
