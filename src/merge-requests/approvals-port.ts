/**
 * What merge requests need from approvals, which sit above them: GitLab's EE approval modules
 * prepend the same into MergeRequest (approved?, finalize_rules, approvals_before_merge).
 * approvals/merge-request-approvals.ts implements it; src/app.ts installs it.
 */
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import type { AppEnv, Caller } from '../platform/context';
import { extensionPoint } from '../platform/extension';
import type { MergeRequestRow } from './merge-request-entity';

export interface MergeRequestApprovals {
  /** ApprovalState#approved?: the merge request has every approval its rules require. */
  approved(c: Context<AppEnv>, mr: MergeRequestRow): Promise<boolean>;
  /** Reads that presenting a page of open merge requests will need, done once for the page (platform/read-memo.ts). */
  primeReads(c: Context<AppEnv>, mrs: MergeRequestRow[]): Promise<void>;
  /** MergeRequest#finalize_rules: statements for the merge's batch that keep the rules as they were when merged. */
  finalizeRules(c: Context<AppEnv>, mr: MergeRequestRow): Promise<BatchItem<'sqlite'>[]>;
  /** DeprecatedApprovalsBeforeMerge: `approvals_before_merge` sets the merge request's any_approver rule (`mrId` may be a sub-select). */
  approvalsBeforeMerge(db: Db, mrId: number | SQL, approvalsBeforeMerge: number, now: number): BatchItem<'sqlite'>;
  /**
   * Optional: the reads of one merge request's approval state (`projectId` SQL, the iid), for the
   * batch that finds it, and `prime`, which seeds the read memo with their results (inside
   * withReadMemo) so `approved` then reads nothing.
   */
  stateReads?(c: Context<AppEnv>, caller: Caller, projectId: SQL, iid: number | SQL): { list: readonly BatchItem<'sqlite'>[]; prime: (mr: MergeRequestRow, results: readonly unknown[]) => void };
  /**
   * Optional: `stateReads`' statements for a batch built once per Db (db/prepared.ts cachedQueries:
   * `projectId` and `iid` may be placeholders), without the merge request's branch heads and
   * assignees, which the presenter's reads of the same batch bring (`headsRead`: open merge requests only).
   */
  stateStatements?(db: Db, caller: Caller, projectId: SQL, iid: SQL): readonly BatchItem<'sqlite'>[];
  /** Seeds the read memo (inside withReadMemo) from `stateStatements`' results and the shared reads. */
  primeState?(c: Context<AppEnv>, mr: MergeRequestRow, results: readonly unknown[], shared: { heads: readonly { projectId: number; name: string; sha: string }[]; assigneeIds: readonly number[] }): void;
  /**
   * Optional: the same for a page (`ids` and `projectIds` SQL sets hanging off the page query), for
   * the page's batch; `prime` seeds the read memo (inside withReadMemo) from their results, `heads`
   * being the branch heads the presenter read (`projectId:branch` -> sha).
   */
  pageReads?(c: Context<AppEnv>, ids: SQL, projectIds: SQL): { list: readonly BatchItem<'sqlite'>[]; prime: (mrs: readonly MergeRequestRow[], results: readonly unknown[], heads: ReadonlyMap<string, string>) => void };
  /**
   * Optional: what building the system-written rules of a merge request reads (`projectId` SQL, its
   * target branch: a name, or SQL), for the batch that finds the project (create) or the merge request (update).
   */
  rulesReads?(db: Db, projectId: SQL, targetBranch: string | SQL): readonly BatchItem<'sqlite'>[];
  /**
   * Optional: the statements building the system-written rules (code owner, report approver) of the
   * merge request the create's batch inserts (`mrId` a sub-select), from `rulesReads`' results, and
   * the sync key its row is inserted with, so presenting it rebuilds nothing.
   */
  createRules?(
    c: Context<AppEnv>,
    m: { mrId: SQL; projectId: number; targetBranch: string; targetHead: string; head: string; base: string | null; now: number },
    results: readonly unknown[],
  ): Promise<{ writes: BatchItem<'sqlite'>[]; key: string }>;
  /**
   * Optional: the statements rebuilding the system-written rules of `mr` as a write will leave it
   * (another target branch, reopened) when what they were built from changes, for the write's batch
   * (after its update of the row), with `heads` and `rulesReads`' results read before; null when current.
   */
  rulesRebuild?(c: Context<AppEnv>, mr: MergeRequestRow, heads: { head: string | null; targetHead: string | null }, results: readonly unknown[]): Promise<{ writes: BatchItem<'sqlite'>[] } | null>;
  /** Optional: `pageReads(…).prime` without building the statements (a caller that built them once, db/prepared.ts, needs only this). */
  primePage?(c: Context<AppEnv>, mrs: readonly MergeRequestRow[], results: readonly unknown[], heads: ReadonlyMap<string, string>): void;
}

export const mergeRequestApprovals = extensionPoint<MergeRequestApprovals>('merge request approvals');
