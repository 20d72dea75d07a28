/**
 * Audit events (GitLab EE AuditEventService / Gitlab::Audit::Auditor). `auditEvent` returns an
 * insert BUILDER, never runs it: put it in the same `db.batch([...])` as the change it records,
 * so an event exists exactly when its change does.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import { auditEvents } from '../db/schema';

export interface AuditInput {
  author: { id: number; name: string };
  /** The scope the event belongs to (`entity_type` User, Project, Group). */
  entity: { id: number; type: 'User' | 'Project' | 'Group'; path: string };
  /**
   * `id` may be a SQL subquery when the target is inserted in the same batch (its id is not known
   * before the batch runs), e.g. `(select id from keys where fingerprint_sha256 = ?)`.
   */
  target: { id: number | SQL | null; type: string; details: string };
  /** `event_name`, e.g. `add_ssh_key`. */
  eventName: string;
  /** `custom_message`, e.g. `Added SSH key`. */
  message: string;
  ipAddress: string | null;
  createdAt?: number;
}

/**
 * `details` keys in the order GitLab's audit events API documents them (doc/api/audit_events.md):
 * custom_message, author_name, target_id, target_type, target_details, ip_address, entity_path.
 * `event_name` is kept inside the details too, where GitLab stores it.
 */
export function auditDetails(input: AuditInput): Record<string, unknown> {
  return {
    custom_message: input.message,
    author_name: input.author.name,
    target_id: typeof input.target.id === 'number' ? input.target.id : null,
    target_type: input.target.type,
    target_details: input.target.details,
    ip_address: input.ipAddress,
    entity_path: input.entity.path,
    event_name: input.eventName,
  };
}

export function auditEvent(db: Db, input: AuditInput) {
  const json = JSON.stringify(auditDetails(input));
  const late = input.target.id != null && typeof input.target.id !== 'number' ? input.target.id : null;
  return db.insert(auditEvents).values({
    authorId: input.author.id,
    authorName: input.author.name,
    entityId: input.entity.id,
    entityType: input.entity.type,
    entityPath: input.entity.path,
    targetId: late ?? (input.target.id as number | null),
    targetType: input.target.type,
    targetDetails: input.target.details,
    eventName: input.eventName,
    // json_set keeps the key order of the details object.
    details: late ? sql`json_set(${json}, '$.target_id', ${late})` : json,
    ipAddress: input.ipAddress,
    createdAt: input.createdAt ?? Date.now(),
  });
}

/**
 * The client address: Workers' CF-Connecting-IP, else the first X-Forwarded-For hop (behind a
 * proxy), else X-Real-IP, else the socket peer on Node (@hono/node-server passes `incoming` as env).
 */
export function clientIp(c: Context): string | null {
  return clientIpOf((name) => c.req.header(name), c.env);
}

/** `clientIp` from a request's headers and its runtime's env (ci/runner-poll-fast.ts answers before a context exists). */
export function clientIpOf(header: (name: string) => string | null | undefined, env: unknown): string | null {
  const cf = header('cf-connecting-ip');
  if (cf) return cf;
  const xff = header('x-forwarded-for');
  if (xff) return xff.split(',')[0].trim() || null;
  const real = header('x-real-ip');
  if (real) return real;
  return (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress ?? null;
}
