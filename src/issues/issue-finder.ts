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
import { issues, namespaces, projects, users } from '../db/schema';
import { ACCESS, type NamespaceRow, projectLevelSql, projectVisibleSql, type ProjectRow, subtreeOf } from '../projects/abilities';
import { type Plan } from '../platform/config';
import { planAllows } from '../platform/plan';
import { addDays, today } from '../platform/time';
import type { IssueListParams, NotParams } from './issue-lists-params';

export type IssueRow = typeof issues.$inferSelect;

export type FinderParent =
  | { kind: 'issues' }
  | { kind: 'group'; group: NamespaceRow; level: number }
  | { kind: 'project'; project: ProjectRow; level: number; namespace?: NamespaceRow };

export interface FinderInput {
  caller: Caller;
  plan: Plan;
  parent: FinderParent;
  p: IssueListParams;
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
}

const int = (n: number) => sql.raw(String(Math.trunc(Number(n))));
const ints = (list: number[]) => sql.raw(`(${list.length ? list.map((n) => String(Math.trunc(Number(n)))).join(',') : 'NULL'})`);
const json = (list: string[]) => JSON.stringify(list);
/**
 * A server-made `YYYY-MM-DD` inlined as a literal rather than bound: the per-project union
 * (issueUnionPageQuery) repeats the condition once per project, and D1 binds at most 100 values.
 */
const dateLiteral = (d: string) => sql.raw(/^\d{4}-\d{2}-\d{2}$/.test(d) ? `'${d}'` : 'NULL');

/** `read_confidential_issues` through any source: the projects where the user is Planner or above. */
function plannerProjectsSql(uid: number) {
  const t = dateLiteral(today());
  return sql`(SELECT m.source_id FROM members m WHERE m.user_id = ${int(uid)} AND m.source_type = 'Project' AND m.access_level >= ${int(ACCESS.PLANNER)} AND (m.expires_at IS NULL OR m.expires_at > ${t})
    UNION ALL SELECT p.id FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE n.kind = 'User' AND n.owner_id = ${int(uid)}
    UNION ALL SELECT p.id FROM members m JOIN namespaces a ON a.id = m.source_id JOIN namespaces n ON n.traversal_path >= a.traversal_path AND n.traversal_path < a.traversal_path || ':' JOIN projects p ON p.namespace_id = n.id
      WHERE m.user_id = ${int(uid)} AND m.source_type = 'Namespace' AND m.access_level >= ${int(ACCESS.PLANNER)} AND (m.expires_at IS NULL OR m.expires_at > ${t}))`;
}

const assignedTo = (uid: number) => sql`EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = ${issues.id} AND ia.user_id = ${int(uid)})`;
/** The same test driven from `issue_assignees_user`: the user's assignments are looked up, not every issue tested. */
const assignedToDriver = (uid: number) => sql`${issues.id} IN (SELECT ia.issue_id FROM issue_assignees ia WHERE ia.user_id = ${int(uid)})`;

/**
 * Labels and milestones a project's issues can carry: its own and its ancestor groups'
 * (Issuables::LabelFilter scopes names to the hierarchy the same way).
 */
function ownerScope(alias: string, parent: FinderParent): SQL {
  if (parent.kind === 'group' && parent.group.traversalPath) {
    // The group's ancestors and subtree, and the projects below it.
    const path = parent.group.traversalPath;
    const ancestors = path.split('/').filter(Boolean).map((g) => Math.trunc(Number(g)));
    const tree = sql`(SELECT n.id FROM namespaces n WHERE n.traversal_path >= ${path} AND n.traversal_path < ${path + ':'})`;
    return sql` AND (${sql.raw(`${alias}.group_id IN (${ancestors.join(',')})`)} OR ${sql.raw(`${alias}.group_id`)} IN ${tree} OR ${sql.raw(`${alias}.project_id`)} IN (SELECT p.id FROM projects p WHERE p.namespace_id IN ${tree}))`;
  }
  if (parent.kind !== 'project') return sql``;
  const groups = parent.namespace?.traversalPath ? parent.namespace.traversalPath.split('/').filter(Boolean).map(Number) : [];
  return sql.raw(` AND (${alias}.project_id = ${Math.trunc(parent.project.id)}${groups.length ? ` OR ${alias}.group_id IN (${groups.map((g) => Math.trunc(g)).join(',')})` : ''})`);
}

