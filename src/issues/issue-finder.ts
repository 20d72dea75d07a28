/**
 * The issue lists' finder (GitLab app/finders/issues_finder.rb, issuable_finder.rb and the
 * Issuables::*Filter classes): turns validated list parameters into one WHERE and one ORDER BY
 * over `issues`, so a page costs an index walk that stops at LIMIT (project lists walk
 * `issues_project_created`, instance lists `issues_created`, `created_by_me` `issues_author_created`).
 *
 * Every filter is a predicate on the issue row or a correlated EXISTS, never a join that
 * multiplies rows. Strings travel as one JSON parameter each (`json_each(?)`), integers are
 * inlined after validation, so no input reaches D1's 100-parameter or 50-byte LIKE limits.
 */
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { SQLiteAsyncDialect, type SQLiteSelect } from 'drizzle-orm/sqlite-core';
import type { Caller } from '../platform/context';
import type { Db } from '../db/client';
import { issues, projects } from '../db/schema';
import { ACCESS, subtreeOf } from '../projects/abilities';
import { type Plan } from '../platform/config';
import { planAllows } from '../platform/plan';
import type { IssueListParams, NotParams } from './issue-lists-params';
import {
  assignedToDriver,
  confidentialitySql,
  dueDateSql,
  type FinderParent,
  int,
  ints,
  labelsSql,
  milestoneSql,
  noneAnyColumn,
  notLabelsSql,
  notMilestoneSql,
  orderSql,
  readableProjectsSql,
  userIdsByUsername,
} from './issue-filters';
import { searchCondition } from './issue-search';
import { drivenByIds } from './issue-lists-drivers';

/** Ids read with the project (FinderInput.driverIds) up to which they drive the page (an issue row read each per statement). */
const IDS_DRIVE_MAX = 200;

export type { FinderParent };

export type IssueRow = typeof issues.$inferSelect;

export interface FinderInput {
  caller: Caller;
  plan: Plan;
  parent: FinderParent;
  p: IssueListParams;
  /** The search's index matches when the route read them already (issue-search.ts searchProbeQuery). */
  searchMatches?: number;
  /** The project's matches as a JSON array, read with them (searchProbeQuery `ids`). */
  searchProjectMatches?: string | null;
  /** The project's issues matching assignee_id and labels, read with the project (issue-lists-drivers.ts). */
  driverIds?: string | null;
}

export interface IssueQuery {
  /** False when a filter can match nothing (unknown label, unknown assignee username, ...). */
  possible: boolean;
  where: SQL | undefined;
  /** The count's condition when it differs from the page's (a search driving only the count). */
  countWhere?: SQL;
  /**
   * For lists over many projects: the same condition with the project test hidden from the index
   * planner (`+project_id`), so SQLite walks `issues_created`/`issues_updated` in order and stops
   * at LIMIT instead of collecting every issue of every project and sorting them. Null when the
   * order has no instance-wide index or the list is one project.
   */
  walkWhere: SQL | null;
  /**
   * For the same many-project lists: the condition without the project set and the order's
   * column, for issueUnionPageQuery's per-project arms. Null where walkWhere is null.
   */
  perProject: { where: SQL; column: 'created_at' | 'updated_at'; dir: 'ASC' | 'DESC' } | null;
  orderBy: SQL[];
  /** Many-project lists: the projects the caller may read, as a sub-select (each statement recomputes it). */
  projectSet?: SQLiteSelect;
  /**
   * The same query over those projects given as a JSON array of ids (read once, issueCountProjectsQuery
   * `readable`) instead of the sub-select: the set costs a scan of the projects with their access
   * sub-queries, which every statement of the page's batch would otherwise repeat.
   */
  withProjects?: (json: string) => IssueQuery;
}

