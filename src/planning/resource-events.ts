/**
 * Resource events of an issuable, read side (GitLab lib/api/resource_label_events.rb,
 * resource_milestone_events.rb, resource_state_events.rb and their entities): a page of events
 * with their users, labels and milestones joined in, as unexecuted reads hung off the issuable's
 * own lookup (one round trip), and the entities. The writes are src/issuables/resource-events.ts.
 */
import { count, eq, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { z } from 'zod';
import type { Db } from '../db/client';
import { aliasedColumns } from '../db/aliased-columns';
import { labels, milestones, resourceLabelEvents, resourceMilestoneEvents, resourceStateEvents, users } from '../db/schema';
import type { AppEnv, UserRow } from '../platform/context';
import { baseUrl, linkParamsFrom, MAX_COUNT, type PageRequest, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { id, int, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import { LabelBasicSchema, type LabelRow, labelBasic } from './label-entity';
import { MilestoneSchema, milestoneEntity, type MilestoneRow } from './milestone-entity';
import { UserBasicSchema, userBasic } from '../users/user-entity';
import type { EventableType } from '../issuables/resource-events';

export const EVENT_KINDS = ['label', 'milestone', 'state'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
const TABLES = { label: resourceLabelEvents, milestone: resourceMilestoneEvents, state: resourceStateEvents } as const;
/** Entity names for `not_found!` and the OpenAPI document. */
export const ENTITY_NAMES = { label: 'ResourceLabelEvent', milestone: 'ResourceMilestoneEvent', state: 'ResourceStateEvent' } as const;

const USER = aliasedColumns(users, 'eu_');
const LABEL = aliasedColumns(labels, 'el_');
const MILESTONE = aliasedColumns(milestones, 'em_');
const OWNER = { Issue: 'issue_id', MergeRequest: 'merge_request_id', Epic: 'epic_id' } as const;

type Owner = { type: EventableType; id: SQL };
type Selection = { page: PageRequest } | { eventId: number };

/**
 * A page of the issuable's events of one kind in id order (or the one event `eventId`), each
 * with its user and label or milestone (and the milestone's project or group path for its URL),
 * and the bounded count for the pagination headers. Unexecuted, for the lookup's batch.
 */
export function eventReads(db: Db, kind: EventKind, owner: Owner, s: Selection) {
  const table = TABLES[kind];
  const cols = table as unknown as Record<string, SQLiteColumn>;
  const ownerCol = cols[owner.type === 'Issue' ? 'issueId' : owner.type === 'MergeRequest' ? 'mergeRequestId' : 'epicId'];
  const where = 'eventId' in s ? sql`${ownerCol} IN (${owner.id}) AND ${table.id} = ${s.eventId}` : sql`${ownerCol} IN (${owner.id})`;
  const extra =
    kind === 'label'
      ? { label: LABEL }
      : kind === 'milestone'
        ? {
            milestone: MILESTONE,
            projectPath: sql<string | null>`(SELECT mn.full_path || '/' || mp.path FROM projects mp JOIN namespaces mn ON mn.id = mp.namespace_id WHERE mp.id = "milestones"."project_id")`.as('em_project_path'),
            groupPath: sql<string | null>`(SELECT gn.full_path FROM namespaces gn WHERE gn.id = "milestones"."group_id")`.as('em_group_path'),
          }
        : {};
  let q = db
    .select({ event: table, user: USER, ...extra } as never)
    .from(table)
    .leftJoin(users, eq(users.id, table.userId))
    .$dynamic();
  if (kind === 'label') q = q.leftJoin(labels, eq(labels.id, resourceLabelEvents.labelId));
  if (kind === 'milestone') q = q.leftJoin(milestones, eq(milestones.id, resourceMilestoneEvents.milestoneId));
  q = q.where(where).orderBy(table.id);
  const page = 'page' in s ? q.limit(s.page.perPage).offset(s.page.offset) : q.limit(1);
  const total = db.select({ n: count() }).from(db.select({ one: sql`1`.as('one') }).from(table).where(where).limit(MAX_COUNT + 1).as('t'));
  return [page as unknown as BatchItem<'sqlite'> & PromiseLike<EventRow[]>, total] as const;
}

export interface EventRow {
  event: Record<string, unknown> & { id: number; createdAt: number; userId: number | null; issueId: number | null; mergeRequestId: number | null; epicId?: number | null };
  user: UserRow;
  label?: LabelRow | null;
  milestone?: MilestoneRow | null;
  projectPath?: string | null;
  groupPath?: string | null;
}

// ---- Entities ----

const eventBase = { id, user: UserBasicSchema.nullable(), created_at: timestamp, resource_type: z.enum(['Issue', 'MergeRequest', 'Epic']), resource_id: int };
export const SCHEMAS = {
  label: obj({ ...eventBase, label: LabelBasicSchema.nullable(), action: z.enum(['add', 'remove']) }).meta({ id: 'ResourceLabelEvent' }),
  milestone: obj({ ...eventBase, milestone: MilestoneSchema.nullable(), action: z.enum(['add', 'remove']), state: z.string() }).meta({ id: 'ResourceMilestoneEvent' }),
  state: obj({ ...eventBase, source_commit: z.string().nullable(), source_merge_request_id: int.nullable(), state: z.string() }).meta({ id: 'ResourceStateEvent' }),
} as const;

/** One event's entity: the common head (id, user, created_at, resource_type, resource_id), then its kind's fields. */
export function eventEntity(kind: EventKind, r: EventRow, type: EventableType, base: string) {
  const e = r.event;
  const head = {
    id: e.id,
    user: r.user?.id != null ? userBasic(r.user, { base }) : null,
    created_at: iso(e.createdAt),
    resource_type: type,
    resource_id: Number(type === 'Issue' ? e.issueId : type === 'MergeRequest' ? e.mergeRequestId : e.epicId),
  };
  if (kind === 'label') return { ...head, label: r.label?.id != null ? labelBasic(r.label) : null, action: e.action as 'add' | 'remove' };
  if (kind === 'milestone') {
    const m = r.milestone?.id != null ? milestoneEntity(r.milestone, { base, projectFullPath: r.projectPath ?? undefined, groupFullPath: r.groupPath ?? undefined }) : null;
    return { ...head, milestone: m, action: e.action as 'add' | 'remove', state: String(e.state) };
  }
  return { ...head, source_commit: (e.sourceCommit as string | null) ?? null, source_merge_request_id: (e.sourceMergeRequestId as number | null) ?? null, state: String(e.state) };
}

// ---- Route plumbing shared by the issue and merge request routes ----

/** The path segment of each kind. */
export const SEGMENTS = { label: 'resource_label_events', milestone: 'resource_milestone_events', state: 'resource_state_events' } as const;
/** The page a list asks for (`use :pagination`). */
export async function eventPage(c: Context<AppEnv>, p: { page?: number; per_page?: number }) {
  const raw = await requestParams(c);
  return { req: pageRequest(p, raw.per_page), raw };
}

/** `find(params[:event_id])` ids: anything but a plain integer finds nothing. */
export const eventIdOf = (s: unknown) => (typeof s === 'string' && /^\d{1,15}$/.test(s.trim()) ? Number(s.trim()) : -1);

/** Presents a listed page with its pagination headers. */
export function presentPage(c: Context<AppEnv>, kind: EventKind, type: EventableType, page: { req: PageRequest; raw: Record<string, unknown> }, rows: EventRow[], total: { n: number }[]) {
  const n = Number(total[0]?.n ?? 0);
  setPaginationHeaders(c, page.req, linkParamsFrom(page.raw, {}), n > MAX_COUNT ? null : n, rows.length);
  const base = baseUrl(c);
  return rows.map((r) => eventEntity(kind, r, type, base));
}