/**
 * Issues::ConfidentialityFilter: public issues, plus confidential ones the caller authored, is
 * assigned to, or may read through Planner+ access to the project. `allConfidential` is the
 * parent-level shortcut (administrator, or Planner+ on the project or group of the list).
 */
function confidentialitySql(caller: Caller, allConfidential: boolean): SQL | undefined {
  if (!caller.user) return sql`${issues.confidential} = 0`;
  if (caller.isAdmin || allConfidential) return undefined;
  const uid = caller.user.id;
  return sql`(${issues.confidential} = 0 OR ${issues.authorId} = ${int(uid)} OR ${assignedTo(uid)} OR ${issues.projectId} IN ${plannerProjectsSql(uid)})`;
}

/**
 * The projects whose issues a multi-project list may show: visible to the caller
 * (ProjectsFinder#public_or_visible_to_user), issues feature available
 * (with_feature_available_for_user: `private` for members, `disabled` for nobody).
 */
function readableProjectsSql(db: Db, caller: Caller, extra: (SQL | undefined)[]) {
  const feature = sql`coalesce(json_extract(${projects.features}, '$.issues'), 'enabled')`;
  const featureOk = caller.isAdmin
    ? sql`${feature} != 'disabled'`
    : caller.user
      ? sql`(${feature} = 'enabled' OR (${feature} = 'private' AND ${projectLevelSql(caller.user.id)} >= ${int(ACCESS.GUEST)}))`
      : sql`${feature} = 'enabled'`;
  return db
    .select({ id: projects.id })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(and(projectVisibleSql(caller), featureOk, ...extra))
    .$dynamic();
}

/** Split like Gitlab::SQL::Pattern.split_query_to_search_terms: quoted phrases stay together. */
export function searchTerms(query: string): string[] {
  const quoted: string[] = [];
  const rest = query.replace(/(?<=^| )"[^"]+"(?= |$)/g, (q) => {
    quoted.push(q.slice(1, -1));
    return '';
  });
  return [...rest.split(/\s+/).filter(Boolean), ...quoted];
}

/** An FTS5 string literal: everything inside double quotes is literal, `"` is doubled. */
const ftsString = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** Rows of the trigram index `issues_search` (drizzle/0009_issues_search.sql) matching an FTS5 expression. */
const searchIndexMatch = (expr: string) => sql`${issues.id} IN (SELECT rowid FROM issues_search WHERE issues_search MATCH ${expr})`;

export interface SearchCondition {
  where: SQL;
  /**
   * How a list uses it. `driven`: few index matches, they drive page and count (rowid lookups).
   * `count`: they drive the count, while the page walks the list's own order testing membership
   * in the (bounded) match set, stopping at LIMIT. `rows`: compared row by row, no index.
   */
  plan: 'driven' | 'count' | 'rows';
}

/** Index matches up to which they drive the page too. */
const SEARCH_DRIVE_MAX = 1000;
/**
 * Index matches (instance-wide) above which a search of ASCII words is compared row by row
 * instead: the index then has to produce more rowids than the list's own walk reads (on the
 * benchmark's 20,000-issue project a word in 90% of 100,000 issues took ~55 ms from the index,
 * while the walk finds a page in 1 ms and the bounded count scans ~10 ms).
 */
const SEARCH_INDEX_MAX = 5000;

/** `instr(lower(col), lower(word))` for every word: the row-by-row form (ASCII case folding). */
function rowSearchSql(query: string, words: string[], columns: string[]): SQL {
  const parts = columns.map((name) => {
    const col = name === 'title' ? issues.title : issues.description;
    if (!words.length) return sql`lower(${col}) = lower(${query})`;
    return sql`(${col} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM json_each(${json(words)}) w WHERE instr(lower(${col}), lower(w.value)) = 0))`;
  });
  return sql`(${sql.join(parts, sql` OR `)})`;
}

