/**
 * Single issues (GitLab lib/api/issues.rb): create, get, update, delete, subscribe, unsubscribe,
 * and GET /issues/:id for administrators. Lists live in issue-lists.ts, sub-resources in
 * issue-time-tracking.ts, issue-details.ts, issue-metric-images.ts, notes.ts, award-emoji.ts, todos.ts.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { BatchItem } from 'drizzle-orm/batch';
import type { AppEnv, Caller, UserRow } from '../context';
import { epics, internalIds, issueAssignees, issues, labelLinks, todos, userAgentDetails, users } from '../db/schema';
import { ACCESS, canReadProject, featureAvailable, type NamespaceRow, projectAccess, type ProjectRow, traversalIds } from '../lib/abilities';
import { conflict, forbidden, notFound, validationFailed } from '../lib/errors';
import { planAllows } from '../lib/plan';
import type { Router } from '../lib/router';
import { isUniqueViolation } from '../lib/unique';
import { requireUser } from '../middleware/auth';
import { applicationLimit, clientIp } from '../middleware/rate-limit';
import { createIssueParams, issueRefParams } from '../params/issues';
import { presentIssue } from '../services/issue-presenter';
import { canAdminIssue, findReadableIssue, type IssueRow } from '../services/issues';
import { findOrBuildProjectLabels } from '../services/labels';
import { findProjectAssignableMilestone } from '../services/milestones';
import { findReadableProject } from '../services/projects';

const TITLE_MAX = 255;
const DESCRIPTION_MAX = 1_048_576;

export function mountIssues(r: Router) {
  r.route(
    { method: 'POST', path: '/projects/:id/issues', summary: 'Create an issue', tags: ['issues'], params: createIssueParams, status: 201 },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const pr = await findReadableProject(c, caller, p.id);
      // create_issue: anyone who may read the project's issues (non-members of public and internal projects too).
      if (!featureAvailable(pr.project, 'issues', { level: pr.level, isAdmin: caller.isAdmin })) throw forbidden();
      await applicationLimit(c, 'issues_create', [pr.project.id, user.id], { retryAfter: false });

      const errors = textErrors({ title: p.title, description: p.description });
      const premium = planAllows(c.var.config, 'premium');
      if (premium && p.weight != null && p.weight < 0) errors.weight = ['must be greater than or equal to 0'];
      if (Object.keys(errors).length) throw validationFailed(errors);

      const db = c.var.db;
      const now = Date.now();
      const admin = canAdminIssue(caller, pr.level);
      // set_issue_created_at / set_issue_iid: project owners and administrators; others are ignored.
      const owner = caller.isAdmin || pr.level >= ACCESS.OWNER;
      const createdAt = owner && p.created_at ? p.created_at : now;
      const explicitIid = owner && p.iid != null ? p.iid : null;

      const assigneeIds = admin ? await assignableUsers(c, pr.project, pr.namespace, requestedAssignees(p), premium) : [];
      const milestoneId = admin && p.milestone_id ? ((await findProjectAssignableMilestone(db, pr.project, pr.namespace, p.milestone_id))?.id ?? null) : null;
      const labels = admin && p.labels?.length ? await findOrBuildProjectLabels(db, pr.project, pr.namespace, p.labels, now) : null;
      const epicId = premium && admin ? await resolveEpic(c, pr.namespace, p.epic_id, p.epic_iid) : null;

      const P = pr.project.id;
      const iidSql = explicitIid ?? sql<number>`(select ${internalIds.lastValue} from ${internalIds} where ${internalIds.usage} = 'issues' and ${internalIds.scopeId} = ${P})`;
      const issueIdSql =
        explicitIid != null
          ? sql<number>`(select ${issues.id} from ${issues} where ${issues.projectId} = ${P} and ${issues.iid} = ${explicitIid})`
          : sql<number>`(select ${issues.id} from ${issues} where ${issues.projectId} = ${P} and ${issues.iid} = (select ${internalIds.lastValue} from ${internalIds} where ${internalIds.usage} = 'issues' and ${internalIds.scopeId} = ${P}))`;

      const statements: BatchItem<'sqlite'>[] = [
        ...(labels?.inserts ?? []),
        explicitIid != null
          ? db
              .insert(internalIds)
              .values({ usage: 'issues', scopeId: P, lastValue: explicitIid })
              .onConflictDoUpdate({ target: [internalIds.usage, internalIds.scopeId], set: { lastValue: sql`max(${internalIds.lastValue}, excluded.last_value)` } })
          : db
              .insert(internalIds)
              .values({ usage: 'issues', scopeId: P, lastValue: 1 })
              .onConflictDoUpdate({ target: [internalIds.usage, internalIds.scopeId], set: { lastValue: sql`${internalIds.lastValue} + 1` } }),
        db.insert(issues).values({
          projectId: P,
          iid: iidSql,
          title: p.title,
          description: p.description ?? null,
          authorId: user.id,
          issueType: p.issue_type ?? 'issue',
          confidential: p.confidential ?? false,
          discussionLocked: p.discussion_locked ?? false,
          milestoneId,
          epicId,
          dueDate: admin ? dueDate(p.due_date) : null,
          weight: premium && admin ? (p.weight ?? null) : null,
          createdAt,
          updatedAt: createdAt,
        }),
        ...assigneeIds.map((userId, position) => db.insert(issueAssignees).values({ issueId: issueIdSql, userId, position })),
        ...(labels?.ids ?? []).map((l) => db.insert(labelLinks).values({ labelId: l.id, targetType: 'Issue', targetId: issueIdSql, createdAt: now }).onConflictDoNothing()),
        // Recorded for spam review (user_agent_detail, administrators only).
        db.insert(userAgentDetails).values({ subjectType: 'Issue', subjectId: issueIdSql, userAgent: c.req.header('user-agent') ?? '', ipAddress: clientIp(c), createdAt: now }),
        // TodoService#new_issue: a to-do for every assignee other than the author (action 1, assigned).
        ...assigneeIds
          .filter((id) => id !== user.id)
          .map((userId) =>
            db.insert(todos).values({ userId, authorId: user.id, projectId: P, targetType: 'Issue', targetId: issueIdSql, action: 1, state: 'pending', createdAt: now, updatedAt: now }),
          ),
      ];
      try {
        await db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
      } catch (err) {
        // issues.rb: `rescue ActiveRecord::RecordNotUnique => render_api_error!('Duplicated issue', 409)`.
        if (isUniqueViolation(err, 'iid')) throw conflict('Duplicated issue');
        throw err;
      }
      const created = await db.select().from(issues).where(and(eq(issues.projectId, P), eq(issues.id, issueIdSql))).get();
      return c.json(await presentIssue(c, caller, created!, { project: pr.project }), 201);
    },
  );

  r.route({ method: 'GET', path: '/projects/:id/issues/:issue_iid', summary: 'Get a project issue', tags: ['issues'], params: issueRefParams }, async ({ c, p, caller }) => {
    const found = await findReadableIssue(c, caller, p.id, p.issue_iid);
    return c.json(await presentIssue(c, caller, found.issue, { project: found.project }));
  });
}

/** Issue model validations (title presence and length, description length). */
export function textErrors(f: { title?: string; description?: string | null }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (f.title !== undefined) {
    if (f.title.trim() === '') errors.title = ["can't be blank"];
    else if ([...f.title].length > TITLE_MAX) errors.title = [`is too long (maximum is ${TITLE_MAX} characters)`];
  }
  if (f.description != null && f.description.length > DESCRIPTION_MAX) errors.description = [`is too long (maximum is ${DESCRIPTION_MAX} characters)`];
  return errors;
}

