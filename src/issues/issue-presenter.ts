/**
 * Presents a page of issues in a fixed number of queries (GitLab preloads the same associations
 * and Gitlab::IssuableMetadata for lists): projects, users, assignees, labels, milestones, epics
 * and note counts are each one query per page (chunked for D1's 100 bound parameters).
 */
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import type { Db } from '../db/client';
import {
  epics,
  issueAssignees,
  labelLinks,
  labels,
  namespaces,
  notes,
  projects,
  subscriptions,
  users,
  mergeRequests,
  mergeRequestsClosingIssues,
} from '../db/schema';
import { type IssueRow, issueEntity } from './issue-entity';
import type { LabelRow } from '../planning/label-entity';
import { userBasic } from '../users/user-entity';
import { type NamespaceRow, type ProjectRow, mergeRequestVisibleSql } from '../projects/abilities';
import { timeStats } from '../platform/duration';
import { baseUrl } from '../platform/pagination';
import { planAllows } from '../platform/plan';
import { presentMilestonesById } from '../planning/milestones';
import { projectLoadedByRequest } from '../projects/projects';
import { settingsOf } from '../settings/settings';
import { inChunks } from '../platform/chunks';

const CHUNK = 90;

export interface PresentOptions {
  withLabelsDetails?: boolean;
  /** The group of a group list: references.relative is relative to it. */
  group?: NamespaceRow;
  /** The project of a project list or single-issue request. */
  project?: ProjectRow;
  /** Single-issue responses: `subscribed` (computed for the caller unless given). */
  subscribed?: boolean;
  includeSubscribed?: boolean;
  /** presentIssue without `subscribed` (list-like contexts such as to-do targets). */
  withoutSubscribed?: boolean;
}


/** Project#to_reference_base relative to the request's group or project (reference §5.2). */
function relativeReference(i: IssueRow, p: ProjectRow, ns: NamespaceRow, fullPath: string, o: PresentOptions): string {
  if (o.project) return o.project.id === p.id ? `#${i.iid}` : o.project.namespaceId === p.namespaceId ? `${p.path}#${i.iid}` : `${fullPath}#${i.iid}`;
  if (o.group) return o.group.id === ns.id ? `${p.path}#${i.iid}` : `${fullPath}#${i.iid}`;
  return `#${i.iid}`;
}

