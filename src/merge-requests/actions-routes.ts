/**
 * Merge request actions (GitLab lib/api/merge_requests.rb, subscriptions.rb): merge, cancel
 * auto-merge, subscribe/unsubscribe; the repository views (commits, changes, diffs) are changes-routes.ts.
 */
import { and, eq } from 'drizzle-orm';
import { mergeRequests, subscriptions } from '../db/schema';
import { ApiError, conflict, notModified, unauthorized, validationFailed } from '../platform/errors';
import { checkText, MAX_TEXT_SIZE } from '../platform/text-limits';
import type { Router } from '../platform/router';
import { requireUser } from '../platform/guards';
import { mergeParams, mergeRequestRefParams } from './merge-requests-params';
import { isApproved, liveState } from './live-state';
import { mergeMergeRequest } from './merge';
import { canBeMergedBy, findProjectMergeRequest, findReadableMergeRequest, mergeRequestAssigneeIds, mergeRequestReviewerIds, notAllowed } from './merge-request-access';
import { MergeRequestSchema } from './merge-request-entity';
import { presentMergeRequest, subscribedToMergeRequest } from './merge-request-presenter';
import { mountMergeRequestChanges } from './changes-routes';
import { systemNoteInsert } from '../issuables/system-notes';

const MERGE_TEXT = { merge_commit_message: { max: MAX_TEXT_SIZE }, squash_commit_message: { max: MAX_TEXT_SIZE } };

const TAGS = ['merge_requests'];

