/**
 * The merge request presenter: a page of rows -> MergeRequestBasic or MergeRequest entities, with a
 * fixed number of queries per page (everything a row needs is loaded for the whole page), plus the
 * per-request answers only the full entity shows (subscribed, first_contribution).
 */
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import { labelLinks, labels, members, mergeRequestAssignees, mergeRequestReviewers, mergeRequests, namespaces, notes, projects, subscriptions, users } from '../db/schema';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { timeStats } from '../platform/duration';
import { baseUrl } from '../platform/pagination';
import { planAllows } from '../platform/plan';
import { withReadMemo } from '../platform/read-memo';
import type { LabelRow } from '../planning/label-entity';
import { presentMilestonesById } from '../planning/milestones';
import { ACCESS, featureAvailable, type NamespaceRow, projectAccess, type ProjectRow } from '../projects/abilities';
import { commitsBetween, primeBranchHeads } from '../repository/repository';
import { settingsOf } from '../settings/settings';
import { userBasic } from '../users/user-entity';
import { mergeRequestApprovals } from './approvals-port';
import { isApproved, liveState } from './live-state';
import { canBeMergedBy } from './merge-request-access';
import { type MergeRequest, type MergeRequestBasic, mergeRequestBasic, mergeRequestEntity, type MergeRequestRow } from './merge-request-entity';
import { inChunks } from '../platform/chunks';

export interface PresentMrOptions {
  project?: ProjectRow;
  group?: NamespaceRow;
  withLabelsDetails?: boolean;
  /** Entities::MergeRequest instead of MergeRequestBasic. */
  full?: boolean;
  /** Full entity without `subscribed` (related_merge_requests). */
  withoutSubscribed?: boolean;
  firstContribution?: boolean;
  includeRebaseInProgress?: boolean;
  includeDivergedCommitsCount?: boolean;
  /** Known approval answer for a single merge request (defaults to asking the approvals service). */
  approved?: boolean;
}


function relativeReference(m: MergeRequestRow, p: ProjectRow, ns: NamespaceRow, fullPath: string, o: PresentMrOptions): string {
  if (o.project) return o.project.id === p.id ? `!${m.iid}` : o.project.namespaceId === p.namespaceId ? `${p.path}!${m.iid}` : `${fullPath}!${m.iid}`;
  if (o.group) return o.group.id === ns.id ? `${p.path}!${m.iid}` : `${fullPath}!${m.iid}`;
  return `!${m.iid}`;
}

export async function presentMergeRequests(c: Context<AppEnv>, caller: Caller, rows: MergeRequestRow[], o: PresentMrOptions = {}): Promise<(MergeRequestBasic | MergeRequest)[]> {
  if (!rows.length) return [];
  // Presenting only reads (lib/read-memo.ts): branch heads, manifests and each project's approval
  // configuration are read once for the page, the heads of every open merge request in one query.
  return withReadMemo(c, async () => {
    const open = rows.filter((r) => r.state === 'opened' || r.state === 'locked');
    await primeBranchHeads(c, [...open.map((r) => ({ projectId: r.sourceProjectId, name: r.sourceBranch })), ...open.map((r) => ({ projectId: r.projectId, name: r.targetBranch }))]);
    await mergeRequestApprovals.get().primeReads(c, open);
    return presentRows(c, caller, rows, o);
  });
}

