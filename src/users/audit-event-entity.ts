/** Audit event presenter (GitLab ee/lib/api/entities/audit_event.rb). Pure. */
import type { auditEvents } from '../db/schema';
import { iso } from '../platform/time';

export type AuditEventRow = typeof auditEvents.$inferSelect;

/** `event_name` is read from the details like GitLab does (`details.fetch :event_name, nil`). */
export const auditEventEntity = (e: AuditEventRow) => {
  const details = JSON.parse(e.details) as Record<string, unknown>;
  return {
    id: e.id,
    author_id: e.authorId,
    entity_id: e.entityId,
    entity_type: e.entityType,
    event_name: e.eventName,
    details,
    created_at: iso(e.createdAt),
  };
};
