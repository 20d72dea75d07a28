/**
 * A merge request's live state, read from the repository on every read (HEAD of the source branch,
 * diff refs, mergeability: MergeRequests::Mergeability::DetailedMergeStatusService), and the
 * approvals' answer it depends on.
 */
import { eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { projects } from '../db/schema';
import type { AppEnv } from '../platform/context';
import { mergeFacts, type MergeFacts, storedMergeFacts } from '../repository/repository';
import type { DiffRefs, MergeRequestLive, MergeRequestRow } from './merge-request-entity';
import { repo } from './merge-request-repo';

export interface LiveState extends MergeRequestLive {
  /** HEAD of the target branch (start_sha) and the merge base, for merging. */
  targetHead: string | null;
  mergeBase: string | null;
  /** 1 when the source has commits the target lacks, else 0. */
  commitCount: number;
  /** Whether the merge would conflict (the same file changed differently on both sides). */
  conflict: boolean;
  draft: boolean;
  approved: boolean;
  /** MergeRequest#should_be_rebased?: the project merges fast-forward only (ff, rebase_merge) and the target head is not in the source. */
  needRebase: boolean;
}

export interface LiveOptions {
  /** Count the changed files (changes_count, full entity only). */
  changes?: boolean;
  /** The setting diff_max_files: past it changes_count is `N+` (1000, its default, when not given). */
  maxFiles?: number;
  /** The approvals service's answer; true when approvals are not computed for this read. */
  approved?: boolean;
  /** The target project's merge method (read from the project when not given). */
  mergeMethod?: string;
  /** MergeRequest#mergeable_discussions_state? (true when not computed for this read). */
  discussionsResolved?: boolean;
}

/** What a live state is computed from: the two branch heads and, for an open request with both, their merge facts. */
export interface LiveInputs {
  head: string | null;
  targetHead: string | null;
  facts: MergeFacts | null;
}

/**
 * An open merge request reads HEAD from its source branch and the start from its target branch on
 * every read (a push moves it without any hook); a merged or closed one shows what was recorded
 * when it stopped being open.
 */
export async function liveState(c: Context<AppEnv>, mr: MergeRequestRow, o: LiveOptions = {}): Promise<LiveState> {
  const open = mr.state === 'opened' || mr.state === 'locked';
  if (!open) return liveStateFrom(mr, { head: null, targetHead: null, facts: null }, { ...o, changes: false }, o.changes && mr.baseSha && mr.headSha ? (await repo.changedFiles(c, mr.projectId, mr.baseSha, mr.headSha)).length : null);
  const [head, targetHead, mergeMethod] = await Promise.all([
    repo.branchHead(c, mr.sourceProjectId, mr.sourceBranch),
    repo.branchHead(c, mr.projectId, mr.targetBranch),
    o.mergeMethod ?? c.var.db.select({ m: projects.mergeMethod }).from(projects).where(eq(projects.id, mr.projectId)).get().then((r) => r?.m ?? 'merge'),
  ]);
  return liveStateOfHeads(c, mr, head, targetHead, { ...o, mergeMethod });
}

/** A branch head as `headsRead` (presenter-reads.ts) reads it in the caller's batch. */
export interface BranchHead {
  projectId: number;
  name: string;
  sha: string;
}

/**
 * `liveState` from branch heads the caller read in its own batch (`headsRead`) and the target
 * project's merge method: no storage beyond the merge facts, which are kept per isolate
 * (merge-facts.ts). A closed or merged request shows what it recorded.
 */
export async function liveStateFromHeads(c: Context<AppEnv>, mr: MergeRequestRow, heads: readonly BranchHead[], o: LiveOptions & { mergeMethod: string }): Promise<LiveState> {
  if (mr.state !== 'opened' && mr.state !== 'locked') return liveStateFrom(mr, { head: null, targetHead: null, facts: null }, { ...o, changes: false });
  const find = (projectId: number, name: string) => heads.find((h) => h.projectId === projectId && h.name === name)?.sha ?? null;
  return liveStateOfHeads(c, mr, find(mr.sourceProjectId, mr.sourceBranch), find(mr.projectId, mr.targetBranch), o);
}

async function liveStateOfHeads(c: Context<AppEnv>, mr: MergeRequestRow, head: string | null, targetHead: string | null, o: LiveOptions): Promise<LiveState> {
  // Stored on the row by the push that moved the source head while they still hold: nothing to read.
  const facts = head && targetHead ? (storedMergeFacts(mr, targetHead, head) ?? (await mergeFacts(c.var.db, [{ projectId: mr.projectId, targetHead, head }]))[0]) : null;
  return liveStateFrom(mr, { head, targetHead, facts }, o);
}

/**
 * The live state from what was read (pure). `closedChanges` is the changed-file count of a closed or
 * merged request's recorded diff (the full entity only).
 */
export function liveStateFrom(mr: MergeRequestRow, i: LiveInputs, o: LiveOptions = {}, closedChanges: number | null = null): LiveState {
  const approved = o.approved ?? true;
  if (mr.state !== 'opened' && mr.state !== 'locked') {
    const diffRefs: DiffRefs = { base_sha: mr.baseSha ?? null, head_sha: mr.headSha ?? null, start_sha: mr.startSha ?? null };
    const status = mr.mergeStatus === 'unchecked' ? 'can_be_merged' : mr.mergeStatus;
    return {
      sha: mr.headSha ?? null,
      diffRefs,
      mergeStatus: status,
      detailedMergeStatus: 'not_open',
      hasConflicts: status === 'cannot_be_merged',
      changesCount: closedChanges == null ? null : changesCount(closedChanges, o.maxFiles),
      targetHead: mr.startSha ?? null,
      mergeBase: mr.baseSha ?? null,
      commitCount: 0,
      conflict: false,
      draft: mr.draft,
      approved,
      needRebase: false,
    };
  }
  const { head, targetHead, facts } = i;
  const sha = head ?? mr.headSha ?? null;
  const base = head && targetHead && facts ? facts.base : null;
  // Commits exist unless the source head is already in the target's history (merge base = head).
  const commitCount = head && targetHead && base !== head ? 1 : 0;
  const conflict = commitCount > 0 && facts ? facts.conflict : false;
  const changes = head && targetHead ? (commitCount > 0 && facts ? facts.changes : 0) : null;
  const broken = !head || !targetHead || commitCount === 0;
  const mergeStatus = broken || conflict ? 'cannot_be_merged' : 'can_be_merged';
  // should_be_rebased?: ff_merge_must_be_possible? && !ff_merge_possible? (the target head is an ancestor of HEAD).
  const needRebase = (o.mergeMethod ?? 'merge') !== 'merge' && !broken && base !== targetHead;
  // MergeRequests::Mergeability::DetailedMergeStatusService: the first failing check, in
  // MergeRequest.mergeable_state_checks order (draft, commits, discussions; EE's approval check
  // after CE's checks), then the git checks (mergeable_git_state_checks: conflict, then need_rebase).
  const detailed = mr.draft
    ? 'draft_status'
    : broken
      ? 'commits_status'
      : o.discussionsResolved === false
        ? 'discussions_not_resolved'
        : !approved
          ? 'not_approved'
          : conflict
            ? 'conflict'
            : needRebase
              ? 'need_rebase'
              : 'mergeable';
  return {
    sha,
    diffRefs: { base_sha: base, head_sha: sha, start_sha: targetHead },
    mergeStatus,
    detailedMergeStatus: detailed,
    hasConflicts: mergeStatus === 'cannot_be_merged',
    changesCount: o.changes ? (changes == null ? null : changesCount(changes, o.maxFiles)) : null,
    targetHead,
    mergeBase: base,
    commitCount,
    conflict,
    draft: mr.draft,
    approved,
    needRebase,
  };
}

/** MergeRequestDiff#real_size: a string, `N+` past diff_max_files (Commit.max_diff_options). */
const changesCount = (n: number, maxFiles = 1000) => (n > maxFiles ? `${maxFiles}+` : String(n));

/** Approval answer from the approvals domain (approvals-port.ts), true when it has none. */
export async function isApproved(c: Context<AppEnv>, mr: MergeRequestRow): Promise<boolean> {
  return repo.mergeRequestApproved(c, mr);
}
