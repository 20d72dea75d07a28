/**
 * What happened, for whoever listens above (webhooks: src/hooks/). A lower domain's write adds
 * `recordEvent(c, {...})`'s statements to its own db.batch, so the event lands with the write or not
 * at all (the outbox); it never imports the listener. The app registers the recorder (src/app.ts).
 */
import type { SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv } from './context';
import { hookList } from './extension';

export type EventKind = 'issue' | 'merge_request' | 'note' | 'push' | 'tag_push' | 'deployment';

export interface DomainEvent {
  kind: EventKind;
  /** The project (an id, or SQL naming it when the write learns it in its own batch). */
  projectId: number | SQL;
  /** The issue, merge request, note or deployment (SQL when the batch creates it). */
  objectId?: number | SQL | null;
  /** GitLab's `object_attributes.action`: open, update, close, reopen, approved, unapproved, merge, create… */
  action?: string;
  actorId: number;
  /** A confidential issue, or a note on one: only hooks with the confidential_* flag get it. */
  confidential?: boolean;
  /** What the rows cannot tell afterwards (GitLab's `changes`, a push's refs): stored as JSON. */
  data?: Record<string, unknown>;
  /**
   * Associations the write replaces, as the request read them before it (GitLab's `old_associations`,
   * ids in their order). The recorder snapshots them, and what the batch leaves, into the event row
   * (`changes.labels` / `assignees` / `reviewers`), so the payload shows them as they were then.
   */
  before?: { labels?: number[]; assignees?: number[]; reviewers?: number[] };
  /** A condition the write must leave true for the event to exist (a compare-and-set that may not happen). */
  when?: SQL;
}

export type EventRecorder = (c: Context<AppEnv>, event: DomainEvent) => BatchItem<'sqlite'>[];
export const eventRecorders = hookList<EventRecorder>();

/** Statements to add to the write's own batch; none when nothing listens. */
export function recordEvent(c: Context<AppEnv>, event: DomainEvent): BatchItem<'sqlite'>[] {
  return eventRecorders.all().flatMap((r) => r(c, event));
}

const snake = (k: string) => k.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`);

/** GitLab's `changes` (`{ attr: { previous, current } }`) from a row and the columns a write sets. */
export function eventChanges(before: Record<string, unknown>, set: Record<string, unknown>): Record<string, { previous: unknown; current: unknown }> {
  const out: Record<string, { previous: unknown; current: unknown }> = {};
  for (const [k, v] of Object.entries(set)) if (before[k] !== v) out[snake(k)] = { previous: before[k] ?? null, current: v ?? null };
  return out;
}
