/**
 * What creating and updating a merge request share (MergeRequests::BaseService, MergeRequest
 * validations): title and description limits, branch names, the one-open-request-per-branches rule
 * and the assignees or reviewers a request may get.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { mergeRequests } from '../db/schema';
import type { AppEnv } from '../platform/context';
import { ApiError } from '../platform/errors';
import { isValidBranchName } from '../platform/git-ref';


/** 409 `Another open merge request already exists for this source branch: !n` (MergeRequest#validate_branches). */
export async function assertNoOpenMergeRequest(c: Context<AppEnv>, projectId: number, source: string, target: string, exceptId?: number) {
  const other = await c.var.db
    .select({ iid: mergeRequests.iid })
    .from(mergeRequests)
    .where(
      and(
        eq(mergeRequests.projectId, projectId),
        eq(mergeRequests.sourceProjectId, projectId),
        eq(mergeRequests.sourceBranch, source),
        eq(mergeRequests.targetBranch, target),
        inArray(mergeRequests.state, ['opened', 'locked']),
        exceptId != null ? sql`${mergeRequests.id} <> ${exceptId}` : undefined,
      ),
    )
    .get();
  if (other) throw otherOpenMergeRequest(other.iid);
}

/** The 409 of `assertNoOpenMergeRequest`, for a check whose read rode in another batch. */
export const otherOpenMergeRequest = (iid: number) => new ApiError(409, { message: [`Another open merge request already exists for this source branch: !${iid}`] });

/** Gitlab::GitRefValidator.validate_merge_request_branch: git's rules, and no fully qualified ref. */
export function validBranchName(name: string): boolean {
  return isValidBranchName(name) && !/^refs\/(heads|remotes|tags)\//.test(name);
}
