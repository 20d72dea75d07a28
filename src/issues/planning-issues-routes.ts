/**
 * Issue lists of planning objects: the issues of a project or group milestone (milestone_responses.rb
 * `milestone_issuables_for`) and of an epic (ee/lib/api/epic_issues.rb). The paths belong to
 * milestones and epics; the lists present issues, so they live in the issues domain.
 */
import { and, asc, desc, eq, getTableColumns, sql } from 'drizzle-orm';
import { batchReads } from '../db/batch-reads';
import { z } from 'zod';
import { issues, labelLinks, labelPriorities, namespaces, projects } from '../db/schema';
import { subtreeOf } from '../projects/abilities';
import { linkParamsFrom, MAX_COUNT, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { milestoneItemsParams } from '../planning/milestones-params';
import { issueVisibleSql } from '../planning/labels';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { requestParams } from '../platform/params';
import type { Router } from '../platform/router';
import { epicIssuesParams } from '../planning/epics-params';
import { findReadableEpic } from '../planning/epics';
import { findMilestoneQuery, foundMilestone, loadParent, type Parent } from '../planning/milestones-routes';
import { IssueBasicSchema, issueBasic, IssueSchema } from './issue-entity';
import { issueReadOptions, presentIssueRows } from './issue-presenter';
import { type IssueReadResults, issueReads, pageIds } from './issue-reads';

/** EpicIssues lists at most this many issues of an epic. */
const EPIC_ISSUES_MAX = 1000;

export function mountPlanningIssues(r: Router) {
  const auth = { signedIn: true as const };
  for (const kind of ['project', 'group'] as const) {
    const base = kind === 'project' ? '/projects/:id/milestones' : '/groups/:id/milestones';
    const noun = kind === 'project' ? 'project' : 'group';
    r.route(
      { ...auth, method: 'GET', path: `${base}/:milestone_id/issues`, summary: `List issues of a ${noun} milestone`, tags: ['milestones'], params: milestoneItemsParams, responses: { 200: z.array(IssueBasicSchema) } },
      async ({ c, p, caller }) => milestoneIssues(c, caller, await loadParent(c, caller, kind, p.id), p),
    );
  }
  r.route({ method: 'GET', path: '/groups/:id/epics/:epic_iid/issues', summary: 'List the issues of an epic', tags: ['epics'], params: epicIssuesParams, responses: { 200: z.array(IssueSchema) } }, async ({ c, p, caller }) => {
    const { group, epic } = await findReadableEpic(c, caller, p.id, p.epic_iid);
    const db = c.var.db;
    const raw = await requestParams(c);
    const req = pageRequest(p, raw.per_page);
    // The epic's issues the caller may read (project readable, issues feature, confidentiality: in
    // SQL), at most the first EPIC_ISSUES_MAX: the page, its count and what the entities show hung
    // off the page query, in one round trip whatever the page size.
    const where = and(eq(issues.epicId, epic.id), issueVisibleSql(caller));
    const page = db
      .select(getTableColumns(issues))
      .from(issues)
      .innerJoin(projects, eq(projects.id, issues.projectId))
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(where)
      .orderBy(asc(issues.relativePosition), asc(issues.id))
      .limit(Math.max(0, Math.min(req.perPage, EPIC_ISSUES_MAX - req.offset)))
      .offset(req.offset);
    const matching = db
      .select({ one: sql`1` })
      .from(issues)
      .innerJoin(projects, eq(projects.id, issues.projectId))
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(where)
      .limit(EPIC_ISSUES_MAX);
    const o = { group };
    const extras = issueReads(db, caller, pageIds(page), { ...issueReadOptions(c, undefined, o), projects: true });
    const [rows, [n], ...reads] = await batchReads(db, [page, db.select({ n: sql<number>`count(*)` }).from(matching.as('t')), ...extras]);
    setPaginationHeaders(c, req, linkParamsFrom(raw, {}), Number(n?.n ?? 0), rows.length);
    return c.json(await presentIssueRows(c, caller, rows, reads as unknown as IssueReadResults, o));
  });
}

/**
 * GET …/milestones/:milestone_id/issues (milestone_issuables_for): the milestone's issues the caller
 * may see (confidential rules in SQL), in `label_priority` order: the issue's best label priority
 * in its project first, issues without one last, newest id first among equals. A group milestone
 * lists issues of the projects in the group's subtree.
 */
async function milestoneIssues(c: Context<AppEnv>, caller: Caller, parent: Parent, p: { milestone_id: number; page?: number; per_page?: number }) {
  const db = c.var.db;
  const scope = parent.kind === 'project' ? eq(issues.projectId, parent.project.id) : subtreeOf(parent.group.traversalPath!);
  // By the requested id: when it is not the parent's milestone the answer is a 404 and the page is dropped.
  const where = and(eq(issues.milestoneId, p.milestone_id), scope, issueVisibleSql(caller));
  const priority = sql`(select min(${labelPriorities.priority}) from ${labelLinks} join ${labelPriorities} on ${labelPriorities.labelId} = ${labelLinks.labelId} and ${labelPriorities.projectId} = ${issues.projectId} where ${labelLinks.targetType} = 'Issue' and ${labelLinks.targetId} = ${issues.id})`;
  const raw = await requestParams(c);
  const req = pageRequest(p, raw.per_page);
  const o = parent.kind === 'project' ? { project: parent.project } : { group: parent.group };
  // The milestone, the page, its bounded count and what the entities show, hung off the page query: one round trip whatever the page size.
  const page = db
    .select(getTableColumns(issues))
    .from(issues)
    .innerJoin(projects, eq(projects.id, issues.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(where).orderBy(sql`${priority} is null`, sql`${priority}`, desc(issues.id)).limit(req.perPage).offset(req.offset);
  const matching = db
    .select({ one: sql`1` })
    .from(issues)
    .innerJoin(projects, eq(projects.id, issues.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(where)
    .limit(MAX_COUNT + 1);
  const count = db.select({ n: sql<number>`count(*)` }).from(matching.as('t'));
  const extras = issueReads(db, caller, pageIds(page), { ...issueReadOptions(c, undefined, o), projects: parent.kind === 'group' });
  const [[milestone], rows, [n], ...reads] = await batchReads(db, [findMilestoneQuery(db, parent, p.milestone_id), page, count, ...extras]);
  foundMilestone(milestone);
  const total = Number(n?.n ?? 0);
  setPaginationHeaders(c, req, linkParamsFrom(raw, {}), total > MAX_COUNT ? null : total, rows.length);
  const presented = await presentIssueRows(c, caller, rows, reads as unknown as IssueReadResults, o);
  return c.json(presented.map(issueBasic));
}