export function mountMergeRequestActions(r: Router) {
  r.route(
    { method: 'PUT', path: '/projects/:id/merge_requests/:merge_request_iid/merge', summary: 'Merge a merge request', tags: TAGS, params: mergeParams, responses: { 200: MergeRequestSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const found = await findProjectMergeRequest(c, caller, p.id, p.merge_request_iid);
      const { mr, project, level } = found;
      // `unauthorized! unless merge_request.can_be_merged_by?(current_user)`.
      if (!(await canBeMergedBy(c, caller, project, level, mr.targetBranch))) throw unauthorized();

      const open = mr.state === 'opened';
      const approved = open ? await isApproved(c, mr) : true;
      const live = await liveState(c, mr, { approved, mergeMethod: project.mergeMethod });
      const missing = !live.sha || !live.targetHead;
      // MergeRequest.mergeable_state_checks: open, not a draft, with commits, discussions resolved,
      // and EE's approvals; the conflict check is a git state check (mergeable_git_state_checks).
      const stateOk = open && !missing && live.commitCount > 0 && !mr.draft && approved;
      // AutoMerge::BaseService#available_for?: open and not broken (commits, branches, no conflict).
      const broken = !open || missing || live.commitCount === 0 || live.conflict;
      const autoMerge = Boolean(p.merge_when_pipeline_succeeds || p.auto_merge);
      // No pipelines exist here: `immediately_mergeable?` with auto-merge asks for a successful head
      // pipeline (never), and the merge-when-checks-pass strategy is only available while a check
      // still fails (a draft or missing approvals) on a request that is not broken.
      const immediately = !autoMerge && stateOk;
      const automatically = autoMerge && !broken && !stateOk;
      if (!immediately && !automatically) throw notAllowed();
      // `render_api_error!('Branch cannot be merged', 422) unless automatically_mergeable || merge_request.mergeable?`:
      // the git state checks (a conflict, or a fast-forward-only project's request needing a rebase).
      if (immediately && (live.conflict || live.needRebase)) throw new ApiError(422, { message: 'Branch cannot be merged' });
      // check_sha_param!
      if (p.sha !== undefined && p.sha !== live.sha) throw conflict(`SHA does not match HEAD of source branch: ${live.sha}`);

      // The messages become commits: held to MAX_TEXT_SIZE_LIMIT like GitLab's other text.
      const textErrors = checkText({}, { merge_commit_message: p.merge_commit_message, squash_commit_message: p.squash_commit_message }, MERGE_TEXT);
      if (Object.keys(textErrors).length) throw validationFailed(textErrors);

      const db = c.var.db;
      if (p.squash) await db.update(mergeRequests).set({ squash: true }).where(eq(mergeRequests.id, mr.id)).run();
      if (automatically) {
        const now = Date.now();
        // AutoMerge::MergeWhenChecksPassService#execute (the default strategy without pipelines).
        if (!mr.mergeWhenPipelineSucceeds) {
          await db.batch([
            db
              .update(mergeRequests)
              .set({ mergeWhenPipelineSucceeds: true, mergeUserId: user.id, shouldRemoveSourceBranch: p.should_remove_source_branch ?? mr.shouldRemoveSourceBranch, updatedAt: now })
              .where(and(eq(mergeRequests.id, mr.id), eq(mergeRequests.state, 'opened'))),
            systemNoteInsert(db, { noteableType: 'MergeRequest', noteableId: mr.id, projectId: project.id, authorId: user.id, body: `enabled an automatic merge when all merge checks for ${live.sha} pass`, at: now }),
          ]);
        }
      } else {
        const merged = await mergeMergeRequest(c, user, found, live, {
          mergeCommitMessage: p.merge_commit_message,
          squashCommitMessage: p.squash_commit_message,
          shouldRemoveSourceBranch: p.should_remove_source_branch,
          squash: p.squash ? true : undefined,
        });
        // `render_api_error!("Branch cannot be merged", 422)` when the merge did not happen.
        if (!merged) throw new ApiError(422, { message: 'Branch cannot be merged' });
      }
      const row = await db.select().from(mergeRequests).where(eq(mergeRequests.id, mr.id)).get();
      return c.json(await presentMergeRequest(c, caller, row!, { project }));
    },
  );

  r.route(
    {
      method: 'POST',
      path: '/projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds',
      summary: 'Cancel merge when pipeline succeeds',
      tags: TAGS,
      params: mergeRequestRefParams,
      responses: { 201: MergeRequestSchema },
    },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const found = await findProjectMergeRequest(c, caller, p.id, p.merge_request_iid);
      const { mr, project, level } = found;
      // can_cancel_auto_merge?: who can merge, or who set it.
      if (!(await canBeMergedBy(c, caller, project, level, mr.targetBranch)) && mr.mergeUserId !== user.id) throw unauthorized();
      // AutoMergeService#cancel: 406 when nothing is scheduled.
      if (!mr.mergeWhenPipelineSucceeds || mr.state !== 'opened') throw new ApiError(406, { message: "Can't cancel the automatic merge" });
      const db = c.var.db;
      const now = Date.now();
      await db.batch([
        db.update(mergeRequests).set({ mergeWhenPipelineSucceeds: false, mergeUserId: null, updatedAt: now }).where(eq(mergeRequests.id, mr.id)),
        systemNoteInsert(db, { noteableType: 'MergeRequest', noteableId: mr.id, projectId: project.id, authorId: user.id, body: 'canceled the automatic merge', at: now }),
      ]);
      const row = await db.select().from(mergeRequests).where(eq(mergeRequests.id, mr.id)).get();
      return c.json(await presentMergeRequest(c, caller, row!, { project }), 201);
    },
  );

  for (const action of ['subscribe', 'unsubscribe'] as const) {
    r.route(
      {
        method: 'POST',
        path: `/projects/:id/merge_requests/:merge_request_iid/${action}`,
        summary: action === 'subscribe' ? 'Subscribe to a merge request' : 'Unsubscribe from a merge request',
        tags: TAGS,
        params: mergeRequestRefParams,
        responses: { 201: MergeRequestSchema, 304: null },
      },
      async ({ c, p, caller }) => {
        const user = requireUser(caller);
        const found = await findReadableMergeRequest(c, caller, p.id, p.merge_request_iid);
        const db = c.var.db;
        const want = action === 'subscribe';
        const [assignees, reviewers] = await Promise.all([mergeRequestAssigneeIds(db, found.mr.id), mergeRequestReviewerIds(db, found.mr.id)]);
        // subscriptions.rb: `not_modified!` when already in the requested state.
        if ((await subscribedToMergeRequest(db, caller, found.mr, assignees, reviewers)) === want) throw notModified();
        const now = Date.now();
        await db
          .insert(subscriptions)
          .values({ userId: user.id, subscribableType: 'MergeRequest', subscribableId: found.mr.id, projectId: found.project.id, subscribed: want, createdAt: now, updatedAt: now })
          .onConflictDoUpdate({ target: [subscriptions.subscribableType, subscriptions.subscribableId, subscriptions.userId, subscriptions.projectId], set: { subscribed: want, updatedAt: now } })
          .run();
        return c.json(await presentMergeRequest(c, caller, found.mr, { project: found.project }), 201);
      },
    );
  }

  mountMergeRequestChanges(r);
}
