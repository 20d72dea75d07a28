import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Feature flags as Flipper's ActiveRecord adapter stores them (GitLab tables `features` and
 * `feature_gates`): a persisted feature row, and one gate row per value (one row per actor or group,
 * one for each of boolean / percentage_of_actors / percentage_of_time). Values are text, as Flipper's.
 */
export const features = sqliteTable('features', {
  key: text('key').primaryKey(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

export const featureGates = sqliteTable(
  'feature_gates',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    featureKey: text('feature_key').notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('feature_gates_feature_key_key_value').on(t.featureKey, t.key, t.value)],
);
