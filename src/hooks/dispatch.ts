/**
 * The consumer side: `web_hooks.dispatch` turns pending outbox rows into one delivery per matching
 * hook (payload built once per event), `web_hooks.deliver` sends one delivery. Both are idempotent:
 * deliveries are unique per (event, hook) and claimed with a compare-and-set lease, so a redelivered
 * message finds nothing left to do. The sweep re-sends what a lost message left behind.
 */
import { and, eq, inArray, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { webHookDeliveries, webHookEvents, webHooks } from '../db/schema';
import type { JobDeps } from '../platform/jobs-consumer';
import type { JobMessage } from '../platform/jobs';
import type { EventKind } from '../platform/events';
import { refMatches } from '../repository/protected-branches';
import { loadSettings } from '../settings/settings';
import { executable, executableSql } from './auto-disabling';
import { executeHook } from './execute';
import { DELIVER_JOB, DISPATCH_JOB } from './jobs';
import { flagColumn, hooksOfProjectSql } from './outbox';
import { buildPayload, EVENT_HEADER, type EventRow, TRIGGER_OF } from './payloads';

/** Attempts of one delivery (the Queue's first delivery and its retries). */
export const DELIVERY_ATTEMPTS = 4;
/** How long a claimed delivery is someone's (longer than the request timeout). */
const LEASE_MS = 60_000;
/** What the sweep treats as lost: older than this and still pending. */
export const SWEEP_AFTER_MS = 30_000;
const BATCH = 50;

/** Does a push to `ref` pass the hook's branch filter (WebHook#executable_for_ref / branch_filter_strategy)? */
function branchPasses(h: { pushEventsBranchFilter: string | null; branchFilterStrategy: string }, ref: string | undefined): boolean {
  const filter = h.pushEventsBranchFilter;
  if (!filter || h.branchFilterStrategy === 'all_branches' || !ref) return true;
  const branch = ref.replace(/^refs\/heads\//, '');
  if (h.branchFilterStrategy === 'regex') {
    try {
      return new RegExp(filter).test(branch);
    } catch {
      return false;
    }
  }
  return refMatches(filter, branch);
}

/** The event header kind: confidential issues and notes have their own hooks and header. */
const headerKind = (ev: EventRow) => (ev.confidential && (ev.kind === 'issue' || ev.kind === 'note') ? `confidential_${ev.kind}` : ev.kind);

export async function dispatchEvent(deps: JobDeps, ev: EventRow): Promise<void> {
  const db = deps.db;
  const now = Date.now();
  const payload = ev.payload ? JSON.parse(ev.payload) : await buildPayload(db, ev);
  const data = ev.data ? (JSON.parse(ev.data) as Record<string, unknown>) : null;
  const column = sql.raw(`h.${flagColumn(ev.kind as EventKind, ev.confidential)}`);
  const hooks = payload
    ? (await db.select().from(webHooks).where(sql`${webHooks.id} IN (SELECT h.id FROM web_hooks h WHERE ${column} = 1 AND ${hooksOfProjectSql(ev.projectId)} AND ${executableSql(now)})`)).filter(
        (h) => ev.kind !== 'push' || branchPasses(h, data?.ref as string | undefined),
      )
    : [];
  const inserts = hooks.map((h) => db.insert(webHookDeliveries).values({ eventId: ev.id, webHookId: h.id, uuid: crypto.randomUUID(), dueAt: now, createdAt: now }).onConflictDoNothing());
  const mark = db
    .update(webHookEvents)
    .set({ state: 'dispatched', payload: payload ? JSON.stringify(payload) : null })
    .where(and(eq(webHookEvents.id, ev.id), eq(webHookEvents.state, 'pending')));
  await db.batch([mark, ...inserts]);
  if (hooks.length) await sendDeliver(deps, ev.id);
}

/** One message delivers all of an event's pending deliveries (not one per hook: fewer messages and round trips). */
const sendDeliver = (deps: JobDeps, eventId: number) => deps.jobs.send({ type: DELIVER_JOB, id: `${eventId}:${crypto.randomUUID()}`, eventId });

export async function runDispatch(message: JobMessage, deps: JobDeps): Promise<void> {
  const ids = Array.isArray(message.projectIds) ? (message.projectIds as number[]) : null;
  const events = await deps.db
    .select()
    .from(webHookEvents)
    .where(and(eq(webHookEvents.state, 'pending'), ids ? inArray(webHookEvents.projectId, ids) : undefined))
    .orderBy(webHookEvents.id)
    .limit(BATCH);
  for (const ev of events) await dispatchEvent(deps, ev);
}

/** X-Gitlab-Instance: the configured URL, else the one the request that caused the event was addressed to. */
const instanceOf = (deps: JobDeps, ev: EventRow) => {
  if (deps.config.externalUrl) return deps.config.externalUrl;
  const base = ev.data ? (JSON.parse(ev.data) as { base?: string }).base : undefined;
  return base ?? 'http://localhost';
};

/**
 * Sends an event's pending deliveries, all at once: one compare-and-set claims them (a redelivered
 * message finds none left), the hooks in one read, the requests concurrently, and every log row,
 * hook state and delivery state in one batch. Failed ones go back to pending and the message is
 * retried with backoff; those delivered meanwhile are not sent again.
 */
export async function runDeliver(message: JobMessage, deps: JobDeps): Promise<void> {
  const db = deps.db;
  const eventId = Number(message.eventId);
  const now = Date.now();
  const claimed = await db
    .update(webHookDeliveries)
    .set({ state: 'sending', attempts: sql`${webHookDeliveries.attempts} + 1`, leaseUntil: now + LEASE_MS })
    .where(and(eq(webHookDeliveries.eventId, eventId), or(eq(webHookDeliveries.state, 'pending'), and(eq(webHookDeliveries.state, 'sending'), lt(webHookDeliveries.leaseUntil, now)))))
    .returning();
  if (!claimed.length) return;
  const [hooks, [ev]] = await db.batch([
    db.select().from(webHooks).where(inArray(webHooks.id, claimed.map((d) => d.webHookId))),
    db.select().from(webHookEvents).where(eq(webHookEvents.id, eventId)).limit(1),
  ]);
  const byId = new Map(hooks.map((h) => [h.id, h]));
  const settings = await loadSettings(db);
  const kind = ev ? headerKind(ev) : '';
  const set = (id: number, state: string, extra: Record<string, unknown> = {}) => db.update(webHookDeliveries).set({ state, leaseUntil: null, ...extra }).where(eq(webHookDeliveries.id, id));
  const outcomes = await Promise.all(
    claimed.map(async (d) => {
      const hook = byId.get(d.webHookId);
      if (!hook || !ev?.payload || !executable(hook, now)) return { failed: false, statements: [set(d.id, 'skipped')] };
      const run = await executeHook({
        db,
        config: deps.config,
        settings,
        hook,
        payload: ev.payload,
        eventName: EVENT_HEADER[kind] ?? 'System Hook',
        trigger: TRIGGER_OF[kind] ?? kind,
        webhookUuid: d.uuid,
        eventUuid: ev.uuid,
        deliveryId: d.id,
        instance: instanceOf(deps, ev),
      });
      const last = d.attempts >= DELIVERY_ATTEMPTS;
      const state = run.ok ? set(d.id, 'delivered') : last ? set(d.id, 'failed') : set(d.id, 'pending', { dueAt: now + 2 ** d.attempts * 1000 });
      return { failed: !run.ok && !last, statements: [state, ...run.statements] };
    }),
  );
  const [first, ...rest] = outcomes.flatMap((o) => o.statements);
  await db.batch([first, ...rest]);
  // The Queue retries with backoff (jobs-consumer.ts); the failed deliveries are pending again for it.
  const failed = outcomes.filter((o) => o.failed).length;
  if (failed) throw new Error(`web hook event ${eventId}: ${failed} of ${claimed.length} deliveries failed`);
}

/**
 * Re-sends what lost messages left behind: events still pending, deliveries pending past their due
 * time or whose lease ran out. Run by the Workers cron trigger and a timer on Node.
 */
export async function sweepWebHooks(deps: JobDeps, olderThanMs = SWEEP_AFTER_MS): Promise<{ events: number; deliveries: number }> {
  const db: Db = deps.db;
  const cutoff = Date.now() - olderThanMs;
  const events = await db.select().from(webHookEvents).where(and(eq(webHookEvents.state, 'pending'), lt(webHookEvents.createdAt, cutoff))).orderBy(webHookEvents.id).limit(BATCH);
  for (const ev of events) await dispatchEvent(deps, ev);
  const now = Date.now();
  const stuck = await db
    .selectDistinct({ eventId: webHookDeliveries.eventId })
    .from(webHookDeliveries)
    .where(or(and(eq(webHookDeliveries.state, 'pending'), lt(webHookDeliveries.dueAt, cutoff)), and(eq(webHookDeliveries.state, 'sending'), lt(webHookDeliveries.leaseUntil, now))))
    .limit(BATCH);
  for (const d of stuck) await sendDeliver(deps, d.eventId);
  return { events: events.length, deliveries: stuck.length };
}

export { DISPATCH_JOB };

/** The dead-letter path of an event's deliveries: those not delivered will not be tried again. */
export async function failDelivery(message: JobMessage, deps: JobDeps): Promise<void> {
  await deps.db
    .update(webHookDeliveries)
    .set({ state: 'failed', leaseUntil: null })
    .where(and(eq(webHookDeliveries.eventId, Number(message.eventId)), or(eq(webHookDeliveries.state, 'pending'), eq(webHookDeliveries.state, 'sending'))));
}
