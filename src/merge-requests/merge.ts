/**
 * Merging a merge request (MergeRequests::MergeService, PostMergeService) and the automatic merge
 * of one whose checks pass later (AutoMergeProcessWorker).
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { issueAssignees, issues, mergeRequests, mergeRequestsClosingIssues, namespaces, projects, todos, users } from '../db/schema';
import { systemNoteInsert } from '../issuables/system-notes';
import { canReadConfidentialIssue } from '../issues/issues';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { ACCESS, canReadProject, featureAvailable, type NamespaceRow, projectAccess, type ProjectRow } from '../projects/abilities';
import { canPushToBranch } from '../repository/protected-branches';
import { mergeRequestApprovals } from './approvals-port';
import { isApproved, type LiveState, liveState } from './live-state';
import { canBeMergedBy } from './merge-request-access';
import type { MergeRequestRow } from './merge-request-entity';
import { repo } from './merge-request-repo';

/** D1 binds at most 100 parameters per statement. */
const CHUNK = 90;

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
