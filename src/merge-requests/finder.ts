/**
 * The merge request lists' finder (GitLab app/finders/merge_requests_finder.rb, issuable_finder.rb
 * and the Issuables::*Filter classes): validated list parameters -> one WHERE and one ORDER BY over
 * `merge_requests` joined with its project and namespace (for visibility). Every filter is a
 * predicate on the row or a correlated EXISTS; strings travel as bound parameters, integers are
 * inlined after validation, so no input reaches D1's 100-parameter or LIKE limits.
 */
import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { Caller } from '../platform/context';
import type { Db } from '../db/client';
import { deploymentMergeRequests, deployments, environments, mergeRequests, namespaces, projects, users } from '../db/schema';
import type { NamespaceRow, ProjectRow } from '../projects/abilities';
import type { MergeRequestListParams, MergeRequestNotParams } from './merge-requests-params';
import type { MergeRequestRow } from './merge-request-entity';
import type { CountQuery } from '../platform/pagination';
import { mergeRequestVisibleSql } from '../projects/abilities';
import { fullSearchSql, parseSearch, type SearchTable } from '../issuables/trigram-search';

/**
 * `projectId` is a project not read yet, as SQL (projectIdRef): the project list sends its page in
 * the round trip that finds the project (list-page.ts presentProjectMergeRequestPage).
 */
export type MrFinderParent =
  | { kind: 'all' }
  | { kind: 'group'; group: NamespaceRow }
  /** A group not read yet, as SQL (groupIdRef): the group list sends its page in the round trip that finds the group. */
  | { kind: 'groupId'; groupId: SQL }
  | { kind: 'project'; project: ProjectRow }
  | { kind: 'projectId'; projectId: SQL };

export interface MrQuery {
  possible: boolean;
  where: SQL | undefined;
  orderBy: SQL[];
  /**
   * Whether the page picks its ids first and reads only their rows (mergeRequestPage): set for the
   * list across all projects, whose matches no index gives in order (SQLite sorts them) and whose
   * WHERE names no column of the joined project or namespace.
   */
  idsFirst?: boolean;
}

const int = (n: number) => sql.raw(String(Math.trunc(Number(n))));
const ints = (list: number[]) => sql.raw(`(${list.length ? list.map((n) => String(Math.trunc(Number(n)))).join(',') : 'NULL'})`);
const MR = sql.raw('merge_requests');

async function userIdByUsername(db: Db, username: string): Promise<number | null> {
  const row = await db.select({ id: users.id }).from(users).where(sql`lower(${users.username}) = lower(${username})`).get();
  return row?.id ?? null;
}

const assignedTo = (uid: number) => sql`EXISTS (SELECT 1 FROM merge_request_assignees a WHERE a.merge_request_id = ${MR}.id AND a.user_id = ${int(uid)})`;
const anyAssignee = sql`EXISTS (SELECT 1 FROM merge_request_assignees a WHERE a.merge_request_id = ${MR}.id)`;
const reviewedBy = (uid: number) => sql`EXISTS (SELECT 1 FROM merge_request_reviewers r WHERE r.merge_request_id = ${MR}.id AND r.user_id = ${int(uid)})`;
const anyReviewer = sql`EXISTS (SELECT 1 FROM merge_request_reviewers r WHERE r.merge_request_id = ${MR}.id)`;
const anyLabel = sql`EXISTS (SELECT 1 FROM label_links ll WHERE ll.target_type = 'MergeRequest' AND ll.target_id = ${MR}.id)`;
const reacted = (uid: number, name: string | null) =>
  sql`EXISTS (SELECT 1 FROM award_emoji e WHERE e.awardable_type = 'MergeRequest' AND e.awardable_id = ${MR}.id AND e.user_id = ${int(uid)}${name == null ? sql`` : sql` AND e.name = ${name}`})`;
/** Label titles travel as one JSON parameter (D1 allows 100 bound parameters per statement). */
const labelCount = (titles: string[]) =>
  sql`(SELECT count(DISTINCT l.title) FROM label_links ll JOIN labels l ON l.id = ll.label_id WHERE ll.target_type = 'MergeRequest' AND ll.target_id = ${MR}.id AND l.title IN (SELECT value FROM json_each(${JSON.stringify(titles)})))`;