/**
 * Issuable.full_search (Gitlab::SQL::Pattern#fuzzy_arel_match): words of 3+ characters must all
 * appear in one column (ILIKE '%word%'), columns are ORed; with no such word the whole query
 * must equal the column case-insensitively (`lower_exact_match`).
 *
 * Words of 3+ characters are looked up in `issues_search`, an FTS5 table with the trigram
 * tokenizer kept in step with `issues` by triggers: a quoted FTS5 string of 3+ characters
 * matches exactly the rows containing it as a substring, so `{title} : ("a" AND "b")` is
 * `title ILIKE '%a%' AND title ILIKE '%b%'` answered from the index, and a search costs its
 * matches instead of every issue of the project. A bounded probe of the index (it stops at
 * SEARCH_INDEX_MAX + 1 matches) picks the plan (SearchCondition.plan).
 *
 * Case-insensitivity: the trigram tokenizer folds case with SQLite's Unicode tables (ASCII and
 * non-ASCII letters alike, Ä = ä, Σ = σ), one code point to one code point, like PostgreSQL
 * ILIKE's lower() in a UTF-8 locale; they differ only where a locale lowercases differently
 * (Turkish dotted İ). The row-by-row forms fold ASCII only (SQLite lower()), so they serve only
 * ASCII queries (where the two agree, but for compatibility letters such as the Kelvin sign K),
 * and queries of 1-2 characters, which trigrams cannot index (compared with lower(), as before).
 */
export async function searchCondition(db: Db, search: string, inParam: string | undefined): Promise<SearchCondition | undefined> {
  const query = search.trim().replace(/\s+/g, ' ');
  if (!query) return undefined;
  let columns = (inParam ?? '').split(',').map((s) => s.trim()).filter((s) => s === 'title' || s === 'description');
  if (!columns.length) columns = ['title', 'description'];
  columns = [...new Set(columns)];
  const words = searchTerms(query).filter((w) => [...w].length >= 3);
  // An FTS5 query ends at a NUL. GitLab answers 400 before any finder runs (HandleNullBytes,
  // mirrored by the list routes); the row form only keeps other callers from failing.
  if (query.includes('\u0000')) return { where: rowSearchSql(query, words, columns), plan: 'rows' };
  const colOf = (name: string) => (name === 'title' ? issues.title : issues.description);
  const length = [...query].length;
  // Too short for trigrams: compared row by row (GitLab does the same, LOWER(col) = 'ab').
  if (!words.length && length < 3) return { where: rowSearchSql(query, [], columns), plan: 'rows' };

  const terms = words.length ? words : [query];
  const all = terms.map(ftsString).join(' AND ');
  // One word in either column is the plain query (about half the work of two column filters).
  const expr = columns.length === 2 && terms.length === 1 ? all : columns.map((c) => `{${c}} : (${all})`).join(' OR ');
  const probe = await db.get<{ n: number }>(sql`SELECT count(*) AS n FROM (SELECT 1 FROM issues_search WHERE issues_search MATCH ${expr} LIMIT ${int(SEARCH_INDEX_MAX + 1)})`);
  const matches = Number(probe?.n ?? 0);
  if (matches > SEARCH_INDEX_MAX && /^[\x00-\x7f]*$/.test(query)) return { where: rowSearchSql(query, words, columns), plan: 'rows' };
  const plan = matches <= SEARCH_DRIVE_MAX ? 'driven' : 'count';
  if (words.length) return { where: searchIndexMatch(expr), plan };
  // The whole query (only short words, e.g. `ab cd`) must equal a column: the column contains it
  // (index) and is exactly as long, so the two are equal up to case folding.
  const exact = columns.map((c) => sql`(length(${colOf(c)}) = ${int(length)} AND ${searchIndexMatch(`{${c}} : ${all}`)})`);
  return { where: sql`(${searchIndexMatch(expr)} AND (${sql.join(exact, sql` OR `)}))`, plan };
}

const labelLinkOf = sql`ll.target_type = 'Issue' AND ll.target_id = ${issues.id}`;

