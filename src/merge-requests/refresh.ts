/**
 * What a push to a branch does to the open merge requests whose source branch it is
 * (MergeRequests::RefreshService), as statements for the push's own batch (repository/push.ts):
 * the merge request is touched (updated_at), gets a new diff version (merge_request_diffs) and the
 * "added N commits" system note linking to it. Approvals react through `mergeRequestPushHooks`
 * (approvals/refresh.ts: Refresh::ApprovalService, ResetApprovalsService).
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { aliasedColumns } from '../db/aliased-columns';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context } from 'hono';
import type { AppEnv } from '../platform/context';
import { mergeRequests, namespaces, notes, projects, repoBranches } from '../db/schema';
import { alias } from 'drizzle-orm/sqlite-core';
import { hookList } from '../platform/extension';
import type { NamespaceRow, ProjectRow } from '../projects/abilities';
import type { Push } from '../repository/push';
import { cachedManifest, cachedMergeBase, diffManifests, factsOf, type FileChange, manifestOf, manifestRows, mergeBase, mergeBaseQuery, rememberManifest, rememberMergeBase } from '../repository/repository';
import { batchReads } from '../db/batch-reads';
import { patchIdOf } from '../repository/patch-id';
import { type DiffVersion, newestVersionIdSql, versionInsert } from './diffs';
import { diffLimitsOf } from '../repository/diff-limits';
import type { MergeRequestRow } from './merge-request-entity';

/** One open merge request a push refreshed, with the changes of its new diff version. */
export interface RefreshedMergeRequest {
  mr: MergeRequestRow;
  project: ProjectRow;
  namespace: NamespaceRow;
  changes: FileChange[];
}

/**
 * What else a push means for each refreshed merge request (approvals/refresh.ts), in the same batch.
 * A hook's `reads` (of the merge request only) travel in the refresh's one read batch; it gets
 * their results as `read`.
 */
export type MergeRequestPushHook = ((c: Context<AppEnv>, push: Push, refreshed: RefreshedMergeRequest, read?: readonly unknown[]) => Promise<BatchItem<'sqlite'>[]>) & {
  reads?: (db: Db, mr: MergeRequestRow) => readonly BatchItem<'sqlite'>[];
};
export const mergeRequestPushHooks = hookList<MergeRequestPushHook>();

const title = (message: string) => message.split('\n')[0];