/** Label names as IssuableFinder reads them: `None` / `Any` (any case) are the special values. */
function labelConditions(list: string[] | undefined, negate: boolean): SQL[] | null {
  if (!list || !list.length) return [];
  const lower = list.map((l) => l.toLowerCase());
  if (!negate && lower.length === 1 && lower[0] === 'none') return [sql`NOT ${anyLabel}`];
  if (!negate && lower.length === 1 && lower[0] === 'any') return [anyLabel];
  const titles = [...new Set(list)];
  // Every label (AND), or for not[labels] none of them.
  return negate ? [sql`${labelCount(titles)} = 0`] : [sql`${labelCount(titles)} = ${sql.raw(String(titles.length))}`];
}

const noMilestone = sql`${mergeRequests.milestoneId} IS NULL`;
const anyMilestone = sql`${mergeRequests.milestoneId} IS NOT NULL`;
// Milestone.upcoming_ids takes the nearest open milestone due in the future per project; this is
// wider: any open milestone due in the future.
const upcomingMilestone = sql`${mergeRequests.milestoneId} IN (SELECT m.id FROM milestones m WHERE m.state = 'active' AND m.due_date > date('now'))`;
const startedMilestone = sql`${mergeRequests.milestoneId} IN (SELECT m.id FROM milestones m WHERE m.state = 'active' AND m.start_date <= date('now') AND (m.due_date IS NULL OR m.due_date >= date('now')))`;
const titled = (title: string | SQL) => sql`${mergeRequests.milestoneId} IN (SELECT m.id FROM milestones m WHERE m.title = ${title})`;

function milestoneCondition(title: string | undefined, negate: boolean): SQL | null {
  if (title === undefined) return null;
  const t = title.toLowerCase();
  if (!negate && (t === 'none' || t === 'no milestone')) return noMilestone;
  if (!negate && t === 'any') return anyMilestone;
  if (!negate && t === 'upcoming') return upcomingMilestone;
  if (!negate && t === 'started') return startedMilestone;
  const match = titled(title);
  return negate ? sql`(${mergeRequests.milestoneId} IS NULL OR NOT ${match})` : match;
}

/**
 * `milestone` for a title SQLite reads (a sub-select: the milestone lists filter by their
 * milestone's title in the page's own batch), with the same special values as milestoneCondition.
 */
export function milestoneTitleCondition(title: SQL): SQL {
  return sql`(CASE lower(${title}) WHEN 'none' THEN ${noMilestone} WHEN 'no milestone' THEN ${noMilestone} WHEN 'any' THEN ${anyMilestone} WHEN 'upcoming' THEN ${upcomingMilestone} WHEN 'started' THEN ${startedMilestone} ELSE ${titled(title)} END)`;
}

const searchTable: SearchTable = { index: 'merge_requests_search', id: mergeRequests.id, title: mergeRequests.title, description: mergeRequests.description };

/**
 * Issuable.full_search (Gitlab::SQL::Pattern): words of 3+ characters must all appear in one
 * column, from the trigram index `merge_requests_search`; with none, the whole query must equal
 * a column. Always index-driven (no probe round trip): a search costs its matches.
 */
function searchCondition(search: string, inParam: string | undefined): SQL | undefined {
  const parsed = parseSearch(search, inParam);
  return parsed && fullSearchSql(searchTable, parsed);
}

