/**
 * One merge request found together with what a sub-resource reads of it, in the round trip that finds
 * the project (merge-request-access.ts findReadableMergeRequestWith): its branch heads and the live
 * state they give (commits, diffs, raw diffs), or everything its full entity shows and its approval
 * state (GET .../merge_requests/:iid and /changes).
 */
import type { SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { mergeRequestApprovals } from './approvals-port';
import { type BranchHead, liveStateFromHeads } from './live-state';
import { findReadableMergeRequestWith } from './merge-request-access';
import type { MergeRequestRow } from './merge-request-entity';
import { type PresentMrOptions, readOptions } from './merge-request-presenter';
import { flattenReads, headsRead, presenterReads } from './presenter-reads';

type Results<Q extends readonly unknown[]> = { -readonly [K in keyof Q]: Awaited<Q[K]> };

/**
 * The merge request, its live state and `extra` reads (by the merge request's id, a sub-select) in
 * one round trip, plus the merge facts when this isolate does not know them yet (merge-facts.ts).
 */
export async function findMergeRequestLive<const Q extends readonly BatchItem<'sqlite'>[]>(c: Context<AppEnv>, caller: Caller, id: string, iid: number, extra: (mrId: SQL) => Q) {
  const found = await findReadableMergeRequestWith(c, caller, id, iid, (mrId) => ({ list: [headsRead(c.var.db, mrId), ...extra(mrId)], unflatten: (results) => results }));
  // The merge request was found (else a 404), so its reads were loaded.
  const [heads, ...rest] = found.loaded as [BranchHead[], ...unknown[]];
  const live = await liveStateFromHeads(c, found.mr, heads, { mergeMethod: found.project.mergeMethod });
  return { ...found, live, extra: rest as unknown as Results<Q>, fullPath: `${found.namespace.fullPath}/${found.project.path}` };
}

/**
 * The merge request with its presenter's reads and approval state in one round trip; `loaded` and
 * `approvalsPrimed` go to presentMergeRequest. Call inside withReadMemo: the approval reads are
 * seeded into its memo.
 */
export async function findMergeRequestToPresent(c: Context<AppEnv>, caller: Caller, id: string, iid: number, presenting: PresentMrOptions) {
  let primeApprovals: ((mr: MergeRequestRow) => void) | undefined;
  const found = await findReadableMergeRequestWith(c, caller, id, iid, (mrId, projectId) => {
    // An iid beyond SQLite's integers matches nothing, as in the lookup's own sub-select.
    const approvals = mergeRequestApprovals.get().stateReads?.(c, caller, projectId, Number.isSafeInteger(iid) ? iid : -1);
    const own = flattenReads(presenterReads(c.var.db, caller, mrId, readOptions({ ...presenting, full: true, approvalsPrimed: approvals !== undefined })));
    return {
      list: [...own.list, ...(approvals?.list ?? [])],
      unflatten: (results) => {
        if (approvals) primeApprovals = (mr) => approvals.prime(mr, results.slice(own.list.length));
        return own.unflatten(results.slice(0, own.list.length));
      },
    };
  });
  primeApprovals?.(found.mr);
  return { ...found, approvalsPrimed: primeApprovals !== undefined };
}