/** Builds the WHERE and ORDER BY of a list; `possible: false` short-circuits to an empty page. */
export async function buildIssueQuery(db: Db, input: FinderInput): Promise<IssueQuery> {
  const { caller, parent, p, plan } = input;
  const uid = caller.user?.id;
  const conds: (SQL | undefined)[] = [];
  const none: IssueQuery = { possible: false, where: undefined, walkWhere: null, perProject: null, orderBy: [] };

  // Parent: one project, a group's subtree, or every project the caller may read.
  const projectConds: (SQL | undefined)[] = [];
  if (p.non_archived) projectConds.push(sql`${projects.archived} = 0`);
  let allConfidential = false;
  let projectSet: SQLiteSelect | null = null;
  if (parent.kind === 'project') {
    allConfidential = parent.level >= ACCESS.PLANNER;
  } else if (parent.kind === 'group') {
    projectSet = readableProjectsSql(db, caller, [subtreeOf(parent.group.traversalPath ?? ''), ...projectConds]);
    allConfidential = parent.level >= ACCESS.PLANNER;
  } else if (caller.isAdmin) {
    const feature = sql`coalesce(json_extract(${projects.features}, '$.issues'), 'enabled') != 'disabled'`;
    projectSet = db.select({ id: projects.id }).from(projects).where(and(feature, ...projectConds)).$dynamic();
  } else {
    projectSet = readableProjectsSql(db, caller, projectConds);
  }

  // IssuableFinder#by_scope: caller-related scopes match nothing without a caller.
  const scope = p.scope?.replace(/-/g, '_');
  if (scope === 'created_by_me' || scope === 'assigned_to_me') {
    if (!uid) return none;
    // assigned_to_me is driven from `issue_assignees_user`: the caller's assignments, not the table.
    conds.push(scope === 'created_by_me' ? eq(issues.authorId, uid) : sql`${issues.id} IN (SELECT ia.issue_id FROM issue_assignees ia WHERE ia.user_id = ${int(uid)})`);
  }
  // Validated numbers and enum words are inlined (see dateLiteral).
  if (p.created_after !== undefined) conds.push(sql`${issues.createdAt} >= ${int(p.created_after)}`);
  if (p.created_before !== undefined) conds.push(sql`${issues.createdAt} <= ${int(p.created_before)}`);
  if (p.updated_after !== undefined) conds.push(sql`${issues.updatedAt} >= ${int(p.updated_after)}`);
  if (p.updated_before !== undefined) conds.push(sql`${issues.updatedAt} <= ${int(p.updated_before)}`);
  if (p.state === 'opened' || p.state === 'closed') conds.push(sql`${issues.state} = ${sql.raw(`'${p.state}'`)}`);

  // Filters answered by ids read with the project (issue-lists-drivers.ts): a short list tested
  // in each statement; up to IDS_DRIVE_MAX the ids drive, above it the page walks the project's order.
  const ids = parent.kind === 'project' && typeof input.driverIds === 'string' ? (JSON.parse(input.driverIds) as unknown[]).length : null;
  const byIds = ids === null ? { assignee: false, labels: false } : drivenByIds(p);
  if (ids === 0) return none;
  if (ids !== null) conds.push(sql`${issues.id} IN (SELECT value FROM json_each(${input.driverIds}))`);

  // Issuables::AssigneeFilter
  if (byIds.assignee) {
    // Answered by the ids above.
  } else if (p.assignee_id === 'none') conds.push(sql`NOT EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = ${issues.id})`);
  else if (p.assignee_id === 'any') conds.push(sql`EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = ${issues.id})`);
  else if (typeof p.assignee_id === 'number') conds.push(assignedToDriver(p.assignee_id));
  else if (p.assignee_username?.some((u) => u !== '')) {
    const ids = await userIdsByUsername(db, p.assignee_username);
    if (!ids.length) return none;
    for (const id of ids) conds.push(assignedToDriver(id));
  }

  // Issuables::AuthorFilter
  if (p.author_id !== undefined) conds.push(eq(issues.authorId, p.author_id));
  else if (p.author_username) {
    const ids = await userIdsByUsername(db, [p.author_username]);
    if (!ids.length) return none;
    conds.push(sql`${issues.authorId} IN ${ints(ids)}`);
  }

  if (p.iids?.length) conds.push(sql`${issues.iid} IN ${ints(p.iids)}`);
  conds.push(milestoneSql(p.milestone, p.milestone_id, parent));
  if (!byIds.labels) conds.push(labelsSql(p.labels ?? [], parent));

  // my_reaction_emoji is ignored for anonymous callers.
  if (p.my_reaction_emoji && uid) {
    const v = p.my_reaction_emoji.toLowerCase();
    const awarded = (name?: string) =>
      sql`EXISTS (SELECT 1 FROM award_emoji ae WHERE ae.awardable_type = 'Issue' AND ae.awardable_id = ${issues.id} AND ae.user_id = ${int(uid)}${name === undefined ? sql`` : sql` AND ae.name = ${name}`})`;
    conds.push(v === 'none' ? sql`NOT ${awarded()}` : v === 'any' ? awarded() : awarded(p.my_reaction_emoji));
  }

  conds.push(dueDateSql(p.due_date));
  if (p.confidential === true) conds.push(sql`${issues.confidential} = 1`);
  if (p.confidential === false) conds.push(sql`${issues.confidential} = 0`);
  if (p.issue_type) conds.push(eq(issues.issueType, p.issue_type));
  if (p.closed_by_id !== undefined) conds.push(eq(issues.closedById, p.closed_by_id));

  // EE filters, only when the plan has the feature (the param is otherwise inert, as on a CE instance).
  if (planAllows({ plan }, 'premium')) {
    conds.push(noneAnyColumn(issues.weight, p.weight));
    conds.push(noneAnyColumn(issues.epicId, p.epic_id));
    // No iterations are stored: only "no iteration" can match.
    if ((p.iteration_id !== undefined && p.iteration_id !== 'none') || (p.iteration_title !== undefined && p.iteration_title !== '')) return none;
  }
  if (planAllows({ plan }, 'ultimate') && p.health_status) {
    conds.push(p.health_status === 'none' ? sql`${issues.healthStatus} IS NULL` : p.health_status === 'any' ? sql`${issues.healthStatus} IS NOT NULL` : eq(issues.healthStatus, p.health_status));
  }

  const not: NotParams | undefined = p.not;
  if (not) {
    conds.push(notMilestoneSql(not.milestone, not.milestone_id));
    if (not.iids?.length) conds.push(sql`${issues.iid} NOT IN ${ints(not.iids)}`);
    conds.push(notLabelsSql(not.labels ?? []));
    if (not.author_id !== undefined) conds.push(sql`${issues.authorId} != ${int(not.author_id)}`);
    else if (not.author_username) {
      const ids = await userIdsByUsername(db, [not.author_username]);
      if (ids.length) conds.push(sql`${issues.authorId} NOT IN ${ints(ids)}`);
    }
    const notAssignees = not.assignee_id !== undefined ? [not.assignee_id] : not.assignee_username?.length ? await userIdsByUsername(db, not.assignee_username) : null;
    if (notAssignees?.length) conds.push(sql`NOT EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = ${issues.id} AND ia.user_id IN ${ints(notAssignees)})`);
    if (not.my_reaction_emoji && uid)
      conds.push(sql`NOT EXISTS (SELECT 1 FROM award_emoji ae WHERE ae.awardable_type = 'Issue' AND ae.awardable_id = ${issues.id} AND ae.user_id = ${int(uid)} AND ae.name = ${not.my_reaction_emoji})`);
    if (planAllows({ plan }, 'premium') && not.weight !== undefined) conds.push(sql`${issues.weight} != ${int(not.weight)}`);
  }

  const search = p.search ? await searchCondition(db, p.search, p.in, input.searchMatches, input.searchProjectMatches) : undefined;
  if (search?.none) return none;
  conds.push(search?.where);
  conds.push(confidentialitySql(caller, allConfidential));
  const rest = and(...conds);
  // A selective filter with its own index (author, assignee, milestone or label links, a search
  // with few index matches) drives the query; the project test is then hidden from the planner
  // (`+project_id`) so SQLite does not prefer scanning every issue of the project or projects
  // without statistics to tell them apart. A search with more matches drives only the count.
  const driven =
    p.author_id !== undefined ||
    Boolean(p.author_username) ||
    (typeof p.assignee_id === 'number' && !byIds.assignee) ||
    Boolean(p.assignee_username?.some((u) => u !== '')) ||
    (Boolean(p.milestone) && !/^(none|any|no milestone|any milestone|#upcoming|#started)$/i.test(p.milestone ?? '')) ||
    Boolean(p.labels?.length && !p.labels.some((l) => /^(none|any|no label)$/i.test(l)) && !byIds.labels) ||
    (ids !== null && ids <= IDS_DRIVE_MAX) ||
    search?.plan === 'driven';
  const countDriven = driven || search?.plan === 'count' || ids !== null;
  if (parent.kind === 'project') {
    const pid = int(parent.project.id);
    const where = and(driven ? sql`+${issues.projectId} = ${pid}` : eq(issues.projectId, parent.project.id), rest);
    const countWhere = and(countDriven ? sql`+${issues.projectId} = ${pid}` : eq(issues.projectId, parent.project.id), rest);
    return { possible: true, where, countWhere, walkWhere: null, perProject: null, orderBy: orderSql(p) };
  }
  const walkable = !countDriven && (p.order_by === 'created_at' || p.order_by === 'updated_at') && scope !== 'created_by_me' && scope !== 'assigned_to_me';
  // Index-matched searches never walk or split per project: each arm would rebuild the match set.
  const over = (set: SQL | SQLiteSelect) => ({
    where: and(driven ? sql`+${issues.projectId} IN ${set}` : inArray(issues.projectId, set), rest),
    countWhere: and(countDriven ? sql`+${issues.projectId} IN ${set}` : inArray(issues.projectId, set), rest),
    walkWhere: walkable ? and(sql`+${issues.projectId} IN ${set}`, rest)! : null,
  });
  const base = {
    possible: true,
    perProject: walkable ? { where: rest ?? sql`1`, column: p.order_by === 'updated_at' ? 'updated_at' : 'created_at', dir: p.sort === 'asc' ? 'ASC' : 'DESC' } as const : null,
    orderBy: orderSql(p),
  };
  return {
    ...base,
    ...over(projectSet!),
    projectSet: projectSet!,
    withProjects: (json: string): IssueQuery => ({ ...base, ...over(sql`(SELECT value FROM json_each(${json}))`) }),
  };
}

/**
 * The page query (exported for the query-plan tests). `walk` selects the index walk of
 * `walkWhere`: worth it when many issues match (the count reached its cap), while a smaller
 * match set is cheaper to collect through the per-project indexes and sort (at most 10,000 rows).
 */
export function issuePageQuery(db: Db, q: IssueQuery, limit: number, offset: number, walk = false) {
  const where = walk && q.walkWhere ? q.walkWhere : q.where;
  return db.select().from(issues).where(where).orderBy(...q.orderBy).limit(limit).offset(offset);
}

/** `count(*)` of at most `limit` matching issues (GitLab counts with LIMIT 10001). */
export function issueCountQuery(db: Db, q: IssueQuery, limit: number) {
  const inner = db.select({ one: sql`1` }).from(issues).where(q.countWhere ?? q.where).limit(limit);
  return sql`select count(*) as n from (${inner})`;
}

/** Most projects issueUnionPageQuery takes one arm each for (and the count reports). */
export const MAX_UNION_PROJECTS = 50;

/**
 * issueCountQuery plus, when the matches lie in at most MAX_UNION_PROJECTS projects, those
 * projects as a JSON array (`projects`, else null): what issueUnionPageQuery needs, read by the
 * count's own pass over the matches instead of another query.
 */
export function issueCountProjectsQuery(db: Db, q: IssueQuery, limit: number) {
  const inner = db.select({ projectId: issues.projectId }).from(issues).where(q.countWhere ?? q.where).limit(limit);
  const readable = q.projectSet ? sql`(SELECT json_group_array(id) FROM (${q.projectSet}))` : sql`NULL`;
  return sql`select count(*) as n, CASE WHEN count(DISTINCT project_id) <= ${int(MAX_UNION_PROJECTS)} THEN json_group_array(DISTINCT project_id) END as projects, ${readable} as readable from (${inner})`;
}

/**
 * A page of a many-project list ordered by created_at or updated_at, below the count cap: one
 * arm per project reads that project's first offset+limit matches (id and sort key) through its
 * `issues_project_(state_)created`/`issues_project_updated` index range in order and stops; those
 * (key, id) pairs, at most projects x (offset+limit), are ordered with the list's ORDER BY
 * (`id DESC` tie-break) and cut to the page, and only the page's rows are read. The global first
 * offset+limit rows are each among the first offset+limit of their own project, so the page
 * equals issuePageQuery's, which instead reads and sorts every match (up to 10,000 rows). Null
 * when the list has no per-project form or the repeated condition would bind more than D1's
 * 100 values or make the statement too long: the caller then uses issuePageQuery.
 */
export function issueUnionPageQuery(db: Db, q: IssueQuery, projectIds: number[], limit: number, offset: number) {
  if (!q.perProject || !projectIds.length || projectIds.length > MAX_UNION_PROJECTS) return null;
  const { where, column, dir } = q.perProject;
  const n = Math.trunc(offset) + Math.trunc(limit);
  // The arm body is rendered once and repeated as text: rendering Drizzle column references 50
  // times cost more than the query itself.
  const body = renderOnce(sql`${where} ORDER BY ${sql.raw(`"issues"."${column}" ${dir}, "issues"."id" DESC LIMIT ${n})`)}`);
  // D1 binds at most 100 values and takes statements of at most 100 KB.
  if (!body || body.params * projectIds.length > 100 || projectIds.length * (body.length + 200) > 90_000) return null;
  const arms = projectIds.map(
    (pid) => sql`SELECT * FROM (SELECT "issues"."id" AS id, ${sql.raw(`"issues"."${column}"`)} AS k FROM "issues" WHERE "issues"."project_id" = ${int(pid)} AND ${body.sql}`,
  );
  const page = sql`SELECT id FROM (${unionAll(arms)}) ORDER BY ${sql.raw(`k ${dir}, id DESC LIMIT ${Math.trunc(limit)} OFFSET ${Math.trunc(offset)}`)}`;
  return db.select().from(issues).where(sql`${issues.id} IN (${page})`).orderBy(...q.orderBy);
}

/** D1 builds SQLite with SQLITE_MAX_COMPOUND_SELECT = 5 (upstream: 500). */
const MAX_COMPOUND_TERMS = 5;

/**
 * `a UNION ALL b UNION ALL …` within D1's compound limit: groups of at most five terms, each
 * wrapped in `SELECT * FROM (…)` (a sub-select starts its own count), nested until five remain.
 */
function unionAll(terms: SQL[]): SQL {
  if (terms.length <= MAX_COMPOUND_TERMS) return sql.join(terms, sql` UNION ALL `);
  const groups: SQL[] = [];
  for (let i = 0; i < terms.length; i += MAX_COMPOUND_TERMS) groups.push(sql`SELECT * FROM (${sql.join(terms.slice(i, i + MAX_COMPOUND_TERMS), sql` UNION ALL `)})`);
  return unionAll(groups);
}

const dialect = new SQLiteAsyncDialect();

/**
 * A fragment rendered to text once, as raw pieces around its bound values (which stay bound).
 * Null if the text holds a `?` that is not a placeholder (never in this file's SQL; checked).
 */
function renderOnce(fragment: SQL): { sql: SQL; params: number; length: number } | null {
  const { sql: text, params } = dialect.sqlToQuery(fragment);
  const pieces = text.split('?');
  if (pieces.length !== params.length + 1) return null;
  const chunks: SQL[] = [];
  pieces.forEach((piece, i) => {
    chunks.push(sql.raw(piece));
    if (i < params.length) chunks.push(sql`${params[i]}`);
  });
  return { sql: sql.join(chunks), params: params.length, length: text.length };
}