export async function buildMergeRequestQuery(db: Db, caller: Caller, parent: MrFinderParent, p: MergeRequestListParams): Promise<MrQuery> {
  const conds: (SQL | undefined)[] = [];
  let possible = true;
  const impossible = () => {
    possible = false;
  };

  if (parent.kind === 'project') conds.push(sql`${mergeRequests.projectId} = ${int(parent.project.id)}`);
  else if (parent.kind === 'projectId') conds.push(sql`${mergeRequests.projectId} = ${parent.projectId}`);
  else {
    // Readable or not is a project's property: across all projects it is decided once per project
    // (the readable projects as a sub-select, its "projects" and "namespaces" its own), not again for
    // every merge request row (bench mr_all_member 16.6 -> 8.4 ms of CPU). A group's subtree holds
    // few projects: there the range on the traversal path leads, and the predicate per row is cheaper
    // (mr_group_list 3.8 ms, 7.1 with the sub-select).
    conds.push(
      parent.kind === 'all'
        ? sql`${mergeRequests.projectId} IN (SELECT "projects"."id" FROM "projects" INNER JOIN "namespaces" ON "namespaces"."id" = "projects"."namespace_id" WHERE ${mergeRequestVisibleSql(caller)})`
        : mergeRequestVisibleSql(caller),
    );
    if (parent.kind === 'group') {
      const path = parent.group.traversalPath;
      conds.push(sql`${namespaces.traversalPath} >= ${path} AND ${namespaces.traversalPath} < ${path + ':'}`);
    } else if (parent.kind === 'groupId') {
      // The same subtree, its bounds read by sub-selects (uncorrelated: SQLite runs each once).
      const path = sql`(SELECT g.traversal_path FROM namespaces g WHERE g.id = ${parent.groupId})`;
      conds.push(sql`${namespaces.traversalPath} >= ${path} AND ${namespaces.traversalPath} < (${path} || ':')`);
    }
    if ((parent.kind === 'group' || parent.kind === 'groupId') && p.non_archived !== false) conds.push(sql`${projects.archived} = 0`);
  }

  const uid = caller.user?.id;
  const scope = (p.scope ?? 'all').replace(/-/g, '_');
  if (scope !== 'all') {
    if (uid == null) impossible();
    else if (scope === 'created_by_me') conds.push(sql`${mergeRequests.authorId} = ${int(uid)}`);
    else if (scope === 'assigned_to_me') conds.push(assignedTo(uid));
    else if (scope === 'reviews_for_me') conds.push(reviewedBy(uid));
  }

  if (p.state !== 'all') conds.push(sql`${mergeRequests.state} = ${p.state}`);
  if (p.iids?.length) conds.push(sql`${mergeRequests.iid} IN ${ints(p.iids.slice(0, 1000))}`);

  // Author.
  if (p.author_id !== undefined) conds.push(sql`${mergeRequests.authorId} = ${int(p.author_id)}`);
  if (p.author_username !== undefined) {
    const id = await userIdByUsername(db, p.author_username);
    if (id == null) impossible();
    else conds.push(sql`${mergeRequests.authorId} = ${int(id)}`);
  }
  // Assignee.
  if (p.assignee_id !== undefined) {
    if (p.assignee_id === 'none') conds.push(sql`NOT ${anyAssignee}`);
    else if (p.assignee_id === 'any') conds.push(anyAssignee);
    else conds.push(assignedTo(p.assignee_id as number));
  }
  if (p.assignee_username?.length) {
    for (const name of p.assignee_username) {
      const id = await userIdByUsername(db, name);
      if (id == null) impossible();
      else conds.push(assignedTo(id));
    }
  }
  // Reviewer.
  if (p.reviewer_id !== undefined) {
    if (p.reviewer_id === 'none') conds.push(sql`NOT ${anyReviewer}`);
    else if (p.reviewer_id === 'any') conds.push(anyReviewer);
    else conds.push(reviewedBy(p.reviewer_id as number));
  }
  if (p.reviewer_username !== undefined) {
    const r = p.reviewer_username.toLowerCase();
    if (r === 'none') conds.push(sql`NOT ${anyReviewer}`);
    else if (r === 'any') conds.push(anyReviewer);
    else {
      const id = await userIdByUsername(db, p.reviewer_username);
      if (id == null) impossible();
      else conds.push(reviewedBy(id));
    }
  }
  // Merge user.
  if (p.merge_user_id !== undefined) conds.push(sql`${mergeRequests.mergedById} = ${int(p.merge_user_id)}`);
  if (p.merge_user_username !== undefined) {
    const id = await userIdByUsername(db, p.merge_user_username);
    if (id == null) impossible();
    else conds.push(sql`${mergeRequests.mergedById} = ${int(id)}`);
  }

  const labelConds = labelConditions(p.labels, false);
  if (labelConds) conds.push(...labelConds);
  const ms = milestoneCondition(p.milestone, false);
  if (ms) conds.push(ms);

  if (p.my_reaction_emoji !== undefined) {
    const e = p.my_reaction_emoji;
    if (uid == null) {
      // IssuableFinder#by_my_reaction_emoji: ignored without a user.
    } else if (e.toLowerCase() === 'none') conds.push(sql`NOT ${reacted(uid, null)}`);
    else if (e.toLowerCase() === 'any') conds.push(reacted(uid, null));
    else conds.push(reacted(uid, e));
  }

  if (p.source_branch !== undefined) conds.push(sql`${mergeRequests.sourceBranch} = ${p.source_branch}`);
  if (p.source_project_id !== undefined) conds.push(sql`${mergeRequests.sourceProjectId} = ${int(p.source_project_id)}`);
  if (p.target_branch !== undefined) conds.push(sql`${mergeRequests.targetBranch} = ${p.target_branch}`);
  if (p.search) conds.push(searchCondition(p.search, p.in));

  if (p.created_after !== undefined) conds.push(sql`${mergeRequests.createdAt} >= ${p.created_after}`);
  if (p.created_before !== undefined) conds.push(sql`${mergeRequests.createdAt} <= ${p.created_before}`);
  if (p.updated_after !== undefined) conds.push(sql`${mergeRequests.updatedAt} >= ${p.updated_after}`);
  if (p.updated_before !== undefined) conds.push(sql`${mergeRequests.updatedAt} <= ${p.updated_before}`);
  if (p.merged_after !== undefined) conds.push(sql`${mergeRequests.mergedAt} >= ${p.merged_after}`);
  if (p.merged_before !== undefined) conds.push(sql`${mergeRequests.mergedAt} <= ${p.merged_before}`);

  const draft = p.draft !== undefined ? p.draft : p.wip !== undefined ? p.wip === 'yes' : undefined;
  if (draft !== undefined) conds.push(sql`${mergeRequests.draft} = ${draft ? 1 : 0}`);

  if (p.environment !== undefined || p.deployed_after !== undefined || p.deployed_before !== undefined) conds.push(deployedCondition(p));

  // not[...]
  const n: MergeRequestNotParams | undefined = p.not;
  if (n) {
    if (n.author_id !== undefined) conds.push(sql`${mergeRequests.authorId} <> ${int(n.author_id)}`);
    if (n.author_username !== undefined) {
      const id = await userIdByUsername(db, n.author_username);
      if (id != null) conds.push(sql`${mergeRequests.authorId} <> ${int(id)}`);
    }
    if (n.assignee_id !== undefined) {
      if (n.assignee_id === 'none') conds.push(anyAssignee);
      else if (n.assignee_id === 'any') conds.push(sql`NOT ${anyAssignee}`);
      else conds.push(sql`NOT ${assignedTo(n.assignee_id as number)}`);
    }
    for (const name of n.assignee_username ?? []) {
      const id = await userIdByUsername(db, name);
      if (id != null) conds.push(sql`NOT ${assignedTo(id)}`);
    }
    if (n.reviewer_id !== undefined) conds.push(sql`NOT ${reviewedBy(n.reviewer_id)}`);
    if (n.reviewer_username !== undefined) {
      const id = await userIdByUsername(db, n.reviewer_username);
      if (id != null) conds.push(sql`NOT ${reviewedBy(id)}`);
    }
    const nl = labelConditions(n.labels, true);
    if (nl) conds.push(...nl);
    const nm = milestoneCondition(n.milestone, true);
    if (nm) conds.push(nm);
    if (n.my_reaction_emoji !== undefined && uid != null) {
      const e = n.my_reaction_emoji;
      if (e.toLowerCase() === 'none') conds.push(reacted(uid, null));
      else if (e.toLowerCase() === 'any') conds.push(sql`NOT ${reacted(uid, null)}`);
      else conds.push(sql`NOT ${reacted(uid, e)}`);
    }
  }

  return { possible, where: and(...conds), orderBy: orderBy(p), idsFirst: parent.kind === 'all' };
}