export async function presentIssues(c: Context<AppEnv>, caller: Caller, rows: IssueRow[], o: PresentOptions = {}) {
  if (!rows.length) return [];
  const db = c.var.db;
  const base = baseUrl(c);
  const ids = rows.map((r) => r.id);
  const premium = planAllows(c.var.config, 'premium');
  const ultimate = planAllows(c.var.config, 'ultimate');

  const [projectRows, assigneeRows, labelRows, noteCounts, milestones, epicRows, settings, mergeRequestCounts] = await Promise.all([
    inChunks(
      rows.map((r) => r.projectId).filter((id) => !projectLoadedByRequest(c, id)),
      (ch) => db.select({ project: projects, namespace: namespaces }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(inArray(projects.id, ch)).all(),
    ).then((loaded) => [...loaded, ...[...new Set(rows.map((r) => r.projectId))].flatMap((id) => projectLoadedByRequest(c, id) ?? [])]),
    inChunks(ids, (ch) => db.select().from(issueAssignees).where(inArray(issueAssignees.issueId, ch)).orderBy(issueAssignees.issueId, issueAssignees.position).all()),
    inChunks(ids, (ch) =>
      db
        .select({ targetId: labelLinks.targetId, label: labels })
        .from(labelLinks)
        .innerJoin(labels, eq(labels.id, labelLinks.labelId))
        .where(and(eq(labelLinks.targetType, 'Issue'), inArray(labelLinks.targetId, ch)))
        .all(),
    ),
    // Gitlab::IssuableMetadata#user_notes_count: comments, not system notes.
    inChunks(ids, (ch) =>
      db
        .select({ id: notes.noteableId, n: count() })
        .from(notes)
        .where(and(eq(notes.noteableType, 'Issue'), inArray(notes.noteableId, ch), eq(notes.system, false)))
        .groupBy(notes.noteableId)
        .all(),
    ),
    presentMilestonesById(db, base, rows.map((r) => r.milestoneId)),
    premium
      ? inChunks(
          rows.map((r) => r.epicId).filter((x): x is number => x != null),
          (ch) => db.select({ epic: epics, groupPath: namespaces.fullPath }).from(epics).innerJoin(namespaces, eq(namespaces.id, epics.groupId)).where(inArray(epics.id, ch)).all(),
        )
      : Promise.resolve([]),
    settingsOf(c),
    // Issue#merge_requests_count(user): merge requests the caller may see that close the issue.
    mergeRequestCountsForIssues(db, ids, caller),
  ]);

  const userIds = [...rows.flatMap((r) => [r.authorId, r.closedById ?? 0]), ...assigneeRows.map((a) => a.userId)].filter((x) => x > 0);
  // Only what UserBasic reads: a users row has ~55 columns and row conversion dominates a page's cost.
  const userRows = (await inChunks(userIds, (ch) =>
    db.select({ id: users.id, username: users.username, name: users.name, state: users.state, avatarPath: users.avatarPath, email: users.email }).from(users).where(inArray(users.id, ch)).all(),
  )) as unknown as UserRow[];
  const usersById = new Map<number, UserRow>(userRows.map((u) => [u.id, u]));
  const present = (id: number | null | undefined) => {
    const u = id != null ? usersById.get(id) : undefined;
    return u ? userBasic(u, { base }) : null;
  };

  const projectsById = new Map(projectRows.map((r) => [r.project.id, r]));
  const assignees = new Map<number, number[]>();
  for (const a of assigneeRows) assignees.set(a.issueId, [...(assignees.get(a.issueId) ?? []), a.userId]);
  const labelsByIssue = new Map<number, LabelRow[]>();
  for (const l of labelRows) labelsByIssue.set(l.targetId, [...(labelsByIssue.get(l.targetId) ?? []), l.label]);
  const notesByIssue = new Map(noteCounts.map((n) => [n.id, n.n]));
  const epicsById = new Map(epicRows.map((e) => [e.epic.id, e]));
  const limitToHours = Boolean(settings.time_tracking_limit_to_hours);

  const subscribed = o.includeSubscribed && o.subscribed === undefined ? await subscribedTo(db, caller, rows[0], assignees.get(rows[0].id) ?? []) : o.subscribed;

  return rows.map((i) => {
    const pr = projectsById.get(i.projectId)!;
    const fullPath = `${pr.namespace.fullPath}/${pr.project.path}`;
    const epic = i.epicId != null ? epicsById.get(i.epicId) : undefined;
    // EE Issue entity: epic attributes only for projects in a group with epics (Premium);
    // a confidential epic only for those who may read it.
    const showEpic = premium && pr.namespace.kind === 'Group';
    const epicVisible = epic && (!epic.epic.confidential || caller.isAdmin);
    return issueEntity(i, {
      base,
      projectFullPath: fullPath,
      relativeReference: relativeReference(i, pr.project, pr.namespace, fullPath, o),
      author: present(i.authorId)!,
      closedBy: present(i.closedById),
      assignees: (assignees.get(i.id) ?? []).map(present).filter((u) => u != null),
      labels: labelsByIssue.get(i.id) ?? [],
      withLabelsDetails: Boolean(o.withLabelsDetails),
      milestone: i.milestoneId != null ? (milestones.get(i.milestoneId) ?? null) : null,
      userNotesCount: notesByIssue.get(i.id) ?? 0,
      mergeRequestsCount: mergeRequestCounts.get(i.id) ?? 0,
      timeStats: timeStats(i, limitToHours),
      subscribed: rows.length === 1 && !o.withoutSubscribed ? subscribed : undefined,
      premium,
      ultimate,
      epic: showEpic
        ? epic && epicVisible
          ? { id: epic.epic.id, iid: epic.epic.iid, title: epic.epic.title, url: `${base}/groups/${epic.groupPath}/-/epics/${epic.epic.iid}`, group_id: epic.epic.groupId }
          : null
        : undefined,
    });
  });
}

export async function presentIssue(c: Context<AppEnv>, caller: Caller, row: IssueRow, o: PresentOptions = {}) {
  return (await presentIssues(c, caller, [row], { includeSubscribed: !o.withoutSubscribed, ...o }))[0];
}

/**
 * Issue#subscribed?: an explicit subscription row wins; otherwise participants (the author,
 * assignees, commenters) are subscribed.
 */
export async function subscribedTo(db: Db, caller: Caller, issue: IssueRow, assigneeIds: number[]): Promise<boolean> {
  const uid = caller.user?.id;
  if (uid == null) return false;
  const explicit = await db
    .select({ subscribed: subscriptions.subscribed })
    .from(subscriptions)
    .where(and(eq(subscriptions.subscribableType, 'Issue'), eq(subscriptions.subscribableId, issue.id), eq(subscriptions.userId, uid)))
    .get();
  if (explicit) return explicit.subscribed;
  if (issue.authorId === uid || assigneeIds.includes(uid)) return true;
  const commented = await db
    .select({ one: sql<number>`1` })
    .from(notes)
        // Unary + keeps SQLite off notes_author: without ANALYZE statistics it prefers that index and
    // walks every note the user ever wrote (6 ms for an active user) instead of this issue's few.
    .where(and(eq(notes.noteableType, 'Issue'), eq(notes.noteableId, issue.id), sql`+${notes.authorId} = ${uid}`, eq(notes.system, false)))
    .limit(1)
    .get();
  return commented != null;
}

/**
 * Issue entity `merge_requests_count` (Gitlab::IssuableMetadata): merge requests that close each
 * issue, counting only those the caller may read. Map issue id -> count (absent = 0).
 */
export async function mergeRequestCountsForIssues(db: Db, issueIds: number[], caller: Caller): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  const ids = [...new Set(issueIds)];
  const visible = mergeRequestVisibleSql(caller);
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await db
      .select({ issueId: mergeRequestsClosingIssues.issueId, n: count() })
      .from(mergeRequestsClosingIssues)
      .innerJoin(mergeRequests, eq(mergeRequests.id, mergeRequestsClosingIssues.mergeRequestId))
      .innerJoin(projects, eq(projects.id, mergeRequests.projectId))
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(and(inArray(mergeRequestsClosingIssues.issueId, ids.slice(i, i + CHUNK)), visible))
      .groupBy(mergeRequestsClosingIssues.issueId)
      .all();
    for (const r of rows) out.set(r.issueId, r.n);
  }
  return out;
}
