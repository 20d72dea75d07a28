/**
 * Entities::MergeRequestDiff and MergeRequestDiffFull (lib/api/entities/merge_request_diff*.rb), in
 * GitLab's field order. Their commits and diffs are the repository's Commit and Diff entities.
 */
import { z } from 'zod';
import type { mergeRequestDiffs } from '../db/schema';
import { id, int, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import { type Commit, CommitSchema, type Diff, DiffSchema } from '../repository/commit-entity';

export type MergeRequestDiffRow = typeof mergeRequestDiffs.$inferSelect;

const sha = z.string().nullable();

export const MergeRequestDiffSchema = obj({
  id,
  head_commit_sha: sha,
  base_commit_sha: sha,
  start_commit_sha: sha,
  created_at: timestamp,
  merge_request_id: int,
  /** `collected`, `empty` or `overflow` (diffs.ts versionState). */
  state: z.string(),
  /** The file count as a string, `1000+` past the limit; null for an empty version. */
  real_size: z.string().nullable(),
  patch_id_sha: sha,
}).meta({ id: 'MergeRequestDiff' });
export type MergeRequestDiff = z.infer<typeof MergeRequestDiffSchema>;

export const mergeRequestDiffEntity = (d: MergeRequestDiffRow): MergeRequestDiff => ({
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

export const MergeRequestDiffFullSchema = MergeRequestDiffSchema.extend({
  commits: z.array(CommitSchema),
  diffs: z.array(DiffSchema),
}).meta({ id: 'MergeRequestDiffFull' });
export type MergeRequestDiffFull = z.infer<typeof MergeRequestDiffFullSchema>;

/** MergeRequestDiffFull: the version's commits (Entities::Commit, newest first) and files (Entities::Diff). */
export const mergeRequestDiffFullEntity = (d: MergeRequestDiffRow, commits: Commit[], diffs: Diff[]): MergeRequestDiffFull => ({ ...mergeRequestDiffEntity(d), commits, diffs });