/**
 * MergeRequestsFinder#by_deployments: shipped by a deployment (DeploymentMergeRequest) to the named
 * environment of the request's target project (`project_id`), finished after/before the times (strictly).
 */
function deployedCondition(p: Pick<MergeRequestListParams, 'environment' | 'deployed_after' | 'deployed_before'>): SQL {
  const conds = [
    p.environment !== undefined ? sql`e.name = ${p.environment} AND e.project_id = ${mergeRequests.projectId}` : undefined,
    p.deployed_after !== undefined ? sql`d.finished_at > ${p.deployed_after}` : undefined,
    p.deployed_before !== undefined ? sql`d.finished_at < ${p.deployed_before}` : undefined,
  ].filter((x): x is SQL => x !== undefined);
  return sql`${mergeRequests.id} IN (SELECT dm.merge_request_id FROM ${deploymentMergeRequests} dm JOIN ${deployments} d ON d.id = dm.deployment_id JOIN ${environments} e ON e.id = dm.environment_id WHERE ${sql.join(conds, sql` AND `)})`;
}

const milestoneDue = sql`(SELECT m.due_date FROM milestones m WHERE m.id = ${mergeRequests.milestoneId})`;
/** Issuable.order_labels_priority: the best (lowest) priority among the request's labels in its project, the filtered labels excluded. */
const highestPriority = (p: MergeRequestListParams) =>
  sql`(SELECT min(lp.priority) FROM label_links ll JOIN label_priorities lp ON lp.label_id = ll.label_id AND lp.project_id = ${mergeRequests.projectId} JOIN labels l ON l.id = ll.label_id WHERE ll.target_type = 'MergeRequest' AND ll.target_id = ${MR}.id${
    p.labels?.length ? sql` AND l.title NOT IN (SELECT value FROM json_each(${JSON.stringify(p.labels)}))` : sql``
  })`;

