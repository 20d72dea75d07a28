/**
 * What the Issue entity needs beside the issue rows (GitLab preloads the same associations and
 * Gitlab::IssuableMetadata for lists), as UNEXECUTED queries over a set of issue ids given as SQL:
 * the page query itself (`SELECT id FROM (<page>)`), one issue by project and iid, or `json_each(?)`.
 * The caller sends them in the batch that reads the rows (or the project), so a page costs the same
 * round trips for one issue or a hundred (../shared/DESIGN.md "Data access").
 */
import { and, count, eq, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { Caller } from '../platform/context';
import type { Db } from '../db/client';
import { aliasedColumns } from '../db/aliased-columns';
import { epics, issueAssignees, issueLinks, issues, labelLinks, labels, mergeRequests, mergeRequestsClosingIssues, milestones, namespaces, notes, projects, users } from '../db/schema';
import { mergeRequestVisibleSql } from '../projects/abilities';
import { cachedQueries } from '../db/prepared';
import { today } from '../platform/time';
import { issueIdRefOf, type IssueRef, issueRefValues } from './issues';

/** A SELECT of issue ids, for `IN (…)`. */
export type IssueIds = SQL;

/** The ids of a page query (any select over `issues` with an `id` column). */
export const pageIds = (page: { getSQL(): SQL }): IssueIds => sql`SELECT id FROM (${page.getSQL()})`;
/** The ids of a known list (one parameter, fixed statement text). */
export const jsonIds = (ids: readonly number[]): IssueIds => sql`SELECT value FROM json_each(${JSON.stringify(ids)})`;

export interface IssueReadOptions {
  /** Read the issues' projects (group and instance lists; a project's own list already has it). */
  projects: boolean;
  premium: boolean;
  /** Single-issue answers: the caller's explicit subscription and whether they commented. */
  subscription: boolean;
}

/** Only what UserBasic reads: a users row has ~55 columns and row conversion dominates a page's cost. */
const userBasicColumns = { id: users.id, username: users.username, name: users.name, state: users.state, avatarPath: users.avatarPath, email: users.email };

export function issueReads(db: Db, caller: Caller, ids: IssueIds, o: IssueReadOptions) {
  const uid = caller.user?.id;
  const inIds = (column: SQLWrapper) => sql`${column} IN (${ids})`;
  return [
    db.select().from(issueAssignees).where(inIds(issueAssignees.issueId)).orderBy(issueAssignees.issueId, issueAssignees.position),
    db
      .select({ targetId: labelLinks.targetId, label: labels })
      .from(labelLinks)
      .innerJoin(labels, eq(labels.id, labelLinks.labelId))
      .where(and(eq(labelLinks.targetType, 'Issue'), inIds(labelLinks.targetId))),
    // Gitlab::IssuableMetadata#user_notes_count: comments, not system notes.
    db
      .select({ id: notes.noteableId, n: count() })
      .from(notes)
      .where(and(eq(notes.noteableType, 'Issue'), inIds(notes.noteableId), eq(notes.system, false)))
      .groupBy(notes.noteableId),
    // Issue#merge_requests_count(user): merge requests the caller may see that close the issue.
    db
      .select({ issueId: mergeRequestsClosingIssues.issueId, n: count() })
      .from(mergeRequestsClosingIssues)
      .innerJoin(mergeRequests, eq(mergeRequests.id, mergeRequestsClosingIssues.mergeRequestId))
      .innerJoin(projects, eq(projects.id, mergeRequests.projectId))
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(and(inIds(mergeRequestsClosingIssues.issueId), mergeRequestVisibleSql(caller)))
      .groupBy(mergeRequestsClosingIssues.issueId),
    // Authors, closers and assignees in one read. The ids are materialized once: written three
    // times, a filtered page (labels, dates) ran three times, the costliest read of the list.
    db
      .select(userBasicColumns)
      .from(users)
      .where(
        sql`${users.id} IN (WITH page(id) AS MATERIALIZED (${ids}) SELECT i.author_id FROM issues i WHERE i.id IN page UNION SELECT i.closed_by_id FROM issues i WHERE i.id IN page UNION SELECT a.user_id FROM issue_assignees a WHERE a.issue_id IN page)`,
      ),
    // Milestones with the full paths of their web_url (outer columns written qualified: see abilities.ts NS_PATH).
    db
      .select({
        milestone: milestones,
        projectPath: sql<string | null>`(SELECT n.full_path || '/' || p.path FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE p.id = "milestones"."project_id")`,
        groupPath: sql<string | null>`(SELECT n.full_path FROM namespaces n WHERE n.id = "milestones"."group_id")`,
      })
      .from(milestones)
      .where(sql`${milestones.id} IN (SELECT i.milestone_id FROM issues i WHERE i.id IN (${ids}))`),
    // Columns aliased apart: in a D1 batch Drizzle maps rows from objects keyed by column name,
    // where projects.id and namespaces.id (and every other shared name) would collapse into one.
    o.projects
      ? db
          .select({ project: aliasedColumns(projects, 'p_'), namespace: aliasedColumns(namespaces, 'n_') })
          .from(projects)
          .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
          .where(sql`${projects.id} IN (SELECT i.project_id FROM issues i WHERE i.id IN (${ids}))`)
      : undefined,
    o.premium
      ? db
          .select({ epic: epics, groupPath: namespaces.fullPath })
          .from(epics)
          .innerJoin(namespaces, eq(namespaces.id, epics.groupId))
          .where(sql`${epics.id} IN (SELECT i.epic_id FROM issues i WHERE i.id IN (${ids}))`)
      : undefined,
    // Issue#subscribed?: an explicit subscription row wins; otherwise participants are subscribed
    // (author and assignees are known from the rows above; commenters are read here). Unary + keeps
    // SQLite off notes_author, which it would otherwise walk for every note the user ever wrote.
    o.subscription && uid != null
      ? db
          .select({
            id: sql<number>`i.id`,
            explicit: sql<number | null>`(SELECT s.subscribed FROM subscriptions s WHERE s.subscribable_type = 'Issue' AND s.subscribable_id = i.id AND s.user_id = ${uid})`,
            commented: sql<number>`EXISTS (SELECT 1 FROM notes n WHERE n.noteable_type = 'Issue' AND n.noteable_id = i.id AND +n.author_id = ${uid} AND n.system = 0)`,
          })
          .from(sql`issues i`)
          .where(sql`i.id IN (${ids})`)
      : undefined,
    // EE Issue#blocking_issues_count: the open issues each one blocks (IssueLink.blocking_issues_for_collection;
    // `is_blocked_by` is stored reversed, so `blocks` from the source is every case).
    o.premium
      ? db
          .select({ id: issueLinks.sourceId, n: count() })
          .from(issueLinks)
          .innerJoin(issues, eq(issues.id, issueLinks.targetId))
          .where(and(inIds(issueLinks.sourceId), eq(issueLinks.linkType, 'blocks'), eq(issues.state, 'opened')))
          .groupBy(issueLinks.sourceId)
      : undefined,
  ] as const;
}

/**
 * issueReads of the one issue of a lookup (findReadableIssueWith's IssueRef), built once per
 * project reference shape and readsKey (src/db/prepared.ts); the project and iid are placeholders.
 */
export function oneIssueReads(db: Db, caller: Caller, ref: IssueRef, o: IssueReadOptions) {
  return cachedQueries(db, `issue-reads:${ref.project.shape}:${readsKey(caller, o)}`, (d) => issueReads(d, caller, issueIdRefOf(ref), o), issueRefValues(ref));
}

/**
 * issueReads of a page, built once per page text (and what readsKey names): the page query,
 * rendered once (prepared.ts fragmentOf), is the statements' id list with its values as
 * placeholders. A list with the same filters has the same page text whatever their values.
 */
export function pageIssueReads(db: Db, caller: Caller, page: { text: string; fragment: SQL; values: Record<string, unknown> }, o: IssueReadOptions) {
  return cachedQueries(db, `issue-page-reads:${readsKey(caller, o)}:${page.text}`, (d) => issueReads(d, caller, sql`SELECT id FROM (${page.fragment})`, o), page.values);
}

/**
 * issueReads of a page whose ids are known (read in the round trip before), keyed by them as one
 * JSON parameter `ids`: the statements' text never changes, so they are built once per readsKey,
 * and none re-runs the list's filters (each statement hung off the page query did, ~10 per page).
 */
export function knownIssueReads(db: Db, caller: Caller, ids: readonly number[], o: IssueReadOptions) {
  return cachedQueries(db, `issue-known-reads:${readsKey(caller, o)}`, (d) => issueReads(d, caller, sql`SELECT value FROM json_each(${sql.placeholder('ids')})`, o), { ids: JSON.stringify(ids) });
}

/** What shapes issueReads' text beside the ids: the options, the caller (its id is written into the merge request visibility test) and the day (membership expiry). */
function readsKey(caller: Caller, o: IssueReadOptions): string {
  const who = caller.user ? `${caller.user.id}${caller.user.external ? 'x' : ''}` : 'anonymous';
  return `${Number(o.projects)}${Number(o.premium)}${Number(o.subscription)}:${caller.isAdmin ? 'admin' : ''}${who}:${today()}`;
}

type Reads = ReturnType<typeof issueReads>;
type Result<T> = T extends PromiseLike<infer U> ? U : undefined;
/** The results of issueReads, in order (undefined for skipped slots). */
type Results<Q extends readonly unknown[]> = { -readonly [K in keyof Q]: Result<Q[K]> };
export type IssueReadResults = Results<Reads>;
