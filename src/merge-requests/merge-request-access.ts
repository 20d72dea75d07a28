/**
 * Who may read, update and merge merge requests (app/policies/merge_request_policy.rb,
 * project_policy.rb), and finding one by iid the way lib/api/merge_requests.rb does.
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import { mergeRequestAssignees, mergeRequestReviewers, mergeRequests, repoBranches } from '../db/schema';
import type { AppEnv, Caller } from '../platform/context';
import { ApiError, forbidden, recordNotFound } from '../platform/errors';
import { ACCESS, canReadMergeRequests, type ProjectRow } from '../projects/abilities';
import { findReadableProject, findReadableProjectWith } from '../projects/projects';
import { projectIdRefOf } from '../projects/project-queries';
import { cachedQueries } from '../db/prepared';
import { type AccessLevelRow, canMergeToBranch, canPushToBranch, primeProtectedBranches, projectProtectedBranchReads, type ProtectedBranchRow } from '../repository/protected-branches';
import type { MergeRequestRow } from './merge-request-entity';
import { branchIdsOf } from './presenter-reads';

/** `not_allowed!` (lib/api/helpers.rb). */
export const notAllowed = () => new ApiError(405, { message: '405 Method Not Allowed' });

/**
 * create_merge_request_from (same project): Developer and above, who may push to the project. An
 * archived project is read-only (ProjectPolicy `archived` prevents the merge request write abilities).
 */
export const canCreateMergeRequest = (caller: Caller, project: ProjectRow, level: number) =>
  !project.archived && canReadMergeRequests(caller, project, level) && (caller.isAdmin || level >= ACCESS.DEVELOPER);

/** admin_merge_request / set_merge_request_metadata: Developer and above. */
export const canAdminMergeRequest = (caller: Caller, project: ProjectRow, level: number) =>
  !project.archived && canReadMergeRequests(caller, project, level) && (caller.isAdmin || level >= ACCESS.DEVELOPER);

/** update_merge_request: Developer and above, the author, or an assignee (IssuablePolicy). */
export function canUpdateMergeRequest(caller: Caller, project: ProjectRow, level: number, mr: Pick<MergeRequestRow, 'authorId'>, assigneeIds: number[]): boolean {
  if (project.archived || !canReadMergeRequests(caller, project, level)) return false;
  if (caller.isAdmin || level >= ACCESS.DEVELOPER) return true;
  const uid = caller.user?.id;
  return uid != null && (mr.authorId === uid || assigneeIds.includes(uid));
}

/** MergeRequest#can_be_merged_by?: Gitlab::UserAccess#can_update_branch? (push or merge access to the target branch). */
export async function canBeMergedBy(c: Context<AppEnv>, caller: Caller, project: ProjectRow, level: number, targetBranch: string): Promise<boolean> {
  if (!caller.user) return false;
  const opts = { archived: project.archived };
  return (await canPushToBranch(c, caller, level, project.id, targetBranch, opts)) || (await canMergeToBranch(c, caller, level, project.id, targetBranch, opts));
}

export const mergeRequestAssigneeIds = async (db: Db, mrId: number): Promise<number[]> =>
  (await db.select({ userId: mergeRequestAssignees.userId }).from(mergeRequestAssignees).where(eq(mergeRequestAssignees.mergeRequestId, mrId)).orderBy(mergeRequestAssignees.position).all()).map((r) => r.userId);

export const mergeRequestReviewerIds = async (db: Db, mrId: number): Promise<number[]> =>
  (await db.select({ userId: mergeRequestReviewers.userId }).from(mergeRequestReviewers).where(eq(mergeRequestReviewers.mergeRequestId, mrId)).orderBy(mergeRequestReviewers.position).all()).map((r) => r.userId);

/**
 * `find_merge_request_with_access`: the project must be readable (404 Project Not Found), the
 * merge request found by iid (`find_by!`: 404 Not found), then `authorize! :read_merge_request`
 * (403 for a guest of a private project, who can see the project but not its code).
 */
export async function findReadableMergeRequest(c: Context<AppEnv>, caller: Caller, projectId: string, iid: number) {
  const pr = await findReadableProject(c, caller, projectId);
  const mr = Number.isSafeInteger(iid) ? await c.var.db.select().from(mergeRequests).where(and(eq(mergeRequests.projectId, pr.project.id), eq(mergeRequests.iid, iid))).get() : undefined;
  if (!mr) throw recordNotFound();
  if (!canReadMergeRequests(caller, pr.project, pr.level)) throw forbidden();
  return { ...pr, mr };
}

/** Reads for the batch that finds a merge request: unexecuted queries and how to put their results back. */
export type MergeRequestReads<R> = (mrId: SQL, projectId: SQL) => { list: BatchItem<'sqlite'>[]; unflatten: (results: readonly unknown[]) => R };

