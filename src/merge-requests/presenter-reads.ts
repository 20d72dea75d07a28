/**
 * Everything presenting merge requests reads, as unexecuted queries keyed by one SQL set of merge
 * request ids (`ids`: a sub-select such as `(SELECT id FROM merge_requests WHERE project_id = ? AND
 * iid = ?)`, or `(SELECT value FROM json_each(?))` for a page), so they go to storage in ONE batch
 * whatever the page size, and can ride in the batch that finds the merge request itself
 * (../shared/DESIGN.md "Data access"). The users, milestones, projects and branch heads hang off the
 * merge request rows through sub-selects, so nothing waits for another read.
 */
import { and, count, eq, isNotNull, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { aliasedColumns } from '../db/aliased-columns';
import {
  labelLinks,
  labels,
  mergeRequestAssignees,
  mergeRequestDiffs,
  mergeRequestReviewers,
  mergeRequests,
  milestones,
  namespaces,
  notes,
  projects,
  repoBranches,
  subscriptions,
  users,
} from '../db/schema';
import { alias } from 'drizzle-orm/sqlite-core';
import type { Caller } from '../platform/context';
import { projectLevelSql } from '../projects/abilities';
import { protectedBranchReads } from '../repository/protected-branches';

export interface PresenterReadOptions {
  /** Entities::MergeRequest: the caller's level, merge rights (protected branches). */
  full?: boolean;
  subscribed?: boolean;
  firstContribution?: boolean;
  /** False when another read of the batch brings the protected branch rows (into the read memo). */
  protectedBranchRows?: boolean;
  /** False when the caller knows the one project of every merge request (a project's list) and fills `projects` itself. */
  projects?: boolean;
  /**
   * Merge requests of the project their lookup found (merge-request-find.ts): its row, namespace and
   * the caller's level are known, so `projects` is not read (the caller fills it in).
   */
  ofFoundProject?: boolean;
  /** The full entity's changes_count of closed and merged merge requests from their recorded diff version (`recordedSizes`). */
  recordedChanges?: boolean;
  /**
   * One merge request: its assignees, reviewers, counts and per-caller answers (notes, unresolved
   * discussions, subscription, commented, first contribution, recorded size) in ONE row (`facts`) instead of a statement each;
   * flattenReads' `unflatten` spreads it back into those keys, so presenting does not change.
   */
  single?: boolean;
}

/** A read left out (undefined) when `skip`, typed as the read so the loaded results keep their types. */
const unless = <T>(skip: boolean | undefined, q: T): T => (skip ? undefined : q) as T;

/** `IN` over a set of merge request ids (`ids` is a parenthesised sub-select). */
const within = (column: SQL | { getSQL(): SQL }, ids: SQL) => sql`${column} IN ${ids}`;

const MR = sql.raw('"merge_requests"');
const milestoneProject = alias(projects, 'milestone_project');
const milestoneProjectNs = alias(namespaces, 'milestone_project_ns');
const milestoneGroup = alias(namespaces, 'milestone_group');

/** A page's merge request ids as a set for `presenterReads` (one parameter, whatever the page size). */
export const idsOfPage = (ids: readonly number[]): SQL => sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`;

/**
 * The source and target branch heads of the open merge requests among `ids` (a closed one shows what
 * it recorded). Keyed by the branch rows' ids, found by (project, name) through the unique index: a
 * `(project_id, name) IN (…)` row-value test made SQLite scan every branch of every project.
 */
export const headsRead = (db: Db, ids: SQL) =>
  db
    .select({ projectId: repoBranches.projectId, name: repoBranches.name, sha: repoBranches.commitSha })
    .from(repoBranches)
    .where(sql`${repoBranches.id} IN ${branchIdsOf(sql`IN ${ids} AND m.state IN ('opened', 'locked')`)}`);

/**
 * The ids of the source and target branches of the merge requests `m.id <which>` (`= (SELECT …)`,
 * `IN (…)`, with more conditions on `m`), each joined through the (project_id, name) index. Written
 * as `(project_id, name) IN (SELECT …)` SQLite scans every branch instead (0.5-0.9 ms on dataset M).
 */
export const branchIdsOf = (which: SQL, alsoTarget?: SQL) =>
  sql`(SELECT b.id FROM merge_requests m JOIN repo_branches b ON b.project_id = m.source_project_id AND b.name = m.source_branch WHERE m.id ${which}
    UNION ALL SELECT b.id FROM merge_requests m JOIN repo_branches b ON b.project_id = m.project_id AND b.name = m.target_branch WHERE m.id ${which}${
      alsoTarget ? sql` UNION ALL SELECT b.id FROM merge_requests m JOIN repo_branches b ON b.project_id = m.project_id AND b.name = ${alsoTarget} WHERE m.id ${which}` : sql``
    })`;

export function presenterReads(db: Db, caller: Caller, ids: SQL, o: PresenterReadOptions) {
  const uid = caller.user?.id;
  const ofMrs = (column: string) => sql`(SELECT ${sql.raw(column)} FROM merge_requests m WHERE m.id IN ${ids})`;
  const projectIds = ofMrs('m.project_id');
  return {
    projects: o.ofFoundProject || o.projects === false
      ? undefined
      : db
          .select({ project: projects, namespace: aliasedColumns(namespaces, 'ns_'), level: (o.full && uid != null ? projectLevelSql(uid) : sql<number>`0`).as('level') })
          .from(projects)
          .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
          .where(within(projects.id, projectIds)),
    assignees: unless(o.single, db.select().from(mergeRequestAssignees).where(within(mergeRequestAssignees.mergeRequestId, ids)).orderBy(mergeRequestAssignees.mergeRequestId, mergeRequestAssignees.position)),
    reviewers: unless(o.single, db.select().from(mergeRequestReviewers).where(within(mergeRequestReviewers.mergeRequestId, ids)).orderBy(mergeRequestReviewers.mergeRequestId, mergeRequestReviewers.position)),
    labels: db
      .select({ targetId: labelLinks.targetId, label: labels })
      .from(labelLinks)
      .innerJoin(labels, eq(labels.id, labelLinks.labelId))
      .where(and(eq(labelLinks.targetType, 'MergeRequest'), within(labelLinks.targetId, ids))),
    noteCounts: unless(
      o.single,
      db
      .select({ id: notes.noteableId, n: count() })
      .from(notes)
      .where(and(eq(notes.noteableType, 'MergeRequest'), within(notes.noteableId, ids), eq(notes.system, false)))
      .groupBy(notes.noteableId),
    ),
    // mergeable_discussions_state?: resolvable discussions left unresolved.
    unresolved: unless(
      o.single,
      db
        .select({ id: notes.noteableId, n: count() })
        .from(notes)
        .where(and(eq(notes.noteableType, 'MergeRequest'), within(notes.noteableId, ids), eq(notes.resolvable, true), sql`${notes.resolvedAt} IS NULL`))
        .groupBy(notes.noteableId),
    ),
    users: db
      .select({ id: users.id, username: users.username, name: users.name, state: users.state, avatarPath: users.avatarPath, email: users.email })
      .from(users)
      // Separate INs, not one UNION: D1 caps compound selects at a few terms.
      .where(
        sql`${users.id} IN ${ofMrs('m.author_id')} OR ${users.id} IN ${ofMrs('m.closed_by_id')} OR ${users.id} IN ${ofMrs('m.merged_by_id')} OR ${users.id} IN ${ofMrs('m.merge_user_id')}
          OR ${users.id} IN (SELECT a.user_id FROM merge_request_assignees a WHERE a.merge_request_id IN ${ids})
          OR ${users.id} IN (SELECT r.user_id FROM merge_request_reviewers r WHERE r.merge_request_id IN ${ids})`,
      ),
    milestones: db
      .select({ milestone: milestones, projectPath: sql<string | null>`${milestoneProject.path}`.as('mp_path'), projectNs: sql<string | null>`${milestoneProjectNs.fullPath}`.as('mp_ns'), groupPath: sql<string | null>`${milestoneGroup.fullPath}`.as('mg_path') })
      .from(milestones)
      .leftJoin(milestoneProject, eq(milestoneProject.id, milestones.projectId))
      .leftJoin(milestoneProjectNs, eq(milestoneProjectNs.id, milestoneProject.namespaceId))
      .leftJoin(milestoneGroup, eq(milestoneGroup.id, milestones.groupId))
      .where(within(milestones.id, ofMrs('m.milestone_id'))),
    // Only open merge requests read their branches (a closed one shows what it recorded).
    heads: headsRead(db, ids),
    // The merge checks of the full entity and the approval rules' branch scopes both read them (the
    // rows are left out when the approval state's reads in the same batch bring them).
    protectedBranchRows: o.protectedBranchRows === false ? undefined : protectedBranchReads(db, projectIds)[0],
    protectedBranchLevels: protectedBranchReads(db, projectIds)[1],
    // Subscribable#subscribed?: an explicit row, else a participant (here: the caller commented).
    subscriptions:
      !o.single && o.full && o.subscribed && uid != null
        ? db
            .select({ id: subscriptions.subscribableId, subscribed: subscriptions.subscribed })
            .from(subscriptions)
            .where(and(eq(subscriptions.subscribableType, 'MergeRequest'), within(subscriptions.subscribableId, ids), eq(subscriptions.userId, uid)))
        : undefined,
    commented:
      !o.single && o.full && o.subscribed && uid != null
        ? db
            .selectDistinct({ id: notes.noteableId })
            .from(notes)
            .where(and(eq(notes.noteableType, 'MergeRequest'), within(notes.noteableId, ids), sql`+${notes.authorId} = ${uid}`, eq(notes.system, false)))
        : undefined,
    firstContribution: !o.single && o.full && o.firstContribution ? firstContributionRead(db, ids) : undefined,
    // A closed or merged merge request shows the files changed between its recorded base and head:
    // the real_size of a diff version of those two shas (MergeRequestDiff#real_size, a function of them).
    recordedSizes:
      !o.single && o.full && o.recordedChanges
        ? db
            .select({ id: mergeRequestDiffs.mergeRequestId, realSize: mergeRequestDiffs.realSize })
            .from(mergeRequestDiffs)
            .innerJoin(
              mergeRequests,
              and(eq(mergeRequests.id, mergeRequestDiffs.mergeRequestId), eq(mergeRequests.baseSha, mergeRequestDiffs.baseCommitSha), eq(mergeRequests.headSha, mergeRequestDiffs.headCommitSha)),
            )
            .where(and(within(mergeRequests.id, ids), sql`${mergeRequests.state} NOT IN ('opened', 'locked')`, isNotNull(mergeRequestDiffs.realSize)))
            .limit(1)
        : undefined,
    facts: o.single ? factsRead(db, caller, ids, o) : undefined,
  };
}

/** The `single` facts of the merge requests `ids`, a row each (the reads they replace are described above). */
function factsRead(db: Db, caller: Caller, ids: SQL, o: PresenterReadOptions) {
  const uid = caller.user?.id;
  const id = sql.raw('"merge_requests"."id"');
  const subscribedToo = o.full && o.subscribed && uid != null;
  return db
    .select({
      id: mergeRequests.id,
      // In position order (the sub-select's order is what json_group_array sees).
      assigneeIds: sql<string>`(SELECT json_group_array(a.user_id) FROM (SELECT a.user_id FROM merge_request_assignees a WHERE a.merge_request_id = ${id} ORDER BY a.position) a)`.as('f_assignees'),
      reviewerIds: sql<string>`(SELECT json_group_array(r.user_id) FROM (SELECT r.user_id FROM merge_request_reviewers r WHERE r.merge_request_id = ${id} ORDER BY r.position) r)`.as('f_reviewers'),
      notes: sql<number>`(SELECT count(*) FROM notes n WHERE n.noteable_type = 'MergeRequest' AND n.noteable_id = ${id} AND n.system = 0)`.as('f_notes'),
      unresolved: sql<number>`(SELECT count(*) FROM notes n WHERE n.noteable_type = 'MergeRequest' AND n.noteable_id = ${id} AND n.resolvable = 1 AND n.resolved_at IS NULL)`.as('f_unresolved'),
      explicit: (subscribedToo
        ? sql<number | null>`(SELECT s.subscribed FROM subscriptions s WHERE s.subscribable_type = 'MergeRequest' AND s.subscribable_id = ${id} AND s.user_id = ${uid})`
        : sql<number | null>`NULL`
      ).as('f_explicit'),
      // Unary + keeps SQLite off notes_author (see issue-reads.ts).
      commented: (subscribedToo ? sql<number>`EXISTS (SELECT 1 FROM notes n WHERE n.noteable_type = 'MergeRequest' AND n.noteable_id = ${id} AND +n.author_id = ${uid} AND n.system = 0)` : sql<number>`0`).as(
        'f_commented',
      ),
      first: (o.full && o.firstContribution ? firstContributionSql() : sql<number>`0`).as('f_first'),
      realSize: (o.full && o.recordedChanges
        ? sql<string | null>`(SELECT d.real_size FROM merge_request_diffs d WHERE d.merge_request_id = ${id} AND d.base_commit_sha = "merge_requests"."base_sha" AND d.head_commit_sha = "merge_requests"."head_sha"
            AND d.real_size IS NOT NULL AND "merge_requests"."state" NOT IN ('opened', 'locked') LIMIT 1)`
        : sql<string | null>`NULL`
      ).as('f_real_size'),
    })
    .from(mergeRequests)
    .where(sql`${MR}."id" IN ${ids}`);
}

type FactsRow = { id: number; assigneeIds: string; reviewerIds: string; notes: number; unresolved: number; explicit: number | null; commented: number; first: number; realSize: string | null };

/**
 * The `single` facts spread into the keys of the reads they replace, as those reads would have
 * answered (the parts the options leave out read NULL or 0, which answer nothing).
 */
function spreadFacts(out: Record<string, unknown>): void {
  const rows = out.facts as FactsRow[];
  // The presenter reads a merge request's people by id in position order.
  const people = (json: 'assigneeIds' | 'reviewerIds') => rows.flatMap((r) => (JSON.parse(r[json] ?? '[]') as number[]).map((userId, position) => ({ mergeRequestId: r.id, userId, position })));
  out.assignees = people('assigneeIds');
  out.reviewers = people('reviewerIds');
  out.noteCounts = rows.filter((r) => Number(r.notes) > 0).map((r) => ({ id: r.id, n: Number(r.notes) }));
  out.unresolved = rows.filter((r) => Number(r.unresolved) > 0).map((r) => ({ id: r.id, n: Number(r.unresolved) }));
  out.subscriptions = rows.filter((r) => r.explicit != null).map((r) => ({ id: r.id, subscribed: Boolean(r.explicit) }));
  out.commented = rows.filter((r) => Boolean(r.commented)).map((r) => ({ id: r.id }));
  out.firstContribution = rows.map((r) => ({ id: r.id, first: Number(r.first) }));
  out.recordedSizes = rows.filter((r) => r.realSize != null).map((r) => ({ id: r.id, realSize: r.realSize }));
}

/**
 * MergeRequest#first_contribution?: the author is not a member of the project (nor owns its user
 * namespace, nor belongs to its group or an ancestor) and had nothing merged in it before.
 */
function firstContributionRead(db: Db, ids: SQL) {
  return db
    .select({ id: mergeRequests.id, first: firstContributionSql().as('first_contribution') })
    .from(mergeRequests)
    .where(sql`${MR}."id" IN ${ids}`);
}

/** MergeRequest#first_contribution? of the `merge_requests` row of the select it sits in. */
function firstContributionSql() {
  const author = sql.raw('"merge_requests"."author_id"');
  const project = sql.raw('"merge_requests"."project_id"');
  return sql<number>`NOT EXISTS (SELECT 1 FROM members pm WHERE pm.user_id = ${author} AND pm.source_type = 'Project' AND pm.source_id = ${project})
        AND NOT EXISTS (SELECT 1 FROM projects p JOIN namespaces ns ON ns.id = p.namespace_id WHERE p.id = ${project} AND (
          (ns.kind = 'User' AND ns.owner_id = ${author})
          OR (ns.kind = 'Group' AND EXISTS (SELECT 1 FROM members gm JOIN namespaces g ON g.id = gm.source_id WHERE gm.user_id = ${author} AND gm.source_type = 'Namespace'
            AND ns.traversal_path >= g.traversal_path AND ns.traversal_path < g.traversal_path || ':'))))
        AND NOT EXISTS (SELECT 1 FROM merge_requests x WHERE x.project_id = ${project} AND x.author_id = ${author} AND x.state = 'merged')`;
}

export type PresenterReads = ReturnType<typeof presenterReads>;
type Item = BatchItem<'sqlite'>;
type LoadedOf<T> = T extends undefined ? undefined : Awaited<T>;
export type PresenterLoaded = { [K in keyof PresenterReads]: LoadedOf<PresenterReads[K]> };

/** The reads as a flat list for a batch, and how to put the batch's results back in place. */
export function flattenReads(r: PresenterReads): { list: Item[]; unflatten: (results: readonly unknown[]) => PresenterLoaded } {
  const list: Item[] = [];
  const at: [string, number][] = [];
  for (const [k, v] of Object.entries(r) as [string, Item | undefined][]) {
    if (v === undefined) continue;
    at.push([k, list.length]);
    list.push(v as Item);
  }
  return {
    list,
    unflatten: (results) => {
      const out: Record<string, unknown> = {};
      for (const [k, i] of at) out[k] = results[i];
      if (out.facts) spreadFacts(out);
      return out as PresenterLoaded;
    },
  };
}
