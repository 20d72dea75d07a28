/**
 * Entities::MergeRequestDiff and MergeRequestDiffFull (lib/api/entities/merge_request_diff*.rb), in
 * GitLab's field order, with the Commit and Diff entities they and the merge request's commits,
 * changes and diffs carry.
 */
import { z } from 'zod';
import type { mergeRequestDiffs } from '../db/schema';
import { id, int, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';

export type MergeRequestDiffRow = typeof mergeRequestDiffs.$inferSelect;

/** Commit dates as repository/commit-entity.ts renders them: ISO 8601 with milliseconds and `+00:00`. */
const commitTimestamp = z.iso.datetime({ offset: true, precision: 3 });

// TODO(repository): Entities::Commit is presented by repository/commit-entity.ts (commitEntity); its
// schema belongs there, with the id `Commit`, and this copy should then be replaced by an import.
/** Entities::Commit. */
export const CommitSchema = obj({
  id: z.string(),
  short_id: z.string(),
  created_at: commitTimestamp,
  parent_ids: z.array(z.string()),
  title: z.string(),
  message: z.string(),
  author_name: z.string(),
  author_email: z.string(),
  authored_date: commitTimestamp,
  committer_name: z.string(),
  committer_email: z.string(),
  committed_date: commitTimestamp,
  /** Git trailers by key (Commit#trailers): free-form, as GitLab's own hash. */
  trailers: z.record(z.string(), z.string()),
  /** Every value of each trailer (Commit#extended_trailers). */
  extended_trailers: z.record(z.string(), z.array(z.string())),
  web_url: z.string(),
});
export type Commit = z.infer<typeof CommitSchema>;

// TODO(repository): Entities::Diff is presented by repository/repository.ts (diffEntity); its schema
// belongs there, with the id `Diff`, and this copy should then be replaced by an import.
/** Entities::Diff (one file of a diff; `diff` is git's unified diff of the file, or blank). */
export const DiffSchema = obj({
  diff: z.string(),
  collapsed: z.boolean(),
  too_large: z.boolean(),
  new_path: z.string(),
  old_path: z.string(),
  a_mode: z.string(),
  b_mode: z.string(),
  new_file: z.boolean(),
  renamed_file: z.boolean(),
  deleted_file: z.boolean(),
  generated_file: z.boolean(),
});
export type Diff = z.infer<typeof DiffSchema>;

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
