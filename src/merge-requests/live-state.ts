/**
 * A merge request's live state, read from the repository on every read (HEAD of the source branch,
 * diff refs, mergeability: MergeRequests::Mergeability::DetailedMergeStatusService), and the
 * approvals' answer it depends on.
 */
import { eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { projects } from '../db/schema';
import type { AppEnv } from '../platform/context';
import { diffManifests, memoManifest, mergeManifests } from '../repository/repository';
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
  /** The approvals service's answer; true when approvals are not computed for this read. */
  approved?: boolean;
  /** The target project's merge method (read from the project when not given). */
  mergeMethod?: string;
}

/**
 * An open merge request reads HEAD from its source branch and the start from its target branch on
 * every read (a push moves it without any hook); a merged or closed one shows what was recorded
 * when it stopped being open.
 */
export async function liveState(c: Context<AppEnv>, mr: MergeRequestRow, o: LiveOptions = {}): Promise<LiveState> {
  const approved = o.approved ?? true;
  if (mr.state !== 'opened' && mr.state !== 'locked') {
    const diffRefs: DiffRefs = { base_sha: mr.baseSha ?? null, head_sha: mr.headSha ?? null, start_sha: mr.startSha ?? null };
    const changes = o.changes && mr.baseSha && mr.headSha ? await repo.changedFiles(c, mr.projectId, mr.baseSha, mr.headSha) : null;
    const status = mr.mergeStatus === 'unchecked' ? 'can_be_merged' : mr.mergeStatus;
    return {
      sha: mr.headSha ?? null,
      diffRefs,
      mergeStatus: status,
      detailedMergeStatus: 'not_open',
      hasConflicts: status === 'cannot_be_merged',
      changesCount: changes == null ? null : changesCount(changes.length),
      targetHead: mr.startSha ?? null,
      mergeBase: mr.baseSha ?? null,
      commitCount: 0,
      conflict: false,
      draft: mr.draft,
      approved,
      needRebase: false,
    };
  }
  const [head, targetHead] = await Promise.all([repo.branchHead(c, mr.sourceProjectId, mr.sourceBranch), repo.branchHead(c, mr.projectId, mr.targetBranch)]);
  const sha = head ?? mr.headSha ?? null;
  const base = head && targetHead ? await repo.mergeBase(c, mr.projectId, targetHead, head) : null;
  // Commits exist unless the source head is already in the target's history (merge base = head).
  const commitCount = head && targetHead && base !== head ? 1 : 0;
  let conflict = false;
  let changes: number | null = null;
  if (head && targetHead && commitCount > 0) {
    const [b, t, s] = await Promise.all([memoManifest(c, mr.projectId, base), base === targetHead ? null : memoManifest(c, mr.projectId, targetHead), memoManifest(c, mr.projectId, head)]);
    if (o.changes) changes = diffManifests(b, s).length;
    // A target that moved since the merge base can conflict: the same path changed differently on both sides.
    if (t) conflict = mergeManifests(b, t, s) === null;
  } else if (o.changes && head && targetHead) {
    changes = 0;
  }
  const broken = !head || !targetHead || commitCount === 0;
  const mergeStatus = broken || conflict ? 'cannot_be_merged' : 'can_be_merged';
  const mergeMethod = o.mergeMethod ?? (await c.var.db.select({ m: projects.mergeMethod }).from(projects).where(eq(projects.id, mr.projectId)).get())?.m ?? 'merge';
  // should_be_rebased?: ff_merge_must_be_possible? && !ff_merge_possible? (the target head is an ancestor of HEAD).
  const needRebase = mergeMethod !== 'merge' && !broken && base !== targetHead;
  // MergeRequests::Mergeability::DetailedMergeStatusService: the first failing check, in
  // MergeRequest.mergeable_state_checks order (EE's approval check after CE's checks), then the git
  // checks (mergeable_git_state_checks: conflict, then need_rebase).
  const detailed = mr.draft ? 'draft_status' : broken ? 'commits_status' : !approved ? 'not_approved' : conflict ? 'conflict' : needRebase ? 'need_rebase' : 'mergeable';
  return {
    sha,
    diffRefs: { base_sha: base, head_sha: sha, start_sha: targetHead },
    mergeStatus,
    detailedMergeStatus: detailed,
    hasConflicts: mergeStatus === 'cannot_be_merged',
    changesCount: o.changes ? (changes == null ? null : changesCount(changes)) : null,
    targetHead,
    mergeBase: base,
    commitCount,
    conflict,
    draft: mr.draft,
    approved,
    needRebase,
  };
}

/** MergeRequestDiff#real_size: a string, `1000+` past the diff limit. */
const changesCount = (n: number) => (n > 1000 ? '1000+' : String(n));

/** Approval answer from the approvals domain (approvals-port.ts), true when it has none. */
export async function isApproved(c: Context<AppEnv>, mr: MergeRequestRow): Promise<boolean> {
  return repo.mergeRequestApproved(c, mr);
}
