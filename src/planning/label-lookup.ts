/**
 * What a label request covers (GitLab helpers/label_helpers.rb, app/finders/labels_finder.rb): the
 * project or group it is addressed to, the labels in its scope, finding one by id or title, who may
 * change it, and presenting a page as ProjectLabel or Label.
 */
import { and, asc, eq, getTableColumns, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { labels, namespaces, projects } from '../db/schema';
import { labelEntity, type LabelRow, projectLabelEntity } from './label-entity';
import { ACCESS, groupAccess, groupVisibleSql, type NamespaceRow, projectVisibleSql, type ProjectRow, subtreeOf, traversalIds } from '../projects/abilities';
import { forbidden, notFound } from '../platform/errors';
import { countUpToQuery, linkParamsFrom, MAX_COUNT, pageRequest, setPaginationHeaders } from '../platform/pagination';
import { batchReads } from '../db/batch-reads';
import { requestParams } from '../platform/params';
import { findReadableGroup } from '../projects/groups';
import { availableProjectLabelsSql, labelCountsFrom, type LabelCounts, labelCountsQuery, labelWithExtras, type LabelWithExtras, planningAvailable, loadLabelPriorities, loadLabelSubscriptions } from './labels';
import { findReadableProject } from '../projects/projects';
import { decimalId } from '../platform/record-id';

/** `planning`: the issues or merge requests feature is available to the caller (ProjectPolicy prevents every label ability otherwise). */
export type ProjectParent = { kind: 'project'; project: ProjectRow; namespace: NamespaceRow; level: number; planning: boolean };
export type GroupParent = { kind: 'group'; group: NamespaceRow; level: number };
export type Parent = ProjectParent | GroupParent;

export const canAdminLabels = (caller: Caller, level: number) => caller.isAdmin || level >= ACCESS.PLANNER;

/** Label.search (fuzzy_search on title and description): every word in one column, case-insensitive; instr has no LIKE length limit. */
function searchSql(q: string): SQL | undefined {
  const words = q.split(/\s+/).filter(Boolean);
  if (!words.length) return undefined;
  const inCol = (col: SQL) => and(...words.map((w) => sql`instr(lower(${col}), lower(${w})) > 0`));
  return or(inCol(sql`${labels.title}`), inCol(sql`coalesce(${labels.description}, '')`));
}

/** Group ids whose labels a group request covers (LabelsFinder#group_ids_for), readable ones only. */
async function groupIdsFor(c: Context<AppEnv>, caller: Caller, group: NamespaceRow, o: { ancestors: boolean; descendants: boolean }): Promise<number[]> {
  const ids = new Set<number>([group.id]);
  if (o.ancestors) for (const id of traversalIds(group)) ids.add(id);
  if (o.descendants && group.traversalPath) {
    const rows = await c.var.db
      .select({ id: namespaces.id })
      .from(namespaces)
      .where(and(subtreeOf(group.traversalPath), eq(namespaces.kind, 'Group'), groupVisibleSql(caller)))
      .all();
    for (const r of rows) ids.add(r.id);
  }
  return [...ids];
}

/** SQL on `labels` for a group request; `only_group_labels=false` adds labels of the group's readable projects. */
export async function groupLabelsSql(c: Context<AppEnv>, caller: Caller, group: NamespaceRow, o: { ancestors: boolean; descendants: boolean; onlyGroupLabels: boolean }): Promise<SQL> {
  const groupIds = await groupIdsFor(c, caller, group, o);
  const own = inArray(labels.groupId, groupIds);
  if (o.onlyGroupLabels) return own;
  const visibleProjects = c.var.db
    .select({ id: projects.id })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(and(eq(projects.namespaceId, group.id), projectVisibleSql(caller)));
  return or(own, inArray(labels.projectId, visibleProjects))!;
}

/**
 * `find_label`'s condition and order, for a read of one row (`.where(m.where).orderBy(...m.order).limit(1)`)
 * that can go in a batch: by id when the parameter is an integer, else (or when no such id) by
 * title; the label with that id wins, then by title a project label over a group label of the same title.
 */
export function labelMatch(scope: SQL, idOrTitle: string): { where: SQL; order: SQL[] } {
  const id = decimalId(idOrTitle);
  const match = id !== undefined ? or(eq(labels.id, id), eq(labels.title, idOrTitle)) : eq(labels.title, idOrTitle);
  return { where: and(scope, match)!, order: [id !== undefined ? sql`${labels.id} = ${id} DESC` : sql`1`, sql`${labels.projectId} is null`, asc(labels.id)] };
}

/** `find_label` as an unexecuted read of the label row . */
export function findLabelQuery(db: Db, scope: SQL, idOrTitle: string) {
  const m = labelMatch(scope, idOrTitle);
  return db.select().from(labels).where(m.where).orderBy(...m.order).limit(1);
}

/** `find_label` run alone; with `forEntity` the row carries what its entity shows (labelWithExtras). */
export async function findLabel(c: Context<AppEnv>, scope: SQL, idOrTitle: string): Promise<LabelRow>;
export async function findLabel(c: Context<AppEnv>, scope: SQL, idOrTitle: string, forEntity: { caller: Caller; parent: Parent }): Promise<LabelWithExtras>;
export async function findLabel(c: Context<AppEnv>, scope: SQL, idOrTitle: string, forEntity?: { caller: Caller; parent: Parent }): Promise<LabelRow | LabelWithExtras> {
  const columns = forEntity ? labelWithExtras(forEntity.caller.user?.id ?? null, forEntity.parent.kind === 'project' ? forEntity.parent.project.id : null) : getTableColumns(labels);
  const m = labelMatch(scope, idOrTitle);
  const [found] = await c.var.db.select(columns).from(labels).where(m.where).orderBy(...m.order).limit(1);
  return foundLabel(found);
}

/** The row of a `findLabelQuery`, or 404 Label Not Found. */
export function foundLabel<T>(found: T | undefined): T {
  if (!found) throw notFound('Label');
  return found;
}

export async function loadParent(c: Context<AppEnv>, caller: Caller, kind: 'project' | 'group', id: string): Promise<Parent> {
  if (kind === 'project') {
    const { project, namespace, level } = await findReadableProject(c, caller, id);
    return { kind, project, namespace, level, planning: planningAvailable(caller, project, level) };
  }
  const { group, level } = await findReadableGroup(c, caller, id);
  return { kind, group, level };
}

/** Labels a project request covers; none when the caller may not read labels there (LabelsFinder drops the project). */
export function projectScope(parent: ProjectParent, includeAncestorGroups = true): SQL {
  return parent.planning ? availableProjectLabelsSql(parent.project, parent.namespace, includeAncestorGroups) : sql`0 = 1`;
}

/** The scope of `find_label` for writes (`include_ancestor_groups: false`): own labels, and a project's direct group. */
export function ownScope(parent: Parent): SQL {
  return parent.kind === 'project' ? projectScope(parent, false) : eq(labels.groupId, parent.group.id);
}

/**
 * `authorize! :update_label/:delete_label, label`: a group label is governed by its group.
 * `groupLevel`: the caller's level in the label's group when already read (a project's own group).
 */
export async function requireLabelAdmin(c: Context<AppEnv>, caller: Caller, parent: Parent, label: LabelRow, groupLevel?: number): Promise<void> {
  if (caller.isAdmin) return;
  if (parent.kind === 'project' && label.projectId === parent.project.id) {
    if (!canAdminLabels(caller, parent.level)) throw forbidden();
    return;
  }
  if (parent.kind === 'group' && label.groupId === parent.group.id) {
    if (!canAdminLabels(caller, parent.level)) throw forbidden();
    return;
  }
  if (groupLevel !== undefined && parent.kind === 'project' && label.groupId === parent.namespace.id) {
    if (!canAdminLabels(caller, groupLevel)) throw forbidden();
    return;
  }
  const group = label.groupId != null ? await c.var.db.select().from(namespaces).where(eq(namespaces.id, label.groupId)).get() : undefined;
  const level = group ? await groupAccess(c.var.db, caller.user, group) : 0;
  if (!canAdminLabels(caller, level)) throw forbidden();
}

/** Presents labels as ProjectLabel (with the project's priorities) or GroupLabel; `counts` as read with the page (labelCountsQuery). */
export async function present(c: Context<AppEnv>, caller: Caller, parent: Parent, rows: (LabelRow | LabelWithExtras)[], counts?: Map<number, LabelCounts>) {
  const db = c.var.db;
  const ids = rows.map((l) => l.id);
  const projectId = parent.kind === 'project' ? parent.project.id : null;
  // Rows read with `labelWithExtras` carry their subscription and priority already.
  const carried = rows.every((l) => 'subscribed' in l);
  const [subscribed, priorities] = await Promise.all([
    carried ? new Set(rows.filter((l) => (l as LabelWithExtras).subscribed).map((l) => l.id)) : loadLabelSubscriptions(db, caller.user?.id ?? null, ids, projectId),
    carried ? new Map(rows.map((l) => [l.id, (l as LabelWithExtras).priority ?? undefined] as const).filter((e): e is [number, number] => e[1] != null)) : projectId != null ? loadLabelPriorities(db, projectId, ids) : Promise.resolve(new Map<number, number>()),
  ]);
  return rows.map((l) => {
    const x = { subscribed: subscribed.has(l.id), counts: counts ? (counts.get(l.id) ?? { openIssues: 0, closedIssues: 0, openMergeRequests: 0 }) : null };
    return parent.kind === 'project' ? projectLabelEntity(l, { ...x, priority: priorities.get(l.id) ?? null }) : labelEntity(l, x);
  });
}

export async function list(
  c: Context<AppEnv>,
  caller: Caller,
  parent: Parent,
  scope: SQL,
  p: { search?: string; archived?: boolean; with_counts: boolean; page?: number; per_page?: number },
  defaults: Record<string, unknown>,
) {
  const db = c.var.db;
  const where = and(scope, p.search ? searchSql(p.search) : undefined, p.archived !== undefined ? eq(labels.archived, p.archived) : undefined);
  const raw = await requestParams(c);
  const req = pageRequest(p, raw.per_page);
  // The page (with each label's subscription and priority), its bounded count and, when asked, the
  // issue counts hung off the page query: one round trip whatever the page size.
  const page = db
    .select(labelWithExtras(caller.user?.id ?? null, parent.kind === 'project' ? parent.project.id : null))
    .from(labels)
    .where(where)
    .orderBy(asc(labels.title), asc(labels.id))
    .limit(req.perPage)
    .offset(req.offset);
  const [rows, [n], counts] = await batchReads(db, [page, countUpToQuery(db, labels, where, MAX_COUNT + 1), p.with_counts ? labelCountsQuery(db, caller, sql`SELECT id FROM (${page.getSQL()})`) : undefined]);
  const total = Number(n?.n ?? 0);
  setPaginationHeaders(c, req, linkParamsFrom(raw, defaults), total > MAX_COUNT ? null : total, rows.length);
  return c.json(await present(c, caller, parent, rows, counts ? labelCountsFrom(counts) : undefined));
}
