/**
 * `PUT /projects/:id/merge_requests/:merge_request_iid` (lib/api/merge_requests.rb,
 * MergeRequests::UpdateService): attributes, state events, metadata (assignees, reviewers, labels,
 * milestone, discussion lock) for who may set it, with the system notes, to-dos and diff versions
 * the changes make, in one batch.
 */
import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { labelLinks, mergeRequestAssignees, mergeRequestReviewers, mergeRequests, todos } from '../db/schema';
import { labelEvents, milestoneEvents, stateEventInsert } from '../issuables/resource-events';
import { assigneesNote, DESCRIPTION_NOTE, systemNoteInsert, titleNote, toSentence } from '../issuables/system-notes';
import { resolveTodosForTarget, TODO_ASSIGNED, TODO_REVIEW_REQUESTED } from '../issuables/todos';
import type { AppEnv } from '../platform/context';
import { ApiError, conflict, forbidden, validationFailed } from '../platform/errors';
import { requireUser } from '../platform/guards';
import { requestParams } from '../platform/params';
import { planAllows } from '../platform/plan';
import type { Router } from '../platform/router';
import { isUniqueViolation } from '../platform/unique';
import { labelsFoundOrBuilt } from '../planning/labels';
import { projectAssignableMilestoneRead, projectLabelsByTitleRead } from '../planning/project-planning-reads';
import { optionalReads } from '../issuables/optional-reads';
import { mergeRequestApprovals } from './approvals-port';
import { computeVersion, versionInsert } from './diffs';
import { diffLimitsOf } from '../repository/diff-limits';
import { issueLinkStatements } from './issue-references';
import { autoMergeIfReady } from './merge';
import { bothReads, canAdminMergeRequest, canUpdateMergeRequest, findReadableMergeRequestWith, headReads, peopleReads } from './merge-request-access';
import { writeAndPresentMergeRequest } from './merge-request-answer';
import { draftlessTitle, isDraftTitle, MergeRequestSchema, type MergeRequestRow } from './merge-request-entity';
import { repo } from './merge-request-repo';
import { mergeFacts } from '../repository/repository';
import { assertNoOpenMergeRequest, otherOpenMergeRequest, validBranchName } from './merge-request-writes';
import { assigneeCountErrors, requestedAssignees, textErrors } from '../issuables/issuable-fields';
import { assignableFrom, peopleNamedRead, type PersonNamed } from './people-reads';
import { canReadMergeRequests } from '../projects/abilities';
import { updateMergeRequestParams } from './merge-requests-params';
import { eventChanges, recordEvent } from '../platform/events';

const TAGS = ['merge_requests'];

