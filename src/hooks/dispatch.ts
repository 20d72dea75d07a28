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
  await sendPending(deps, db.select({ id: webHookDeliveries.id, uuid: webHookDeliveries.uuid }).from(webHookDeliveries).where(and(eq(webHookDeliveries.eventId, ev.id), eq(webHookDeliveries.state, 'pending'))));
}

async function sendPending(deps: JobDeps, rows: PromiseLike<{ id: number; uuid: string }[]>) {
  for (const d of await rows) await deps.jobs.send({ type: DELIVER_JOB, id: d.uuid, deliveryId: d.id });
}

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

export async function runDeliver(message: JobMessage, deps: JobDeps): Promise<void> {
  const db = deps.db;
  const id = Number(message.deliveryId);
  const now = Date.now();
  const [d] = await db
    .update(webHookDeliveries)
    .set({ state: 'sending', attempts: sql`${webHookDeliveries.attempts} + 1`, leaseUntil: now + LEASE_MS })
    .where(and(eq(webHookDeliveries.id, id), or(eq(webHookDeliveries.state, 'pending'), and(eq(webHookDeliveries.state, 'sending'), lt(webHookDeliveries.leaseUntil, now)))))
    .returning();
  // Delivered, failed, skipped or being sent: a redelivered message has nothing to do.
  if (!d) return;
  const [[hook], [ev]] = await db.batch([db.select().from(webHooks).where(eq(webHooks.id, d.webHookId)).limit(1), db.select().from(webHookEvents).where(eq(webHookEvents.id, d.eventId)).limit(1)]);
  const done = (state: string) => db.update(webHookDeliveries).set({ state, leaseUntil: null }).where(eq(webHookDeliveries.id, d.id));
  if (!hook || !ev?.payload || !executable(hook, now)) {
    await done('skipped');
    return;
  }
  const kind = headerKind(ev);
  const run = await executeHook({
    db,
    config: deps.config,
    settings: await loadSettings(db),
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
  const next = run.ok ? done('delivered') : last ? done('failed') : db.update(webHookDeliveries).set({ state: 'pending', leaseUntil: null, dueAt: now + 2 ** d.attempts * 1000 }).where(eq(webHookDeliveries.id, d.id));
  await db.batch([next, ...run.statements]);
  // The Queue retries with backoff (jobs-consumer.ts); the delivery is pending again for it.
  if (!run.ok && !last) throw new Error(`web hook ${hook.id}: ${run.httpStatus ?? run.message}`);
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
    .select({ id: webHookDeliveries.id, uuid: webHookDeliveries.uuid })
    .from(webHookDeliveries)
    .where(or(and(eq(webHookDeliveries.state, 'pending'), lt(webHookDeliveries.dueAt, cutoff)), and(eq(webHookDeliveries.state, 'sending'), lt(webHookDeliveries.leaseUntil, now))))
    .limit(BATCH);
  await sendPending(deps, Promise.resolve(stuck));
  return { events: events.length, deliveries: stuck.length };
}

export { DISPATCH_JOB };

/** The dead-letter path of a delivery: it will not be tried again. */
export async function failDelivery(message: JobMessage, deps: JobDeps): Promise<void> {
  await deps.db
    .update(webHookDeliveries)
    .set({ state: 'failed', leaseUntil: null })
    .where(and(eq(webHookDeliveries.id, Number(message.deliveryId)), or(eq(webHookDeliveries.state, 'pending'), eq(webHookDeliveries.state, 'sending'))));
}
