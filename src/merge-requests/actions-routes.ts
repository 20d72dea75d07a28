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
import { closableFrom, closingIssuesRead, mergeMergeRequest, unresolvedNotesRead } from './merge';
import { bothReads, branchRuleReads, distinctReads, canBeMergedBy, findProjectMergeRequestWith, headReads, findReadableMergeRequestWith, notAllowed, peopleReads } from './merge-request-access';
import { answerReads, writeAndPresentMergeRequest } from './merge-request-answer';
import { mergeRequestApprovals } from './approvals-port';
import type { MergeRequestRow } from './merge-request-entity';
import type { BatchItem } from 'drizzle-orm/batch';
import { primeMemo, withReadMemo } from '../platform/read-memo';
import { MergeRequestSchema } from './merge-request-entity';
import { subscribedFrom, subscriptionReads } from './merge-request-presenter';
import { mountMergeRequestChanges } from './changes-routes';
import { systemNoteInsert } from '../issuables/system-notes';
import { mergePushReads } from './push-reads';

const MERGE_TEXT = { merge_commit_message: { max: MAX_TEXT_SIZE }, squash_commit_message: { max: MAX_TEXT_SIZE } };

const TAGS = ['merge_requests'];

export function mountMergeRequestActions(r: Router) {
  r.route(
    { method: 'PUT', path: '/projects/:id/merge_requests/:merge_request_iid/merge', summary: 'Merge a merge request', tags: TAGS, params: mergeParams, responses: { 200: MergeRequestSchema } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const db = c.var.db;
      // Round trips: one for every check (the project, the merge request, the branch rules, both
      // heads, the approval state and the closing issues), the merge facts when this isolate has not
      // seen the heads, then one batch for the merge (or the automatic merge) and the answer's reads.
      // The checks run in a read memo; the answer is presented after it, from the batch's reads.
      const done = await withReadMemo(c, async () => {
        let primeApprovals: ((mr: MergeRequestRow) => void) | undefined;
        let unresolved = 0;
        const found = await findProjectMergeRequestWith(c, caller, p.id, p.merge_request_iid, (mrId, projectId) => {
          const approvals = mergeRequestApprovals.get().stateReads?.(c, caller, projectId, p.merge_request_iid);
          const rest = {
            list: [closingIssuesRead(db, user.id, mrId), unresolvedNotesRead(db, mrId), ...(approvals?.list ?? [])] as BatchItem<'sqlite'>[],
            unflatten: (r: readonly unknown[]) => {
              if (approvals) primeApprovals = (mr) => approvals.prime(mr, r.slice(2));
              unresolved = Number((r[1] as { n: number }[])[0]?.n ?? 0);
              return r[0] as Awaited<ReturnType<typeof closingIssuesRead>>;
            },
          };
          // The approval state reads the branch heads and protected branches too: each is sent once.
          // The merge is a push to the target branch: the push hooks' reads come along (push-reads.ts).
          return distinctReads(bothReads(bothReads(bothReads(branchRuleReads(db, projectId), headReads(db, mrId)), rest), mergePushReads(db, mrId, projectId)));
        });
        const { mr, project, level } = found;
        const [[[rules, heads], closing], push] = found.loaded;
        const { source, target } = heads.forMr(mr);
        rules.prime(c, [{ projectId: project.id, name: mr.targetBranch }, ...(mr.sourceProjectId === project.id ? [{ projectId: project.id, name: mr.sourceBranch }] : [])]);
        primeMemo(c, [[`head:${mr.sourceProjectId}:${mr.sourceBranch}`, source], [`head:${mr.projectId}:${mr.targetBranch}`, target]]);
        primeApprovals?.(mr);
        // `unauthorized! unless merge_request.can_be_merged_by?(current_user)`.
        if (!(await canBeMergedBy(c, caller, project, level, mr.targetBranch))) throw unauthorized();

        const open = mr.state === 'opened';
        const approved = open ? await isApproved(c, mr) : true;
        // mergeable_discussions_state?: unresolved resolvable notes block only where the project says so.
        const discussionsResolved = !project.onlyAllowMergeIfAllDiscussionsAreResolved || unresolved === 0;
        const live = await liveState(c, mr, { approved, mergeMethod: project.mergeMethod, discussionsResolved });
        const missing = !live.sha || !live.targetHead;
        // MergeRequest.mergeable_state_checks: open, not a draft, with commits, discussions resolved,
        // and EE's approvals; the conflict check is a git state check (mergeable_git_state_checks).
        const stateOk = open && !missing && live.commitCount > 0 && !mr.draft && discussionsResolved && approved;
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

        const now = Date.now();
        if (automatically) {
          const writes: BatchItem<'sqlite'>[] = [];
          if (p.squash) writes.push(db.update(mergeRequests).set({ squash: true }).where(eq(mergeRequests.id, mr.id)));
          // AutoMerge::MergeWhenChecksPassService#execute (the default strategy without pipelines).
          if (!mr.mergeWhenPipelineSucceeds) {
            writes.push(
              db
                .update(mergeRequests)
                .set({ mergeWhenPipelineSucceeds: true, mergeUserId: user.id, shouldRemoveSourceBranch: p.should_remove_source_branch ?? mr.shouldRemoveSourceBranch, updatedAt: now })
                .where(and(eq(mergeRequests.id, mr.id), eq(mergeRequests.state, 'opened'))),
              systemNoteInsert(db, { noteableType: 'MergeRequest', noteableId: mr.id, projectId: project.id, authorId: user.id, body: `enabled an automatic merge when all merge checks for ${live.sha} pass`, at: now }),
            );
          }
          return { kind: 'automatic' as const, found, writes };
        }
        // The merge's batch ends with the answer's reads (presented below, outside this memo).
        const answer = answerReads(c, caller, found);
        const merged = await mergeMergeRequest(
          c,
          user,
          found,
          live,
          { mergeCommitMessage: p.merge_commit_message, squashCommitMessage: p.squash_commit_message, shouldRemoveSourceBranch: p.should_remove_source_branch, squash: p.squash ? true : undefined },
          { closable: closableFrom(user, project, closing), reads: answer.list, push },
        );
        // `render_api_error!("Branch cannot be merged", 422)` when the merge did not happen.
        if (!merged) throw new ApiError(422, { message: 'Branch cannot be merged' });
        return { kind: 'merged' as const, found, answer, results: merged };
      });
      if (done.kind === 'automatic') return c.json(await writeAndPresentMergeRequest(c, caller, done.found, done.writes));
      return c.json(await done.answer.present(done.results));
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
      const db = c.var.db;
      // Two round trips: the project, the merge request and the branch rules; then the write and its answer.
      return withReadMemo(c, async () => {
        const found = await findProjectMergeRequestWith(c, caller, p.id, p.merge_request_iid, (_mrId, projectId) => branchRuleReads(db, projectId));
        const { mr, project, level } = found;
        found.loaded.prime(c, [{ projectId: project.id, name: mr.targetBranch }]);
        // can_cancel_auto_merge?: who can merge, or who set it.
        if (!(await canBeMergedBy(c, caller, project, level, mr.targetBranch)) && mr.mergeUserId !== user.id) throw unauthorized();
        // AutoMergeService#cancel: 406 when nothing is scheduled.
        if (!mr.mergeWhenPipelineSucceeds || mr.state !== 'opened') throw new ApiError(406, { message: "Can't cancel the automatic merge" });
        const now = Date.now();
        const writes = [
          db.update(mergeRequests).set({ mergeWhenPipelineSucceeds: false, mergeUserId: null, updatedAt: now }).where(eq(mergeRequests.id, mr.id)),
          systemNoteInsert(db, { noteableType: 'MergeRequest', noteableId: mr.id, projectId: project.id, authorId: user.id, body: 'canceled the automatic merge', at: now }),
        ];
        return c.json(await writeAndPresentMergeRequest(c, caller, found, writes), 201);
      });
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
        const db = c.var.db;
        // Two round trips: the merge request with what `subscribed?` reads; then the write and its answer.
        const found = await findReadableMergeRequestWith(c, caller, p.id, p.merge_request_iid, (mrId) => bothReads(peopleReads(db, mrId), subscriptionReads(db, caller, mrId)));
        const want = action === 'subscribe';
        const [people, subscription] = found.loaded!;
        // subscriptions.rb: `not_modified!` when already in the requested state.
        if (subscribedFrom(caller, found.mr, people, subscription) === want) throw notModified();
        const now = Date.now();
        const write = db
          .insert(subscriptions)
          .values({ userId: user.id, subscribableType: 'MergeRequest', subscribableId: found.mr.id, projectId: found.project.id, subscribed: want, createdAt: now, updatedAt: now })
          .onConflictDoUpdate({ target: [subscriptions.subscribableType, subscriptions.subscribableId, subscriptions.userId, subscriptions.projectId], set: { subscribed: want, updatedAt: now } });
        return c.json(await writeAndPresentMergeRequest(c, caller, found, [write]), 201);
      },
    );
  }

  mountMergeRequestChanges(r);
}
