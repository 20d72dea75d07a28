/**
 * Merge requests: who may read, update and merge them (app/policies/merge_request_policy.rb,
 * project_policy.rb), their live state read from the repository (HEAD of the source branch, diff
 * refs, mergeability), the page presenter (a fixed number of queries per page), the `Closes #n`
 * links to issues (lib/gitlab/closing_issue_extractor.rb) and the merge itself
 * (MergeRequests::MergeService, PostMergeService).
 */
import {
  canReadMergeRequests,
  mergeRequestVisibleSql,
  ACCESS,
  canReadProject,
  featureAvailable,
  type NamespaceRow,
  projectAccess,
  type ProjectRow,
} from '../projects/abilities';
import { and, count, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import type { Db } from '../db/client';
import {
  issueAssignees,
  issues,
  labelLinks,
  labels,
  members,
  mergeRequestAssignees,
  mergeRequestMentionedIssues,
  mergeRequestReviewers,
  mergeRequests,
  mergeRequestsClosingIssues,
  namespaces,
  notes,
  projects,
  subscriptions,
  todos,
  users,
} from '../db/schema';
import { type DiffRefs, type MergeRequestLive, type MergeRequestRow, mergeRequestBasic, mergeRequestEntity } from './merge-request-entity';
import type { LabelRow } from '../planning/label-entity';
import { userBasic } from '../users/user-entity';
import { timeStats } from '../platform/duration';
import { ApiError, forbidden, recordNotFound } from '../platform/errors';
import { baseUrl } from '../platform/pagination';
import { planAllows } from '../platform/plan';
import { presentMilestonesById } from '../planning/milestones';
import { findReadableProject } from '../projects/projects';
import { canReadConfidentialIssue } from '../issues/issues';
import { canMergeToBranch, canPushToBranch } from '../repository/protected-branches';
import { systemNoteInsert } from '../issuables/system-notes';
import { mergeRequestApprovals } from './approvals-port';
import {
  buildMerge,
  changedFiles,
  commitsBetween,
  deleteBranchStatement,
  diffManifests,
  diffsBetween,
  memoBranchHead,
  memoManifest,
  memoMergeBase,
  mergeManifests,
  primeBranchHeads,
  runMerge,
} from '../repository/repository';
import { withReadMemo } from '../platform/read-memo';
import { commitEntity } from '../repository/commit-entity';
import { settingsOf } from '../settings/settings';

export type { MergeRequestRow };

/** `not_allowed!` (lib/api/helpers.rb). */
export const notAllowed = () => new ApiError(405, { message: '405 Method Not Allowed' });

// ---------------------------------------------------------------------------------------------
// Abilities

/**
 * create_merge_request_from (same project): Developer and above, who may push to the project. An
 * archived project is read-only (ProjectPolicy `archived` prevents the merge request write abilities).
 */
export const canCreateMergeRequest = (caller: Caller, project: ProjectRow, level: number) =>
  !project.archived && canReadMergeRequests(caller, project, level) && (caller.isAdmin || level >= ACCESS.DEVELOPER);

/** admin_merge_request / set_merge_request_metadata: Developer and above. */
export const canAdminMergeRequest = (caller: Caller, project: ProjectRow, level: number) =>
  !project.archived && canReadMergeRequests(caller, project, level) && (caller.isAdmin || level >= ACCESS.DEVELOPER);

/** update_merge_request: Developer and above, the author, or an assignee (IssuablePolicy). */
export function canUpdateMergeRequest(caller: Caller, project: ProjectRow, level: number, mr: Pick<MergeRequestRow, 'authorId'>, assigneeIds: number[]): boolean {
  if (project.archived || !canReadMergeRequests(caller, project, level)) return false;
  if (caller.isAdmin || level >= ACCESS.DEVELOPER) return true;
  const uid = caller.user?.id;
  return uid != null && (mr.authorId === uid || assigneeIds.includes(uid));
}

/** MergeRequest#can_be_merged_by?: Gitlab::UserAccess#can_update_branch? (push or merge access to the target branch). */
export async function canBeMergedBy(c: Context<AppEnv>, caller: Caller, project: ProjectRow, level: number, targetBranch: string): Promise<boolean> {
  if (!caller.user) return false;
  const opts = { archived: project.archived };
  return (await canPushToBranch(c, caller, level, project.id, targetBranch, opts)) || (await canMergeToBranch(c, caller, level, project.id, targetBranch, opts));
}

export const mergeRequestAssigneeIds = async (db: Db, mrId: number): Promise<number[]> =>
  (await db.select({ userId: mergeRequestAssignees.userId }).from(mergeRequestAssignees).where(eq(mergeRequestAssignees.mergeRequestId, mrId)).orderBy(mergeRequestAssignees.position).all()).map((r) => r.userId);

export const mergeRequestReviewerIds = async (db: Db, mrId: number): Promise<number[]> =>
  (await db.select({ userId: mergeRequestReviewers.userId }).from(mergeRequestReviewers).where(eq(mergeRequestReviewers.mergeRequestId, mrId)).orderBy(mergeRequestReviewers.position).all()).map((r) => r.userId);

/**
 * `find_merge_request_with_access`: the project must be readable (404 Project Not Found), the
 * merge request found by iid (`find_by!`: 404 Not found), then `authorize! :read_merge_request`
 * (403 for a guest of a private project, who can see the project but not its code).
 */
export async function findReadableMergeRequest(c: Context<AppEnv>, caller: Caller, projectId: string, iid: number) {
  const pr = await findReadableProject(c, caller, projectId);
  const mr = Number.isSafeInteger(iid) ? await c.var.db.select().from(mergeRequests).where(and(eq(mergeRequests.projectId, pr.project.id), eq(mergeRequests.iid, iid))).get() : undefined;
  if (!mr) throw recordNotFound();
  if (!canReadMergeRequests(caller, pr.project, pr.level)) throw forbidden();
  return { ...pr, mr };
}

// ---------------------------------------------------------------------------------------------
// Live state

export interface LiveState extends MergeRequestLive {
  /** HEAD of the target branch (start_sha) and the merge base, for merging. */
  targetHead: string | null;
  mergeBase: string | null;
  /** 1 when the source has commits the target lacks, else 0. */
  commitCount: number;
  /** Whether the merge would conflict (the same file changed differently on both sides). */
  conflict: boolean;
  draft: boolean;
  approved: boolean;
  /** MergeRequest#should_be_rebased?: the project merges fast-forward only (ff, rebase_merge) and the target head is not in the source. */
  needRebase: boolean;
}

export interface LiveOptions {
  /** Count the changed files (changes_count, full entity only). */
  changes?: boolean;
  /** The approvals service's answer; true when approvals are not computed for this read. */
  approved?: boolean;
  /** The target project's merge method (read from the project when not given). */
  mergeMethod?: string;
}

/**
 * An open merge request reads HEAD from its source branch and the start from its target branch on
 * every read (a push moves it without any hook); a merged or closed one shows what was recorded
 * when it stopped being open.
 */
export async function liveState(c: Context<AppEnv>, mr: MergeRequestRow, o: LiveOptions = {}): Promise<LiveState> {
  const approved = o.approved ?? true;
  if (mr.state !== 'opened' && mr.state !== 'locked') {
    const diffRefs: DiffRefs = { base_sha: mr.baseSha ?? null, head_sha: mr.headSha ?? null, start_sha: mr.startSha ?? null };
    const changes = o.changes && mr.baseSha && mr.headSha ? await repo.changedFiles(c, mr.projectId, mr.baseSha, mr.headSha) : null;
    const status = mr.mergeStatus === 'unchecked' ? 'can_be_merged' : mr.mergeStatus;
    return {
      sha: mr.headSha ?? null,
      diffRefs,
      mergeStatus: status,
      detailedMergeStatus: 'not_open',
      hasConflicts: status === 'cannot_be_merged',
      changesCount: changes == null ? null : changesCount(changes.length),
      targetHead: mr.startSha ?? null,
      mergeBase: mr.baseSha ?? null,
      commitCount: 0,
      conflict: false,
      draft: mr.draft,
      approved,
      needRebase: false,
    };
  }
  const [head, targetHead] = await Promise.all([repo.branchHead(c, mr.sourceProjectId, mr.sourceBranch), repo.branchHead(c, mr.projectId, mr.targetBranch)]);
  const sha = head ?? mr.headSha ?? null;
  const base = head && targetHead ? await repo.mergeBase(c, mr.projectId, targetHead, head) : null;
  // Commits exist unless the source head is already in the target's history (merge base = head).
  const commitCount = head && targetHead && base !== head ? 1 : 0;
  let conflict = false;
  let changes: number | null = null;
  if (head && targetHead && commitCount > 0) {
    const [b, t, s] = await Promise.all([memoManifest(c, mr.projectId, base), base === targetHead ? null : memoManifest(c, mr.projectId, targetHead), memoManifest(c, mr.projectId, head)]);
    if (o.changes) changes = diffManifests(b, s).length;
    // A target that moved since the merge base can conflict: the same path changed differently on both sides.
    if (t) conflict = mergeManifests(b, t, s) === null;
  } else if (o.changes && head && targetHead) {
    changes = 0;
  }
  const broken = !head || !targetHead || commitCount === 0;
  const mergeStatus = broken || conflict ? 'cannot_be_merged' : 'can_be_merged';
  const mergeMethod = o.mergeMethod ?? (await c.var.db.select({ m: projects.mergeMethod }).from(projects).where(eq(projects.id, mr.projectId)).get())?.m ?? 'merge';
  // should_be_rebased?: ff_merge_must_be_possible? && !ff_merge_possible? (the target head is an ancestor of HEAD).
  const needRebase = mergeMethod !== 'merge' && !broken && base !== targetHead;
  // MergeRequests::Mergeability::DetailedMergeStatusService: the first failing check, in
  // MergeRequest.mergeable_state_checks order (EE's approval check after CE's checks), then the git
  // checks (mergeable_git_state_checks: conflict, then need_rebase).
  const detailed = mr.draft ? 'draft_status' : broken ? 'commits_status' : !approved ? 'not_approved' : conflict ? 'conflict' : needRebase ? 'need_rebase' : 'mergeable';
  return {
    sha,
    diffRefs: { base_sha: base, head_sha: sha, start_sha: targetHead },
    mergeStatus,
    detailedMergeStatus: detailed,
    hasConflicts: mergeStatus === 'cannot_be_merged',
    changesCount: o.changes ? (changes == null ? null : changesCount(changes)) : null,
    targetHead,
    mergeBase: base,
    commitCount,
    conflict,
    draft: mr.draft,
    approved,
    needRebase,
  };
}

/** MergeRequestDiff#real_size: a string, `1000+` past the diff limit. */
const changesCount = (n: number) => (n > 1000 ? '1000+' : String(n));

// ---------------------------------------------------------------------------------------------
// Presenter

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

const CHUNK = 90;
async function inChunks<T>(ids: number[], run: (chunk: number[]) => Promise<T[]>): Promise<T[]> {
  const unique = [...new Set(ids)];
  const out: T[] = [];
  for (let i = 0; i < unique.length; i += CHUNK) out.push(...(await run(unique.slice(i, i + CHUNK))));
  return out;
}

function relativeReference(m: MergeRequestRow, p: ProjectRow, ns: NamespaceRow, fullPath: string, o: PresentMrOptions): string {
  if (o.project) return o.project.id === p.id ? `!${m.iid}` : o.project.namespaceId === p.namespaceId ? `${p.path}!${m.iid}` : `${fullPath}!${m.iid}`;
  if (o.group) return o.group.id === ns.id ? `${p.path}!${m.iid}` : `${fullPath}!${m.iid}`;
  return `!${m.iid}`;
}

/** Approval answer from the approvals service (services/approval-state.ts), true when it has none. */
export async function isApproved(c: Context<AppEnv>, mr: MergeRequestRow): Promise<boolean> {
  return repo.mergeRequestApproved(c, mr);
}

export async function presentMergeRequests(c: Context<AppEnv>, caller: Caller, rows: MergeRequestRow[], o: PresentMrOptions = {}) {
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

async function presentRows(c: Context<AppEnv>, caller: Caller, rows: MergeRequestRow[], o: PresentMrOptions) {
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

export async function presentMergeRequest(c: Context<AppEnv>, caller: Caller, row: MergeRequestRow, o: PresentMrOptions = {}) {
  return (await presentMergeRequests(c, caller, [row], { full: true, ...o }))[0];
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

// ---------------------------------------------------------------------------------------------
// Issue references in descriptions (Gitlab::ClosingIssueExtractor)

/**
 * GitLab's default `issue_closing_pattern` (gitlab.yml): a closing word, an optional colon, then
 * one or more issue references separated by commas, spaces or `and`.
 */
const REF = String.raw`(?:(?:[A-Za-z0-9_.\-]+\/)*[A-Za-z0-9_.\-]+)?#\d+|https?:\/\/[^\s,]+\/-\/issues\/\d+`;
const CLOSING = new RegExp(
  String.raw`\b(?:[Cc]los(?:e[sd]?|ing)|\b[Ff]ix(?:e[sd]|ing)?|\b[Rr]esolv(?:e[sd]?|ing)|\b[Ii]mplement(?:s|ed|ing)?)(?::?) +(?:(?:issues? +)?(?:${REF})(?:(?: *,? +and +| *,? *)?))+`,
  'g',
);
const ANY_REF = new RegExp(String.raw`(?:^|[^\w/&!#])(${REF})`, 'g');

export interface IssueRef {
  /** Full path of the project, or null for the merge request's own project. */
  path: string | null;
  /** A path without a slash names a project in the same namespace (`project#1`). */
  iid: number;
}

function parseRef(text: string, base: string): IssueRef | null {
  const url = /^https?:\/\/[^\s]+?\/(.+)\/-\/issues\/(\d+)$/.exec(text);
  if (url) {
    if (!text.startsWith(`${base}/`)) return null;
    return { path: url[1], iid: Number(url[2]) };
  }
  const m = /^(.*)#(\d+)$/.exec(text);
  if (!m) return null;
  const iid = Number(m[2]);
  if (!Number.isSafeInteger(iid)) return null;
  return { path: m[1] || null, iid };
}

/** The `Closes #n` references and the other issue mentions of a description. */
export function issueReferences(description: string | null | undefined, base: string): { closing: IssueRef[]; mentioned: IssueRef[] } {
  const text = description ?? '';
  const closing: IssueRef[] = [];
  for (const m of text.matchAll(CLOSING)) {
    for (const r of m[0].matchAll(new RegExp(REF, 'g'))) {
      const ref = parseRef(r[0], base);
      if (ref) closing.push(ref);
    }
  }
  const mentioned: IssueRef[] = [];
  for (const r of text.matchAll(ANY_REF)) {
    const ref = parseRef(r[1], base);
    if (ref) mentioned.push(ref);
  }
  return { closing: closing.slice(0, 100), mentioned: mentioned.slice(0, 100) };
}

/**
 * Resolves references to issue ids the user may read (ReferenceExtractor runs as the author or
 * editor); unknown projects and issues are ignored.
 */
export async function resolveIssueRefs(c: Context<AppEnv>, user: UserRow, project: ProjectRow, ns: NamespaceRow, refs: IssueRef[]): Promise<number[]> {
  const db = c.var.db;
  const out: number[] = [];
  const projectCache = new Map<string, { project: ProjectRow; ns: NamespaceRow; level: number } | null>();
  const asCaller: Caller = { user, sudoer: null, credential: null, isAdmin: user.isAdmin };
  for (const ref of refs) {
    const key = ref.path == null ? '' : ref.path.includes('/') ? ref.path.toLowerCase() : `${ns.fullPath}/${ref.path}`.toLowerCase();
    let target = projectCache.get(key);
    if (target === undefined) {
      if (key === '' || key === `${ns.fullPath}/${project.path}`.toLowerCase()) {
        target = { project, ns, level: await projectAccess(db, user, project, ns) };
      } else {
        const slash = key.lastIndexOf('/');
        const row = await db
          .select({ project: projects, namespace: namespaces })
          .from(projects)
          .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
          .where(and(sql`lower(${namespaces.fullPath}) = ${key.slice(0, slash)}`, sql`lower(${projects.path}) = ${key.slice(slash + 1)}`))
          .get();
        target = row ? { project: row.project, ns: row.namespace, level: await projectAccess(db, user, row.project, row.namespace) } : null;
      }
      projectCache.set(key, target);
    }
    if (!target) continue;
    if (!canReadProject(asCaller, target.project, target.level) || !featureAvailable(target.project, 'issues', { level: target.level, isAdmin: user.isAdmin })) continue;
    const issue = await db.select().from(issues).where(and(eq(issues.projectId, target.project.id), eq(issues.iid, ref.iid))).get();
    if (!issue) continue;
    if (issue.confidential) {
      const assigneeIds = (await db.select({ userId: issueAssignees.userId }).from(issueAssignees).where(eq(issueAssignees.issueId, issue.id)).all()).map((a) => a.userId);
      if (!canReadConfidentialIssue(asCaller, target.level, issue, assigneeIds)) continue;
    }
    if (!out.includes(issue.id)) out.push(issue.id);
  }
  return out;
}

/**
 * Statements replacing the description-derived issue links of a merge request
 * (MergeRequests::UpdateService#update_closing_issues / cache_merge_request_closes_issues!).
 */
export async function issueLinkStatements(
  c: Context<AppEnv>,
  user: UserRow,
  project: ProjectRow,
  ns: NamespaceRow,
  description: string | null | undefined,
  mrId: number | SQL<number>,
  now: number,
  replace: boolean,
): Promise<BatchItem<'sqlite'>[]> {
  const db = c.var.db;
  const refs = issueReferences(description, baseUrl(c));
  const closingIds = await resolveIssueRefs(c, user, project, ns, refs.closing);
  const mentionedIds = (await resolveIssueRefs(c, user, project, ns, refs.mentioned)).filter((id) => !closingIds.includes(id));
  const out: BatchItem<'sqlite'>[] = [];
  if (replace) {
    out.push(db.delete(mergeRequestsClosingIssues).where(and(eq(mergeRequestsClosingIssues.mergeRequestId, mrId as number), eq(mergeRequestsClosingIssues.fromMrDescription, true))));
    out.push(db.delete(mergeRequestMentionedIssues).where(eq(mergeRequestMentionedIssues.mergeRequestId, mrId as number)));
  }
  for (const issueId of closingIds)
    out.push(db.insert(mergeRequestsClosingIssues).values({ mergeRequestId: mrId, issueId, fromMrDescription: true, createdAt: now, updatedAt: now }).onConflictDoNothing());
  for (const issueId of mentionedIds) out.push(db.insert(mergeRequestMentionedIssues).values({ mergeRequestId: mrId, issueId, createdAt: now }).onConflictDoNothing());

  // SystemNoteService.cross_reference: each referenced issue gets "mentioned in merge request !n"
  // (the full reference from another project) once (cross_reference_exists?).
  const referenced = [...closingIds, ...mentionedIds].slice(0, CHUNK);
  if (referenced.length) {
    const rows = await db.select({ id: issues.id, projectId: issues.projectId }).from(issues).where(inArray(issues.id, referenced)).all();
    const bodyFor = (issueProjectId: number, iid: number | string) => `mentioned in merge request ${issueProjectId === project.id ? '' : `${ns.fullPath}/${project.path}`}!${iid}`;
    const existing = new Set<number>();
    if (typeof mrId === 'number') {
      const iid = (await db.select({ iid: mergeRequests.iid }).from(mergeRequests).where(eq(mergeRequests.id, mrId)).get())?.iid;
      if (iid != null) {
        const noted = await db
          .select({ id: notes.noteableId, body: notes.body })
          .from(notes)
          .where(and(eq(notes.noteableType, 'Issue'), inArray(notes.noteableId, referenced), eq(notes.system, true), sql`${notes.body} LIKE 'mentioned in merge request %'`))
          .all();
        for (const r of rows) if (noted.some((n) => n.id === r.id && n.body === bodyFor(r.projectId, iid))) existing.add(r.id);
      }
    }
    const iidSql = sql`(SELECT ${mergeRequests.iid} FROM ${mergeRequests} WHERE ${mergeRequests.id} = ${mrId})`;
    for (const r of rows) {
      if (existing.has(r.id)) continue;
      const prefix = bodyFor(r.projectId, '');
      out.push(systemNoteInsert(db, { noteableType: 'Issue', noteableId: r.id, projectId: r.projectId, authorId: user.id, body: sql`${prefix} || ${iidSql}` as unknown as string, at: now }));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Counters for other areas

/** /user_counts merge request counters (User#assigned_open_merge_requests_count, review_requested_open_merge_requests_count). */
export async function userMergeRequestCounts(db: Db, userId: number): Promise<{ assigned: number; reviewRequested: number }> {
  const [assigned, review] = await Promise.all([
    db
      .select({ n: count() })
      .from(mergeRequestAssignees)
      .innerJoin(mergeRequests, eq(mergeRequests.id, mergeRequestAssignees.mergeRequestId))
      .where(and(eq(mergeRequestAssignees.userId, userId), eq(mergeRequests.state, 'opened')))
      .get(),
    db
      .select({ n: count() })
      .from(mergeRequestReviewers)
      .innerJoin(mergeRequests, eq(mergeRequests.id, mergeRequestReviewers.mergeRequestId))
      .where(and(eq(mergeRequestReviewers.userId, userId), eq(mergeRequests.state, 'opened')))
      .get(),
  ]);
  return { assigned: assigned?.n ?? 0, reviewRequested: review?.n ?? 0 };
}

// ---------------------------------------------------------------------------------------------
// Repository and approvals, as this area uses them (services/repository.ts, services/approval-state.ts)

export interface ChangedFile {
  path: string;
  /** Blob id after the change (null when deleted). */
  blob: string | null;
}

export interface MergeWrite {
  projectId: number;
  targetBranch: string;
  targetHead: string;
  sourceHead: string;
  mergeBase: string | null;
  message: string;
  squash: boolean;
  squashMessage: string;
  user: UserRow;
  at: number;
  method?: 'merge' | 'ff';
}

const identity = (u: UserRow) => ({ name: u.name, email: u.commitEmail || u.email });

/** The repository as merge requests use it (services/repository.ts). */
export const repo = {
  /** The commit sha a branch points at, or null when it does not exist. */
  async branchHead(c: Context<AppEnv>, projectId: number, branch: string): Promise<string | null> {
    return memoBranchHead(c, projectId, branch);
  },
  async mergeBase(c: Context<AppEnv>, projectId: number, a: string, b: string): Promise<string | null> {
    return memoMergeBase(c, projectId, a, b);
  },
  /** Commits reachable from `head` but not from `base`. */
  async countCommits(c: Context<AppEnv>, projectId: number, base: string | null, head: string): Promise<number> {
    return (await commitsBetween(c.var.db, projectId, base, head)).length;
  },
  async changedFiles(c: Context<AppEnv>, projectId: number, from: string | null, to: string): Promise<ChangedFile[]> {
    return (await changedFiles(c.var.db, projectId, from, to)).flatMap((f) =>
      f.renamedFile ? [{ path: f.oldPath, blob: null }, { path: f.newPath, blob: f.newBlob }] : [{ path: f.newPath, blob: f.newBlob }],
    );
  },
  /** The same path changed to different contents on both sides of the merge base. */
  async conflicts(_c: Context<AppEnv>, _projectId: number, _base: string | null, _targetHead: string, _head: string, theirs: ChangedFile[], ours: ChangedFile[]): Promise<boolean> {
    const mine = new Map(ours.map((f) => [f.path, f.blob]));
    return theirs.some((f) => mine.has(f.path) && mine.get(f.path) !== f.blob);
  },
  /** ApprovalState#approved? (services/approval-state.ts); the approvals area owns the arithmetic. */
  async mergeRequestApproved(c: Context<AppEnv>, mr: MergeRequestRow): Promise<boolean> {
    return mergeRequestApprovals.get().approved(c, mr);
  },
  /**
   * Writes the merge on the target branch (services/repository.ts buildMerge: a squash commit when
   * asked, then a merge commit with the target HEAD and the source HEAD or the squash commit as
   * parents). The branch moves only if it still points at `targetHead`, in one batch with
   * `extra(result)`. Null when the branches conflict or the target moved.
   */
  async merge(
    c: Context<AppEnv>,
    m: MergeWrite,
    extra: (r: { mergeCommitSha: string | null; squashCommitSha: string | null }) => BatchItem<'sqlite'>[],
  ): Promise<{ mergeCommitSha: string | null; squashCommitSha: string | null } | null> {
    const built = await buildMerge(c, {
      projectId: m.projectId,
      targetBranch: m.targetBranch,
      targetHead: m.targetHead,
      sourceHead: m.sourceHead,
      message: m.message,
      squash: m.squash,
      squashMessage: m.squashMessage,
      method: m.method ?? 'merge',
      user: { id: m.user.id, ...identity(m.user) },
      at: m.at,
    });
    if (!built.ok) return null;
    const result = { mergeCommitSha: built.mergeCommitSha, squashCommitSha: built.squashCommitSha };
    return (await runMerge(c, built, m.projectId, extra(result))) ? result : null;
  },
  /** Deletes a branch if it still points at `expectedHead` (Branches::DeleteService after a merge). */
  async deleteBranch(c: Context<AppEnv>, projectId: number, branch: string, expectedHead: string | null): Promise<void> {
    if (!expectedHead) return;
    await deleteBranchStatement(c.var.db, projectId, branch, expectedHead).run();
  },
  /** Entities::Commit of base..head, newest first. */
  async commitEntities(c: Context<AppEnv>, projectId: number, base: string | null, head: string): Promise<object[]> {
    const rows = await commitsBetween(c.var.db, projectId, base, head);
    const pr = await c.var.db.select({ path: projects.path, ns: namespaces.fullPath }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(eq(projects.id, projectId)).get();
    const x = { base: baseUrl(c), projectFullPath: pr ? `${pr.ns}/${pr.path}` : '' };
    return rows.map((r) => commitEntity(r, x));
  },
  /** Entities::Diff of base..head. */
  async diffEntities(c: Context<AppEnv>, projectId: number, base: string | null, head: string, o: { unidiff?: boolean }): Promise<object[]> {
    const diffs = await diffsBetween(c, projectId, base, head);
    return o.unidiff ? diffs.map((d) => ({ ...d, diff: unidiffOf(d) })) : diffs;
  },
};

/** Gitlab::Git::Diff#unidiff (the `unidiff` parameter): the hunks behind git's `---`/`+++` file lines; a blank diff stays blank. */
function unidiffOf(d: { diff: string; old_path: string; new_path: string; new_file: boolean; deleted_file: boolean }): string {
  if (!d.diff) return d.diff;
  return `--- ${d.new_file ? '/dev/null' : `a/${d.old_path}`}\n+++ ${d.deleted_file ? '/dev/null' : `b/${d.new_path}`}\n${d.diff}`;
}

// ---------------------------------------------------------------------------------------------
// Issue side (Issues::ReferencedMergeRequestsService)

/**
 * Merge requests the caller may read among `ids`, sorted as Gitlab::IssuableSorter does: those of
 * `projectId` first by iid, then the others by their full reference.
 */
async function readableMergeRequests(c: Context<AppEnv>, caller: Caller, ids: number[], projectId: number): Promise<MergeRequestRow[]> {
  const db = c.var.db;
  const out: { mr: MergeRequestRow; ref: string }[] = [];
  const visible = mergeRequestVisibleSql(caller);
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await db
      .select({ mr: mergeRequests, path: sql<string>`${namespaces.fullPath} || '/' || ${projects.path}` })
      .from(mergeRequests)
      .innerJoin(projects, eq(projects.id, mergeRequests.projectId))
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(and(inArray(mergeRequests.id, ids.slice(i, i + CHUNK)), visible))
      .all();
    for (const r of rows) out.push({ mr: r.mr, ref: r.path });
  }
  return out
    .sort((a, b) => {
      const pa = a.mr.projectId === projectId ? 0 : 1;
      const pb = b.mr.projectId === projectId ? 0 : 1;
      if (pa !== pb) return pa - pb;
      if (a.ref !== b.ref) return a.ref < b.ref ? -1 : 1;
      return a.mr.iid - b.mr.iid;
    })
    .map((x) => x.mr);
}

/** related_merge_requests: every merge request whose description mentions or closes the issue. */
export async function relatedMergeRequestsForIssue(c: Context<AppEnv>, caller: Caller, issueId: number, projectId: number): Promise<MergeRequestRow[]> {
  const db = c.var.db;
  const [closing, mentioned] = await Promise.all([
    db.select({ id: mergeRequestsClosingIssues.mergeRequestId }).from(mergeRequestsClosingIssues).where(eq(mergeRequestsClosingIssues.issueId, issueId)).all(),
    db.select({ id: mergeRequestMentionedIssues.mergeRequestId }).from(mergeRequestMentionedIssues).where(eq(mergeRequestMentionedIssues.issueId, issueId)).all(),
  ]);
  return readableMergeRequests(c, caller, [...new Set([...closing, ...mentioned].map((r) => r.id))], projectId);
}

/**
 * closed_by (lib/api/issues.rb): MergeRequestsClosingIssues for the issue, through
 * MergeRequestsFinder scoped to the issue's project and the caller, in the finder's default order
 * (id descending); merged ones included.
 */
export async function closedByMergeRequests(c: Context<AppEnv>, caller: Caller, issue: { id: number; projectId: number }): Promise<MergeRequestRow[]> {
  const rows = await c.var.db
    .select({ mr: mergeRequests })
    .from(mergeRequestsClosingIssues)
    .innerJoin(mergeRequests, eq(mergeRequests.id, mergeRequestsClosingIssues.mergeRequestId))
    .innerJoin(projects, eq(projects.id, mergeRequests.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(and(eq(mergeRequestsClosingIssues.issueId, issue.id), eq(mergeRequests.projectId, issue.projectId), mergeRequestVisibleSql(caller)))
    .orderBy(sql`${mergeRequests.id} DESC`)
    .all();
  return rows.map((r) => r.mr);
}

// ---------------------------------------------------------------------------------------------
// Merging (MergeRequests::MergeService, PostMergeService)

export interface MergeInput {
  mergeCommitMessage?: string;
  squashCommitMessage?: string;
  shouldRemoveSourceBranch?: boolean;
  squash?: boolean;
}

/** MergeRequests::MessageGenerator with the default templates. */
export function defaultMergeCommitMessage(mr: MergeRequestRow, fullRef: string, closingRefs: string[]): string {
  const parts = [`Merge branch '${mr.sourceBranch}' into '${mr.targetBranch}'`, mr.title];
  if (closingRefs.length) parts.push(`Closes ${toSentence(closingRefs)}`);
  parts.push(`See merge request ${fullRef}`);
  return parts.join('\n\n');
}

function toSentence(items: string[]): string {
  if (items.length <= 1) return items.join('');
  if (items.length === 2) return `${items[0]} and ${items[1]}`;
  return `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;
}

/**
 * Merges an open merge request whose checks passed: locks it (`opened` -> `locked`, so a racing
 * merge or close loses), writes the merge commit on the target branch through the repository,
 * then in one batch records it as merged, closes the issues it closes when the target is the
 * default branch, resolves the merger's to-dos, and writes the issues' system notes. Returns false
 * when the repository refused (target moved or a conflict): the request is opened again and the
 * caller answers 422 Branch cannot be merged.
 */
export async function mergeMergeRequest(
  c: Context<AppEnv>,
  user: UserRow,
  found: { mr: MergeRequestRow; project: ProjectRow; namespace: NamespaceRow; level: number },
  live: LiveState,
  input: MergeInput,
): Promise<boolean> {
  const db = c.var.db;
  const { mr, project, namespace } = found;
  const locked = await db
    .update(mergeRequests)
    .set({ state: 'locked' })
    .where(and(eq(mergeRequests.id, mr.id), eq(mergeRequests.state, 'opened')))
    .returning({ id: mergeRequests.id })
    .all();
  if (!locked.length) return false;
  const now = Date.now();
  const fullRef = `${namespace.fullPath}/${project.path}!${mr.iid}`;
  const closingIssueIds = (await db.select({ issueId: mergeRequestsClosingIssues.issueId }).from(mergeRequestsClosingIssues).where(eq(mergeRequestsClosingIssues.mergeRequestId, mr.id)).orderBy(mergeRequestsClosingIssues.id).all()).map(
    (r) => r.issueId,
  );
  const closable = await closableIssues(c, user, project, closingIssueIds);
  // MergeRequest#finalize_rules: the approval rules as they were when merged, in the merge's batch.
  const finalizeRules = await mergeRequestApprovals.get().finalizeRules(c, mr);
  // MergeRequest#squash_on_merge?: the project's `always`/`never` squash option wins.
  const squash = project.squashOption === 'always' ? true : project.squashOption === 'never' ? false : (input.squash ?? mr.squash);
  const closeIssues = project.defaultBranch != null && mr.targetBranch === project.defaultBranch;

  // The merge request and issue rows change in the same batch as the branch, so a merge is all or nothing.
  const statementsFor = (r: { mergeCommitSha: string | null; squashCommitSha: string | null }): BatchItem<'sqlite'>[] => {
    const out: BatchItem<'sqlite'>[] = [
      db
        .update(mergeRequests)
        .set({
          state: 'merged',
          mergedById: user.id,
          mergedAt: now,
          mergeUserId: user.id,
          mergeCommitSha: r.mergeCommitSha,
          squashCommitSha: r.squashCommitSha,
          squash,
          headSha: live.sha,
          baseSha: live.mergeBase,
          startSha: live.targetHead,
          mergeStatus: 'can_be_merged',
          mergeWhenPipelineSucceeds: false,
          mergeError: null,
          shouldRemoveSourceBranch: input.shouldRemoveSourceBranch ?? mr.shouldRemoveSourceBranch,
          updatedAt: now,
        })
        .where(and(eq(mergeRequests.id, mr.id), eq(mergeRequests.state, 'locked'))),
      // TodoService#merge_merge_request: the merger's pending to-dos on it are done.
      db
        .update(todos)
        .set({ state: 'done', updatedAt: now })
        .where(and(eq(todos.targetType, 'MergeRequest'), eq(todos.targetId, mr.id), eq(todos.state, 'pending'), eq(todos.userId, user.id))),
      ...finalizeRules,
    ];
    if (!closeIssues) return out;
    for (const issue of closable) {
      // Issues::CloseService with `closed_via: merge_request`: conditional, so an issue closed meanwhile stays as it is.
      out.push(
        db.update(issues).set({ state: 'closed', closedAt: now, closedById: user.id, updatedAt: now }).where(and(eq(issues.id, issue.id), eq(issues.state, 'opened'))),
        // Checked open when read above; the note is written with the close in the same batch.
        systemNoteInsert(db, {
          noteableType: 'Issue',
          noteableId: issue.id,
          projectId: issue.projectId,
          authorId: user.id,
          body: `closed via merge request ${issue.projectId === project.id ? `!${mr.iid}` : fullRef}`,
          at: now,
        }),
        // TodoService#close_issue: the closer's pending to-dos on the issue are done.
        db
          .update(todos)
          .set({ state: 'done', updatedAt: now })
          .where(and(eq(todos.targetType, 'Issue'), eq(todos.targetId, issue.id), eq(todos.state, 'pending'), eq(todos.userId, user.id))),
      );
    }
    return out;
  };

  let result: { mergeCommitSha: string | null; squashCommitSha: string | null } | null = null;
  try {
    result = await repo.merge(
      c,
      {
        projectId: project.id,
        targetBranch: mr.targetBranch,
        targetHead: live.targetHead!,
        sourceHead: live.sha!,
        mergeBase: live.mergeBase,
        message: input.mergeCommitMessage || defaultMergeCommitMessage(mr, fullRef, closable.map((i) => i.reference)),
        squash,
        squashMessage: input.squashCommitMessage || mr.title,
        // merge_requests_ff_only_enabled: fast-forward; rebase_merge still writes a merge commit.
        method: project.mergeMethod === 'ff' ? 'ff' : 'merge',
        user,
        at: now,
      },
      statementsFor,
    );
  } finally {
    if (!result) await db.update(mergeRequests).set({ state: 'opened' }).where(and(eq(mergeRequests.id, mr.id), eq(mergeRequests.state, 'locked'))).run();
  }
  if (!result) return false;

  // MergeRequests::PostMergeService#delete_source_branch: when asked and allowed, never the default or a protected branch.
  const remove = input.shouldRemoveSourceBranch ?? mr.forceRemoveSourceBranch ?? false;
  if (remove && mr.sourceBranch !== project.defaultBranch) {
    const asCaller: Caller = { user, sudoer: null, credential: null, isAdmin: user.isAdmin };
    if (await canPushToBranch(c, asCaller, found.level, mr.sourceProjectId, mr.sourceBranch, { archived: project.archived })) {
      await repo.deleteBranch(c, mr.sourceProjectId, mr.sourceBranch, live.sha).catch(() => undefined);
    }
  }
  return true;
}

/**
 * The closing issues the merger may close (Issues::CloseService checks update_issue), open ones
 * only, with their reference from the merge request's project (for the commit message).
 */
async function closableIssues(c: Context<AppEnv>, user: UserRow, project: ProjectRow, ids: number[]) {
  const db = c.var.db;
  const out: { id: number; projectId: number; reference: string }[] = [];
  const asCaller: Caller = { user, sudoer: null, credential: null, isAdmin: user.isAdmin };
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await db
      .select({ issue: issues, project: projects, namespace: namespaces })
      .from(issues)
      .innerJoin(projects, eq(projects.id, issues.projectId))
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(inArray(issues.id, ids.slice(i, i + CHUNK)))
      .all();
    for (const r of rows) {
      if (r.issue.state !== 'opened') continue;
      const level = await projectAccess(db, user, r.project, r.namespace);
      if (!canReadProject(asCaller, r.project, level) || !featureAvailable(r.project, 'issues', { level, isAdmin: user.isAdmin })) continue;
      const assigneeIds = (await db.select({ userId: issueAssignees.userId }).from(issueAssignees).where(eq(issueAssignees.issueId, r.issue.id)).all()).map((a) => a.userId);
      if (r.issue.confidential && !canReadConfidentialIssue(asCaller, level, r.issue, assigneeIds)) continue;
      // update_issue: Planner and above, administrators, or the author.
      if (!(user.isAdmin || level >= ACCESS.PLANNER || r.issue.authorId === user.id)) continue;
      const reference = r.project.id === project.id ? `#${r.issue.iid}` : `${r.namespace.fullPath}/${r.project.path}#${r.issue.iid}`;
      out.push({ id: r.issue.id, projectId: r.project.id, reference });
    }
  }
  const order = new Map(ids.map((id, i) => [id, i]));
  return out.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}

/**
 * AutoMergeProcessWorker: a merge request set to merge automatically is merged as the user who set
 * it once its checks pass. Call after anything that can make it mergeable (an approval); no-op
 * otherwise. Returns whether it merged.
 */
export async function autoMergeIfReady(c: Context<AppEnv>, mrId: number): Promise<boolean> {
  const db = c.var.db;
  const mr = await db.select().from(mergeRequests).where(eq(mergeRequests.id, mrId)).get();
  if (!mr || mr.state !== 'opened' || !mr.mergeWhenPipelineSucceeds || mr.mergeUserId == null || mr.draft) return false;
  const user = await db.select().from(users).where(eq(users.id, mr.mergeUserId)).get();
  if (!user || user.state !== 'active') return false;
  const pr = await db.select({ project: projects, namespace: namespaces }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(eq(projects.id, mr.projectId)).get();
  if (!pr) return false;
  const level = await projectAccess(db, user, pr.project, pr.namespace);
  const asCaller: Caller = { user, sudoer: null, credential: null, isAdmin: user.isAdmin };
  if (!(await canBeMergedBy(c, asCaller, pr.project, level, mr.targetBranch))) return false;
  if (!(await isApproved(c, mr))) return false;
  const live = await liveState(c, mr);
  if (!live.sha || !live.targetHead || live.commitCount === 0 || live.conflict || live.needRebase) return false;
  return mergeMergeRequest(c, user, { mr, project: pr.project, namespace: pr.namespace, level }, live, { shouldRemoveSourceBranch: mr.shouldRemoveSourceBranch ?? undefined });
}
