/**
 * Issue time tracking (GitLab lib/api/time_tracking_endpoints.rb included by issues.rb; reference 1
 * §5.3): estimate, spent time and their resets, each with GitLab's system note
 * (app/services/system_notes/time_tracking_service.rb), and the TimeStats read.
 *
 * Rights: reading needs `read_issue` (a readable issue); writing needs `admin_issue` (planner or
 * above, administrators always), 403 otherwise, checked after the issue lookup as `authorize!` is.
 *
 * Spent time lives in `timelogs`; `issues.total_time_spent` is their sum, recomputed from the rows in
 * the same batch as every timelog insert. The "stays within 0..4 years" check is part of that batch
 * (the timelog's issue id is NULL when it fails, which aborts the batch), so two concurrent
 * subtractions cannot overdraw.
 */
import { eq, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import type { Db } from '../db/client';
import { issues, timelogs } from '../db/schema';
import { formatDuration, parseDuration, timeStats, TimeStatsSchema } from '../platform/duration';
import { forbidden, validationFailed } from '../platform/errors';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { requireUser } from '../platform/guards';
import { canAdminIssue, findReadableIssue } from './issues';
import { systemNoteInsert } from '../issuables/system-notes';
import { settingsOf } from '../settings/settings';
import { eventChanges, recordEvent } from '../platform/events';

const TAGS = ['issues'];
/** Gitlab::Database::MAX_INT_VALUE: TimeTrackable#time_estimate= clamps to it. */
const MAX_INT = 2_147_483_647;
/** Timelog::MAX_TOTAL_TIME_SPENT (about four years). */
const MAX_TOTAL_TIME_SPENT = 126_230_400;

type IssueRow = typeof issues.$inferSelect;

const issueParams = { id: g.string(), issue_iid: g.int() };

async function presentStats(c: Context<AppEnv>, issue: Pick<IssueRow, 'timeEstimate' | 'totalTimeSpent'>) {
  const settings = await settingsOf(c);
  return timeStats(issue, Boolean(settings.time_tracking_limit_to_hours));
}

/** The time-tracking system note (SystemNotes::TimeTrackingService), for the batch of the change it records. */
const timeNote = (db: Db, issue: { id: number | SQL<number>; projectId: number }, authorId: number, body: string, at: number) =>
  systemNoteInsert(db, { noteableType: 'Issue', noteableId: issue.id, projectId: issue.projectId, authorId, body, at });

/**
 * The issue hook of a time-tracking write (the API goes through Issues::UpdateService, so hooks see an
 * `update`), for the write's own batch. Spent time reports `total_time_spent` and `time_change` as
 * Issuable#hook_association_changes does (the change before a spend is 0).
 */
function timeEvent(c: Context<AppEnv>, issue: IssueRow, userId: number, changes: Record<string, { previous: unknown; current: unknown }>) {
  return recordEvent(c, { kind: 'issue', projectId: issue.projectId, objectId: issue.id, action: 'update', actorId: userId, confidential: issue.confidential, data: { changes } });
}

const spentChanges = (issue: IssueRow, seconds: number, now: number) => ({
  ...eventChanges(issue, { updatedAt: now }),
  ...(seconds ? { total_time_spent: { previous: issue.totalTimeSpent, current: issue.totalTimeSpent + seconds }, time_change: { previous: 0, current: seconds } } : {}),
});

async function loadForWrite(c: Context<AppEnv>, caller: Caller, p: { id: string; issue_iid: number }) {
  const found = await findReadableIssue(c, caller, p.id, p.issue_iid);
  if (!canAdminIssue(caller, found.level)) throw forbidden();
  return found;
}

export function mountIssueTimeTracking(r: Router) {
  r.route(
    {
      method: 'POST',
      path: '/projects/:id/issues/:issue_iid/time_estimate',
      summary: 'Set a time estimate for an issue',
      tags: TAGS,
      params: params({ ...issueParams, duration: g.string() }),
      responses: { 200: TimeStatsSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const { issue } = await loadForWrite(c, caller, p);
      const parsed = parseDuration(p.duration);
      // TimeTrackable: an unreadable (nil) or negative estimate fails validation (reference 1 §5.3 wording).
      if (parsed == null || parsed < 0) throw validationFailed({ time_estimate: ['has an invalid format'] });
      const estimate = Math.min(parsed, MAX_INT);
      return c.json(await setEstimate(c, issue, user.id, estimate), 200);
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/projects/:id/issues/:issue_iid/reset_time_estimate',
      summary: 'Reset the time estimate for an issue',
      tags: TAGS,
      params: params(issueParams),
      responses: { 200: TimeStatsSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const { issue } = await loadForWrite(c, caller, p);
      return c.json(await setEstimate(c, issue, user.id, 0), 200);
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/projects/:id/issues/:issue_iid/add_spent_time',
      summary: 'Add spent time for an issue',
      tags: TAGS,
      params: params({ ...issueParams, duration: g.string(), summary: g.string().optional() }),
      responses: { 201: TimeStatsSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const { issue } = await loadForWrite(c, caller, p);
      const seconds = parseDuration(p.duration);
      // The timelog built from a nil duration fails its presence validation; autosave names it `timelogs.*`.
      if (seconds == null) throw validationFailed({ 'timelogs.time_spent': ["can't be blank"] });
      if (p.summary != null && [...p.summary].length > 255) throw validationFailed({ 'timelogs.summary': ['is too long (maximum is 255 characters)'] });
      // TimeTrackable#spend_time: nothing is recorded for zero.
      if (seconds === 0) return c.json(await presentStats(c, issue), 201);
      spentTimeError(issue.totalTimeSpent, seconds);

      const db = c.var.db;
      const now = Date.now();
      const limitToHours = Boolean((await settingsOf(c)).time_tracking_limit_to_hours);
      // The issue id, only while the new total stays within 0..MAX: a NULL fails the NOT NULL
      // columns below and the whole batch rolls back, so the check and the writes are one atomic step.
      const guardedIssueId = sql<number>`(SELECT ${issues.id} FROM ${issues} WHERE ${issues.id} = ${issue.id} AND ${issues.totalTimeSpent} + ${seconds} BETWEEN 0 AND ${MAX_TOTAL_TIME_SPENT})`;
      const body = `${seconds > 0 ? 'added' : 'subtracted'} ${formatDuration(Math.abs(seconds), limitToHours)} of time spent`;
      let updated: unknown;
      try {
        [, , updated] = await db.batch([
          db.insert(timelogs).values({ issueId: guardedIssueId, userId: user.id, timeSpent: seconds, summary: p.summary ?? null, spentAt: now, createdAt: now }),
          timeNote(db, { id: guardedIssueId, projectId: issue.projectId }, user.id, body, now),
          recomputeTotal(db, issue.id, now),
          ...timeEvent(c, issue, user.id, spentChanges(issue, seconds, now)),
        ]);
      } catch (err) {
        // Lost a race with another write: answer as the model would against the new total.
        const [fresh] = await db.select().from(issues).where(eq(issues.id, issue.id)).all();
        if (fresh) spentTimeError(fresh.totalTimeSpent, seconds);
        throw err;
      }
      const fresh = (updated as IssueRow[])[0] ?? issue;
      return c.json(timeStats(fresh, limitToHours), 201);
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/projects/:id/issues/:issue_iid/reset_spent_time',
      summary: 'Reset spent time for an issue',
      tags: TAGS,
      params: params(issueParams),
      responses: { 200: TimeStatsSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const { issue } = await loadForWrite(c, caller, p);
      const db = c.var.db;
      const now = Date.now();
      // TimeTrackable#reset_spent_time: one timelog of minus the current total (even of 0), computed in the statement itself.
      const [, , updated] = await db.batch([
        db.insert(timelogs).values({
          issueId: issue.id,
          userId: user.id,
          timeSpent: sql<number>`-(SELECT ${issues.totalTimeSpent} FROM ${issues} WHERE ${issues.id} = ${issue.id})`,
          spentAt: now,
          createdAt: now,
        }),
        // GitLab notes every reset, even of nothing (`time_spent?` is :reset).
        timeNote(db, issue, user.id, 'removed time spent', now),
        recomputeTotal(db, issue.id, now),
        ...timeEvent(c, issue, user.id, spentChanges(issue, -issue.totalTimeSpent, now)),
      ]);
      const fresh = (updated as IssueRow[])[0] ?? { ...issue, totalTimeSpent: 0 };
      return c.json(await presentStats(c, fresh), 200);
    },
  );

  r.route(
    {
      method: 'GET',
      path: '/projects/:id/issues/:issue_iid/time_stats',
      summary: 'Get time tracking stats',
      tags: TAGS,
      params: params(issueParams),
      responses: { 200: TimeStatsSchema },
    },
    async ({ c, p, caller }) => {
      const { issue } = await findReadableIssue(c, caller, p.id, p.issue_iid);
      return c.json(await presentStats(c, issue));
    },
  );
}

/** TimeTrackable#check_negative_time_spent and Timelog#check_total_time_spent_is_within_range. */
function spentTimeError(total: number, seconds: number) {
  if (seconds < 0 && -seconds > total) throw validationFailed({ time_spent: ['Time to subtract exceeds the total time spent'] });
  if (total + seconds > MAX_TOTAL_TIME_SPENT) throw validationFailed({ 'timelogs.base': ['Total time spent cannot exceed 4 years.'] });
}

/** `issues.total_time_spent` as the sum of its timelogs (touches updated_at, as Timelog `belongs_to :issue, touch: true`). */
function recomputeTotal(db: Db, issueId: number, now: number) {
  return db
    .update(issues)
    .set({ totalTimeSpent: sql`(SELECT coalesce(sum(${timelogs.timeSpent}), 0) FROM ${timelogs} WHERE ${timelogs.issueId} = ${issueId})`, updatedAt: now })
    .where(eq(issues.id, issueId))
    .returning();
}

async function setEstimate(c: Context<AppEnv>, issue: IssueRow, userId: number, estimate: number) {
  // Issues::UpdateService writes (and notes) only a change.
  if (estimate === issue.timeEstimate) return presentStats(c, issue);
  const db = c.var.db;
  const now = Date.now();
  const limitToHours = Boolean((await settingsOf(c)).time_tracking_limit_to_hours);
  const body = estimate === 0 ? 'removed time estimate' : `changed time estimate to ${formatDuration(estimate, limitToHours)}`;
  const [updated] = await db.batch([
    db.update(issues).set({ timeEstimate: estimate, updatedAt: now }).where(eq(issues.id, issue.id)).returning(),
    timeNote(db, issue, userId, body, now),
    ...timeEvent(c, issue, userId, eventChanges(issue, { timeEstimate: estimate, updatedAt: now })),
  ]);
  return timeStats((updated as IssueRow[])[0] ?? { ...issue, timeEstimate: estimate }, limitToHours);
}
