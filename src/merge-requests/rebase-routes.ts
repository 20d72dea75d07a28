/**
 * `PUT /projects/:id/merge_requests/:merge_request_iid/rebase` (lib/api/merge_requests.rb,
 * MergeRequests::RebaseService). GitLab queues the rebase and answers 202 with
 * `rebase_in_progress`; here the rebase is a single batch run before answering, so the answer is
 * already `false` and a failure shows as the merge request's `merge_error`, where clients polling
 * with `include_rebase_in_progress` look for it.
 */
import { eq } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { z } from 'zod';
import { mergeRequests } from '../db/schema';
import { ApiError, forbidden } from '../platform/errors';
import { obj } from '../platform/response-schemas';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { requireUser } from '../platform/guards';
import { allowForcePush, canPushToBranch, isProtectedBranch } from '../repository/protected-branches';
import { pushStatements } from '../repository/push';
import { buildRebase } from '../repository/rebase';
import { blobKey, branchHead } from '../repository/repository';
import { findProjectMergeRequest } from './merge-request-access';

/** MergeRequests::RebaseService::REBASE_ERROR. */
export const REBASE_ERROR = 'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.';
/** MergeRequest::REBASE_LOCK_MESSAGE (RebaseLockTimeout): not open, or a rebase already running. */
const REBASE_LOCK_MESSAGE = 'Failed to enqueue the rebase operation, possibly due to a long-lived transaction. Try again later.';

const rebaseParams = params({ id: g.string(), merge_request_iid: g.int(), skip_ci: g.bool().optional() });

/** `present rebase_in_progress: merge_request.rebase_in_progress?` with `status :accepted`. */
const RebaseAccepted = obj({ rebase_in_progress: z.boolean() });

export function mountMergeRequestRebase(r: Router) {
  r.route(
    { method: 'PUT', path: '/projects/:id/merge_requests/:merge_request_iid/rebase', summary: 'Rebase a merge request', tags: ['merge_requests'], params: rebaseParams, responses: { 202: RebaseAccepted } },
    async ({ c, p, caller }) => {
      const user = requireUser(caller);
      const { mr, project, level } = await findProjectMergeRequest(c, caller, p.id, p.merge_request_iid);
      const db = c.var.db;
      // authorize_merge_request_rebase! (RebaseService#validate): forbidden!(message).
      const sourceHead = await branchHead(db, mr.sourceProjectId, mr.sourceBranch);
      if (!sourceHead) throw forbidden('Source branch does not exist');
      if (!(await canPushToBranch(c, caller, level, mr.sourceProjectId, mr.sourceBranch, { archived: project.archived }))) throw forbidden('Cannot push to source branch');
      if ((await isProtectedBranch(db, mr.sourceProjectId, mr.sourceBranch)) && !(await allowForcePush(db, mr.sourceProjectId, mr.sourceBranch)))
        throw forbidden('Source branch is protected from force push');
      // rebase_async raises RebaseLockTimeout (409) unless the merge request is open.
      if (mr.state !== 'opened') throw new ApiError(409, { message: REBASE_LOCK_MESSAGE });

      const targetHead = await branchHead(db, mr.projectId, mr.targetBranch);
      const at = Date.now();
      const outcome = targetHead ? await buildRebase(c, { projectId: mr.sourceProjectId, branch: mr.sourceBranch, sourceHead, targetHead, user: { id: user.id, name: user.name, email: user.email }, at }) : null;
      let ok = false;
      if (outcome?.ok && outcome.noop) {
        ok = true;
        await db.update(mergeRequests).set({ mergeError: null }).where(eq(mergeRequests.id, mr.id)).run();
      } else if (outcome?.ok) {
        // The rewritten branch is a push: the merge requests from it are refreshed in the same batch.
        const refresh = await pushStatements(c, {
          projectId: mr.sourceProjectId,
          branch: mr.sourceBranch,
          oldSha: sourceHead,
          commits: outcome.commits,
          manifest: outcome.files,
          // The rebased commits sit on the target head, which is their merge base with it.
          from: targetHead,
          user,
          at,
        });
        await Promise.all([...outcome.blobs].map(([sha, bytes]) => c.var.blobs.put(blobKey(mr.sourceProjectId, sha), bytes)));
        const statements: BatchItem<'sqlite'>[] = [...outcome.statements, ...refresh, db.update(mergeRequests).set({ mergeError: null }).where(eq(mergeRequests.id, mr.id))];
        try {
          await db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
          ok = true;
        } catch (err) {
          // The source branch moved meanwhile: the compare-and-swap guard failed the batch.
          if (!/NOT NULL constraint failed: repo_branch_updates\.new_sha/i.test(String((err as Error)?.message) + String((err as { cause?: Error })?.cause?.message))) throw err;
        }
      }
      // RebaseService#rebase: the error is saved on the merge request (save_message_on_model).
      if (!ok) await db.update(mergeRequests).set({ mergeError: REBASE_ERROR }).where(eq(mergeRequests.id, mr.id)).run();
      return c.json({ rebase_in_progress: false }, 202);
    },
  );
}