/** A `due_date` string as the date column casts it: `YYYY-MM-DD`, anything else null. */
export function dueDate(v: string | undefined | null): string | null {
  if (!v) return null;
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})/.exec(v.trim());
  if (!m) return null;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  if (d.getUTCMonth() !== +m[2] - 1) return null;
  return d.toISOString().slice(0, 10);
}

/** `assignee_ids` wins over `assignee_id`; `0` or an empty list means nobody. */
export function requestedAssignees(p: { assignee_ids?: number[]; assignee_id?: number }): number[] | undefined {
  if (p.assignee_ids !== undefined) return p.assignee_ids.filter((id) => id > 0);
  if (p.assignee_id !== undefined) return p.assignee_id > 0 ? [p.assignee_id] : [];
  return undefined;
}

/**
 * IssuableBaseService#filter_assignees: users who exist and may read the issue; the free edition
 * keeps only the first (Issue#allows_multiple_assignees? is a Premium feature).
 */
export async function assignableUsers(c: Context<AppEnv>, project: ProjectRow, ns: NamespaceRow, ids: number[] | undefined, premium: boolean): Promise<number[]> {
  if (!ids?.length) return [];
  const wanted = [...new Set(ids)].slice(0, premium ? 200 : 1);
  const rows = await c.var.db.select().from(users).where(inArray(users.id, wanted.slice(0, 90))).all();
  const byId = new Map<number, UserRow>(rows.map((u) => [u.id, u]));
  const out: number[] = [];
  for (const id of wanted) {
    const u = byId.get(id);
    if (!u || u.state !== 'active') continue;
    const level = await projectAccess(c.var.db, u, project, ns);
    const asCaller: Caller = { user: u, sudoer: null, credential: null, isAdmin: u.isAdmin };
    if (canReadProject(asCaller, project, level) && featureAvailable(project, 'issues', { level, isAdmin: u.isAdmin })) out.push(id);
  }
  return out;
}

/** EE: `epic_id` / `epic_iid` name an epic of the project's group or one of its ancestors. */
export async function resolveEpic(c: Context<AppEnv>, ns: NamespaceRow, epicId: number | undefined, epicIid: number | undefined): Promise<number | null> {
  if (epicId == null && epicIid == null) return null;
  if (epicId === 0) return null;
  if (ns.kind !== 'Group') throw notFound('Epic');
  const db = c.var.db;
  const row =
    epicId != null
      ? await db.select().from(epics).where(and(eq(epics.id, epicId), inArray(epics.groupId, traversalIds(ns)))).get()
      : await db.select().from(epics).where(and(eq(epics.groupId, ns.id), eq(epics.iid, epicIid!))).get();
  if (!row) throw notFound('Epic');
  return row.id;
}

export type { IssueRow };
