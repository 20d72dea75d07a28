/**
 * What a push to a branch does to the open merge requests whose source branch it is
 * (MergeRequests::RefreshService, Refresh::ApprovalService, ResetApprovalsService), as statements for
 * the push's own batch, so the branch move and its consequences land together or not at all:
 * - the merge request is touched (updated_at), gets a new diff version (merge_request_diffs) and the
 *   "added N commits" system note linking to it;
 * - with reset_approvals_on_push, its approvals are deleted with the "reset approvals from @a by
 *   pushing to the branch" note (they had already stopped counting: an approval only counts at the
 *   HEAD it was given at, services/approval-rules.ts);
 * - otherwise, with selective_code_owner_removals, the approvals of code owners of the paths the
 *   push changed are deleted.
 * Code owner rules themselves are rebuilt on the next read (services/system-approval-rules.ts).
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, UserRow } from '../platform/context';
import { approvals, members, mergeRequestReviewers, mergeRequests, namespaces, notes, projects, users } from '../db/schema';
import { ACCESS, activeMember } from '../projects/abilities';
import { approvalsFeature, effectiveSettings, loadSettings } from '../approvals/rules';
import { entriesForPaths } from '../approvals/code-owners';
import { codeOwnersFileAt, resolveOwners } from '../approvals/system-rules';
import { toSentence } from '../issuables/system-notes';
import { type DiffVersion, newestVersionIdSql, versionInsert } from '../merge-requests/diffs';
import { patchIdOf } from './patch-id';
import { branchHead, type CommitRow, diffManifests, type Manifest, manifestOf, mergeBase } from './repository';

export interface Push {
  projectId: number;
  branch: string;
  /** The head before the push (null: a new branch). */
  oldSha: string | null;
  /** The commits the push adds, oldest first, the new head last. */
  commits: CommitRow[];
  /** The files at the new head. */
  manifest: Manifest;
  /** A stored commit the pushed commits build on (their merge base with a target is taken from it). */
  from: string | null;
  user: UserRow;
  at: number;
}

const title = (message: string) => message.split('\n')[0];

