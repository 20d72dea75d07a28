/**
 * What a push does to the approvals of a merge request it refreshed (Refresh::ApprovalService,
 * ResetApprovalsService), as statements for the push's batch (merge-requests/refresh.ts):
 * - with reset_approvals_on_push, its approvals are deleted with the "reset approvals from @a by
 *   pushing to the branch" note (they had already stopped counting: an approval only counts at the
 *   HEAD it was given at, approvals/rules.ts);
 * - otherwise, with selective_code_owner_removals, the approvals of code owners of the paths the
 *   push changed are deleted.
 * Code owner rules themselves are rebuilt on the next read (approvals/system-rules.ts).
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { approvals, members, mergeRequestReviewers, notes, projectApprovalSettings, users } from '../db/schema';
import { batchReads } from '../db/batch-reads';
import type { Db } from '../db/client';
import { ACCESS, activeMember } from '../projects/abilities';
import { toSentence } from '../issuables/system-notes';
import type { RefreshedMergeRequest } from '../merge-requests/refresh';
import { patchIdOf } from '../repository/patch-id';
import type { Push } from '../repository/push';
import { branchHead, diffManifests, manifestOf } from '../repository/repository';
import { entriesForPaths } from './code-owners';
import { approvalsFeature, defaultSettings, effectiveSettings } from './rules';
import { codeOwnersFileAt } from './system-rules';
import { resolveOwners } from './code-owner-rules';

/** The paths a push changed, computed once per push whatever the number of merge requests it refreshes. */
const changedPathsOf = new WeakMap<Push, Promise<string[]>>();

/** The project's approval settings and the merge request's approvals: the hook's reads, for the refresh's batch. */
const settingsAndApprovals = (db: Db, mr: { id: number; projectId: number }) =>
  [
    db.select().from(projectApprovalSettings).where(eq(projectApprovalSettings.projectId, mr.projectId)).limit(1),
    db.select().from(approvals).where(eq(approvals.mergeRequestId, mr.id)).orderBy(approvals.createdAt, approvals.id),
  ] as const;

export async function resetApprovalsOnPush(c: Context<AppEnv>, push: Push, { mr, project, namespace, changes }: RefreshedMergeRequest, read?: readonly unknown[]): Promise<BatchItem<'sqlite'>[]> {
  const db = c.var.db;
  const out: BatchItem<'sqlite'>[] = [];
  const at = push.at;
  // The settings and the approvals in one round trip, or in the refresh's batch (`read`).
  const [settingsRows, rows] = (read as Awaited<ReturnType<typeof batchReads<ReturnType<typeof settingsAndApprovals>>>> | undefined) ?? (await batchReads(db, settingsAndApprovals(db, mr)));
  const settings = settingsRows[0] ?? defaultSettings(mr.projectId);
  const eff = await effectiveSettings(c, settings);
  if (!rows.length) return out;
  if (eff.resetApprovalsOnPush) {
    // ResetApprovalsService#delete_approvals (filter_approvals: those for the new diff's patch id
    // stay, so a rebase keeps them) with the note naming the removed ones that counted.
    const head = push.oldSha ?? (await branchHead(db, push.projectId, push.branch));
    const patchId = patchIdOf(changes);
    const removed = rows.filter((r) => patchId == null || r.patchIdSha !== patchId);
    if (!removed.length) return out;
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
    return out;
  }
  if (!settings.selectiveCodeOwnerRemovals || !approvalsFeature(c)) return out;
  // ResetApprovalsService#delete_code_owner_approvals: code owners (of the target branch's
  // CODEOWNERS) of the paths this push changed lose their approvals.
  const file = await codeOwnersFileAt(c, mr.projectId, await branchHead(db, mr.projectId, mr.targetBranch));
  if (!file) return out;
  if (!changedPathsOf.has(push))
    changedPathsOf.set(push, manifestOf(db, push.projectId, push.oldSha).then((old) => [...new Set(diffManifests(old, push.manifest).flatMap((ch) => [ch.oldPath, ch.newPath]))]));
  const changedPaths = await changedPathsOf.get(push)!;
  const entries = entriesForPaths(file, changedPaths).filter((e) => !e.exclusion);
  if (!entries.length) return out;
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
  if (!removed.length) return out;
  out.push(
    db.delete(approvals).where(and(eq(approvals.mergeRequestId, mr.id), inArray(approvals.userId, removed))),
    db.update(mergeRequestReviewers).set({ state: 'unapproved' }).where(and(eq(mergeRequestReviewers.mergeRequestId, mr.id), inArray(mergeRequestReviewers.userId, removed))),
  );
  return out;
}
resetApprovalsOnPush.reads = settingsAndApprovals;
