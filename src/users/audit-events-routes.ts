/** Instance audit events (GitLab ee/lib/api/audit_events.rb; spec document 2, Events). */
import { and, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { auditEvents } from '../db/schema';
import { auditEventEntity, AuditEventSchema } from './audit-event-entity';
import { grapeError, recordNotFound } from '../platform/errors';
import { paginateSelect, paginationParams } from '../platform/pagination';
import { requirePlan } from '../platform/plan';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { requireAdmin } from '../platform/guards';
import type { Caller } from '../platform/context';
import type { Config } from '../platform/config';

/** AuditEventFinder::VALID_ENTITY_TYPES. */
const ENTITY_TYPES = ['Project', 'User', 'Group', 'Gitlab::Audit::InstanceScope'] as const;

const listParams = params({
  entity_type: g.enum(ENTITY_TYPES).optional(),
  entity_id: g.int().optional(),
  created_after: g.datetime().optional(),
  created_before: g.datetime().optional(),
  ...paginationParams,
});
const showParams = params({ id: g.int() });

/**
 * The API's `before` block: `authenticated_as_admin!` (401/403), then
 * `forbidden! unless License.feature_available?(:admin_audit_log)` — a free instance answers 403.
 */
function guard(caller: Caller, config: Config) {
  requireAdmin(caller);
  requirePlan(config, 'premium');
}

export function mountAuditEvents(r: Router) {
  r.route(
    {
      method: 'GET',
      path: '/audit_events',
      summary: 'List instance audit events (administrators, premium)',
      tags: ['audit_events'],
      params: listParams,
      admin: true,
      responses: { 200: z.array(AuditEventSchema) },
    },
    async ({ c, p, caller }) => {
      guard(caller, c.var.config);
      // `given :entity_id do requires :entity_type end`
      if (p.entity_id !== undefined && p.entity_type === undefined) throw grapeError('entity_type is missing');
      const conds: (SQL | undefined)[] = [];
      if (p.entity_type) conds.push(eq(auditEvents.entityType, p.entity_type));
      if (p.entity_id !== undefined) conds.push(eq(auditEvents.entityId, p.entity_id));
      if (p.created_after !== undefined) conds.push(gte(auditEvents.createdAt, p.created_after));
      if (p.created_before !== undefined) conds.push(lte(auditEvents.createdAt, p.created_before));
      const where = and(...conds);

      // AuditEventFinder orders newest first (id desc).
      const rows = await paginateSelect(c, p, { table: auditEvents, where, orderBy: [desc(auditEvents.id)] });
      return c.json(rows.map(auditEventEntity));
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/audit_events/:id',
      summary: 'Get one instance audit event (administrators, premium)',
      tags: ['audit_events'],
      params: showParams,
      admin: true,
      responses: { 200: AuditEventSchema },
    },
    async ({ c, p, caller }) => {
      guard(caller, c.var.config);
      const row = await c.var.db.select().from(auditEvents).where(eq(auditEvents.id, p.id)).get();
      // AuditEventFinder#find raises ActiveRecord::RecordNotFound: "404 Not found".
      if (!row) throw recordNotFound();
      return c.json(auditEventEntity(row));
    },
  );
}
