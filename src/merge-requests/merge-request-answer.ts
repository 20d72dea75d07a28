/**
 * A merge request write and its answer in ONE round trip (../shared/DESIGN.md "Data access": a
 * write is computed first, then sent with the reads of its answer as the batch's last statements).
 * The batch holds the writes, the merge request row as they left it, every presenter read
 * (presenter-reads.ts) and the approval state's reads (approvals-port.ts `stateReads`), so
 * presenting the Entities::MergeRequest answer reads nothing more (but the sha-keyed merge facts
 * when this isolate has not seen the heads yet).
 */
import { eq, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { mergeRequests } from '../db/schema';
import type { Db } from '../db/client';
import type { AppEnv, Caller } from '../platform/context';
import { withReadMemo } from '../platform/read-memo';
import type { ProjectRow } from '../projects/abilities';
import { mergeRequestApprovals } from './approvals-port';
import type { MergeRequest, MergeRequestRow } from './merge-request-entity';
import { type PresentMrOptions, presentMergeRequests, readOptions } from './merge-request-presenter';
import { flattenReads, idsOfPage, presenterReads } from './presenter-reads';

export type AnswerOptions = Omit<PresentMrOptions, 'full' | 'project' | 'approvalsPrimed' | 'approved'>;

/**
 * What presenting the merge requests `ids` (or a parenthesised sub-select of ids) reads, as unexecuted statements for a batch of the
 * caller's (another domain's, or a write's), and `present`, which presents the rows from the
 * batch's results with nothing more to read. `one` (a single merge request's project and iid) adds
 * its approval state's reads; without it the approvals are read when presenting (one batch per page).
 */
export function mergeRequestPresenterReads(
  c: Context<AppEnv>,
  caller: Caller,
  ids: readonly number[] | SQL,
  o: Omit<PresentMrOptions, 'approvalsPrimed' | 'approved'>,
  /** `iid` SQL: the merge request the same batch creates (its iid the counter the batch moved). */
  one?: { projectId: number; iid: number | SQL },
) {
  const approvals = one ? mergeRequestApprovals.get().stateReads?.(c, caller, sql`${one.projectId}`, one.iid) : undefined;
  const own = flattenReads(presenterReads(c.var.db, caller, Array.isArray(ids) ? idsOfPage(ids) : (ids as SQL), readOptions({ ...o, approvalsPrimed: approvals !== undefined })));
  return {
    list: [...own.list, ...(approvals?.list ?? [])] as BatchItem<'sqlite'>[],
    // One read memo around the priming and the presentation: the approval state's results serve both.
    present: (results: readonly unknown[], rows: MergeRequestRow[]) =>
      withReadMemo(c, async () => {
        const primed = approvals !== undefined && rows.length === 1 && rows[0].projectId === one?.projectId && (typeof one.iid !== 'number' || rows[0].iid === one.iid);
        if (primed) approvals.prime(rows[0], results.slice(own.list.length));
        return presentMergeRequests(c, caller, rows, { ...o, approvalsPrimed: primed }, own.unflatten(results.slice(0, own.list.length)));
      }),
  };
}

/**
 * Runs `writes` (none: only the answer) and reads the answer in the same batch, then presents it.
 * The writes are all or nothing with the reads after them; a failing write throws before anything
 * is presented.
 */
export async function writeAndPresentMergeRequest(
  c: Context<AppEnv>,
  caller: Caller,
  found: { project: ProjectRow; mr: MergeRequestRow },
  writes: readonly BatchItem<'sqlite'>[],
  o: AnswerOptions = {},
): Promise<MergeRequest> {
  const answer = answerReads(c, caller, found, o);
  const results = (await c.var.db.batch([...writes, ...answer.list] as unknown as Parameters<Db['batch']>[0])) as unknown as unknown[];
  return answer.present(results.slice(writes.length));
}

/**
 * The reads of one merge request's answer (its row, as the batch's writes leave it, and everything
 * its entity shows) for the end of a write's batch, and `present`, which presents their results.
 * Present outside any read memo opened before the write: what was read before it is stale.
 */
export function answerReads(c: Context<AppEnv>, caller: Caller, found: { project: ProjectRow; mr: MergeRequestRow }, o: AnswerOptions = {}) {
  const reads = mergeRequestPresenterReads(c, caller, [found.mr.id], { ...o, full: true, project: found.project }, { projectId: found.project.id, iid: found.mr.iid });
  const row = c.var.db.select().from(mergeRequests).where(eq(mergeRequests.id, found.mr.id)).limit(1);
  return {
    list: [row, ...reads.list] as BatchItem<'sqlite'>[],
    present: async (results: readonly unknown[]): Promise<MergeRequest> => {
      // The row as the writes left it (deleted meanwhile: as it was found, the answer a racing delete leaves).
      const mr = (results[0] as MergeRequestRow[])[0] ?? found.mr;
      return (await reads.present(results.slice(1), [mr]))[0] as MergeRequest;
    },
  };
}