/** Issuables::LabelFilter: None/Any (case-insensitive), else every title must be on the issue. */
function labelsSql(names: string[], parent: FinderParent): SQL | undefined {
  if (!names.length) return undefined;
  const lower = names.map((n) => n.toLowerCase());
  // `No+Label` arrives as `No Label` (Label::None.title, deprecated).
  if (lower.includes('none') || lower.includes('no label')) return sql`NOT EXISTS (SELECT 1 FROM label_links ll WHERE ${labelLinkOf})`;
  if (lower.includes('any')) return sql`EXISTS (SELECT 1 FROM label_links ll WHERE ${labelLinkOf})`;
  const unique = [...new Set(names)];
  // Driven from the first label's links (label_links_label_target), then every title checked on the issue.
  const driver = sql`${issues.id} IN (SELECT ll.target_id FROM label_links ll WHERE ll.target_type = 'Issue' AND ll.label_id IN (SELECT l.id FROM labels l WHERE l.title = ${unique[0]}${ownerScope('l', parent)}))`;
  if (unique.length === 1) return driver;
  return sql`${driver} AND (SELECT count(DISTINCT l.title) FROM label_links ll JOIN labels l ON l.id = ll.label_id WHERE ${labelLinkOf} AND l.title IN (SELECT value FROM json_each(${json(unique)}))) = ${int(unique.length)}`;
}

function notLabelsSql(names: string[]): SQL | undefined {
  if (!names.length) return undefined;
  return sql`NOT EXISTS (SELECT 1 FROM label_links ll JOIN labels l ON l.id = ll.label_id WHERE ${labelLinkOf} AND l.title IN (SELECT value FROM json_each(${json([...new Set(names)])})))`;
}

/** Milestone.upcoming_ids: per project or group, the active milestone due soonest after today. */
function upcomingMilestoneIds() {
  const t = today();
  return sql`(SELECT m.id FROM milestones m WHERE m.state = 'active' AND m.due_date > ${t} AND m.due_date = (SELECT min(m2.due_date) FROM milestones m2 WHERE m2.state = 'active' AND m2.due_date > ${t} AND m2.project_id IS m.project_id AND m2.group_id IS m.group_id))`;
}

/** IssuableFinder#by_milestone with `use_legacy_milestone_filtering` (the API's mode). */
function milestoneSql(title: string | undefined, wildcard: string | undefined, parent: FinderParent): SQL | undefined {
  const t = today();
  const lowerTitle = title?.toLowerCase();
  const w = wildcard?.toLowerCase();
  if ((title === undefined || title === '') && !w) return undefined;
  if (lowerTitle === 'none' || title === 'No Milestone' || w === 'none') return sql`${issues.milestoneId} IS NULL`;
  if (lowerTitle === 'any' || title === 'Any Milestone' || w === 'any') return sql`${issues.milestoneId} IS NOT NULL`;
  if (title === '#upcoming' || w === 'upcoming') return sql`${issues.milestoneId} IN ${upcomingMilestoneIds()}`;
  if (title === '#started' || w === 'started')
    return sql`${issues.milestoneId} IN (SELECT m.id FROM milestones m WHERE m.state = 'active' AND m.start_date <= ${t})`;
  return sql`${issues.milestoneId} IN (SELECT m.id FROM milestones m WHERE m.title = ${title}${ownerScope('m', parent)})`;
}

/** IssuableFinder#by_negated_milestone: Upcoming/Started negate the timebox, anything else a title (NULL title: no milestone). */
function notMilestoneSql(title: string | undefined, wildcard: string | undefined): SQL | undefined {
  const t = today();
  const w = wildcard?.toLowerCase();
  if ((title === undefined || title === '') && !w) return undefined;
  if (title === '#upcoming' || w === 'upcoming')
    return sql`${issues.milestoneId} IN (SELECT m.id FROM milestones m WHERE m.state = 'active' AND m.due_date <= ${t})`;
  if (title === '#started' || w === 'started')
    return sql`${issues.milestoneId} IN (SELECT m.id FROM milestones m WHERE m.state = 'active' AND m.start_date > ${t})`;
  // without_particular_milestones: `milestones.title != ? OR milestone_id IS NULL`; a wildcard title is nil there.
  if (title === undefined || title === '') return sql`${issues.milestoneId} IS NULL`;
  return sql`(${issues.milestoneId} IS NULL OR NOT EXISTS (SELECT 1 FROM milestones m WHERE m.id = ${issues.milestoneId} AND m.title = ${title}))`;
}

