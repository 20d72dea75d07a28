/**
 * The queued rebase (RebaseWorker -> MergeRequests::RebaseService#execute): the PUT marked the merge
 * request with the job's id (`rebase_jid`) and answered 202; this job replays the source branch on the
 * target head, refreshes the merge requests of the rewritten branch as any push does, and clears the
 * mark in the same batch as its writes. A failure is saved as the merge request's `merge_error`
 * (RebaseService: save_message_on_model).
 *
 * Delivery is at least once. The mark is the compare-and-set: a job whose id is no longer on the
 * merge request (a redelivery after it finished) does nothing, and the mark is only ever cleared
 * where it still holds this job's id. Two copies running at once cannot both move the branch: the
 * branch move is guarded on the old head, and the loser's failure write finds the mark already gone.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import { mergeRequests, users } from '../db/schema';
import type { AppEnv, UserRow } from '../platform/context';
import type { MergeRequestRow } from './merge-request-entity';
import type { JobMessage } from '../platform/jobs';
import type { JobDeps } from '../platform/jobs-consumer';
import { pushStatements } from '../repository/push';
import { buildRebase } from '../repository/rebase';
import { blobKey } from '../repository/repository';
import { headReads } from './merge-request-access';

export const REBASE_JOB = 'merge_request_rebase';

/** MergeRequests::RebaseService::REBASE_ERROR. */
export const REBASE_ERROR = 'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.';

export interface RebaseJobMessage extends JobMessage {
  type: typeof REBASE_JOB;
  mergeRequestId: number;
  userId: number;
}

/**
 * What the repository code and the push hooks use of a request's context (`c.var.db`, `c.var.blobs`
 * and per-request memos through get/set), built from the job's dependencies: the job has no request.
 */
function jobContext(deps: JobDeps): Context<AppEnv> {
  const vars = new Map<string, unknown>(Object.entries(deps));
  const c = {
    get: (key: string) => vars.get(key),
    set: (key: string, value: unknown) => void vars.set(key, value),
    var: new Proxy({}, { get: (_, key) => vars.get(key as string) }),
  };
  return c as unknown as Context<AppEnv>;
}

/** Clears this job's mark (and sets or clears merge_error), only while the mark is still this job's. */
const clearMark = (deps: JobDeps, mrId: number, jid: string, mergeError: string | null) =>
  deps.db
    .update(mergeRequests)
    .set({ rebaseJid: null, mergeError })
    .where(and(eq(mergeRequests.id, mrId), eq(mergeRequests.rebaseJid, jid)));

const isBranchMoved = (err: unknown) =>
  /NOT NULL constraint failed: repo_branch_updates\.new_sha/i.test(String((err as Error)?.message) + String((err as { cause?: Error })?.cause?.message));

export async function runMergeRequestRebase(message: JobMessage, deps: JobDeps): Promise<void> {
  const { db } = deps;
  const mrId = Number(message.mergeRequestId);
  const jid = message.id;
  const heads = headReads(db, sql`${mrId}`);
  const [mrRows, userRows, ...headResults] = (await db.batch([
    db.select().from(mergeRequests).where(eq(mergeRequests.id, mrId)).limit(1),
    db.select().from(users).where(eq(users.id, Number(message.userId))).limit(1),
    ...heads.list,
  ] as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as unknown as [MergeRequestRow[], UserRow[], ...unknown[]];
  const mr = mrRows[0];
  // Finished (or superseded): a redelivery has nothing to do.
  if (!mr || mr.rebaseJid !== jid) return;
  const user = userRows[0];
  const { source: sourceHead, target: targetHead } = heads.unflatten(headResults).forMr(mr);
  // RebaseService#validate: the message is saved on the merge request.
  if (!sourceHead) return void (await clearMark(deps, mr.id, jid, 'Source branch does not exist').run());
  if (!user || !targetHead) return void (await clearMark(deps, mr.id, jid, REBASE_ERROR).run());

  const c = jobContext(deps);
  const at = Date.now();
  const outcome = await buildRebase(c, { projectId: mr.sourceProjectId, branch: mr.sourceBranch, sourceHead, targetHead, user: { id: user.id, name: user.name, email: user.email }, at });
  if (!outcome.ok) return void (await clearMark(deps, mr.id, jid, REBASE_ERROR).run());
  // Nothing to rebase: only the mark and a previous failure's message to clear.
  if (outcome.noop) return void (await clearMark(deps, mr.id, jid, null).run());

  // The rewritten branch is a push: the merge requests from it are refreshed in the same batch.
  const refresh = await pushStatements(c, {
    projectId: mr.sourceProjectId,
    branch: mr.sourceBranch,
    oldSha: sourceHead,
    commits: outcome.commits,
    manifest: outcome.files,
    // The rebased commits sit on the target head, which is their merge base with it.
    from: targetHead,
    user,
    at,
  });
  await Promise.all([...outcome.blobs].map(([sha, bytes]) => deps.blobs.put(blobKey(mr.sourceProjectId, sha), bytes)));
  const statements: BatchItem<'sqlite'>[] = [...outcome.statements, ...refresh, clearMark(deps, mr.id, jid, null)];
  try {
    await db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
  } catch (err) {
    // The source branch moved meanwhile (or another copy of this job won): the guard failed the batch.
    if (!isBranchMoved(err)) throw err;
    await clearMark(deps, mr.id, jid, REBASE_ERROR).run();
  }
}

/** The last delivery failed: the merge request is no longer rebasing, and says why. */
export async function failMergeRequestRebase(message: JobMessage, deps: JobDeps): Promise<void> {
  await clearMark(deps, Number(message.mergeRequestId), message.id, REBASE_ERROR).run();
}
