/**
 * POST /projects/:id/hooks/:hook_id/test/:trigger (lib/api/hooks/trigger_test.rb, TestHooks::ProjectService):
 * the hook runs now, with the project's first issue, note, merge request or latest commits as
 * data; 201 when the receiver answers 2xx, else 422 with its answer or the reason there is no data.
 * GET /projects/:id/hooks/:hook_id/events (lib/api/hooks/events.rb): the last 7 days of deliveries,
 * newest first, for maintainers.
 */
import { and, asc, count, desc, eq, gte, inArray, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { issues, mergeRequests, notes, webHookLogs, webHooks } from '../db/schema';
import { ApiError, recordNotFound } from '../platform/errors';
import { baseUrl, linkParamsFrom, MAX_COUNT, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { obj } from '../platform/response-schemas';
import { grapeError } from '../platform/errors';
import { resolveRef } from '../repository/repository-store';
import { settingsOf } from '../settings/settings';
import { executeHook } from './execute';
import { webHookLogEntity, WebHookLogSchema } from './hook-entity';
import { hookEventsParams, resendHookParams, testHookParams } from './hooks-params';
import { hookParent, resendLog, ResendSchema } from './resend';
import { buildPayload, EVENT_HEADER, type EventRow, TRIGGER_OF } from './payloads';
import { applicationLimit } from '../settings/rate-limits';
import { hookOfProject, maintainedProject } from './project-hooks-routes';

const TAGS = ['project_hooks'];
export const WEEK = 7 * 24 * 3600 * 1000;

/** The trigger's sample: [event kind, the first row's id] or TestHooks' refusal. */
const SAMPLES: Record<string, { kind: string; confidential?: boolean; empty: string }> = {
  push_events: { kind: 'push', empty: 'Ensure the project has at least one commit.' },
  tag_push_events: { kind: 'tag_push', empty: 'Ensure the project has at least one commit.' },
  issues_events: { kind: 'issue', empty: 'Ensure the project has issues.' },
  confidential_issues_events: { kind: 'issue', confidential: true, empty: 'Ensure the project has issues.' },
  note_events: { kind: 'note', empty: 'Ensure the project has notes.' },
  confidential_note_events: { kind: 'note', confidential: true, empty: 'Ensure the project has notes.' },
  merge_requests_events: { kind: 'merge_request', empty: 'Ensure the project has merge requests.' },
  job_events: { kind: 'job', empty: 'Ensure the project has CI jobs.' },
  pipeline_events: { kind: 'pipeline', empty: 'Ensure the project has CI pipelines.' },
  wiki_page_events: { kind: 'wiki', empty: 'Ensure the wiki is enabled and has pages.' },
  releases_events: { kind: 'release', empty: 'Ensure the project has releases.' },
};

/** WebHookLogsFinder's `status`: codes, or the classes `successful`, `client_failure`, `server_failure`. */
export function statusWhere(statuses: string[] | undefined): SQL | undefined {
  if (!statuses?.length) return undefined;
  const parts: SQL[] = [];
  const codes = statuses.filter((s) => /^\d{3}$/.test(s));
  if (codes.length) parts.push(inArray(webHookLogs.responseStatus, codes));
  const range = (lo: number, hi: number) => sql`(${webHookLogs.responseStatus} GLOB '[0-9][0-9][0-9]' AND CAST(${webHookLogs.responseStatus} AS INTEGER) BETWEEN ${lo} AND ${hi})`;
  if (statuses.includes('successful')) parts.push(range(200, 299));
  if (statuses.includes('client_failure')) parts.push(range(400, 499));
  if (statuses.includes('server_failure')) parts.push(or(range(500, 599), eq(webHookLogs.responseStatus, 'internal error'))!);
  return or(...parts);
}

/** events.rb's params (`per_page … values: 1..20`, `status` codes or classes) and the page asked for. */
export async function eventsRequest(c: Context<AppEnv>, p: { per_page?: number; status?: unknown; page?: number }) {
  const raw = await requestParams(c);
  if (p.per_page != null && (p.per_page < 1 || p.per_page > 20)) throw grapeError('per_page does not have a valid value');
  const statuses = p.status as string[] | undefined;
  if (statuses?.some((s) => !/^\d{3}$/.test(s) && !['successful', 'client_failure', 'server_failure'].includes(s))) throw grapeError('status does not have a valid value');
  const req = pageRequest({ ...p, per_page: p.per_page ?? 20 }, raw.per_page ?? 20);
  return { raw, statuses, req };
}

type EventsPage = Awaited<ReturnType<typeof eventsRequest>>;

/**
 * The reads of a hook's events page (events.rb, mounted for project and group hooks alike): the
 * hook under its owner, the last week's logs and their count. `owner` names the hook's owner column
 * and the owner's id as SQL, so they ride in the owner's lookup batch.
 */
export function hookEventsReads(db: Context<AppEnv>['var']['db'], owner: { type: 'ProjectHook' | 'GroupHook'; column: 'project_id' | 'group_id'; id: SQL }, hookId: number, page: EventsPage) {
  const since = Date.now() - WEEK;
  const logsOf = and(
    sql`${webHookLogs.webHookId} = (SELECT id FROM web_hooks WHERE id = ${hookId} AND type = ${owner.type} AND ${sql.raw(owner.column)} = ${owner.id})`,
    gte(webHookLogs.createdAt, since),
    statusWhere(page.statuses),
  );
  return [
    db.select({ id: webHooks.id }).from(webHooks).where(sql`${webHooks.id} = ${hookId} AND ${webHooks.type} = ${owner.type} AND ${sql.raw(owner.column)} = ${owner.id}`).limit(1),
    db.select().from(webHookLogs).where(logsOf).orderBy(desc(webHookLogs.createdAt), desc(webHookLogs.id)).limit(page.req.perPage).offset(page.req.offset),
    db.select({ n: count() }).from(webHookLogs).where(logsOf),
  ] as const;
}

/** The events page from `hookEventsReads`' results: 404 for another owner's hook, else the logs with pagination headers. */
export function hookEventsAnswer(c: Context<AppEnv>, page: EventsPage, [[hook], rows, [counted]]: [{ id: number }[], (typeof webHookLogs.$inferSelect)[], { n: number }[]]) {
  if (!hook) throw recordNotFound();
  const n = Number(counted?.n ?? 0);
  setPaginationHeaders(c, page.req, linkParamsFrom(page.raw, {}), n > MAX_COUNT ? null : n, rows.length);
  return c.json(rows.map(webHookLogEntity));
}

type HookRow = typeof webHooks.$inferSelect;
type Firsts = { issue?: { id: number; confidential: boolean | null }; note?: { id: number }; mr?: { id: number } };

/** The project's first issue, note and merge request (TestHooks::ProjectService's samples), unexecuted, for one batch. */
export function sampleReads(db: Context<AppEnv>['var']['db'], pid: SQL) {
  return [
    db.select({ id: issues.id, confidential: issues.confidential }).from(issues).where(sql`${issues.projectId} = ${pid}`).orderBy(asc(issues.id)).limit(1),
    db.select({ id: notes.id }).from(notes).where(sql`${notes.projectId} = ${pid}`).orderBy(asc(notes.id)).limit(1),
    db.select({ id: mergeRequests.id }).from(mergeRequests).where(sql`${mergeRequests.projectId} = ${pid}`).orderBy(asc(mergeRequests.id)).limit(1),
  ] as const;
}

/** TestHooks::ProjectService#execute: the hook runs now with the project's sample for the trigger. */
export async function runHookTest(c: Context<AppEnv>, caller: Caller, hook: HookRow, project: { id: number; defaultBranch: string | null }, trigger: string, { issue, note, mr }: Firsts) {
  const db = c.var.db;
  // project_hooks.rb / group_hooks.rb: check_rate_limit!(:web_hook_test, scope: [hook.parent, current_user]) once the hook is found.
  await applicationLimit(c, 'web_hook_test', [hookParent(hook), caller.user?.id]);
  const sample = SAMPLES[trigger];
  if (!sample) throw new ApiError(422, { message: 'Testing not available for this hook' });
  const base = baseUrl(c);
  let objectId: number | null = null;
  let data: Record<string, unknown> = { base };
  if (sample.kind === 'issue') objectId = issue?.id ?? null;
  else if (sample.kind === 'note') objectId = note?.id ?? null;
  else if (sample.kind === 'merge_request') objectId = mr?.id ?? null;
  else if (sample.kind === 'push' || sample.kind === 'tag_push') {
    // Gitlab::DataBuilder::Push.build_sample: the default branch's latest commits.
    const head = project.defaultBranch ? await resolveRef(db, project.id, project.defaultBranch) : null;
    if (head) {
      objectId = 0;
      data = { base, before: head.parentShas[0] ?? '0'.repeat(40), after: head.sha, ref: `refs/heads/${project.defaultBranch}`, commits: [head], total_commits_count: 1 };
    }
  }
  if (objectId == null) throw new ApiError(422, { message: sample.empty });
  const confidential = sample.kind === 'issue' ? !!issue?.confidential : !!sample.confidential;
  const ev = { id: 0, uuid: crypto.randomUUID(), projectId: project.id, kind: sample.kind, action: null, objectId, actorId: caller.user!.id, confidential, data: JSON.stringify(data), state: 'test', payload: null, createdAt: Date.now() } satisfies EventRow;
  const payload = await buildPayload(db, ev);
  if (!payload) throw new ApiError(422, { message: sample.empty });
  const kind = confidential && (sample.kind === 'issue' || sample.kind === 'note') ? `confidential_${sample.kind}` : sample.kind;
  const run = await executeHook({
    db,
    config: c.var.config,
    settings: await settingsOf(c),
    hook,
    payload: JSON.stringify(payload),
    eventName: EVENT_HEADER[kind],
    trigger: TRIGGER_OF[kind],
    webhookUuid: crypto.randomUUID(),
    eventUuid: ev.uuid,
    instance: base,
  });
  const [first, ...rest] = run.statements;
  await db.batch([first, ...rest]);
  if (!run.ok) throw new ApiError(422, { message: run.message });
  return c.json({ message: '201 Created' }, 201);
}

export function mountHookTests(r: Router) {
  r.route(
    {
      method: 'POST',
      path: '/projects/:id/hooks/:hook_id/test/:trigger',
      summary: 'Trigger a test project hook',
      tags: TAGS,
      signedIn: true,
      params: testHookParams,
      responses: { 201: obj({ message: z.string() }) },
    },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const sample = SAMPLES[p.trigger];
      const found = await maintainedProject(c, caller, p.id, (pid) => [
        db.select().from(webHooks).where(hookOfProject(pid, p.hook_id)).limit(1),
        ...sampleReads(db, pid),
      ] as const);
      const [[hook], [issue], [note], [mr]] = found.reads;
      if (!hook) throw recordNotFound();
      return runHookTest(c, caller, hook, found.project, p.trigger, { issue, note, mr });
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/hooks/:hook_id/events',
      summary: 'List the events of a project hook',
      tags: TAGS,
      signedIn: true,
      params: hookEventsParams,
      responses: { 200: z.array(WebHookLogSchema) },
    },
    async ({ c, p, caller }) => {
      const page = await eventsRequest(c, p);
      const found = await maintainedProject(c, caller, p.id, (pid) => hookEventsReads(c.var.db, { type: 'ProjectHook', column: 'project_id', id: pid }, p.hook_id, page));
      return hookEventsAnswer(c, page, found.reads as never);
    },
  );

  r.route(
    { method: 'POST', path: '/projects/:id/hooks/:hook_id/events/:hook_log_id/resend', summary: 'Resend a project webhook event', tags: TAGS, signedIn: true, params: resendHookParams, responses: { 201: ResendSchema } },
    async ({ c, p, caller }) => {
      const db = c.var.db;
      const found = await maintainedProject(c, caller, p.id, (pid) => [
        db.select().from(webHooks).where(hookOfProject(pid, p.hook_id)).limit(1),
        db.select().from(webHookLogs).where(and(eq(webHookLogs.id, p.hook_log_id), sql`${webHookLogs.webHookId} = (SELECT id FROM web_hooks WHERE id = ${p.hook_id} AND type = 'ProjectHook' AND project_id = ${pid})`)).limit(1),
      ] as const);
      const [[hook], [log]] = found.reads;
      return resendLog(c, caller, hook, log);
    },
  );
}
