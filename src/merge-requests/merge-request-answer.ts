/**
 * A merge request write and its answer in ONE round trip (../shared/DESIGN.md "Data access": a
 * write is computed first, then sent with the reads of its answer as the batch's last statements).
 * The batch holds the writes, the merge request row as they left it, every presenter read
 * (presenter-reads.ts) and the approval state's reads (approvals-port.ts `stateReads`), so
 * presenting the Entities::MergeRequest answer reads nothing more (but the sha-keyed merge facts
 * when this isolate has not seen the heads yet).
 */
import { eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { mergeRequests } from '../db/schema';
import type { AppEnv, Caller } from '../platform/context';
import { withReadMemo } from '../platform/read-memo';
import type { ProjectRow } from '../projects/abilities';
import { mergeRequestApprovals } from './approvals-port';
import type { MergeRequest, MergeRequestRow } from './merge-request-entity';
import { type PresentMrOptions, presentMergeRequest, readOptions } from './merge-request-presenter';
import { flattenReads, idsOfPage, presenterReads } from './presenter-reads';

export type AnswerOptions = Omit<PresentMrOptions, 'full' | 'project' | 'approvalsPrimed' | 'approved'>;

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
  const db = c.var.db;
  // One read memo around the priming and the presentation: the approval state's results serve both.
  return withReadMemo(c, async () => {
    const approvals = mergeRequestApprovals.get().stateReads?.(c, caller, sql`${found.project.id}`, found.mr.iid);
    const own = flattenReads(presenterReads(db, caller, idsOfPage([found.mr.id]), readOptions({ ...o, full: true, approvalsPrimed: approvals !== undefined })));
    const row = db.select().from(mergeRequests).where(eq(mergeRequests.id, found.mr.id)).limit(1);
    const results = (await db.batch([...writes, row, ...own.list, ...(approvals?.list ?? [])] as unknown as Parameters<typeof db.batch>[0])) as unknown as unknown[];
    const reads = results.slice(writes.length);
    // The row as the writes left it (deleted meanwhile: as it was found, the answer a racing delete leaves).
    const mr = (reads[0] as MergeRequestRow[])[0] ?? found.mr;
    const loaded = own.unflatten(reads.slice(1, 1 + own.list.length));
    approvals?.prime(mr, reads.slice(1 + own.list.length));
    return presentMergeRequest(c, caller, mr, { ...o, project: found.project, approvalsPrimed: approvals !== undefined }, loaded);
  });
}