/** `sort: 'label_priority'` as the milestone lists pass it: best label priority first, none last, newest first among equals. */
export const labelPriorityOrder = (): SQL[] => {
  const best = highestPriority({} as MergeRequestListParams);
  return [sql`${best} IS NULL`, sql`${best} ASC`, desc(mergeRequests.id)];
};

/**
 * Issuable.sort_by_attribute with the id tie-break GitLab adds (order_options_with_tie_breaker:
 * id in the same direction); priorities and milestone due dates sort NULLs last.
 */
function orderBy(p: MergeRequestListParams): SQL[] {
  const dir = p.sort === 'asc' ? asc : desc;
  const tie = dir(mergeRequests.id);
  switch (p.order_by) {
    case 'updated_at':
      return [dir(mergeRequests.updatedAt), tie];
    case 'title':
      return [dir(mergeRequests.title), tie];
    case 'merged_at':
      // reorder_by_metric('merged_at'): NULLs last in both directions.
      return [sql`${mergeRequests.mergedAt} IS NULL`, dir(mergeRequests.mergedAt), tie];
    case 'popularity':
      // Sorted by upvotes (desc = most popular first).
      return [dir(mergeRequests.upvotes), tie];
    case 'label_priority':
      return [sql`${highestPriority(p)} IS NULL`, p.sort === 'asc' ? sql`${highestPriority(p)} ASC` : sql`${highestPriority(p)} DESC`, tie];
    case 'priority':
      return [
        sql`${milestoneDue} IS NULL`,
        p.sort === 'asc' ? sql`${milestoneDue} ASC` : sql`${milestoneDue} DESC`,
        sql`${highestPriority(p)} IS NULL`,
        p.sort === 'asc' ? sql`${highestPriority(p)} ASC` : sql`${highestPriority(p)} DESC`,
        tie,
      ];
    case 'milestone_due':
      // Issuable.order_milestone_due_*: due dates first, then milestones without one, then none.
      return [sql`${milestoneDue} IS NULL`, sql`${mergeRequests.milestoneId} IS NULL`, p.sort === 'asc' ? sql`${milestoneDue} ASC` : sql`${milestoneDue} DESC`, tie];
    default:
      return [dir(mergeRequests.createdAt), tie];
  }
}

