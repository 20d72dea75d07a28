/**
 * `PUT /projects/:id/merge_requests/:merge_request_iid/rebase` (lib/api/merge_requests.rb,
 * MergeRequest#rebase_async): the checks, then the merge request is marked with the queued job's id
 * (`rebase_jid`) and the answer is 202 `{"rebase_in_progress": true}`. The job
 * (rebase-job.ts, RebaseWorker) rewrites the branch and clears the mark; clients poll
 * `GET .../merge_requests/:iid?include_rebase_in_progress=true` until it is false and read
 * `merge_error` for a failure. Queuing keeps the request within the write budget (issue 13): the
 * rebase itself reads the history once per rebased commit.
 */
import { and, eq, isNull, or } from 'drizzle-orm';
import { z } from 'zod';
import { mergeRequests } from '../db/schema';
import { ApiError, forbidden } from '../platform/errors';
import { obj } from '../platform/response-schemas';
import type { Router } from '../platform/router';
import { g, params } from '../platform/validate';
import { requireUser } from '../platform/guards';
import { allowForcePush, canPushToBranch, isProtectedBranch, refMatches } from '../repository/protected-branches';
import { withReadMemo } from '../platform/read-memo';
import { bothReads, branchRuleReads, findProjectMergeRequestWith, headReads } from './merge-request-access';
import { REBASE_JOB, type RebaseJobMessage } from './rebase-job';
import { newRebaseJid, rebaseMarkActive } from './rebase-mark';

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
      const { mr } = await withReadMemo(c, async () => {
        const f = await findProjectMergeRequestWith(c, caller, p.id, p.merge_request_iid, (mrId, projectId) => bothReads(headReads(db, mrId), branchRuleReads(db, projectId)));
        const [heads, rules] = f.loaded;
        const { source } = heads.forMr(f.mr);
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
        return f;
      });
      // rebase_async raises RebaseLockTimeout (409) unless the merge request is open and no rebase
      // is in progress; the mark is set only where both still hold (the row lock GitLab takes). A
      // mark older than a job's status lifetime no longer counts (rebase-mark.ts): its job was lost.
      const now = Date.now();
      if (mr.state !== 'opened' || rebaseMarkActive(mr.rebaseJid, now)) throw new ApiError(409, { message: REBASE_LOCK_MESSAGE });
      const jid = newRebaseJid(REBASE_JOB, mr.id, now);
      const stale = mr.rebaseJid;
      const marked = await db
        .update(mergeRequests)
        .set({ rebaseJid: jid })
        .where(and(eq(mergeRequests.id, mr.id), eq(mergeRequests.state, 'opened'), stale == null ? isNull(mergeRequests.rebaseJid) : or(isNull(mergeRequests.rebaseJid), eq(mergeRequests.rebaseJid, stale))))
        .returning({ id: mergeRequests.id });
      if (!marked.length) throw new ApiError(409, { message: REBASE_LOCK_MESSAGE });
      const message: RebaseJobMessage = { type: REBASE_JOB, id: jid, mergeRequestId: mr.id, userId: user.id };
      try {
        await c.var.jobs.send(message);
      } catch (err) {
        // Not queued: nothing would ever clear the mark.
        await db.update(mergeRequests).set({ rebaseJid: null }).where(and(eq(mergeRequests.id, mr.id), eq(mergeRequests.rebaseJid, jid))).run();
        throw err;
      }
      return c.json({ rebase_in_progress: true }, 202);
    },
  );
}