export function mountMergeRequestUpdate(r: Router) {
  r.route(
    { method: 'PUT', path: '/projects/:id/merge_requests/:merge_request_iid', summary: 'Update a merge request', tags: TAGS, params: updateMergeRequestParams, responses: { 200: MergeRequestSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const db = c.var.db;
      // The merge request with what the checks read (assignees and reviewers, branch heads, labels,
      // another open request for the branches, the users named with their level, the milestone and
      // labels named, what the system approval rules are built from) in the project's round trip; the
      // writes, the rules' rebuild and the answer in one more (writeAndPresentMergeRequest).
      const labelsAsked = p.labels !== undefined || p.add_labels !== undefined || p.remove_labels !== undefined;
      const branchesAsked = p.state_event === 'reopen' || p.target_branch !== undefined;
      const premium = planAllows(c.var.config, 'premium');
      const approvals = mergeRequestApprovals.get();
      // "Set to 0 or provide an empty value to unassign all": CommaSeparatedToIntegerArray turns ''
      // into [] (the shared validator drops blank optionals before coercion).
      const raw = await requestParams(c);
      if (raw.assignee_ids === '' && p.assignee_ids === undefined && p.assignee_id === undefined) p.assignee_ids = [];
      if (raw.reviewer_ids === '' && p.reviewer_ids === undefined) p.reviewer_ids = [];
      const askedAssignees = requestedAssignees(p, premium);
      const askedReviewers = p.reviewer_ids === undefined ? undefined : premium ? p.reviewer_ids : p.reviewer_ids.slice(0, 1);
      // The users named, with their level, and those they replace (for the system notes' usernames).
      const peopleAsked = askedAssignees !== undefined || askedReviewers !== undefined;
      const addTitles = [...(p.labels ?? []), ...(p.add_labels ?? [])];
      const found = await findReadableMergeRequestWith(c, caller, p.id, p.merge_request_iid, (mrId, pid) => {
        // What the metadata names (skipped when not asked): the people, the milestone, the labels.
        const named = optionalReads([
          peopleAsked ? peopleNamedRead(db, pid, [...(askedAssignees ?? []), ...(askedReviewers ?? [])].filter((id) => id > 0), mrId) : undefined,
          p.milestone_id ? projectAssignableMilestoneRead(db, pid, p.milestone_id) : undefined,
          addTitles.length ? projectLabelsByTitleRead(db, pid, addTitles) : undefined,
          p.remove_labels?.length ? projectLabelsByTitleRead(db, pid, p.remove_labels) : undefined,
        ] as const);
        const more = {
          list: [
            db.select({ labelId: labelLinks.labelId }).from(labelLinks).where(and(eq(labelLinks.targetType, 'MergeRequest'), sql`${labelLinks.targetId} = ${mrId}`, labelsAsked ? undefined : sql`0`)),
            db
              .select({ iid: mergeRequests.iid })
              .from(mergeRequests)
              .where(
                sql`${mergeRequests.projectId} = ${pid} AND ${mergeRequests.sourceProjectId} = ${pid} AND ${mergeRequests.id} <> ${mrId} AND ${mergeRequests.state} IN ('opened', 'locked') AND ${branchesAsked ? sql`1` : sql`0`}
                  AND (${mergeRequests.sourceBranch}, ${mergeRequests.targetBranch}) IN (SELECT m.source_branch, coalesce(${p.target_branch ?? null}, m.target_branch) FROM merge_requests m WHERE m.id = ${mrId})`,
              )
              .limit(1),
            ...named.list,
            // What the system approval rules are built from at the target branch, for their rebuild in the write's batch.
            ...(premium ? (approvals.rulesReads?.(db, pid, sql`coalesce(${p.target_branch ?? null}, (SELECT m.target_branch FROM merge_requests m WHERE m.id = ${mrId}))`) ?? []) : []),
          ] as BatchItem<'sqlite'>[],
          unflatten: (r: readonly unknown[]) => {
            const [people, milestoneRows, addRows, removeRows] = named.unpack(r.slice(2, 2 + named.list.length));
            return {
              labelIds: (r[0] as { labelId: number }[]).map((l) => l.labelId),
              otherOpen: (r[1] as { iid: number }[])[0]?.iid,
              people: (people ?? []) as PersonNamed[],
              milestone: milestoneRows?.[0],
              addRows: addRows ?? [],
              removeRows: removeRows ?? [],
              rulesRead: r.slice(2 + named.list.length),
            };
          },
        };
        return bothReads(bothReads(peopleReads(db, mrId), headReads(db, mrId, p.target_branch)), more);
      });
      const { mr, project, namespace, level } = found;
      const [[people, heads], known] = found.loaded!;
      const assigneesBefore = people.assigneeIds;
      // assertNoOpenMergeRequest, from the read above.
      const assertNoOtherOpen = () => {
        if (known.otherOpen !== undefined) throw otherOpenMergeRequest(known.otherOpen);
      };
      if (!canUpdateMergeRequest(caller, project, level, mr, assigneesBefore)) throw forbidden();
      const now = Date.now();
      const admin = canAdminMergeRequest(caller, project, level);
      const open = mr.state === 'opened' || mr.state === 'locked';

      const errors = {
        ...textErrors({ title: p.title, description: p.description }),
        ...(admin ? assigneeCountErrors({ assignees: askedAssignees, reviewers: askedReviewers }) : {}),
      };
      if (Object.keys(errors).length) throw validationFailed(errors);

      const set: Partial<typeof mergeRequests.$inferInsert> = {};
      const noteBodies: string[] = [];
      if (p.title !== undefined && p.title !== mr.title) {
        set.title = p.title;
        set.draft = isDraftTitle(p.title);
        // SystemNoteService.change_title on the draftless titles, then handle_merge_request_draft.
        if (draftlessTitle(mr.title) !== draftlessTitle(p.title)) noteBodies.push(titleNote(draftlessTitle(mr.title), draftlessTitle(p.title)));
        if (set.draft !== mr.draft) noteBodies.push(`marked this merge request as **${set.draft ? 'draft' : 'ready'}**`);
      }
      if (p.description !== undefined && p.description !== (mr.description ?? '')) {
        set.description = p.description;
        noteBodies.push(DESCRIPTION_NOTE);
      }
      if (p.target_branch !== undefined && p.target_branch !== mr.targetBranch) {
        // MergeRequests::UpdateService: the target branch of a merged request cannot change.
        if (mr.state === 'merged') throw new ApiError(422, { message: ['Cannot change target branch of a merged merge request'] });
        if (p.target_branch === mr.sourceBranch) throw new ApiError(422, { message: ["You can't use same project/branch for source and target"] });
        if (!validBranchName(p.target_branch)) throw validationFailed({ target_branch: ['is invalid'] });
        set.targetBranch = p.target_branch;
        noteBodies.push(`changed target branch from \`${mr.targetBranch}\` to \`${p.target_branch}\``);
      }
      if (p.squash !== undefined && p.squash !== mr.squash) set.squash = p.squash;
      if (p.remove_source_branch !== undefined && p.remove_source_branch !== mr.forceRemoveSourceBranch) set.forceRemoveSourceBranch = p.remove_source_branch;
      const collab = p.allow_collaboration ?? p.allow_maintainer_to_push;
      if (collab !== undefined && collab !== mr.allowCollaboration) set.allowCollaboration = collab;

      const closing = p.state_event === 'close' && open;
      // MergeRequest#reopenable?: the source branch must still exist; otherwise the event does nothing.
      const reopening = p.state_event === 'reopen' && mr.state === 'closed' && heads.forMr(mr).source != null;
      if (closing) {
        const live = await liveRefs(c, mr, heads.forMr(mr));
        Object.assign(set, { state: 'closed', closedAt: now, closedById: user.id, headSha: live.head ?? mr.headSha, baseSha: live.base ?? mr.baseSha, startSha: live.target ?? mr.startSha });
      }
      if (reopening) {
        // No other open request for the same branches (MergeRequest#validate_branches).
        assertNoOtherOpen();
        Object.assign(set, { state: 'opened', closedAt: null, closedById: null });
      }
      if (set.targetBranch !== undefined && (open || reopening)) assertNoOtherOpen();

      // Metadata needs admin_merge_request (IssuableBaseService#filter_params drops it for others).
      if (admin) {
        if (p.discussion_locked !== undefined && p.discussion_locked !== Boolean(mr.discussionLocked)) {
          set.discussionLocked = p.discussion_locked;
          noteBodies.push(`${p.discussion_locked ? 'locked' : 'unlocked'} the discussion in this merge request`);
        } else if (p.discussion_locked !== undefined && mr.discussionLocked == null) set.discussionLocked = p.discussion_locked;
        if (p.milestone_id !== undefined) {
          const m = p.milestone_id ? known.milestone : undefined;
          const id = m?.id ?? null;
          if (id !== mr.milestoneId && (m || !p.milestone_id)) set.milestoneId = id;
        }
      }

      const statements: BatchItem<'sqlite'>[] = [];
      // The associations replaced, as read (the event's `changes` snapshot them with what the batch leaves).
      const replaced: { labels?: number[]; assignees?: number[]; reviewers?: number[] } = {};
      const names = new Map(known.people.map((u) => [u.id, u.username]));
      if (admin) {
        // Assignees.
        const next = assignableFrom(known.people, askedAssignees, (u, level) => canReadMergeRequests(u, project, level));
        if (next !== undefined && next.join() !== assigneesBefore.join()) {
          const added = next.filter((id) => !assigneesBefore.includes(id));
          const removed = assigneesBefore.filter((id) => !next.includes(id));
          replaced.assignees = assigneesBefore;
          statements.push(db.delete(mergeRequestAssignees).where(eq(mergeRequestAssignees.mergeRequestId, mr.id)));
          next.forEach((userId, position) => statements.push(db.insert(mergeRequestAssignees).values({ mergeRequestId: mr.id, userId, position, createdAt: now })));
          const body = assigneesNote(added.map((id) => names.get(id)!), removed.map((id) => names.get(id)!));
          if (body) noteBodies.push(body);
          for (const userId of added.filter((id) => id !== user.id))
            statements.push(db.insert(todos).values({ userId, authorId: user.id, projectId: project.id, targetType: 'MergeRequest', targetId: mr.id, action: TODO_ASSIGNED, state: 'pending', createdAt: now, updatedAt: now }));
        }
        // Reviewers.
        const reviewersBefore = people.reviewerIds;
        const nextReviewers = assignableFrom(known.people, askedReviewers, (u, level) => canReadMergeRequests(u, project, level));
        if (nextReviewers !== undefined && nextReviewers.join() !== reviewersBefore.join()) {
          const added = nextReviewers.filter((id) => !reviewersBefore.includes(id));
          const removed = reviewersBefore.filter((id) => !nextReviewers.includes(id));
          replaced.reviewers = reviewersBefore;
          if (removed.length) statements.push(db.delete(mergeRequestReviewers).where(and(eq(mergeRequestReviewers.mergeRequestId, mr.id), inArray(mergeRequestReviewers.userId, removed))));
          nextReviewers.forEach((userId, position) =>
            statements.push(
              db
                .insert(mergeRequestReviewers)
                .values({ mergeRequestId: mr.id, userId, position, createdAt: now })
                .onConflictDoUpdate({ target: [mergeRequestReviewers.mergeRequestId, mergeRequestReviewers.userId], set: { position } }),
            ),
          );
          const body = reviewersNote(added.map((id) => names.get(id)!), removed.map((id) => names.get(id)!));
          if (body) noteBodies.push(body);
          for (const userId of added.filter((id) => id !== user.id))
            statements.push(
              db.insert(todos).values({ userId, authorId: user.id, projectId: project.id, targetType: 'MergeRequest', targetId: mr.id, action: TODO_REVIEW_REQUESTED, state: 'pending', createdAt: now, updatedAt: now }),
            );
        }
        // Labels: `labels` replaces, then add_labels / remove_labels.
        if (p.labels !== undefined || p.add_labels !== undefined || p.remove_labels !== undefined) {
          const currentIds = known.labelIds;
          const toAdd = labelsFoundOrBuilt(db, project.id, known.addRows, addTitles, now);
          const toRemove = p.remove_labels?.length ? labelsFoundOrBuilt(db, project.id, known.removeRows, p.remove_labels, now, { create: false }) : null;
          const removeIds = new Set((toRemove?.existing ?? []).map((l) => l.id));
          const keep = p.labels !== undefined ? [] : currentIds.filter((id) => !removeIds.has(id));
          const addIds = toAdd.ids.filter((l) => typeof l.id !== 'number' || !removeIds.has(l.id));
          const finalKnown = new Set([...keep, ...addIds.map((l) => l.id).filter((id): id is number => typeof id === 'number')]);
          const changed = toAdd.inserts.length > 0 || finalKnown.size !== currentIds.length || currentIds.some((id) => !finalKnown.has(id));
          if (changed) {
            replaced.labels = currentIds;
            statements.push(...toAdd.inserts);
            // Label events before the link statements they describe (each checks the link as the batch reaches it).
            const removedIds = p.labels !== undefined ? currentIds.filter((id) => !finalKnown.has(id)) : [...removeIds];
            statements.push(...labelEvents(db, { type: 'MergeRequest', id: mr.id }, addIds.map((l) => l.id), removedIds, user.id, now));
            // add_labels / remove_labels write a delta, not the set read above: a label another request
            // added or removed meanwhile stays as that request left it. `labels` replaces the whole set.
            const links = and(eq(labelLinks.targetType, 'MergeRequest'), eq(labelLinks.targetId, mr.id));
            if (p.labels !== undefined) statements.push(db.delete(labelLinks).where(and(links, finalKnown.size ? notInArray(labelLinks.labelId, [...finalKnown]) : undefined)));
            else if (removeIds.size) statements.push(db.delete(labelLinks).where(and(links, inArray(labelLinks.labelId, [...removeIds]))));
            for (const l of addIds) statements.push(db.insert(labelLinks).values({ labelId: l.id, targetType: 'MergeRequest', targetId: mr.id, createdAt: now }).onConflictDoNothing());
          }
        }
      }
      if (premium && p.approvals_before_merge !== undefined && p.approvals_before_merge !== mr.approvalsBeforeMerge) {
        set.approvalsBeforeMerge = p.approvals_before_merge;
        statements.push(approvals.approvalsBeforeMerge(db, mr.id, p.approvals_before_merge, now));
      }
      if (set.description !== undefined) statements.push(...(await issueLinkStatements(c, user, project, namespace, set.description, mr.id, now, true)));

      const changedSomething = Object.keys(set).length > 0 || statements.length > 0;
      if (changedSomething) {
        set.updatedAt = now;
        if (set.title !== undefined || set.description !== undefined) Object.assign(set, { lastEditedAt: now, lastEditedById: user.id });
        // The state transition is conditional on the state read, so a racing merge or close wins once.
        const stateGuard = set.state !== undefined ? eq(mergeRequests.state, mr.state) : undefined;
        statements.unshift(db.update(mergeRequests).set(set).where(and(eq(mergeRequests.id, mr.id), stateGuard)));
        const target = { type: 'MergeRequest', id: mr.id } as const;
        if (set.milestoneId !== undefined) statements.push(...milestoneEvents(db, target, mr.milestoneId, set.milestoneId, set.state ?? mr.state, user.id, now));
        // The state event rides the same guard, placed before the update: recorded only when the transition lands.
        if (set.state !== undefined) statements.unshift(stateEventInsert(db, target, closing ? 'closed' : 'reopened', user.id, now, sql`EXISTS (SELECT 1 FROM merge_requests se WHERE se.id = ${mr.id} AND se.state = ${mr.state})`));
        // TodoService#close_merge_request: the closer's pending to-dos on it are done.
        if (closing) statements.push(resolveTodosForTarget(db, 'MergeRequest', mr.id, now, user.id));
        // MergeRequest#reload_diff: a new diff version when an open request gets another target
        // branch (reload_diff_if_branch_changed, both heads existing) and when it is reopened.
        if ((set.targetBranch !== undefined && open && !closing) || reopening) {
          const target = set.targetBranch ?? mr.targetBranch;
          const [head, start] = [heads.of(mr.sourceProjectId, mr.sourceBranch), heads.of(mr.projectId, target)];
          if (head && start) {
            // The merge base with the files of both heads and of the base in one round trip when this
            // isolate has not seen them (merge-facts.ts); the version and the rules' rebuild read none.
            const [{ base }] = await mergeFacts(db, [{ projectId: mr.projectId, targetHead: start, head }]);
            statements.push(versionInsert(db, mr.id, await computeVersion(db, mr.projectId, head, start, base), now, (await diffLimitsOf(c)).maxFiles));
          }
        }
        for (const body of noteBodies) statements.push(systemNoteInsert(db, { noteableType: 'MergeRequest', noteableId: mr.id, projectId: project.id, authorId: user.id, body, at: now }));
        statements.push(...recordEvent(c, { kind: 'merge_request', projectId: project.id, objectId: mr.id, action: closing ? 'close' : reopening ? 'reopen' : 'update', actorId: user.id, data: { changes: eventChanges(mr, set) }, before: replaced }));
      }
      // The system approval rules (code owner, report approver) follow the target branch and its head:
      // rebuilt after the update in its batch when stale for the merge request as it leaves it (another
      // target, reopened, or a push since they were built), so presenting the answer rebuilds nothing.
      const after = { ...mr, ...set } as MergeRequestRow;
      const rules = await approvals.rulesRebuild?.(c, after, { head: heads.of(mr.sourceProjectId, mr.sourceBranch), targetHead: heads.of(mr.projectId, after.targetBranch) }, known.rulesRead);
      const writes = [...(changedSomething ? statements : []), ...(rules?.writes ?? [])];
      // A draft marked ready may complete a pending automatic merge (AutoMergeProcessWorker): the
      // update first, then the merge, then the answer.
      const autoMerge = changedSomething && mr.mergeWhenPipelineSucceeds && set.draft === false;
      try {
        if (autoMerge) {
          await db.batch(writes as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
          await autoMergeIfReady(c, mr.id);
        }
        // The writes (if any) and the answer's reads in one round trip.
        return c.json(await writeAndPresentMergeRequest(c, caller, found, autoMerge ? [] : writes));
      } catch (err) {
        if (isUniqueViolation(err, 'source_branch') || isUniqueViolation(err, 'merge_requests_open_branches')) {
          await assertNoOpenMergeRequest(c, project.id, mr.sourceBranch, set.targetBranch ?? mr.targetBranch, mr.id);
          throw conflict('Another open merge request already exists for this source branch');
        }
        throw err;
      }
    },
  );
}

/** Live HEAD, target and merge base of an open merge request (recorded when it closes). */
async function liveRefs(c: Context<AppEnv>, mr: MergeRequestRow, heads: { source: string | null; target: string | null }): Promise<{ head: string | null; target: string | null; base: string | null }> {
  const { source: head, target } = heads;
  const base = head && target ? await repo.mergeBase(c, mr.projectId, target, head) : null;
  return { head, target, base };
}

/** SystemNotes::IssuablesService#change_issuable_reviewers. */
function reviewersNote(added: string[], removed: string[]): string | null {
  const parts: string[] = [];
  if (added.length) parts.push(`requested review from ${toSentence(added.map((u) => `@${u}`))}`);
  if (removed.length) parts.push(`removed review request for ${toSentence(removed.map((u) => `@${u}`))}`);
  return parts.length ? parts.join(' and ') : null;
}
