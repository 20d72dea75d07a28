/**
 * The repository and approvals as merge requests use them (repository/repository.ts,
 * approvals/merge-request-approvals.ts through approvals-port.ts): branch heads, merge bases,
 * changed files, the merge write, and the commits and diffs of a range as GitLab presents them.
 */
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, UserRow } from '../platform/context';
import { baseUrl } from '../platform/pagination';
import { commitEntity } from '../repository/commit-entity';
import { buildMerge, changedFiles, commitsBetween, deleteBranchStatement, diffEntity, type FileChange, findCommit, memoBranchHead, memoMergeBase, runMerge } from '../repository/repository';
import type { CommitRow } from '../repository/repository-store';
import { diffLimitsOf, limitDiffs } from '../repository/diff-limits';
import { type PushPrefetch, pushStatements } from '../repository/push';
import { mergeRequestApprovals } from './approvals-port';
import type { Commit, Diff } from '../repository/commit-entity';
import type { MergeRequestRow } from './merge-request-entity';

export interface ChangedFile {
  path: string;
  /** Blob id after the change (null when deleted). */
  blob: string | null;
}

export interface MergeWrite {
  projectId: number;
  targetBranch: string;
  targetHead: string;
  sourceHead: string;
  mergeBase: string | null;
  message: string;
  squash: boolean;
  squashMessage: string;
  user: UserRow;
  at: number;
  method?: 'merge' | 'ff';
  /**
   * What the push hooks read in the caller's first batch (pushReads for the target branch), and the
   * source head's commit row from it (a fast-forward adds no commit of its own); read here when absent.
   */
  push?: { prefetched?: PushPrefetch; sourceCommit?: CommitRow | null };
}

const identity = (u: UserRow) => ({ name: u.name, email: u.commitEmail || u.email });

