import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const auditEvents = sqliteTable(
  'audit_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    authorId: integer('author_id').notNull(),
    authorName: text('author_name').notNull(),
    entityId: integer('entity_id').notNull(),
    entityType: text('entity_type').notNull(),
    entityPath: text('entity_path'),
    targetId: integer('target_id'),
    targetType: text('target_type'),
    targetDetails: text('target_details'),
    eventName: text('event_name').notNull(),
    /** JSON: custom_message and the rest of GitLab's `details`. */
    details: text('details').notNull(),
    ipAddress: text('ip_address'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('audit_events_entity').on(t.entityType, t.entityId, t.id), index('audit_events_created').on(t.createdAt)],
);