/** SystemNotes::CommitService#add_commits: "added 1 commit", the list (10 at most, earlier ones summed up), the comparison link. */
function addCommitsBody(push: Push, mrPath: string): { head: string; tail: string } {
  const commits = push.commits;
  const lines: string[] = [];
  const LIMIT = 10;
  let shown = commits;
  if (commits.length > LIMIT) {
    const truncated = commits.slice(0, commits.length - LIMIT);
    shown = commits.slice(commits.length - LIMIT);
    const ids =
      truncated.length === 1
        ? truncated[0].sha.slice(0, 8)
        : push.oldSha
          ? `${push.oldSha.slice(0, 8)}...${truncated[truncated.length - 1].sha.slice(0, 8)}`
          : `${truncated[0].sha.slice(0, 8)}..${truncated[truncated.length - 1].sha.slice(0, 8)}`;
    lines.push(`<li>${ids} - ${truncated.length} earlier ${truncated.length === 1 ? 'commit' : 'commits'}</li>`);
  }
  for (const c of shown) lines.push(`<li>${c.sha.slice(0, 8)} - ${escapeHtml(title(c.message))}</li>`);
  const n = commits.length;
  // The comparison link names the merge request diff version (its id is filled in by the caller).
  return {
    head: `added ${n} ${n === 1 ? 'commit' : 'commits'}\n\n<ul>${lines.join('')}</ul>\n\n[Compare with previous version](${mrPath}/diffs?diff_id=`,
    tail: `&start_sha=${push.oldSha ?? ''})`,
  };
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const targetBranch = alias(repoBranches, 'target_branch');

/**
 * The open merge requests from a branch, with their target heads (one read for all of them). Joined
 * tables share column names, so each is aliased (a D1 batch keys row values by column name).
 */
const openFromBranch = (db: Db, projectId: SQL | number, branch: string | SQL) =>
  db
    .select({ mr: aliasedColumns(mergeRequests, 'm_'), project: aliasedColumns(projects, 'p_'), namespace: aliasedColumns(namespaces, 'n_'), targetHead: sql<string | null>`${targetBranch.commitSha}`.as('target_head') })
    .from(mergeRequests)
    .innerJoin(projects, eq(projects.id, mergeRequests.projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .leftJoin(targetBranch, and(eq(targetBranch.projectId, mergeRequests.projectId), eq(targetBranch.name, mergeRequests.targetBranch)))
    .where(and(sql`${mergeRequests.sourceProjectId} = ${projectId}`, sql`${mergeRequests.sourceBranch} = ${branch}`, eq(mergeRequests.state, 'opened')));

type OpenRow = { mr: MergeRequestRow; project: ProjectRow; namespace: NamespaceRow; targetHead: string | null };

/**
 * The push hook of this domain (src/app.ts registers it). The open merge requests are read in the
 * pusher's first batch when it sends `refreshOnPush.reads` (repository/push.ts pushReads).
 */
export async function refreshOnPush(c: Context<AppEnv>, push: Push, read?: readonly unknown[]): Promise<BatchItem<'sqlite'>[]> {
  const db = c.var.db;
  const open = (read ? read[0] : await openFromBranch(db, push.projectId, push.branch)) as OpenRow[];
  if (!open.length) return [];
  const hookReads = await prefetch(c, push, open);
  const { maxFiles } = await diffLimitsOf(c);
  const out: BatchItem<'sqlite'>[] = [];
  const at = push.at;
  const newHead = push.commits[push.commits.length - 1].sha;

  for (const { mr, project, namespace, targetHead } of open) {
    const mrPath = `/${namespace.fullPath}/${project.path}/-/merge_requests/${mr.iid}`;
    const body = addCommitsBody(push, mrPath);
    // MergeRequest#reload_diff: a new diff version with head = the new commit, start = the target
    // head and base = their merge base. The new commit is not stored yet, so the base is taken
    // from the commit it builds on (the same merge base: the new commit is in no target's history).
    const base = targetHead && push.from ? await mergeBase(db, push.projectId, targetHead, push.from) : null;
    const baseManifest = await manifestOf(db, push.projectId, base);
    const changes = diffManifests(baseManifest, push.manifest);
    const version: DiffVersion = { head: newHead, base, start: targetHead, changes };
    // The merge facts the merge request shows until one of its heads moves again (the columns'
    // comment in db/schema): computed from what the push holds, since its head is stored only by this batch.
    const facts =
      targetHead && base && mr.projectId === push.projectId
        ? factsOf(base, { projectId: mr.projectId, targetHead, head: newHead }, baseManifest, await manifestOf(db, mr.projectId, targetHead), push.manifest)
        : null;
    const stored = facts
      ? { mergeFactsFor: `${targetHead}:${newHead}`, mergeBaseSha: facts.base, mergeConflict: facts.conflict, changedFilesCount: facts.changes, mergePatchIdSha: patchIdOf(changes) }
      : { mergeFactsFor: null, mergeBaseSha: null, mergeConflict: null, changedFilesCount: null, mergePatchIdSha: null };
    out.push(
      db.update(mergeRequests).set({ updatedAt: at, ...stored }).where(and(eq(mergeRequests.id, mr.id), eq(mergeRequests.state, 'opened'))),
      versionInsert(db, mr.id, version, at, maxFiles),
      // The comparison link names the version written just above (SystemNoteService#add_commits: merge_request_diff.id).
      db.insert(notes).values({
        noteableType: 'MergeRequest',
        noteableId: mr.id,
        projectId: mr.projectId,
        authorId: push.user.id,
        body: sql`${body.head} || ${newestVersionIdSql(mr.id)} || ${body.tail}` as unknown as string,
        system: true,
        createdAt: at,
        updatedAt: at,
      }),
    );
    for (const hook of mergeRequestPushHooks.all()) out.push(...(await hook(c, push, { mr, project, namespace, changes }, hookReads.get(`${mr.id}`)?.get(hook))));
  }
  return out;
}
refreshOnPush.reads = (db: Db, projectId: SQL, branch: string | SQL) => [openFromBranch(db, projectId, branch)] as const;

/**
 * What the new versions of the merge requests need, in one round trip (none when this isolate knows
 * it all): the merge bases of their target heads with the commit the push builds on and the file
 * lists at them (the sha facts are then cached: sha-cache.ts), the target heads' file lists, and
 * the merge request hooks' reads, per merge request id and hook.
 */
async function prefetch(c: Context<AppEnv>, push: Push, open: OpenRow[]): Promise<Map<string, Map<MergeRequestPushHook, readonly unknown[]>>> {
  const db = c.var.db;
  const pid = push.projectId;
  const reads: BatchItem<'sqlite'>[] = [];
  const takes: ((rows: readonly unknown[]) => void)[] = [];
  const asked = new Set<string>();
  const read = (key: string, queries: BatchItem<'sqlite'>[], take: (rows: readonly unknown[]) => void) => {
    if (asked.has(key)) return;
    asked.add(key);
    const at = reads.length;
    reads.push(...queries);
    takes.push((all) => take(all.slice(at, at + queries.length)));
  };
  const manifest = (sha: string) => {
    if (!cachedManifest(db, pid, sha)) read(`files:${sha}`, [manifestRows(db, pid, sha)], ([rows]) => rememberManifest(db, pid, sha, rows as FileRow[]));
  };
  const hooked = new Map<string, Map<MergeRequestPushHook, readonly unknown[]>>();
  for (const { mr, targetHead } of open) {
    if (targetHead && push.from) {
      const from = push.from;
      const base = cachedMergeBase(db, pid, targetHead, from);
      if (base === undefined)
        read(`base:${targetHead}`, [mergeBaseQuery(db, pid, targetHead, from), manifestRows(db, pid, sql`(${mergeBaseQuery(db, pid, targetHead, from)})`)], ([b, rows]) => {
          const sha = rememberMergeBase(db, pid, targetHead, from, (b as { sha: string }[])[0]?.sha ?? null);
          if (sha) rememberManifest(db, pid, sha, rows as FileRow[]);
        });
      else if (base) manifest(base);
      if (mr.projectId === pid) manifest(targetHead);
    }
    for (const hook of mergeRequestPushHooks.all()) {
      const queries = hook.reads?.(db, mr);
      if (queries?.length) read(`hook:${mr.id}:${mergeRequestPushHooks.all().indexOf(hook)}`, [...queries], (rows) => (hooked.get(`${mr.id}`) ?? hooked.set(`${mr.id}`, new Map()).get(`${mr.id}`)!).set(hook, rows));
    }
  }
  if (reads.length) {
    const results = (await batchReads(db, reads)) as readonly unknown[];
    for (const take of takes) take(results);
  }
  return hooked;
}

type FileRow = Parameters<typeof rememberManifest>[3][number];