/** The repository as merge requests use it. */
export const repo = {
  /** The commit sha a branch points at, or null when it does not exist. */
  async branchHead(c: Context<AppEnv>, projectId: number, branch: string): Promise<string | null> {
    return memoBranchHead(c, projectId, branch);
  },
  async mergeBase(c: Context<AppEnv>, projectId: number, a: string, b: string): Promise<string | null> {
    return memoMergeBase(c, projectId, a, b);
  },
  /** Commits reachable from `head` but not from `base`. */
  async countCommits(c: Context<AppEnv>, projectId: number, base: string | null, head: string): Promise<number> {
    return (await commitsBetween(c.var.db, projectId, base, head)).length;
  },
  async changedFiles(c: Context<AppEnv>, projectId: number, from: string | null, to: string): Promise<ChangedFile[]> {
    return (await changedFiles(c.var.db, projectId, from, to)).flatMap((f) =>
      f.renamedFile ? [{ path: f.oldPath, blob: null }, { path: f.newPath, blob: f.newBlob }] : [{ path: f.newPath, blob: f.newBlob }],
    );
  },
  /** The same path changed to different contents on both sides of the merge base. */
  async conflicts(_c: Context<AppEnv>, _projectId: number, _base: string | null, _targetHead: string, _head: string, theirs: ChangedFile[], ours: ChangedFile[]): Promise<boolean> {
    const mine = new Map(ours.map((f) => [f.path, f.blob]));
    return theirs.some((f) => mine.has(f.path) && mine.get(f.path) !== f.blob);
  },
  /** ApprovalState#approved? (approvals-port.ts); the approvals domain owns the arithmetic. */
  async mergeRequestApproved(c: Context<AppEnv>, mr: MergeRequestRow): Promise<boolean> {
    return mergeRequestApprovals.get().approved(c, mr);
  },
  /**
   * Writes the merge on the target branch (repository/repository.ts buildMerge: a squash commit when
   * asked, then a merge commit with the target HEAD and the source HEAD or the squash commit as
   * parents). The branch moves only if it still points at `targetHead`, in one batch with
   * `extra(result)`. Null when the branches conflict or the target moved.
   */
  async merge(
    c: Context<AppEnv>,
    m: MergeWrite,
    extra: (r: { mergeCommitSha: string | null; squashCommitSha: string | null }) => BatchItem<'sqlite'>[],
    reads: BatchItem<'sqlite'>[] = [],
  ): Promise<{ mergeCommitSha: string | null; squashCommitSha: string | null; reads: unknown[] } | null> {
    const built = await buildMerge(c, {
      projectId: m.projectId,
      targetBranch: m.targetBranch,
      targetHead: m.targetHead,
      sourceHead: m.sourceHead,
      message: m.message,
      squash: m.squash,
      squashMessage: m.squashMessage,
      method: m.method ?? 'merge',
      user: { id: m.user.id, ...identity(m.user) },
      at: m.at,
      // The live state's merge base (a function of the two heads): not read again.
      mergeBase: m.mergeBase,
    });
    if (!built.ok) return null;
    const result = { mergeCommitSha: built.mergeCommitSha, squashCommitSha: built.squashCommitSha };
    // The merge is a push to the target branch (GitLab's PostReceive runs for it too): the push hooks'
    // statements (the dependency list, merge requests from that branch) join the merge's batch. A
    // fast-forward's commits are the source's; its head stands for them (the hooks need the new head).
    const sourceCommit = built.commits.length ? null : (m.push?.sourceCommit ?? (await findCommit(c.var.db, m.projectId, m.sourceHead)) ?? null);
    const commits = built.commits.length ? built.commits : sourceCommit ? [sourceCommit] : [];
    const push = await pushStatements(
      c,
      { projectId: m.projectId, branch: m.targetBranch, oldSha: m.targetHead, commits, manifest: built.files, from: m.targetHead, user: m.user, at: m.at, blobs: built.blobs },
      m.push?.prefetched,
    );
    const ran = await runMerge(c, built, m.projectId, [...extra(result), ...push], reads);
    return ran ? { ...result, reads: ran } : null;
  },
  /** Deletes a branch if it still points at `expectedHead` (Branches::DeleteService after a merge). */
  async deleteBranch(c: Context<AppEnv>, projectId: number, branch: string, expectedHead: string | null): Promise<void> {
    if (!expectedHead) return;
    await deleteBranchStatement(c.var.db, projectId, branch, expectedHead).run();
  },
  /** Entities::Commit of a range's commits (range-reads.ts), newest first. */
  commitEntities(c: Context<AppEnv>, rows: readonly CommitRow[], projectFullPath: string): Commit[] {
    const x = { base: baseUrl(c), projectFullPath };
    return rows.map((r) => commitEntity(r, x));
  },
  /**
   * Entities::Diff of a range's changed files (range-reads.ts; the blobs come from the object store),
   * under the settings' diff limits (repository/diff-limits.ts): the files MergeRequestDiff#save_diffs
   * keeps (collection limits, expanded) and whether it overflowed; `collapse` then reads them as
   * MergeRequestDiff#diffs does by default (not expanded); `raw` (`raw_diffs(limits: false)` from the
   * repository) lifts the collection limits. A patch too large for `diff_max_patch_bytes` is pruned either way.
   */
  async diffEntities(c: Context<AppEnv>, projectId: number, changes: readonly FileChange[], o: { unidiff?: boolean; collapse?: boolean; raw?: boolean }): Promise<{ diffs: Diff[]; overflow: boolean }> {
    const [all, limits] = await Promise.all([Promise.all(changes.map((ch) => diffEntity(c, projectId, ch))), diffLimitsOf(c)]);
    const kept = limitDiffs(all, limits, { expanded: !o.collapse, raw: o.raw });
    return { diffs: withUnidiff(kept.diffs, o.unidiff), overflow: kept.overflow };
  },
};

/** The diffs as the `unidiff` parameter asks: a repository's diffs and the stored ones an imported archive carried alike. */
export const withUnidiff = (diffs: Diff[], unidiff: boolean | undefined): Diff[] => (unidiff ? diffs.map((d) => ({ ...d, diff: unidiffOf(d) })) : diffs);

/** Gitlab::Git::Diff#unidiff (the `unidiff` parameter): the hunks behind git's `---`/`+++` file lines; a blank diff stays blank. */
function unidiffOf(d: { diff: string; old_path: string; new_path: string; new_file: boolean; deleted_file: boolean }): string {
  if (!d.diff) return d.diff;
  return `--- ${d.new_file ? '/dev/null' : `a/${d.old_path}`}\n+++ ${d.deleted_file ? '/dev/null' : `b/${d.new_path}`}\n${d.diff}`;
}
