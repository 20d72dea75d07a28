/**
 * Merging a merge request (MergeRequests::MergeService, PostMergeService) and the automatic merge
 * of one whose checks pass later (AutoMergeProcessWorker).
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import { aliasedColumns } from '../db/aliased-columns';
import { issues, mergeRequests, mergeRequestsClosingIssues, namespaces, notes, projects, todos, users } from '../db/schema';
import { systemNoteInsert } from '../issuables/system-notes';
import { stateEventInsert } from '../issuables/resource-events';
import { canReadConfidentialIssue } from '../issues/issues';
import type { AppEnv, Caller, UserRow } from '../platform/context';
import { ACCESS, canReadProject, featureAvailable, type NamespaceRow, projectAccess, projectLevelSql, type ProjectRow } from '../projects/abilities';
import { deleteBranchStatement } from '../repository/repository';
import { canPushToBranch } from '../repository/protected-branches';
import { mergeRequestApprovals } from './approvals-port';
import { isApproved, type LiveState, liveState } from './live-state';
import { canBeMergedBy } from './merge-request-access';
import type { MergeRequestRow } from './merge-request-entity';
import { type MergeWrite, repo } from './merge-request-repo';

type IssueRow = typeof issues.$inferSelect;

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
 * Merges an open merge request whose checks passed: writes the merge commit on the target branch
 * through the repository and, in the same batch, records it as merged, closes the issues it closes
 * when the target is the default branch, resolves the merger's to-dos, writes the issues' system
 * notes and deletes the source branch when asked. The batch is guarded, so it writes nothing when
 * the target branch moved or the merge request stopped being open meanwhile (a racing merge or
 * close): false then, and the caller answers 422 Branch cannot be merged. `o.reads` run at the end
 * of the batch (the answer's reads: merge-request-answer.ts); their results come back. `o.closable`
 * is what `closingIssuesRead` found, when the caller's own batch read it; `o.push` what the push
 * hooks read there (the merge is a push to the target branch: merge-request-repo.ts).
 */
