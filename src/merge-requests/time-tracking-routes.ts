/**
 * Merge request time tracking (GitLab lib/api/time_tracking_endpoints.rb as included by
 * merge_requests.rb): estimate, spent time, their resets and time_stats, with the system notes of
 * SystemNotes::TimeTrackingService. Writing needs admin_merge_request (Developer+), 403 otherwise.
 *
 * Spent time is kept as the merge request's `total_time_spent` (no per-entry timelogs for merge
 * requests here); the "stays within 0..4 years" check is part of the writing batch: the note's
 * noteable id is NULL when it fails, which aborts the batch, so concurrent subtractions cannot overdraw.
 */
import { eq, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { mergeRequests } from '../db/schema';
import type { MergeRequestRow } from './merge-request-entity';
import { formatDuration, parseDuration, timeStats, TimeStatsSchema } from '../platform/duration';
import { forbidden, validationFailed } from '../platform/errors';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { requireUser } from '../platform/guards';
import { canAdminMergeRequest, findReadableMergeRequest } from './merge-request-access';
import { systemNoteInsert } from '../issuables/system-notes';
import { settingsOf } from '../settings/settings';
import { eventChanges, recordEvent } from '../platform/events';

const TAGS = ['merge_requests'];
/** Gitlab::Database::MAX_INT_VALUE: TimeTrackable#time_estimate= clamps to it. */
const MAX_INT = 2_147_483_647;
/** Timelog::MAX_TOTAL_TIME_SPENT (about four years). */
const MAX_TOTAL_TIME_SPENT = 126_230_400;
const mrParams = { id: g.string(), merge_request_iid: g.int() };

async function limitToHours(c: Context<AppEnv>) {
  return Boolean((await settingsOf(c)).time_tracking_limit_to_hours);
}

async function loadForWrite(c: Context<AppEnv>, caller: Caller, p: { id: string; merge_request_iid: number }) {
  const found = await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
  if (!canAdminMergeRequest(caller, found.project, found.level)) throw forbidden();
  return found;
}

/**
 * The merge request hook of a time-tracking write (the API goes through MergeRequests::UpdateService:
 * an `update`), for the write's own batch; spent time as `total_time_spent` and `time_change`.
 */
function timeEvent(c: Context<AppEnv>, mr: MergeRequestRow, userId: number, changes: Record<string, { previous: unknown; current: unknown }>) {
  return recordEvent(c, { kind: 'merge_request', projectId: mr.projectId, objectId: mr.id, action: 'update', actorId: userId, data: { changes } });
}

const spentChanges = (mr: MergeRequestRow, seconds: number, now: number) => ({
  ...eventChanges(mr, { updatedAt: now }),
  ...(seconds ? { total_time_spent: { previous: mr.totalTimeSpent, current: mr.totalTimeSpent + seconds }, time_change: { previous: 0, current: seconds } } : {}),
});

/** TimeTrackable#check_negative_time_spent and the four-year limit. */
function spentTimeError(total: number, seconds: number) {
  if (seconds < 0 && -seconds > total) throw validationFailed({ time_spent: ['Time to subtract exceeds the total time spent'] });
  if (total + seconds > MAX_TOTAL_TIME_SPENT) throw validationFailed({ 'timelogs.base': ['Total time spent cannot exceed 4 years.'] });
}

async function setEstimate(c: Context<AppEnv>, mr: MergeRequestRow, userId: number, estimate: number) {
  const hours = await limitToHours(c);
  if (estimate === mr.timeEstimate) return timeStats(mr, hours);
  const db = c.var.db;
  const now = Date.now();
  const body = estimate === 0 ? 'removed time estimate' : `changed time estimate to ${formatDuration(estimate, hours)}`;
  const [updated] = await db.batch([
    db.update(mergeRequests).set({ timeEstimate: estimate, updatedAt: now }).where(eq(mergeRequests.id, mr.id)).returning(),
    systemNoteInsert(db, { noteableType: 'MergeRequest', noteableId: mr.id, projectId: mr.projectId, authorId: userId, body, at: now }),
    ...timeEvent(c, mr, userId, eventChanges(mr, { timeEstimate: estimate, updatedAt: now })),
  ]);
  return timeStats((updated as MergeRequestRow[])[0] ?? { ...mr, timeEstimate: estimate }, hours);
}

export function mountMergeRequestTimeTracking(r: Router) {
  r.route(
    { method: 'POST', path: '/projects/:id/merge_requests/:merge_request_iid/time_estimate', summary: 'Set a time estimate for a merge request', tags: TAGS, params: params({ ...mrParams, duration: g.string() }), responses: { 200: TimeStatsSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const { mr } = await loadForWrite(c, caller, p);
      const parsed = parseDuration(p.duration);
      if (parsed == null || parsed < 0) throw validationFailed({ time_estimate: ['has an invalid format'] });
      return c.json(await setEstimate(c, mr, user.id, Math.min(parsed, MAX_INT)), 200);
    },
  );

  r.route(
    { method: 'POST', path: '/projects/:id/merge_requests/:merge_request_iid/reset_time_estimate', summary: 'Reset the time estimate for a merge request', tags: TAGS, params: params(mrParams), responses: { 200: TimeStatsSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const { mr } = await loadForWrite(c, caller, p);
      return c.json(await setEstimate(c, mr, user.id, 0), 200);
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/projects/:id/merge_requests/:merge_request_iid/add_spent_time',
      summary: 'Add spent time for a merge request',
      tags: TAGS,
      params: params({ ...mrParams, duration: g.string(), summary: g.string().optional() }),
      responses: { 201: TimeStatsSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const { mr } = await loadForWrite(c, caller, p);
      const seconds = parseDuration(p.duration);
      if (seconds == null) throw validationFailed({ 'timelogs.time_spent': ["can't be blank"] });
      if (p.summary != null && [...p.summary].length > 255) throw validationFailed({ 'timelogs.summary': ['is too long (maximum is 255 characters)'] });
      const hours = await limitToHours(c);
      if (seconds === 0) return c.json(timeStats(mr, hours), 201);
      spentTimeError(mr.totalTimeSpent, seconds);
      const db = c.var.db;
      const now = Date.now();
      const guarded = sql<number>`(SELECT ${mergeRequests.id} FROM ${mergeRequests} WHERE ${mergeRequests.id} = ${mr.id} AND ${mergeRequests.totalTimeSpent} + ${seconds} BETWEEN 0 AND ${MAX_TOTAL_TIME_SPENT})`;
      const body = `${seconds > 0 ? 'added' : 'subtracted'} ${formatDuration(Math.abs(seconds), hours)} of time spent`;
      let updated: unknown;
      try {
        [, updated] = await db.batch([
          systemNoteInsert(db, { noteableType: 'MergeRequest', noteableId: guarded, projectId: mr.projectId, authorId: user.id, body, at: now }),
          db
            .update(mergeRequests)
            .set({ totalTimeSpent: sql`${mergeRequests.totalTimeSpent} + ${seconds}`, updatedAt: now })
            .where(eq(mergeRequests.id, mr.id))
            .returning(),
          ...timeEvent(c, mr, user.id, spentChanges(mr, seconds, now)),
        ]);
      } catch (err) {
        const fresh = await db.select().from(mergeRequests).where(eq(mergeRequests.id, mr.id)).get();
        if (fresh) spentTimeError(fresh.totalTimeSpent, seconds);
        throw err;
      }
      return c.json(timeStats((updated as MergeRequestRow[])[0] ?? mr, hours), 201);
    },
  );

  r.route(
    { method: 'POST', path: '/projects/:id/merge_requests/:merge_request_iid/reset_spent_time', summary: 'Reset spent time for a merge request', tags: TAGS, params: params(mrParams), responses: { 200: TimeStatsSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const { mr } = await loadForWrite(c, caller, p);
      const db = c.var.db;
      const now = Date.now();
      const [updated] = await db.batch([
        db.update(mergeRequests).set({ totalTimeSpent: 0, updatedAt: now }).where(eq(mergeRequests.id, mr.id)).returning(),
        systemNoteInsert(db, { noteableType: 'MergeRequest', noteableId: mr.id, projectId: mr.projectId, authorId: user.id, body: 'removed time spent', at: now }),
        ...timeEvent(c, mr, user.id, spentChanges(mr, -mr.totalTimeSpent, now)),
      ]);
      return c.json(timeStats((updated as MergeRequestRow[])[0] ?? { ...mr, totalTimeSpent: 0 }, await limitToHours(c)), 200);
    },
  );

  r.route(
    { method: 'GET', path: '/projects/:id/merge_requests/:merge_request_iid/time_stats', summary: 'Get time tracking stats of a merge request', tags: TAGS, params: params(mrParams), responses: { 200: TimeStatsSchema } },
    async ({ c, p, caller }) => {
      const { mr } = await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
      return c.json(timeStats(mr, await limitToHours(c)));
    },
  );
}
