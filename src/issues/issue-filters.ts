/**
 * The filters and orders of the issue lists' finder (issue-finder.ts; GitLab's Issuables::*Filter
 * classes, IssuesFinder#by_*, Issuable.sort_by_attribute) as SQL fragments on `issues`: each is a
 * predicate on the issue row or a correlated EXISTS, never a join that multiplies rows.
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Caller } from '../platform/context';
import type { Db } from '../db/client';
import { issues, namespaces, projects, users } from '../db/schema';
import { ACCESS, type NamespaceRow, projectLevelSql, projectVisibleSql, type ProjectRow } from '../projects/abilities';
import { addDays, today } from '../platform/time';
import type { IssueListParams } from './issue-lists-params';

export type FinderParent =
  | { kind: 'issues' }
  | { kind: 'group'; group: NamespaceRow; level: number }
  | { kind: 'project'; project: ProjectRow; level: number; namespace?: NamespaceRow };


export const int = (n: number) => sql.raw(String(Math.trunc(Number(n))));
export const ints = (list: number[]) => sql.raw(`(${list.length ? list.map((n) => String(Math.trunc(Number(n)))).join(',') : 'NULL'})`);
export const json = (list: string[]) => JSON.stringify(list);
/**
 * A server-made `YYYY-MM-DD` inlined as a literal rather than bound: the per-project union
 * (issueUnionPageQuery) repeats the condition once per project, and D1 binds at most 100 values.
 */
const dateLiteral = (d: string) => sql.raw(/^\d{4}-\d{2}-\d{2}$/.test(d) ? `'${d}'` : 'NULL');

/** `read_confidential_issues` through any source: the projects where the user is Planner or above. */
function plannerProjectsSql(uid: number) {
  const t = dateLiteral(today());
  return sql`(SELECT m.source_id FROM access_grants m WHERE m.user_id = ${int(uid)} AND m.source_type = 'Project' AND m.access_level >= ${int(ACCESS.PLANNER)} AND (m.expires_at IS NULL OR m.expires_at > ${t})
    UNION ALL SELECT p.id FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE n.kind = 'User' AND n.owner_id = ${int(uid)}
    UNION ALL SELECT p.id FROM access_grants m JOIN namespaces a ON a.id = m.source_id JOIN namespaces n ON n.traversal_path >= a.traversal_path AND n.traversal_path < a.traversal_path || ':' JOIN projects p ON p.namespace_id = n.id
      WHERE m.user_id = ${int(uid)} AND m.source_type = 'Namespace' AND m.access_level >= ${int(ACCESS.PLANNER)} AND (m.expires_at IS NULL OR m.expires_at > ${t}))`;
}