async function presentRows(c: Context<AppEnv>, caller: Caller, rows: MergeRequestRow[], o: PresentMrOptions): Promise<(MergeRequestBasic | MergeRequest)[]> {
  const db = c.var.db;
  const base = baseUrl(c);
  const ids = rows.map((r) => r.id);
  const premium = planAllows(c.var.config, 'premium');

  const [projectRows, assigneeRows, reviewerRows, labelRows, noteCounts, milestones, settings, unresolved] = await Promise.all([
    inChunks(
      rows.map((r) => r.projectId),
      (ch) => db.select({ project: projects, namespace: namespaces }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(inArray(projects.id, ch)).all(),
    ),
    inChunks(ids, (ch) => db.select().from(mergeRequestAssignees).where(inArray(mergeRequestAssignees.mergeRequestId, ch)).orderBy(mergeRequestAssignees.mergeRequestId, mergeRequestAssignees.position).all()),
    inChunks(ids, (ch) => db.select().from(mergeRequestReviewers).where(inArray(mergeRequestReviewers.mergeRequestId, ch)).orderBy(mergeRequestReviewers.mergeRequestId, mergeRequestReviewers.position).all()),
    inChunks(ids, (ch) =>
      db
        .select({ targetId: labelLinks.targetId, label: labels })
        .from(labelLinks)
        .innerJoin(labels, eq(labels.id, labelLinks.labelId))
        .where(and(eq(labelLinks.targetType, 'MergeRequest'), inArray(labelLinks.targetId, ch)))
        .all(),
    ),
    inChunks(ids, (ch) =>
      db
        .select({ id: notes.noteableId, n: count() })
        .from(notes)
        .where(and(eq(notes.noteableType, 'MergeRequest'), inArray(notes.noteableId, ch), eq(notes.system, false)))
        .groupBy(notes.noteableId)
        .all(),
    ),
    presentMilestonesById(db, base, rows.map((r) => r.milestoneId)),
    settingsOf(c),
    // mergeable_discussions_state?: resolvable discussions left unresolved.
    inChunks(ids, (ch) =>
      db
        .select({ id: notes.noteableId, n: count() })
        .from(notes)
        .where(and(eq(notes.noteableType, 'MergeRequest'), inArray(notes.noteableId, ch), eq(notes.resolvable, true), sql`${notes.resolvedAt} IS NULL`))
        .groupBy(notes.noteableId)
        .all(),
    ),
  ]);

  const userIds = [
    ...rows.flatMap((r) => [r.authorId, r.closedById ?? 0, r.mergedById ?? 0, r.mergeUserId ?? 0]),
    ...assigneeRows.map((a) => a.userId),
    ...reviewerRows.map((a) => a.userId),
  ].filter((x) => x > 0);
  const userRows = (await inChunks(userIds, (ch) =>
    db.select({ id: users.id, username: users.username, name: users.name, state: users.state, avatarPath: users.avatarPath, email: users.email }).from(users).where(inArray(users.id, ch)).all(),
  )) as unknown as UserRow[];
  const usersById = new Map<number, UserRow>(userRows.map((u) => [u.id, u]));
  const present = (id: number | null | undefined) => {
    const u = id != null ? usersById.get(id) : undefined;
    return u ? userBasic(u, { base }) : null;
  };
  const projectsById = new Map(projectRows.map((r) => [r.project.id, r]));
  const group = <T extends { mergeRequestId: number; userId: number }>(list: T[]) => {
    const out = new Map<number, number[]>();
    for (const a of list) out.set(a.mergeRequestId, [...(out.get(a.mergeRequestId) ?? []), a.userId]);
    return out;
  };
  const assignees = group(assigneeRows);
  const reviewers = group(reviewerRows);
  const labelsByMr = new Map<number, LabelRow[]>();
  for (const l of labelRows) labelsByMr.set(l.targetId, [...(labelsByMr.get(l.targetId) ?? []), l.label]);
  const notesByMr = new Map(noteCounts.map((n) => [n.id, n.n]));
  const unresolvedByMr = new Map(unresolved.map((n) => [n.id, n.n]));
  const limitToHours = Boolean(settings.time_tracking_limit_to_hours);

  // Each row's live state (branch heads, manifests, approvals) is independent: read them concurrently.
  const presentOne = async (m: MergeRequestRow) => {
    const pr = projectsById.get(m.projectId)!;
    const fullPath = `${pr.namespace.fullPath}/${pr.project.path}`;
    const open = m.state === 'opened' || m.state === 'locked';
    const live = await liveState(c, m, { changes: o.full, approved: true, mergeMethod: pr.project.mergeMethod });
    // Approvals decide only what the earlier checks (draft, commits) leave open: ask only then.
    if (open && ['mergeable', 'conflict', 'need_rebase'].includes(live.detailedMergeStatus) && !(o.approved ?? (await isApproved(c, m)))) {
      live.approved = false;
      live.detailedMergeStatus = 'not_approved';
    }
    const x = {
      base,
      projectFullPath: fullPath,
      relativeReference: relativeReference(m, pr.project, pr.namespace, fullPath, o),
      author: present(m.authorId),
      mergedBy: present(m.mergedById),
      mergeUser: present(m.mergeUserId),
      closedBy: present(m.closedById),
      assignees: (assignees.get(m.id) ?? []).map(present).filter((u) => u != null),
      reviewers: (reviewers.get(m.id) ?? []).map(present).filter((u) => u != null),
      labels: labelsByMr.get(m.id) ?? [],
      withLabelsDetails: Boolean(o.withLabelsDetails),
      milestone: m.milestoneId != null ? (milestones.get(m.milestoneId) ?? null) : null,
      userNotesCount: notesByMr.get(m.id) ?? 0,
      timeStats: timeStats(m, limitToHours),
      live,
      blockingDiscussionsResolved: (unresolvedByMr.get(m.id) ?? 0) === 0,
      premium,
      squashOption: pr.project.squashOption,
    };
    if (!o.full) return mergeRequestBasic(m, x);
    const level = await projectAccess(db, caller.user, pr.project, pr.namespace);
    const subscribed = o.withoutSubscribed ? undefined : await subscribedToMergeRequest(db, caller, m, assignees.get(m.id) ?? [], reviewers.get(m.id) ?? []);
    const buildsReadable = featureAvailable(pr.project, 'builds', { level, isAdmin: caller.isAdmin }) && (pr.project.visibility !== 'private' || caller.isAdmin || level >= ACCESS.REPORTER);
    return mergeRequestEntity(m, {
      ...x,
      subscribed,
      // MergeRequest#can_be_merged_by? has no state check: a merged request still answers for the branch.
      canMerge: caller.user ? await canBeMergedBy(c, caller, pr.project, level, m.targetBranch) : false,
      buildsAvailable: buildsReadable,
      readPipeline: buildsReadable,
      firstContribution: o.firstContribution ? await firstContribution(db, m) : undefined,
      // No rebase runs here.
      rebaseInProgress: o.includeRebaseInProgress ? false : undefined,
      // MergeRequest#diverged_commits_count: target commits since the merge base (0 once closed or merged).
      divergedCommitsCount: o.includeDivergedCommitsCount
        ? open && live.targetHead && live.mergeBase !== live.targetHead
          ? (await commitsBetween(db, m.projectId, live.mergeBase, live.targetHead)).length
          : 0
        : undefined,
    });
  };
  return Promise.all(rows.map(presentOne));
}

/** Entities::MergeRequest of one merge request. */
export async function presentMergeRequest(c: Context<AppEnv>, caller: Caller, row: MergeRequestRow, o: Omit<PresentMrOptions, 'full'> = {}): Promise<MergeRequest> {
  // `full: true` makes every element a MergeRequest (presentRows' last branch).
  return (await presentMergeRequests(c, caller, [row], { ...o, full: true }))[0] as MergeRequest;
}

/** MergeRequest#first_contribution?: the author is not a member and had nothing merged in the project before. */
async function firstContribution(db: Db, m: MergeRequestRow): Promise<boolean> {
  const member = await db
    .select({ one: sql`1` })
    .from(members)
    .where(and(eq(members.userId, m.authorId), eq(members.sourceType, 'Project'), eq(members.sourceId, m.projectId)))
    .limit(1)
    .get();
  if (member) return false;
  const ns = await db.select({ kind: namespaces.kind, ownerId: namespaces.ownerId, path: namespaces.traversalPath }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(eq(projects.id, m.projectId)).get();
  if (ns?.kind === 'User' && ns.ownerId === m.authorId) return false;
  if (ns?.kind === 'Group' && ns.path) {
    const groupIds = ns.path.split('/').filter(Boolean).map(Number);
    const gm = await db
      .select({ one: sql`1` })
      .from(members)
      .where(and(eq(members.userId, m.authorId), eq(members.sourceType, 'Namespace'), inArray(members.sourceId, groupIds)))
      .limit(1)
      .get();
    if (gm) return false;
  }
  const merged = await db
    .select({ one: sql`1` })
    .from(mergeRequests)
    .where(and(eq(mergeRequests.projectId, m.projectId), eq(mergeRequests.authorId, m.authorId), eq(mergeRequests.state, 'merged')))
    .limit(1)
    .get();
  return !merged;
}

/** Subscribable#subscribed?: an explicit row wins; otherwise participants (author, assignees, reviewers, commenters). */
export async function subscribedToMergeRequest(db: Db, caller: Caller, m: MergeRequestRow, assigneeIds: number[], reviewerIds: number[]): Promise<boolean> {
  const uid = caller.user?.id;
  if (uid == null) return false;
  const explicit = await db
    .select({ subscribed: subscriptions.subscribed })
    .from(subscriptions)
    .where(and(eq(subscriptions.subscribableType, 'MergeRequest'), eq(subscriptions.subscribableId, m.id), eq(subscriptions.userId, uid)))
    .get();
  if (explicit) return explicit.subscribed;
  if (m.authorId === uid || assigneeIds.includes(uid) || reviewerIds.includes(uid)) return true;
  const commented = await db
    .select({ one: sql<number>`1` })
    .from(notes)
    .where(and(eq(notes.noteableType, 'MergeRequest'), eq(notes.noteableId, m.id), sql`+${notes.authorId} = ${uid}`, eq(notes.system, false)))
    .limit(1)
    .get();
  return commented != null;
}
