/** Audit event presenter (GitLab ee/lib/api/entities/audit_event.rb). Pure. */
import { z } from 'zod';
import type { auditEvents } from '../db/schema';
import { id, int, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';

export type AuditEventRow = typeof auditEvents.$inferSelect;

export const AuditEventSchema = obj({
  id,
  author_id: int,
  entity_id: int,
  entity_type: z.string(),
  event_name: z.string(),
  // GitLab's `details` is a serialized free-form hash whose keys depend on the event.
  details: z.record(z.string(), z.unknown()),
  created_at: timestamp,
}).meta({ id: 'AuditEvent' });
export type AuditEvent = z.infer<typeof AuditEventSchema>;

/** `event_name` is read from the details like GitLab does (`details.fetch :event_name, nil`). */
export const auditEventEntity = (e: AuditEventRow): AuditEvent => {
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
