/**
 * The merge request presenter: a page of rows -> MergeRequestBasic or MergeRequest entities, with a
 * fixed number of queries per page (everything a row needs is loaded for the whole page), plus the
 * per-request answers only the full entity shows (subscribed, first_contribution).
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import { notes, subscriptions } from '../db/schema';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { timeStats } from '../platform/duration';
import { baseUrl } from '../platform/pagination';
import { planAllows } from '../platform/plan';
import { peekMemo, primeMemo, withReadMemo } from '../platform/read-memo';
import type { LabelRow } from '../planning/label-entity';
import { milestoneEntity } from '../planning/milestone-entity';
import { ACCESS, featureAvailable, type NamespaceRow, type ProjectRow } from '../projects/abilities';
import { primeProtectedBranches, type ProtectedBranchRow } from '../repository/protected-branches';
import { changedFiles, commitsBetween, mergeFacts, type MergeFacts, storedMergeFacts } from '../repository/repository';
import { factCache } from '../repository/sha-cache';
import { settingsOf } from '../settings/settings';
import { userBasic } from '../users/user-entity';
import { mergeRequestApprovals } from './approvals-port';
import { isApproved, type LiveInputs, liveStateFrom } from './live-state';
import { canBeMergedBy } from './merge-request-access';
import { type MergeRequest, type MergeRequestBasic, mergeRequestBasic, mergeRequestEntity, type MergeRequestRow } from './merge-request-entity';
import { flattenReads, idsOfPage, type PresenterLoaded, presenterReads } from './presenter-reads';
import { rebaseMarkActive } from './rebase-mark';

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
  /** The approval state was read into the request's memo already (approvals-port.ts `stateReads`). */
  approvalsPrimed?: boolean;
  /** Known approval answer for a single merge request (defaults to asking the approvals service). */
  approved?: boolean;
}


function relativeReference(m: MergeRequestRow, p: ProjectRow, ns: NamespaceRow, fullPath: string, o: PresentMrOptions): string {
  if (o.project) return o.project.id === p.id ? `!${m.iid}` : o.project.namespaceId === p.namespaceId ? `${p.path}!${m.iid}` : `${fullPath}!${m.iid}`;
  if (o.group) return o.group.id === ns.id ? `${p.path}!${m.iid}` : `${fullPath}!${m.iid}`;
  return `!${m.iid}`;
}

export async function presentMergeRequests(
  c: Context<AppEnv>,
  caller: Caller,
  rows: MergeRequestRow[],
  o: PresentMrOptions = {},
  loaded?: PresenterLoaded,
): Promise<(MergeRequestBasic | MergeRequest)[]> {
  if (!rows.length) return [];
  // Presenting only reads (lib/read-memo.ts): what the rows share is read once for the page, in one
  // batch (presenter-reads.ts) unless the caller's own batch brought it (`loaded`).
  return withReadMemo(c, async () => {
    const data = loaded ?? (await loadPresenterReads(c.var.db, caller, idsOfPage(rows.map((r) => r.id)), o));
    const open = rows.filter((r) => r.state === 'opened' || r.state === 'locked');
    const heads = new Map(data.heads.map((h) => [`${h.projectId}:${h.name}`, h.sha]));
    const branchRefs = [...open.map((r) => ({ projectId: r.sourceProjectId, name: r.sourceBranch })), ...open.map((r) => ({ projectId: r.projectId, name: r.targetBranch }))];
    primeMemo(c, branchRefs.map((r) => [`head:${r.projectId}:${r.name}`, heads.get(`${r.projectId}:${r.name}`) ?? null]));
    const pbRows = data.protectedBranchRows ?? (await Promise.all([...new Set(rows.map((r) => r.projectId))].map((id) => peekMemo<ProtectedBranchRow[]>(c, `protected-branches:${id}`) ?? [])));
    primeProtectedBranches(c, pbRows.flat(), data.protectedBranchLevels, rows.map((r) => ({ projectId: r.projectId, name: r.targetBranch })));
    if (!o.approvalsPrimed) await mergeRequestApprovals.get().primeReads(c, open);
    // Merge bases, conflicts and change counts are functions of the two heads: stored on the row by
    // the last push while both heads still match (refresh.ts), else kept per isolate, read for all
    // rows at once when cold.
    const factsById = new Map<number, MergeFacts>();
    const pairs = open.flatMap((r) => {
      const head = heads.get(`${r.sourceProjectId}:${r.sourceBranch}`);
      const targetHead = heads.get(`${r.projectId}:${r.targetBranch}`);
      if (!head || !targetHead) return [];
      const stored = storedMergeFacts(r, targetHead, head);
      if (stored) factsById.set(r.id, stored);
      return stored ? [] : [{ id: r.id, pair: { projectId: r.projectId, targetHead, head } }];
    });
    const facts = await mergeFacts(c.var.db, pairs.map((p) => p.pair));
    pairs.forEach((p, i) => factsById.set(p.id, facts[i]));
    const live = (m: MergeRequestRow): LiveInputs => ({ head: heads.get(`${m.sourceProjectId}:${m.sourceBranch}`) ?? null, targetHead: heads.get(`${m.projectId}:${m.targetBranch}`) ?? null, facts: factsById.get(m.id) ?? null });
    return presentRows(c, caller, rows, o, data, live);
  });
}