export async function mergeMergeRequest(
  c: Context<AppEnv>,
  user: UserRow,
  found: { mr: MergeRequestRow; project: ProjectRow; namespace: NamespaceRow; level: number },
  live: LiveState,
  input: MergeInput,
  o: { closable?: Closable[]; reads?: BatchItem<'sqlite'>[]; push?: MergeWrite['push'] } = {},
): Promise<false | unknown[]> {
  const db = c.var.db;
  const { mr, project, namespace } = found;
  if (mr.state !== 'opened') return false;
  const now = Date.now();
  const fullRef = `${namespace.fullPath}/${project.path}!${mr.iid}`;
  const closable = o.closable ?? closableFrom(user, project, await closingIssuesRead(db, user.id, sql`${mr.id}`).all());
  // MergeRequest#finalize_rules: the approval rules as they were when merged, in the merge's batch.
  const finalizeRules = await mergeRequestApprovals.get().finalizeRules(c, mr);
  // MergeRequest#squash_on_merge?: the project's `always`/`never` squash option wins.
  const squash = project.squashOption === 'always' ? true : project.squashOption === 'never' ? false : (input.squash ?? mr.squash);
  const closeIssues = project.defaultBranch != null && mr.targetBranch === project.defaultBranch;
  // MergeRequests::PostMergeService#delete_source_branch: when asked and allowed, never the default or
  // a protected branch; only while it still points at the merged head.
  const remove = input.shouldRemoveSourceBranch ?? mr.forceRemoveSourceBranch ?? false;
  const asCaller: Caller = { user, sudoer: null, credential: null, isAdmin: user.isAdmin };
  const deleteSource =
    remove && live.sha != null && mr.sourceBranch !== project.defaultBranch && (await canPushToBranch(c, asCaller, found.level, mr.sourceProjectId, mr.sourceBranch, { archived: project.archived }));

  // The merge request and issue rows change in the same batch as the branch, so a merge is all or nothing.
  const statementsFor = (r: { mergeCommitSha: string | null; squashCommitSha: string | null }): BatchItem<'sqlite'>[] => {
    const out: BatchItem<'sqlite'>[] = [
      // The guard: a merge request no longer open fails the whole batch (NOT NULL), branch included.
      db
        .update(mergeRequests)
        .set({ state: sql`CASE WHEN ${mergeRequests.state} = 'opened' THEN 'opened' END` })
        .where(eq(mergeRequests.id, mr.id)),
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
        .where(and(eq(mergeRequests.id, mr.id), eq(mergeRequests.state, 'opened'))),
      // ResourceEvents::ChangeStateService: the guard above fails the batch unless this merge lands.
      stateEventInsert(db, { type: 'MergeRequest', id: mr.id }, 'merged', user.id, now),
      // TodoService#merge_merge_request: the merger's pending to-dos on it are done.
      db
        .update(todos)
        .set({ state: 'done', updatedAt: now })
        .where(and(eq(todos.targetType, 'MergeRequest'), eq(todos.targetId, mr.id), eq(todos.state, 'pending'), eq(todos.userId, user.id))),
      ...finalizeRules,
      ...(deleteSource ? [deleteBranchStatement(db, mr.sourceProjectId, mr.sourceBranch, live.sha)] : []),
    ];
    if (!closeIssues) return out;
    for (const issue of closable) {
      // Issues::CloseService with `closed_via: merge_request`: conditional, so an issue closed meanwhile stays as it is.
      out.push(
        // The issue's state event (source_merge_request_id: this merge request), only if the close below lands.
        stateEventInsert(db, { type: 'Issue', id: issue.id }, 'closed', user.id, now, sql`EXISTS (SELECT 1 FROM issues se WHERE se.id = ${issue.id} AND se.state = 'opened')`, mr.id),
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

  try {
    const merged = await repo.merge(
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
        push: o.push,
      },
      statementsFor,
      o.reads,
    );
    return merged ? merged.reads : false;
  } catch (err) {
    // The guard above: the merge request was merged or closed meanwhile.
    if (/NOT NULL constraint failed: merge_requests\.state/i.test(String((err as Error)?.message) + String((err as { cause?: Error })?.cause?.message))) return false;
    throw err;
  }
}

export interface Closable {
  id: number;
  projectId: number;
  reference: string;
}

/**
 * The merge request's closing issues with what deciding whether `userId` may close them needs (the
 * issue, its project, the user's level there, its assignees), as one read for a batch.
 */
export function closingIssuesRead(db: Db, userId: number, mrId: SQL) {
  return db
    .select({
      issue: aliasedColumns(issues, 'i_'),
      project: aliasedColumns(projects, 'p_'),
      namespace: aliasedColumns(namespaces, 'n_'),
      level: projectLevelSql(userId).as('level'),
      assigneeIds: sql<string>`(SELECT json_group_array(a.user_id) FROM issue_assignees a WHERE a.issue_id = ${sql.raw('"issues"."id"')})`.as('assignee_ids'),
    })
    .from(mergeRequestsClosingIssues)
    .innerJoin(issues, eq(issues.id, mergeRequestsClosingIssues.issueId))
    .innerJoin(projects, eq(projects.id, issues.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(sql`${mergeRequestsClosingIssues.mergeRequestId} = ${mrId}`)
    .orderBy(mergeRequestsClosingIssues.id);
}

type ClosingIssueRow = Awaited<ReturnType<typeof closingIssuesRead>>[number];

/**
 * The closing issues the merger may close (Issues::CloseService checks update_issue), open ones
 * only, with their reference from the merge request's project (for the commit message).
 */
export function closableFrom(user: UserRow, project: ProjectRow, rows: ClosingIssueRow[]): Closable[] {
  const asCaller: Caller = { user, sudoer: null, credential: null, isAdmin: user.isAdmin };
  const out: Closable[] = [];
  for (const r of rows) {
    const issue = r.issue as unknown as IssueRow;
    const p = r.project as unknown as ProjectRow;
    const ns = r.namespace as unknown as NamespaceRow;
    const level = Number(r.level ?? 0);
    if (issue.state !== 'opened') continue;
    if (!canReadProject(asCaller, p, level) || !featureAvailable(p, 'issues', { level, isAdmin: user.isAdmin })) continue;
    const assigneeIds = JSON.parse(r.assigneeIds ?? '[]') as number[];
    if (issue.confidential && !canReadConfidentialIssue(asCaller, level, issue, assigneeIds)) continue;
    // update_issue: Planner and above, administrators, or the author.
    if (!(user.isAdmin || level >= ACCESS.PLANNER || issue.authorId === user.id)) continue;
    out.push({ id: issue.id, projectId: p.id, reference: p.id === project.id ? `#${issue.iid}` : `${ns.fullPath}/${p.path}#${issue.iid}` });
  }
  return out;
}

/** How many resolvable notes of a merge request (its id as SQL) are unresolved (MergeRequest#unresolved_notes), for a batch. */
export const unresolvedNotesRead = (db: Db, mrId: SQL) =>
  db
    .select({ n: sql<number>`count(*)` })
    .from(notes)
    .where(sql`${notes.noteableType} = 'MergeRequest' AND ${notes.noteableId} IN (${mrId}) AND ${notes.resolvable} = 1 AND ${notes.resolvedAt} IS NULL`);

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
  if (pr.project.onlyAllowMergeIfAllDiscussionsAreResolved && Number((await unresolvedNotesRead(db, sql`${mr.id}`))[0]?.n ?? 0) > 0) return false;
  const live = await liveState(c, mr);
  if (!live.sha || !live.targetHead || live.commitCount === 0 || live.conflict || live.needRebase) return false;
  return (await mergeMergeRequest(c, user, { mr, project: pr.project, namespace: pr.namespace, level }, live, { shouldRemoveSourceBranch: mr.shouldRemoveSourceBranch ?? undefined })) !== false;
}
