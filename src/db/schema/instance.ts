import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Instance-wide application settings: one row (id 1), values as a JSON object of overrides over defaults. */
export const applicationSettings = sqliteTable('application_settings', {
  id: integer('id').primaryKey(),
  data: text('data').notNull().default('{}'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});