/** The presenter's reads in one batch. */
export async function loadPresenterReads(db: Db, caller: Caller, ids: SQL, o: PresentMrOptions): Promise<PresenterLoaded> {
  const { list, unflatten } = flattenReads(presenterReads(db, caller, ids, readOptions(o)));
  return unflatten((await db.batch(list as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as unknown as unknown[]);
}

/** What presenting with `o` reads (presenter-reads.ts). */
export const readOptions = (o: PresentMrOptions) => ({ full: o.full, subscribed: !o.withoutSubscribed, firstContribution: o.firstContribution, protectedBranchRows: !o.approvalsPrimed });

async function presentRows(
  c: Context<AppEnv>,
  caller: Caller,
  rows: MergeRequestRow[],
  o: PresentMrOptions,
  data: PresenterLoaded,
  inputs: (m: MergeRequestRow) => LiveInputs,
): Promise<(MergeRequestBasic | MergeRequest)[]> {
  const db = c.var.db;
  const base = baseUrl(c);
  const premium = planAllows(c.var.config, 'premium');
  const settings = await settingsOf(c);

  const usersById = new Map<number, UserRow>((data.users as unknown as UserRow[]).map((u) => [u.id, u]));
  const present = (id: number | null | undefined) => {
    const u = id != null ? usersById.get(id) : undefined;
    return u ? userBasic(u, { base }) : null;
  };
  const projectsById = new Map((data.projects ?? []).map((r) => [r.project.id, r]));
  const group = <T extends { mergeRequestId: number; userId: number }>(list: T[]) => {
    const out = new Map<number, number[]>();
    for (const a of list) out.set(a.mergeRequestId, [...(out.get(a.mergeRequestId) ?? []), a.userId]);
    return out;
  };
  const assignees = group(data.assignees);
  const reviewers = group(data.reviewers);
  const labelsByMr = new Map<number, LabelRow[]>();
  for (const l of data.labels) labelsByMr.set(l.targetId, [...(labelsByMr.get(l.targetId) ?? []), l.label]);
  const notesByMr = new Map(data.noteCounts.map((n) => [n.id, n.n]));
  const unresolvedByMr = new Map(data.unresolved.map((n) => [n.id, n.n]));
  const milestonesById = new Map(
    data.milestones.map((r) => [r.milestone.id, milestoneEntity(r.milestone, { base, projectFullPath: r.projectPath != null ? `${r.projectNs}/${r.projectPath}` : undefined, groupFullPath: r.groupPath ?? undefined })]),
  );
  const explicit = new Map((data.subscriptions ?? []).map((s) => [s.id, s.subscribed]));
  const commented = new Set((data.commented ?? []).map((n) => n.id));
  const firstContributions = new Map((data.firstContribution ?? []).map((f) => [f.id, Boolean(f.first)]));
  const limitToHours = Boolean(settings.time_tracking_limit_to_hours);
  const recorded = new Map((data.recordedSizes ?? []).map((r) => [r.id, r.realSize]));
  const maxFiles = Number(settings.diff_max_files ?? 1000);

  const presentOne = async (m: MergeRequestRow) => {
    const pr = projectsById.get(m.projectId)!;
    const fullPath = `${pr.namespace.fullPath}/${pr.project.path}`;
    const open = m.state === 'opened' || m.state === 'locked';
    const closedChanges = o.full && !open && m.baseSha && m.headSha ? (recordedCount(recorded.get(m.id)) ?? (await changedFiles(db, m.projectId, m.baseSha, m.headSha)).length) : null;
    // MergeRequest#mergeable_discussions_state?: unresolved discussions block only where the project says so.
    const discussionsResolved = !pr.project.onlyAllowMergeIfAllDiscussionsAreResolved || (unresolvedByMr.get(m.id) ?? 0) === 0;
    const live = liveStateFrom(m, inputs(m), { changes: o.full, approved: true, mergeMethod: pr.project.mergeMethod, discussionsResolved, maxFiles }, closedChanges);
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
      milestone: m.milestoneId != null ? (milestonesById.get(m.milestoneId) ?? null) : null,
      userNotesCount: notesByMr.get(m.id) ?? 0,
      timeStats: timeStats(m, limitToHours),
      live,
      blockingDiscussionsResolved: discussionsResolved,
      premium,
      squashOption: pr.project.squashOption,
    };
    if (!o.full) return mergeRequestBasic(m, x);
    const level = Number(pr.level ?? 0);
    const uid = caller.user?.id;
    const participant = uid != null && (m.authorId === uid || (assignees.get(m.id) ?? []).includes(uid) || (reviewers.get(m.id) ?? []).includes(uid));
    const subscribed = o.withoutSubscribed ? undefined : uid == null ? false : (explicit.get(m.id) ?? (participant || commented.has(m.id)));
    const buildsReadable = featureAvailable(pr.project, 'builds', { level, isAdmin: caller.isAdmin }) && (pr.project.visibility !== 'private' || caller.isAdmin || level >= ACCESS.REPORTER);
    return mergeRequestEntity(m, {
      ...x,
      subscribed,
      // MergeRequest#can_be_merged_by? has no state check: a merged request still answers for the branch.
      canMerge: caller.user ? await canBeMergedBy(c, caller, pr.project, level, m.targetBranch) : false,
      buildsAvailable: buildsReadable,
      readPipeline: buildsReadable,
      firstContribution: o.firstContribution ? (firstContributions.get(m.id) ?? false) : undefined,
      // MergeRequest#rebase_in_progress?: the rebase job (merge-requests/rebase-job.ts) has not finished
      // and was queued within a job status's lifetime (rebase-mark.ts).
      rebaseInProgress: o.includeRebaseInProgress ? rebaseMarkActive(m.rebaseJid, Date.now()) : undefined,
      // MergeRequest#diverged_commits_count: target commits since the merge base (0 once closed or merged).
      divergedCommitsCount: o.includeDivergedCommitsCount ? (open && live.targetHead && live.mergeBase !== live.targetHead ? await divergedCommits(db, m.projectId, live.mergeBase, live.targetHead) : 0) : undefined,
    });
  };
  return Promise.all(rows.map(presentOne));
}

/** A recorded real_size as the count liveStateFrom formats again (`1000+` stays `1000+`). */
const recordedCount = (realSize: string | null | undefined) => (realSize == null ? undefined : realSize.endsWith('+') ? Number.parseInt(realSize, 10) + 1 : Number(realSize));

/** Commits of the target since the merge base: a function of the two shas, counted once per isolate. */
async function divergedCommits(db: Db, projectId: number, base: string | null, targetHead: string): Promise<number> {
  const key = `diverged:${projectId}:${base}:${targetHead}`;
  const known = factCache<number>(db).get(key);
  if (known !== undefined) return known;
  const n = (await commitsBetween(db, projectId, base, targetHead)).length;
  if (base) factCache<number>(db).set(key, n);
  return n;
}

/** Entities::MergeRequest of one merge request. */
export async function presentMergeRequest(c: Context<AppEnv>, caller: Caller, row: MergeRequestRow, o: Omit<PresentMrOptions, 'full'> = {}, loaded?: PresenterLoaded): Promise<MergeRequest> {
  // `full: true` makes every element a MergeRequest (presentRows' last branch).
  return (await presentMergeRequests(c, caller, [row], { ...o, full: true }, loaded))[0] as MergeRequest;
}

/**
 * Subscribable#subscribed? of the caller, as reads for the batch that finds the merge request
 * (`mrId` SQL): an explicit row wins; otherwise participants (author, assignees, reviewers,
 * commenters). `subscribedFrom` answers from their results and the merge request row.
 */
export function subscriptionReads(db: Db, caller: Caller, mrId: SQL) {
  const uid = caller.user?.id ?? 0;
  return {
    list: [
      db
        .select({ subscribed: subscriptions.subscribed })
        .from(subscriptions)
        .where(and(eq(subscriptions.subscribableType, 'MergeRequest'), sql`${subscriptions.subscribableId} = ${mrId}`, eq(subscriptions.userId, uid)))
        .limit(1),
      db
        .select({ one: sql<number>`1` })
        .from(notes)
        .where(and(eq(notes.noteableType, 'MergeRequest'), sql`${notes.noteableId} = ${mrId}`, sql`+${notes.authorId} = ${uid}`, eq(notes.system, false)))
        .limit(1),
    ] as BatchItem<'sqlite'>[],
    unflatten: (results: readonly unknown[]) => ({ explicit: (results[0] as { subscribed: boolean }[])[0]?.subscribed, commented: (results[1] as unknown[]).length > 0 }),
  };
}

export function subscribedFrom(caller: Caller, m: MergeRequestRow, people: { assigneeIds: number[]; reviewerIds: number[] }, s: { explicit: boolean | undefined; commented: boolean }): boolean {
  const uid = caller.user?.id;
  if (uid == null) return false;
  if (s.explicit !== undefined) return Boolean(s.explicit);
  return m.authorId === uid || people.assigneeIds.includes(uid) || people.reviewerIds.includes(uid) || s.commented;
}
