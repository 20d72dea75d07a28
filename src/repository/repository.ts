/**
 * Repositories written through the API only (no git transport), for commits, branches, files,
 * compare and merge requests. This module is the repository's contract for other domains; the
 * code lives in repository-store.ts (rows and blobs), history.ts (ancestry), diffs.ts,
 * commit-writer.ts and merge.ts, which import each other directly, never this module.
 *
 * Contract for other areas (merge requests, approvals):
 * - `branchHead(db, projectId, name)` -> sha | null; `findBranch`, `listBranches`.
 * - `resolveRef(db, projectId, ref)` -> CommitRow | null: a branch name, a tag, else a full or abbreviated sha.
 * - `commitsBetween(db, projectId, baseSha | null, headSha)` -> CommitRow[] reachable from head and not
 *   from base, newest first (`git log base..head`).
 * - `mergeBase(db, projectId, a, b)` -> sha | null (the common ancestor of highest generation).
 * - `changedFiles(db, projectId, fromSha | null, toSha)` -> FileChange[] (paths, blobs, modes, renames).
 * - `diffsBetween(c, projectId, fromSha | null, toSha)` -> GitLab Diff entities (unified diffs).
 * - `buildCommit(c, {...})` -> the statements and commit of a new commit on a branch (one db.batch,
 *   compare-and-swap on the branch head), used by the commits API and by merges (two parents).
 * Shas are real git object ids (git-objects.ts); blob contents are in the blob store at
 * `repositories/<project id>/<blob id>`.
 */
export {
  type BranchRow,
  type CommitRow,
  type FileEntry,
  type Manifest,
  blobKey,
  branchHead,
  cachedManifest,
  fileAt,
  findBranch,
  findCommit,
  hasCommits,
  listBranches,
  manifestOf,
  memoBranchHead,
  memoManifest,
  primeBranchHeads,
  readBlob,
  rememberManifest,
  repositoryBlobKeys,
  repositoryDeletionStatements,
  resolveRef,
} from './repository-store';
export { cachedMergeBase, commitsBetween, isAncestor, lastCommitForPath, memoMergeBase, mergeBase, mergeBaseQuery, newestFirst, rememberMergeBase } from './history';
export { manifestRows } from './history-reads';
export { changedFiles, diffEntity, diffManifests, diffsBetween, type FileChange, lineStats, unifiedDiff } from './diffs';
export { buildCommit, type CommitAction, CommitError, isValidBranchName, type NewCommit, storeCommit, type WrittenCommit } from './commit-writer';
export { factsOf, mergeFacts, type MergeFacts, type MergePair, storedMergeFacts } from './merge-facts';
export { buildMerge, deleteBranchStatement, fastForward, isObjectInsert, mergeConflicts, type MergeInput, mergeManifests, type MergeOutcome, runMerge } from './merge';