const assignedTo = (uid: number) => sql`EXISTS (SELECT 1 FROM issue_assignees ia WHERE ia.issue_id = ${issues.id} AND ia.user_id = ${int(uid)})`;
/** The same test driven from `issue_assignees_user`: the user's assignments are looked up, not every issue tested. */
export const assignedToDriver = (uid: number) => sql`${issues.id} IN (SELECT ia.issue_id FROM issue_assignees ia WHERE ia.user_id = ${int(uid)})`;

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
export function confidentialitySql(caller: Caller, allConfidential: boolean): SQL | undefined {
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
export function readableProjectsSql(db: Db, caller: Caller, extra: (SQL | undefined)[]) {
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

const labelLinkOf = sql`ll.target_type = 'Issue' AND ll.target_id = ${issues.id}`;

/** Titles up to which labelsSql intersects one link list per title. */
const MAX_INTERSECTED_LABELS = 5;

/** Issuables::LabelFilter: None/Any (case-insensitive), else every title must be on the issue. */
export function labelsSql(names: string[], parent: FinderParent): SQL | undefined {
  if (!names.length) return undefined;
  const lower = names.map((n) => n.toLowerCase());
  // `No+Label` arrives as `No Label` (Label::None.title, deprecated).
  if (lower.includes('none') || lower.includes('no label')) return sql`NOT EXISTS (SELECT 1 FROM label_links ll WHERE ${labelLinkOf})`;
  if (lower.includes('any')) return sql`EXISTS (SELECT 1 FROM label_links ll WHERE ${labelLinkOf})`;
  const unique = [...new Set(names)];
  // The issues carrying every title are found in label_links alone before any issue row is read:
  // the first title's links (label_links_label_target) kept when their target is among each other
  // title's links (a list built once per statement). Checking the other titles per candidate issue
  // (a correlated count over its links after reading its row) cost ~2,000 row reads and
  // sub-queries per statement on the benchmark's two-label filter, and a list page repeats its
  // page query in every read hung off it (issue 13). Every title is scoped like the first
  // (GitLab's LabelFilter#find_label_ids scopes every title to the root namespace). The titles
  // travel as one JSON parameter and the scope is written once, whatever the number of titles.
  if (unique.length > MAX_INTERSECTED_LABELS) {
    // Many titles: the first drives, the others are counted on each candidate's links (one
    // expression whatever their number; a list per title would exceed SQLite's expression depth).
    const driver = sql`${issues.id} IN (SELECT ll.target_id FROM label_links ll WHERE ll.target_type = 'Issue' AND ll.label_id IN (SELECT l.id FROM labels l WHERE l.title = ${unique[0]}${ownerScope('l', parent)}))`;
    return sql`${driver} AND (SELECT count(DISTINCT l.title) FROM label_links ll JOIN labels l ON l.id = ll.label_id WHERE ${labelLinkOf} AND l.title IN (SELECT value FROM json_each(${json(unique)}))${ownerScope('l', parent)}) = ${int(unique.length)}`;
  }
  return sql`${issues.id} IN (${labelLinksSql(unique, ownerScope('l', parent))})`;
}

/** Plain titles (no None/Any) that labelsSql intersects, else undefined. */
export function intersectedLabels(names: string[] | undefined): string[] | undefined {
  const unique = [...new Set(names ?? [])];
  if (!unique.length || unique.length > MAX_INTERSECTED_LABELS || unique.some((n) => /^(none|any|no label)$/i.test(n))) return undefined;
  return unique;
}

/** The target ids linked to a label of every title, `scope` (` AND …` on `l`) choosing the labels. */
export function labelLinksSql(unique: string[], scope: SQL): SQL {
  let links = `SELECT ll.target_id FROM label_links ll WHERE ll.target_type = 'Issue' AND ll.label_id IN (SELECT s.id FROM s WHERE s.k = 0)`;
  for (let k = 1; k < unique.length; k++) {
    links += ` AND ll.target_id IN (SELECT l${k}.target_id FROM label_links l${k} WHERE l${k}.target_type = 'Issue' AND l${k}.label_id IN (SELECT s.id FROM s WHERE s.k = ${k}))`;
  }
  return sql`WITH s AS (SELECT l.id, t.key AS k FROM json_each(${json(unique)}) t JOIN labels l ON l.title = t.value WHERE 1${scope}) ${sql.raw(links)}`;
}

export function notLabelsSql(names: string[]): SQL | undefined {
  if (!names.length) return undefined;
  return sql`NOT EXISTS (SELECT 1 FROM label_links ll JOIN labels l ON l.id = ll.label_id WHERE ${labelLinkOf} AND l.title IN (SELECT value FROM json_each(${json([...new Set(names)])})))`;
}

/** Milestone.upcoming_ids: per project or group, the active milestone due soonest after today. */
function upcomingMilestoneIds() {
  const t = today();
  return sql`(SELECT m.id FROM milestones m WHERE m.state = 'active' AND m.due_date > ${t} AND m.due_date = (SELECT min(m2.due_date) FROM milestones m2 WHERE m2.state = 'active' AND m2.due_date > ${t} AND m2.project_id IS m.project_id AND m2.group_id IS m.group_id))`;
}

/** IssuableFinder#by_milestone with `use_legacy_milestone_filtering` (the API's mode). */
export function milestoneSql(title: string | undefined, wildcard: string | undefined, parent: FinderParent): SQL | undefined {
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
export function notMilestoneSql(title: string | undefined, wildcard: string | undefined): SQL | undefined {
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
export async function userIdsByUsername(db: Db, names: string[]): Promise<number[]> {
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
export function dueDateSql(v: string | undefined): SQL | undefined {
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

export function noneAnyColumn(col: typeof issues.weight | typeof issues.epicId, v: number | string | undefined): SQL | undefined {
  if (v === undefined) return undefined;
  if (v === 'none') return sql`${col} IS NULL`;
  if (v === 'any') return sql`${col} IS NOT NULL`;
  return sql`${col} = ${int(Number(v))}`;
}

/** Issuable.sort_by_attribute plus Issue/EE overrides; ties always broken by `id DESC`. */
export function orderSql(p: IssueListParams): SQL[] {
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
