/**
 * The outbox side of webhooks. A write's batch gets ONE statement per event, whatever the number of
 * hooks: an INSERT … SELECT that adds the event row only when some hook of the project or of one of
 * its groups takes that kind (so projects without hooks pay one cheap EXISTS). After the request the
 * dispatch message goes to the Queue (the in-process runner on Node); a lost message is made good by
 * the sweep (dispatch.ts), so the message is a nudge and the row is the truth.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../platform/context';
import { baseUrl } from '../platform/pagination';
import type { DomainEvent, EventKind, EventRecorder } from '../platform/events';
import { eventDataSql } from './association-changes';
import { DISPATCH_JOB } from './jobs';
import { webHookEvents } from '../db/schema';

/** The hook column that asks for each kind (ProjectHook triggers); confidential ones have their own. */
export const FLAG: Record<EventKind, { open: string; confidential?: string }> = {
  issue: { open: 'issues_events', confidential: 'confidential_issues_events' },
  merge_request: { open: 'merge_requests_events' },
  note: { open: 'note_events', confidential: 'confidential_note_events' },
  push: { open: 'push_events' },
  tag_push: { open: 'tag_push_events' },
  deployment: { open: 'deployment_events' },
};

export const flagColumn = (kind: EventKind, confidential: boolean) => (confidential ? (FLAG[kind].confidential ?? FLAG[kind].open) : FLAG[kind].open);

/**
 * Hooks of project `pid` and of its groups, as a WHERE over `web_hooks h`: the groups are the ids of
 * the namespace's traversal path (`/1/5/9/` -> [1,5,9]), so both arms use an index (a user
 * namespace has no path, hence no group hooks).
 */
export const hooksOfProjectSql = (pid: SQL | number) =>
  sql`(h.project_id = ${pid} OR h.group_id IN (SELECT CAST(value AS INTEGER) FROM json_each('[' || replace(trim((SELECT n.traversal_path FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE p.id = ${pid}), '/'), '/', ',') || ']')))`;

/** The instance's URL for the payload's links: a job's context (a rebase) has no request. */
function baseOf(c: Context<AppEnv>): string {
  return c.req ? baseUrl(c) : (c.var.config.externalUrl ?? 'http://localhost');
}

/** Requests that recorded an event: they nudge the dispatcher once answered. */
const recorded = new WeakMap<Context<AppEnv>, Set<number | 'sql'>>();

export const recordHookEvent: EventRecorder = (c, ev: DomainEvent) => {
  const pid = typeof ev.projectId === 'number' ? sql`${ev.projectId}` : sql`(${ev.projectId})`;
  const oid = ev.objectId == null ? sql`NULL` : typeof ev.objectId === 'number' ? sql`${ev.objectId}` : sql`(${ev.objectId})`;
  const column = sql.raw(`h.${flagColumn(ev.kind, !!ev.confidential)}`);
  let set = recorded.get(c);
  if (!set) recorded.set(c, (set = new Set()));
  set.add(typeof ev.projectId === 'number' ? ev.projectId : 'sql');
  // INSERT … SELECT through the query builder (D1's batch takes builder statements, not raw runs).
  const db = c.var.db;
  return [
    db.insert(webHookEvents).select(
      db
        .select({
          id: sql<number>`NULL`.as('id'),
          uuid: sql<string>`${crypto.randomUUID()}`.as('uuid'),
          projectId: sql<number>`${pid}`.as('project_id'),
          kind: sql<string>`${ev.kind}`.as('kind'),
          action: sql<string>`${ev.action ?? null}`.as('action'),
          objectId: sql<number>`${oid}`.as('object_id'),
          actorId: sql<number>`${ev.actorId}`.as('actor_id'),
          confidential: sql<boolean>`${ev.confidential ? 1 : 0}`.as('confidential'),
          data: sql<string>`${eventDataSql(ev, { ...ev.data, base: baseOf(c) }, baseOf(c), oid)}`.as('data'),
          state: sql<string>`'pending'`.as('state'),
          payload: sql<string>`NULL`.as('payload'),
          createdAt: sql<number>`${Date.now()}`.as('created_at'),
        })
        .from(sql`(SELECT 1) AS one`)
        .where(sql`EXISTS (SELECT 1 FROM web_hooks h WHERE ${column} = 1 AND ${hooksOfProjectSql(pid)})${ev.when ? sql` AND ${ev.when}` : sql``}`),
    ),
  ];
};

/**
 * Middleware: after a request that recorded events, one dispatch message (not one per hook, not
 * one per event). A failed send is logged and left to the sweep: the answer is already decided.
 */
export function webHookNudge(): MiddlewareHandler<AppEnv> {
  return async function nudgeWebHooks(c, next) {
    await next();
    const set = recorded.get(c);
    if (!set?.size) return;
    const projectIds = [...set].filter((p): p is number => typeof p === 'number');
    const sent = c.var.jobs
      .send({ type: DISPATCH_JOB, id: crypto.randomUUID(), projectIds: set.has('sql') ? null : projectIds })
      .catch((err) => console.error(JSON.stringify({ level: 'error', job: DISPATCH_JOB, error: String(err) })));
    // On Workers the answer does not wait for the Queue (waitUntil); Node's runner takes it at once.
    let ctx: { waitUntil(p: Promise<unknown>): void } | undefined;
    try {
      ctx = c.executionCtx;
    } catch {
      ctx = undefined;
    }
    if (ctx) ctx.waitUntil(sent);
    else await sent;
  };
}
