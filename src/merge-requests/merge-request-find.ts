/**
 * One merge request found together with what a sub-resource reads of it, in the round trip that finds
 * the project (merge-request-access.ts findReadableMergeRequestWith): its branch heads and the live
 * state they give (commits, diffs, raw diffs), or everything its full entity shows and its approval
 * state (GET .../merge_requests/:iid and /changes).
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { mergeRequestApprovals } from './approvals-port';
import { type BranchHead, liveStateFromHeads } from './live-state';
import { findReadableMergeRequestBuiltOnce, findReadableMergeRequestWith } from './merge-request-access';
import { prepared } from '../db/prepared';
import { today } from '../platform/time';
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
 * seeded into its memo. The statements are built once per Db, caller and day (db/prepared.ts: their
 * SQL text cost more CPU than SQLite spends running them); the project found and the presenter's
 * branch heads and assignees serve the approval state too, so none is read twice.
 */
export async function findMergeRequestToPresent(c: Context<AppEnv>, caller: Caller, id: string, iid: number, presenting: PresentMrOptions) {
  const db = c.var.db;
  const approvals = mergeRequestApprovals.get();
  const shared = approvals.stateStatements !== undefined && approvals.primeState !== undefined;
  const o = { ...readOptions({ ...presenting, full: true, approvalsPrimed: shared }), ofFoundProject: true, recordedChanges: true, single: true };
  // What shapes the statements beside the placeholders: the options, the caller (written into the
  // subscription reads and the approval groups' visibility) and the day (membership expiry).
  const who = caller.user ? `${caller.user.id}${caller.user.external ? 'x' : ''}` : 'anonymous';
  const key = `present:${Number(o.subscribed)}${Number(Boolean(o.firstContribution))}${Number(shared)}:${caller.isAdmin ? 'admin' : ''}${who}:${today()}`;
  // Where each presenter read sits in the batch (the same options build the same list).
  const layout = prepared(db, `mr-present-layout:${key}`, (d) => flattenReads(presenterReads(d, caller, sql`(NULL)`, o)));
  const found = await findReadableMergeRequestBuiltOnce(c, caller, id, iid, key, (d, mrId, projectId) => [
    ...flattenReads(presenterReads(d, caller, mrId, o)).list,
    ...(shared ? approvals.stateStatements!(d, caller, projectId, sql`${sql.placeholder('iid')}`) : []),
  ]);
  const loaded = layout.unflatten(found.loaded.slice(0, layout.list.length));
  loaded.projects = [{ project: found.project, namespace: found.namespace, level: found.level }];
  if (shared) approvals.primeState!(c, found.mr, found.loaded.slice(layout.list.length), { heads: loaded.heads, assigneeIds: loaded.assignees.map((a) => a.userId) });
  return { ...found, loaded, approvalsPrimed: shared };
}
