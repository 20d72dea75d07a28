import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const ts = (name: string) => integer(name);

// Profile data of users: status and follow relations (owned by the profile area).
export const userStatuses = sqliteTable('user_statuses', {
  userId: integer('user_id').primaryKey(),
  emoji: text('emoji').notNull().default('speech_balloon'),
  message: text('message'),
  availability: text('availability').notNull().default('not_set'),
  clearStatusAt: ts('clear_status_at'),
});

export const userFollows = sqliteTable(
  'user_follows',
  {
    followerId: integer('follower_id').notNull(),
    followeeId: integer('followee_id').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.followerId, t.followeeId] }), index('user_follows_followee').on(t.followeeId, t.followerId)],
);

/**
 * GitLab's user_preferences row: its own id (exposed by GET /user/preferences) and the preferences that have
 * no column on users. view_diffs_file_by_file and show_whitespace_in_diffs live on users.
 */
export const userPreferences = sqliteTable(
  'user_preferences',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: integer('user_id').notNull(),
    passUserIdentitiesToCiJwt: integer('pass_user_identities_to_ci_jwt', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [uniqueIndex('user_preferences_user_id').on(t.userId)],
);

/**
 * Secondary email addresses (GitLab app/models/email.rb). Stored lowercased and trimmed (Email#email=),
 * unique across everyone's secondary addresses; the primary addresses of users are checked by the writes.
 */
export const emails = sqliteTable(
  'emails',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: integer('user_id').notNull(),
    email: text('email').notNull(),
    confirmedAt: ts('confirmed_at'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('emails_email').on(t.email), index('emails_user').on(t.userId, t.id)],
);