function baseSelect(db: Db) {
  return db.select({ mr: mergeRequests }).from(mergeRequests).innerJoin(projects, eq(projects.id, mergeRequests.projectId)).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId));
}

/**
 * The page query, unexecuted: `paginate` sends it with its count in one batch (rows as `{ mr }`).
 * With `idsFirst` the matches are sorted as ids (from a covering index) and only the page's rows
 * are read: sorting whole rows read every match's row, description included (issue 13 profile of
 * `mr_all_member`: 6,645 rows sorted for a page of 20, ~5 ms of SQLite's CPU a request).
 */
export function mergeRequestPage(db: Db, q: MrQuery, limit: number, offset: number): PromiseLike<{ mr: MergeRequestRow }[]> {
  if (!q.possible) return Promise.resolve([]);
  if (!q.idsFirst) return baseSelect(db).where(q.where).orderBy(...q.orderBy).limit(limit).offset(offset);
  const ids = idsOf(allPageIdsSelect(db, q, limit, offset));
  // Still joined: in a one-table select the order's correlated sub-selects (highestPriority) would
  // name the merge request's columns unqualified, which bind to their own tables.
  return baseSelect(db).where(sql`${mergeRequests.id} IN ${ids}`).orderBy(...q.orderBy);
}

/**
 * The page's merge request ids as a parenthesised sub-select (the page query itself), so the reads
 * that present the page hang off it and go in the page's own batch (presenter-reads.ts `ids`), and
 * how many bound parameters it carries (each statement repeats them for every use of the set).
 */
export function mergeRequestPageIds(db: Db, q: MrQuery, limit: number, offset: number): { ids: SQL; params: number } {
  const page = pageIdsSelect(db, q, limit, offset);
  return { ids: idsOf(page), params: page.toSQL().params.length };
}

function pageIdsSelect(db: Db, q: MrQuery, limit: number, offset: number) {
  return db
    .select({ id: mergeRequests.id })
    .from(mergeRequests)
    .innerJoin(projects, eq(projects.id, mergeRequests.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(q.where)
    .orderBy(...q.orderBy)
    .limit(limit)
    .offset(offset);
}

/**
 * The page's ids for `idsFirst` (the list across all projects, whose WHERE names no column of the
 * project or namespace: readability is its own sub-select): without the joins, which cost two
 * lookups per match sorted (mr_all_member: 1.4 -> 0.7 ms of SQLite's time for the page statement).
 */
function allPageIdsSelect(db: Db, q: MrQuery, limit: number, offset: number) {
  return db.select({ id: mergeRequests.id }).from(mergeRequests).where(q.where).orderBy(...q.orderBy).limit(limit).offset(offset);
}

/**
 * A derived table, not the page query itself: SQLite counts a sub-select's expressions in the
 * expression-tree depth of the statement using it (D1 allows 100, and the visibility predicate is
 * deep), but not those of a FROM-clause sub-query.
 */
const idsOf = (page: ReturnType<typeof pageIdsSelect> | ReturnType<typeof allPageIdsSelect>) => sql`(SELECT id FROM ${page})`;

/** The count (at most `limit`), unexecuted like the page. */
export function mergeRequestCount(db: Db, q: MrQuery, limit: number): Promise<number> | CountQuery {
  if (!q.possible) return Promise.resolve(0);
  const inner = db
    .select({ one: sql`1` })
    .from(mergeRequests)
    .innerJoin(projects, eq(projects.id, mergeRequests.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(q.where)
    .limit(limit);
  return db.select({ n: sql<number>`count(*)` }).from(inner.as('t'));
}
