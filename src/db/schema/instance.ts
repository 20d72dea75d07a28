import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Instance-wide application settings: one row (id 1), values as a JSON object of overrides over defaults. */
export const applicationSettings = sqliteTable('application_settings', {
  id: integer('id').primaryKey(),
  data: text('data').notNull().default('{}'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/**
 * Version stamps of what every isolate caches whole (`settings`, `features`): a write bumps its name's
 * version in the same batch, and a cached copy is trusted while the stamp it was read with is current
 * (settings/settings.ts, features/flags.ts). A missing row is version 0.
 */
export const cacheVersions = sqliteTable('cache_versions', {
  name: text('name').primaryKey(),
  version: integer('version').notNull(),
});
