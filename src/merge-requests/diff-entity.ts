/** Entities::MergeRequestDiff and MergeRequestDiffFull (lib/api/entities/merge_request_diff*.rb), in GitLab's field order. */
import type { mergeRequestDiffs } from '../db/schema';
import { iso } from '../platform/time';

export type MergeRequestDiffRow = typeof mergeRequestDiffs.$inferSelect;

export const mergeRequestDiffEntity = (d: MergeRequestDiffRow) => ({
  id: d.id,
  head_commit_sha: d.headCommitSha,
  base_commit_sha: d.baseCommitSha,
  start_commit_sha: d.startCommitSha,
  created_at: iso(d.createdAt),
  merge_request_id: d.mergeRequestId,
  state: d.state,
  real_size: d.realSize,
  patch_id_sha: d.patchIdSha,
});

/** MergeRequestDiffFull: the version's commits (Entities::Commit, newest first) and files (Entities::Diff). */
export const mergeRequestDiffFullEntity = (d: MergeRequestDiffRow, commits: object[], diffs: object[]) => ({ ...mergeRequestDiffEntity(d), commits, diffs });
