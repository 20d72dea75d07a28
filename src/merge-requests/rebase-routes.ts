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
import { allowForcePush, canPushToBranch, isProtectedBranch, refMatches } from '../repository/protected-branches';
import { pushStatements } from '../repository/push';
import { buildRebase } from '../repository/rebase';
import { blobKey } from '../repository/repository';
import { withReadMemo } from '../platform/read-memo';
import { bothReads, branchRuleReads, findProjectMergeRequestWith, headReads } from './merge-request-access';
import { mergeRequestPushReads } from './push-reads';

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
      const db = c.var.db;
      // One round trip for every check: the project, the merge request, both branch heads and the branch rules.
      const found = await withReadMemo(c, async () => {
        const f = await findProjectMergeRequestWith(c, caller, p.id, p.merge_request_iid, (mrId, projectId) =>
          // The rebase is a push to the source branch: the push hooks' reads come along (push-reads.ts).
          bothReads(bothReads(headReads(db, mrId), branchRuleReads(db, projectId)), mergeRequestPushReads(db, mrId, projectId, 'source')),
        );
        const [[heads, rules], prefetched] = f.loaded;
        const { source, target } = heads.forMr(f.mr);
        // authorize_merge_request_rebase! (RebaseService#validate): forbidden!(message).
        if (!source) throw forbidden('Source branch does not exist');
        // (The source project is the target project here: no forks.)
        if (f.mr.sourceProjectId === f.project.id) rules.prime(c, [{ projectId: f.project.id, name: f.mr.sourceBranch }]);
        if (!(await canPushToBranch(c, caller, f.level, f.mr.sourceProjectId, f.mr.sourceBranch, { archived: f.project.archived }))) throw forbidden('Cannot push to source branch');
        const matching = f.mr.sourceProjectId === f.project.id ? rules.rows.filter((r) => refMatches(r.name, f.mr.sourceBranch)) : null;
        const protectedNoForce = matching
          ? matching.length > 0 && !matching.some((r) => r.allowForcePush)
          : (await isProtectedBranch(db, f.mr.sourceProjectId, f.mr.sourceBranch)) && !(await allowForcePush(db, f.mr.sourceProjectId, f.mr.sourceBranch));
        if (protectedNoForce) throw forbidden('Source branch is protected from force push');
        return { ...f, sourceHead: source, targetHead: target, prefetched };
      });
      const { mr, sourceHead, targetHead, prefetched } = found;
      // rebase_async raises RebaseLockTimeout (409) unless the merge request is open.
      if (mr.state !== 'opened') throw new ApiError(409, { message: REBASE_LOCK_MESSAGE });

      const at = Date.now();
      const outcome = targetHead ? await buildRebase(c, { projectId: mr.sourceProjectId, branch: mr.sourceBranch, sourceHead, targetHead, user: { id: user.id, name: user.name, email: user.email }, at }) : null;
      let ok = false;
      if (outcome?.ok && outcome.noop) {
        ok = true;
        // Nothing to rebase: only a previous failure's message to clear.
        if (mr.mergeError != null) await db.update(mergeRequests).set({ mergeError: null }).where(eq(mergeRequests.id, mr.id)).run();
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
        }, prefetched);
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