/**
 * `findReadableMergeRequest` plus `reads` that need only the merge request's id (`mrId`, a
 * sub-select by project and iid), all in the round trip that finds the project: a single merge
 * request's presenter reads (presenter-reads.ts) ride along. Thrown away with the 404/403.
 */
export async function findReadableMergeRequestWith<R>(c: Context<AppEnv>, caller: Caller, projectId: string, iid: number, reads: (mrId: SQL, projectId: SQL) => { list: BatchItem<'sqlite'>[]; unflatten: (results: readonly unknown[]) => R }) {
  const found = await findMergeRequestWith(c, caller, projectId, iid, reads);
  if (!canReadMergeRequests(caller, found.project, found.level)) throw forbidden();
  return found;
}

/**
 * `findReadableMergeRequestWith` without its read_merge_request check, for callers that answer an
 * unreadable merge request their own way (notes and award emoji: a 404). The project is readable
 * (404 Project Not Found) and the merge request exists (404 Not found).
 */
export async function findMergeRequestWith<R>(c: Context<AppEnv>, caller: Caller, projectId: string, iid: number, reads: (mrId: SQL, projectId: SQL) => { list: BatchItem<'sqlite'>[]; unflatten: (results: readonly unknown[]) => R }) {
  const db = c.var.db;
  // An iid beyond SQLite's integers matches nothing (the sub-selects use -1).
  const safeIid = Number.isSafeInteger(iid) ? iid : -1;
  let unflatten: ((results: readonly unknown[]) => R) | undefined;
  const pr = await findReadableProjectWith(c, caller, projectId, (pid) => {
    const r = reads(sql`(SELECT mr.id FROM merge_requests mr WHERE mr.project_id = ${pid} AND mr.iid = ${safeIid})`, pid);
    unflatten = r.unflatten;
    return [db.select().from(mergeRequests).where(and(eq(mergeRequests.projectId, pid as unknown as number), eq(mergeRequests.iid, safeIid))).limit(1), ...r.list] as const;
  });
  const [rows, ...rest] = pr.reads as unknown as [MergeRequestRow[], ...unknown[]];
  const mr = rows[0];
  if (!mr) throw recordNotFound();
  const { reads: _, ...found } = pr;
  return { ...found, mr, loaded: unflatten!(rest) as R };
}

/**
 * `findReadableMergeRequestWith` whose statements (the merge request's row and `build`'s, by the
 * merge request's id and project id as SQL over the placeholders `iid` and the project reference's)
 * are built once per Db and `key` (db/prepared.ts cachedQueries): `key` names everything else that
 * shapes them (options, the caller when written into them). `loaded` holds `build`'s results in order.
 */
export async function findReadableMergeRequestBuiltOnce(c: Context<AppEnv>, caller: Caller, projectId: string, iid: number, key: string, build: (db: Db, mrId: SQL, projectId: SQL) => readonly BatchItem<'sqlite'>[]) {
  const db = c.var.db;
  // An iid beyond SQLite's integers matches nothing.
  const safeIid = Number.isSafeInteger(iid) ? iid : -1;
  const pr = await findReadableProjectWith(c, caller, projectId, (_pid, ref) =>
    cachedQueries(
      db,
      `mr-with:${ref.shape}:${key}`,
      (d) => {
        const pid = projectIdRefOf(ref.shape);
        const iidValue = sql.placeholder('iid');
        return [
          d.select().from(mergeRequests).where(and(eq(mergeRequests.projectId, pid as unknown as number), eq(mergeRequests.iid, iidValue))).limit(1),
          ...build(d, sql`(SELECT mr.id FROM merge_requests mr WHERE mr.project_id = ${pid} AND mr.iid = ${iidValue})`, pid),
        ];
      },
      { ...ref.values, iid: safeIid },
    ),
  );
  const [rows, ...loaded] = pr.reads as unknown as [MergeRequestRow[], ...unknown[]];
  const mr = rows[0];
  if (!mr) throw recordNotFound();
  if (!canReadMergeRequests(caller, pr.project, pr.level)) throw forbidden();
  const { reads: _, ...found } = pr;
  return { ...found, mr, loaded };
}

/** `findProjectMergeRequest` plus `reads`, as `findReadableMergeRequestWith` (one round trip): an unreadable merge request is the same 404 as a missing one. */
export async function findProjectMergeRequestWith<R>(c: Context<AppEnv>, caller: Caller, projectId: string, iid: number, reads: MergeRequestReads<R>) {
  const found = await findMergeRequestWith(c, caller, projectId, iid, reads);
  if (!canReadMergeRequests(caller, found.project, found.level)) throw recordNotFound();
  return found;
}