/** SystemNotes::CommitService#add_commits: "added 1 commit", the list (10 at most, earlier ones summed up), the comparison link. */
function addCommitsBody(push: Push, mrPath: string): { head: string; tail: string } {
  const commits = push.commits;
  const lines: string[] = [];
  const LIMIT = 10;
  let shown = commits;
  if (commits.length > LIMIT) {
    const truncated = commits.slice(0, commits.length - LIMIT);
    shown = commits.slice(commits.length - LIMIT);
    const ids =
      truncated.length === 1
        ? truncated[0].sha.slice(0, 8)
        : push.oldSha
          ? `${push.oldSha.slice(0, 8)}...${truncated[truncated.length - 1].sha.slice(0, 8)}`
          : `${truncated[0].sha.slice(0, 8)}..${truncated[truncated.length - 1].sha.slice(0, 8)}`;
    lines.push(`<li>${ids} - ${truncated.length} earlier ${truncated.length === 1 ? 'commit' : 'commits'}</li>`);
  }
  for (const c of shown) lines.push(`<li>${c.sha.slice(0, 8)} - ${escapeHtml(title(c.message))}</li>`);
  const n = commits.length;
  // The comparison link names the merge request diff version (its id is filled in by the caller).
  return {
    head: `added ${n} ${n === 1 ? 'commit' : 'commits'}\n\n<ul>${lines.join('')}</ul>\n\n[Compare with previous version](${mrPath}/diffs?diff_id=`,
    tail: `&start_sha=${push.oldSha ?? ''})`,
  };
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/**
 * Statements for the push's batch, for every open merge request from the pushed branch. Call after
 * the push is built (its commits and files are known) and before its batch runs.
 */
export async function pushStatements(c: Context<AppEnv>, push: Push): Promise<BatchItem<'sqlite'>[]> {
  const db = c.var.db;
  if (!push.commits.length) return [];
  const open = await db
    .select({ mr: mergeRequests, project: projects, namespace: namespaces })
    .from(mergeRequests)
    .innerJoin(projects, eq(projects.id, mergeRequests.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(and(eq(mergeRequests.sourceProjectId, push.projectId), eq(mergeRequests.sourceBranch, push.branch), eq(mergeRequests.state, 'opened')))
    .all();
  if (!open.length) return [];
  const out: BatchItem<'sqlite'>[] = [];
  const at = push.at;
  const newHead = push.commits[push.commits.length - 1].sha;
  let changedPaths: string[] | null = null;

  for (const { mr, project, namespace } of open) {
    const mrPath = `/${namespace.fullPath}/${project.path}/-/merge_requests/${mr.iid}`;
    const body = addCommitsBody(push, mrPath);
    // MergeRequest#reload_diff: a new diff version with head = the new commit, start = the target
    // head and base = their merge base. The new commit is not stored yet, so the base is taken
    // from the commit it builds on (the same merge base: the new commit is in no target's history).
    const targetHead = await branchHead(db, mr.projectId, mr.targetBranch);
    const base = targetHead && push.from ? await mergeBase(db, push.projectId, targetHead, push.from) : null;
    const changes = diffManifests(await manifestOf(db, push.projectId, base), push.manifest);
    const version: DiffVersion = { head: newHead, base, start: targetHead, changes };
    out.push(
      db.update(mergeRequests).set({ updatedAt: at }).where(and(eq(mergeRequests.id, mr.id), eq(mergeRequests.state, 'opened'))),
      versionInsert(db, mr.id, version, at),
      // The comparison link names the version written just above (SystemNoteService#add_commits: merge_request_diff.id).
      db.insert(notes).values({
        noteableType: 'MergeRequest',
        noteableId: mr.id,
        projectId: mr.projectId,
        authorId: push.user.id,
        body: sql`${body.head} || ${newestVersionIdSql(mr.id)} || ${body.tail}` as unknown as string,
        system: true,
        createdAt: at,
        updatedAt: at,
      }),
    );

    const settings = await loadSettings(db, mr.projectId);
    const eff = await effectiveSettings(c, settings);
    const rows = await db.select().from(approvals).where(eq(approvals.mergeRequestId, mr.id)).orderBy(approvals.createdAt, approvals.id).all();
    if (!rows.length) continue;
    if (eff.resetApprovalsOnPush) {
      // ResetApprovalsService#delete_approvals (filter_approvals: those for the new diff's patch id
      // stay, so a rebase keeps them) with the note naming the removed ones that counted.
      const head = push.oldSha ?? (await branchHead(db, push.projectId, push.branch));
      const patchId = patchIdOf(changes);
      const removed = rows.filter((r) => patchId == null || r.patchIdSha !== patchId);
      if (!removed.length) continue;
      const counted = removed.filter((r) => r.sha === head).map((r) => r.userId);
      out.push(db.delete(approvals).where(and(eq(approvals.mergeRequestId, mr.id), inArray(approvals.userId, removed.map((r) => r.userId)))));
      if (counted.length) {
        const names = await db.select({ id: users.id, username: users.username }).from(users).where(inArray(users.id, counted)).all();
        const byId = new Map(names.map((u) => [u.id, u.username]));
        const refs = counted.map((id) => byId.get(id)).filter((u): u is string => !!u).map((u) => `@${u}`);
        if (refs.length) {
          out.push(
            db.insert(notes).values({
              noteableType: 'MergeRequest',
              noteableId: mr.id,
              projectId: mr.projectId,
              authorId: push.user.id,
              body: `reset approvals from ${toSentence(refs)} by pushing to the branch`,
              system: true,
              createdAt: at,
              updatedAt: at,
            }),
          );
        }
      }
      continue;
    }
    if (!settings.selectiveCodeOwnerRemovals || !approvalsFeature(c)) continue;
    // ResetApprovalsService#delete_code_owner_approvals: code owners (of the target branch's
    // CODEOWNERS) of the paths this push changed lose their approvals.
    const file = await codeOwnersFileAt(c, mr.projectId, await branchHead(db, mr.projectId, mr.targetBranch));
    if (!file) continue;
    changedPaths ??= [...new Set(diffManifests(await manifestOf(db, push.projectId, push.oldSha), push.manifest).flatMap((ch) => [ch.oldPath, ch.newPath]))];
    const entries = entriesForPaths(file, changedPaths).filter((e) => !e.exclusion);
    if (!entries.length) continue;
    const owners = await resolveOwners(db, project, namespace, entries);
    const ownerIds = new Set(owners.flatMap((o) => o.userIds));
    const groupIds = [...new Set(owners.flatMap((o) => o.groupIds))];
    if (groupIds.length) {
      const groupMembers = await db
        .select({ userId: members.userId })
        .from(members)
        .where(and(eq(members.sourceType, 'Namespace'), inArray(members.sourceId, groupIds), sql`${members.accessLevel} > ${ACCESS.MINIMAL}`, activeMember()))
        .all();
      for (const m of groupMembers) ownerIds.add(m.userId);
    }
    // The author's approval never counted for a rule unless authors may approve.
    const removed = rows.map((r) => r.userId).filter((id) => ownerIds.has(id) && (settings.mergeRequestsAuthorApproval || id !== mr.authorId));
    if (!removed.length) continue;
    out.push(
      db.delete(approvals).where(and(eq(approvals.mergeRequestId, mr.id), inArray(approvals.userId, removed))),
      db.update(mergeRequestReviewers).set({ state: 'unapproved' }).where(and(eq(mergeRequestReviewers.mergeRequestId, mr.id), inArray(mergeRequestReviewers.userId, removed))),
    );
  }
  return out;
}
