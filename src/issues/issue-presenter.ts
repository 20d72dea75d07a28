/**
 * Presents issues (GitLab preloads the same associations and Gitlab::IssuableMetadata for lists):
 * everything beside the rows comes from issueReads (issue-reads.ts), read in the same round trip
 * as the rows where the route can, else in one round trip of its own.
 */
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { type IssueRow, issueEntity } from './issue-entity';
import type { LabelRow } from '../planning/label-entity';
import { milestoneEntity } from '../planning/milestone-entity';
import { type UserBasic, userBasic } from '../users/user-entity';
import type { NamespaceRow, ProjectRow } from '../projects/abilities';
import { timeStats } from '../platform/duration';
import { baseUrl } from '../platform/pagination';
import { planAllows } from '../platform/plan';
import { projectLoadedByRequest } from '../projects/projects';
import type { ProjectWithNamespace } from '../projects/project-queries';
import { settingsOf } from '../settings/settings';
import { batchReads, writeThenRead } from '../db/batch-reads';
import type { BatchItem } from 'drizzle-orm/batch';
import { sql } from 'drizzle-orm';
import { issues } from '../db/schema';
import { type IssueIds, type IssueReadOptions, type IssueReadResults, issueReads, jsonIds } from './issue-reads';

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

/**
 * Presents a page of issues, reading what the entity needs in one round trip (issueReads over the
 * rows' ids). Routes that read the rows themselves send issueReads in that batch instead and call
 * presentIssueRows.
 */
export async function presentIssues(c: Context<AppEnv>, caller: Caller, rows: IssueRow[], o: PresentOptions = {}) {
  if (!rows.length) return [];
  const reads = issueReads(c.var.db, caller, jsonIds(rows.map((r) => r.id)), issueReadOptions(c, rows, o));
  return presentIssueRows(c, caller, rows, (await batchReads(c.var.db, reads)) as IssueReadResults, o);
}

/** The issueReads a presentation of `rows` (or of rows about to be read, `rows` undefined) needs. */
export function issueReadOptions(c: Context<AppEnv>, rows: IssueRow[] | undefined, o: PresentOptions = {}): IssueReadOptions {
  return {
    projects: !rows || rows.some((r) => !projectLoadedByRequest(c, r.projectId)),
    premium: planAllows(c.var.config, 'premium'),
    subscription: Boolean(o.includeSubscribed && o.subscribed === undefined && !o.withoutSubscribed),
  };
}

/** The Issue entities of `rows` from issueReads' results: no storage beyond the (cached) settings. */
export async function presentIssueRows(c: Context<AppEnv>, caller: Caller, rows: IssueRow[], reads: IssueReadResults, o: PresentOptions = {}) {
  if (!rows.length) return [];
  const base = baseUrl(c);
  const premium = planAllows(c.var.config, 'premium');
  const ultimate = planAllows(c.var.config, 'ultimate');
  const [assigneeRows, labelRows, noteCounts, mergeRequestCounts, userRows, milestoneRows, projectRows, epicRows, subscriptionRows, blockingRows] = reads;
  const blockingById = new Map((blockingRows ?? []).map((b) => [b.id, Number(b.n)]));
  const settings = await settingsOf(c);

  const usersById = new Map<number, UserRow>((userRows as unknown as UserRow[]).map((u) => [u.id, u]));
  // Each user is presented once per page (an author of many issues, an assignee): UserBasic's
  // avatar_url hashes the email (Gravatar MD5), the costliest part of a user on workerd.
  const presented = new Map<number, UserBasic>();
  const present = (id: number | null | undefined): UserBasic | null => {
    if (id == null) return null;
    let p = presented.get(id);
    if (p === undefined) {
      const u = usersById.get(id);
      if (!u) return null;
      presented.set(id, (p = userBasic(u, { base })));
    }
    return p;
  };
  const projectsById = new Map<number, ProjectWithNamespace>((projectRows ?? []).map((r) => [r.project.id, r]));
  for (const r of rows) {
    if (projectsById.has(r.projectId)) continue;
    const known = projectLoadedByRequest(c, r.projectId);
    if (known) projectsById.set(r.projectId, known);
  }
  const assignees = new Map<number, number[]>();
  for (const a of assigneeRows) assignees.set(a.issueId, [...(assignees.get(a.issueId) ?? []), a.userId]);
  const labelsByIssue = new Map<number, LabelRow[]>();
  for (const l of labelRows) labelsByIssue.set(l.targetId, [...(labelsByIssue.get(l.targetId) ?? []), l.label]);
  const notesByIssue = new Map(noteCounts.map((n) => [n.id, n.n]));
  const mergeRequestsByIssue = new Map(mergeRequestCounts.map((m) => [m.issueId, m.n]));
  const milestonesById = new Map(
    milestoneRows.map((m) => [m.milestone.id, milestoneEntity(m.milestone, { base, projectFullPath: m.projectPath ?? undefined, groupFullPath: m.groupPath ?? undefined })]),
  );
  const epicsById = new Map((epicRows ?? []).map((e) => [e.epic.id, e]));
  const limitToHours = Boolean(settings.time_tracking_limit_to_hours);

  const subscribedOf = (i: IssueRow): boolean | undefined => {
    if (o.subscribed !== undefined) return o.subscribed;
    if (!o.includeSubscribed) return undefined;
    return subscribedFrom(caller, i, assignees.get(i.id) ?? [], subscriptionRows?.find((s) => Number(s.id) === i.id));
  };

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
      milestone: i.milestoneId != null ? (milestonesById.get(i.milestoneId) ?? null) : null,
      userNotesCount: notesByIssue.get(i.id) ?? 0,
      mergeRequestsCount: mergeRequestsByIssue.get(i.id) ?? 0,
      timeStats: timeStats(i, limitToHours),
      subscribed: rows.length === 1 && !o.withoutSubscribed ? subscribedOf(i) : undefined,
      premium,
      blockingIssuesCount: blockingById.get(i.id) ?? 0,
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
 * assignees, commenters) are subscribed. `row` is issueReads' subscription slot for the issue.
 */
export function subscribedFrom(caller: Caller, issue: Pick<IssueRow, 'authorId'>, assigneeIds: number[], row: { explicit: number | null; commented: number } | undefined): boolean {
  const uid = caller.user?.id;
  if (uid == null) return false;
  if (row?.explicit != null) return Boolean(row.explicit);
  return issue.authorId === uid || assigneeIds.includes(uid) || Boolean(row?.commented);
}

/**
 * An issue write and its answer in one round trip: `writes` run (all or none), then the issue
 * (`ids` names it as SQL, evaluated inside the same batch, after the writes) and its entity's reads.
 * Returns null when the issue is not there after the writes.
 */
export async function writeAndPresentIssue(c: Context<AppEnv>, caller: Caller, writes: readonly BatchItem<'sqlite'>[], ids: IssueIds, o: PresentOptions = {}) {
  const db = c.var.db;
  const reads = issueReads(db, caller, ids, { ...issueReadOptions(c, undefined, { includeSubscribed: !o.withoutSubscribed, ...o }), projects: false });
  const [rows, ...extras] = await writeThenRead(db, writes, [db.select().from(issues).where(sql`${issues.id} IN (${ids})`).limit(1), ...reads]);
  if (!rows[0]) return null;
  return (await presentIssueRows(c, caller, rows, extras as unknown as IssueReadResults, { includeSubscribed: !o.withoutSubscribed, ...o }))[0];
}