/** The merge request's assignee and reviewer ids, in position order, as reads for the batch that finds it. */
export function peopleReads(db: Db, mrId: SQL) {
  return {
    list: [
      db.select({ userId: mergeRequestAssignees.userId }).from(mergeRequestAssignees).where(sql`${mergeRequestAssignees.mergeRequestId} = ${mrId}`).orderBy(mergeRequestAssignees.position),
      db.select({ userId: mergeRequestReviewers.userId }).from(mergeRequestReviewers).where(sql`${mergeRequestReviewers.mergeRequestId} = ${mrId}`).orderBy(mergeRequestReviewers.position),
    ] as BatchItem<'sqlite'>[],
    unflatten: (results: readonly unknown[]) => ({
      assigneeIds: (results[0] as { userId: number }[]).map((r) => r.userId),
      reviewerIds: (results[1] as { userId: number }[]).map((r) => r.userId),
    }),
  };
}

/**
 * The project's protected branches as reads for the batch that finds the merge request; the result
 * seeds the request's read memo for `branches` (inside withReadMemo), so the push and merge checks
 * (canBeMergedBy, canPushToBranch) then read nothing.
 */
export function branchRuleReads(db: Db, projectId: SQL) {
  return {
    list: [...projectProtectedBranchReads(db, projectId)] as BatchItem<'sqlite'>[],
    unflatten: (results: readonly unknown[]) => ({
      rows: results[0] as ProtectedBranchRow[],
      prime: (c: Context<AppEnv>, branches: { projectId: number; name: string }[]) => primeProtectedBranches(c, results[0] as ProtectedBranchRow[], results[1] as AccessLevelRow[], branches),
    }),
  };
}

/**
 * The heads of the merge request's source and target branches now (null: the branch does not exist),
 * and of `alsoTarget` in its project (a target branch it may get), as reads for its batch.
 */
export function headReads(db: Db, mrId: SQL, alsoTarget?: string) {
  return {
    list: [
      db
        .select({ projectId: repoBranches.projectId, name: repoBranches.name, sha: repoBranches.commitSha })
        .from(repoBranches)
        .where(sql`${repoBranches.id} IN ${branchIdsOf(sql`= ${mrId}`, alsoTarget === undefined ? undefined : sql`${alsoTarget}`)}`),
    ] as BatchItem<'sqlite'>[],
    unflatten: (results: readonly unknown[]) => {
      const rows = results[0] as { projectId: number; name: string; sha: string }[];
      const of = (projectId: number, name: string) => rows.find((r) => r.projectId === projectId && r.name === name)?.sha ?? null;
      return { of, forMr: (mr: MergeRequestRow) => ({ source: of(mr.sourceProjectId, mr.sourceBranch), target: of(mr.projectId, mr.targetBranch) }) };
    },
  };
}

/**
 * Reads for one batch with the statements that several parts ask for (the same text and
 * parameters, such as the project's protected branches that the branch rules and the approval state
 * both read) sent once, each part still getting its result (issue 13: no statement repeated inside
 * one request).
 */
export function distinctReads<A>(r: { list: BatchItem<'sqlite'>[]; unflatten: (r: readonly unknown[]) => A }) {
  // A statement that cannot tell its SQL (no `toSQL`) is kept as it is.
  const keyOf = (q: BatchItem<'sqlite'>, i: number) => {
    const builder = q as unknown as { toSQL?: () => { sql: string; params: unknown[] } };
    if (typeof builder.toSQL !== 'function') return `#${i}`;
    const { sql: text, params } = builder.toSQL();
    return `${text}\u0000${JSON.stringify(params)}`;
  };
  const first = new Map<string, number>();
  const list: BatchItem<'sqlite'>[] = [];
  const slot = r.list.map((q, i) => {
    const key = keyOf(q, i);
    let at = first.get(key);
    if (at === undefined) first.set(key, (at = list.push(q) - 1));
    return at;
  });
  return { list, unflatten: (results: readonly unknown[]) => r.unflatten(slot.map((i) => results[i])) };
}

/** Two sets of reads for one batch, their results put back apart. */
export function bothReads<A, B>(a: { list: BatchItem<'sqlite'>[]; unflatten: (r: readonly unknown[]) => A }, b: { list: BatchItem<'sqlite'>[]; unflatten: (r: readonly unknown[]) => B }) {
  return { list: [...a.list, ...b.list], unflatten: (r: readonly unknown[]) => [a.unflatten(r.slice(0, a.list.length)), b.unflatten(r.slice(a.list.length))] as const };
}

/**
 * `find_project_merge_request`: MergeRequestsFinder scoped to what the caller may read, so a merge
 * request the caller cannot read is the same 404 as a missing one.
 */
export async function findProjectMergeRequest(c: Context<AppEnv>, caller: Caller, id: string, iid: number) {
  const pr = await findReadableProject(c, caller, id);
  if (!canReadMergeRequests(caller, pr.project, pr.level) || !Number.isSafeInteger(iid)) throw recordNotFound();
  const mr = await c.var.db.select().from(mergeRequests).where(and(eq(mergeRequests.projectId, pr.project.id), eq(mergeRequests.iid, iid))).get();
  if (!mr) throw recordNotFound();
  return { ...pr, mr };
}