/** User.by_username: case-insensitive, unknown names dropped. */
async function userIdsByUsername(db: Db, names: string[]): Promise<number[]> {
  const list = [...new Set(names.filter((n) => typeof n === 'string' && n !== '').map((n) => n.toLowerCase()))];
  const ids: number[] = [];
  for (let i = 0; i < list.length; i += 90) {
    const rows = await db
      .select({ id: users.id })
      .from(users)
      .where(sql`lower(${users.username}) IN (SELECT value FROM json_each(${json(list.slice(i, i + 90))}))`)
      .all();
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

/** IssuesFinder#by_due_date (Date.today in UTC; Rails' week starts on Monday). */
function dueDateSql(v: string | undefined): SQL | undefined {
  if (!v) return undefined;
  const t = today();
  const d = new Date(`${t}T00:00:00Z`);
  const dow = (d.getUTCDay() + 6) % 7;
  const monthStart = `${t.slice(0, 7)}-01`;
  const endOfMonth = (y: number, m: number) => new Date(Date.UTC(y, m + 1, 0)).toISOString().slice(0, 10);
  switch (v) {
    case '0':
      return sql`${issues.dueDate} IS NULL`;
    case 'any':
      return sql`${issues.dueDate} IS NOT NULL`;
    case 'overdue':
      return sql`${issues.dueDate} < ${t}`;
    case 'today':
      return sql`${issues.dueDate} = ${t}`;
    case 'tomorrow':
      return sql`${issues.dueDate} = ${addDays(t, 1)}`;
    case 'week':
      return sql`${issues.dueDate} BETWEEN ${addDays(t, -dow)} AND ${addDays(t, 6 - dow)}`;
    case 'month':
      return sql`${issues.dueDate} BETWEEN ${monthStart} AND ${endOfMonth(d.getUTCFullYear(), d.getUTCMonth())}`;
    case 'next_month_and_previous_two_weeks':
      return sql`${issues.dueDate} BETWEEN ${addDays(t, -14)} AND ${endOfMonth(d.getUTCFullYear(), d.getUTCMonth() + 1)}`;
    default:
      return sql`0`;
  }
}

function noneAnyColumn(col: typeof issues.weight | typeof issues.epicId, v: number | string | undefined): SQL | undefined {
  if (v === undefined) return undefined;
  if (v === 'none') return sql`${col} IS NULL`;
  if (v === 'any') return sql`${col} IS NOT NULL`;
  return sql`${col} = ${int(Number(v))}`;
}

/** Issuable.sort_by_attribute plus Issue/EE overrides; ties always broken by `id DESC`. */
function orderSql(p: IssueListParams): SQL[] {
  const dir = p.sort === 'asc' ? sql.raw('ASC') : sql.raw('DESC');
  const idDesc = sql`${issues.id} DESC`;
  const excluded = (p.labels ?? []).length ? sql` AND l.title NOT IN (SELECT value FROM json_each(${json(p.labels ?? [])}))` : sql``;
  const highestPriority = sql`(SELECT min(lp.priority) FROM label_links ll JOIN label_priorities lp ON lp.label_id = ll.label_id AND lp.project_id = ${issues.projectId} JOIN labels l ON l.id = ll.label_id WHERE ${labelLinkOf}${excluded})`;
  const milestoneDue = sql`(SELECT m.due_date FROM milestones m WHERE m.id = ${issues.milestoneId})`;
  switch (p.order_by) {
    case 'updated_at':
      return [sql`${issues.updatedAt} ${dir}`, idDesc];
    case 'due_date':
      return [sql`${issues.dueDate} IS NULL`, sql`${issues.dueDate} ${dir}`, idDesc];
    case 'relative_position':
      // Only the ascending form is a sort (Issue.sort_by_attribute); `desc` falls through to id DESC.
      return p.sort === 'asc' ? [sql`${issues.relativePosition} IS NULL`, sql`${issues.relativePosition} ASC`, idDesc] : [idDesc];
    case 'title':
      return [sql`${issues.title} ${dir}`, idDesc];
    case 'popularity':
      return [sql`${issues.upvotes} ${dir}`, idDesc];
    case 'weight':
      return [sql`${issues.weight} IS NULL`, sql`${issues.weight} ${dir}`, idDesc];
    case 'milestone_due':
      return [sql`${milestoneDue} IS NULL`, sql`${issues.milestoneId} IS NULL`, sql`${milestoneDue} ${dir}`, idDesc];
    case 'label_priority':
      return [sql`${highestPriority} IS NULL`, sql`${highestPriority} ${dir}`, idDesc];
    case 'priority':
      return [sql`${milestoneDue} IS NULL`, sql`${milestoneDue} ${dir}`, sql`${highestPriority} IS NULL`, sql`${highestPriority} ${dir}`, idDesc];
    default:
      return [sql`${issues.createdAt} ${dir}`, idDesc];
  }
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

  // Issuables::AssigneeFilter
  if (p.assignee_id === 'none') conds.push(sql`NOT EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = ${issues.id})`);
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
  conds.push(labelsSql(p.labels ?? [], parent));

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

  const search = p.search ? await searchCondition(db, p.search, p.in) : undefined;
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
    typeof p.assignee_id === 'number' ||
    Boolean(p.assignee_username?.some((u) => u !== '')) ||
    (Boolean(p.milestone) && !/^(none|any|no milestone|any milestone|#upcoming|#started)$/i.test(p.milestone ?? '')) ||
    Boolean(p.labels?.length && !p.labels.some((l) => /^(none|any|no label)$/i.test(l))) ||
    search?.plan === 'driven';
  const countDriven = driven || search?.plan === 'count';
  if (parent.kind === 'project') {
    const pid = int(parent.project.id);
    const where = and(driven ? sql`+${issues.projectId} = ${pid}` : eq(issues.projectId, parent.project.id), rest);
    const countWhere = and(countDriven ? sql`+${issues.projectId} = ${pid}` : eq(issues.projectId, parent.project.id), rest);
    return { possible: true, where, countWhere, walkWhere: null, perProject: null, orderBy: orderSql(p) };
  }
  const set = projectSet!;
  // Index-matched searches never walk or split per project: each arm would rebuild the match set.
  const walkable = !countDriven && (p.order_by === 'created_at' || p.order_by === 'updated_at') && scope !== 'created_by_me' && scope !== 'assigned_to_me';
  return {
    possible: true,
    where: and(driven ? sql`+${issues.projectId} IN ${set}` : inArray(issues.projectId, set), rest),
    countWhere: and(countDriven ? sql`+${issues.projectId} IN ${set}` : inArray(issues.projectId, set), rest),
    walkWhere: walkable ? and(sql`+${issues.projectId} IN ${set}`, rest)! : null,
    perProject: walkable ? { where: rest ?? sql`1`, column: p.order_by === 'updated_at' ? 'updated_at' : 'created_at', dir: p.sort === 'asc' ? 'ASC' : 'DESC' } : null,
    orderBy: orderSql(p),
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
  return sql`select count(*) as n, CASE WHEN count(DISTINCT project_id) <= ${int(MAX_UNION_PROJECTS)} THEN json_group_array(DISTINCT project_id) END as projects from (${inner})`;
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
  const page = sql`SELECT id FROM (${sql.join(arms, sql` UNION ALL `)}) ORDER BY ${sql.raw(`k ${dir}, id DESC LIMIT ${Math.trunc(limit)} OFFSET ${Math.trunc(offset)}`)}`;
  return db.select().from(issues).where(sql`${issues.id} IN (${page})`).orderBy(...q.orderBy);
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
