/**
 * `merge_requests.ndjson`: each merge request with its notes, award emoji, label links, milestone
 * and latest diff version (import_export.yml `merge_requests`), a page at a time.
 */
import { and, asc, desc, eq, gt } from 'drizzle-orm';
import type { Db } from '../db/client';
import { inJson } from '../db/batch-reads';
import { mergeRequestDiffCommits, mergeRequestDiffFiles, mergeRequestDiffs, mergeRequests, milestones } from '../db/schema';
import { iso } from '../platform/time';
import type { BlobStore } from '../platform/blobs';
import { commitsBetween } from '../repository/history';
import { changedFiles, decoder, isBinary, unifiedDiff } from '../repository/diffs';
import { blobKey } from '../repository/repository-store';
import { type ExportScope, labelLinksOf, notesOf, PAGE } from './export-tree';
import { resourceEventsOf } from './export-resource-events';

type DiffRow = typeof mergeRequestDiffs.$inferSelect;

/**
 * The latest diff version's commits and files (merge_request_diff_commits, merge_request_diff_files),
 * computed from the repository between its base and head as the diffs API shows them.
 */
async function diffDetails(db: Db, blobs: BlobStore, projectId: number, d: DiffRow) {
  // A version an archive brought (no head in this repository): its stored files and commits go out again.
  if (!d.headCommitSha) return storedDetails(db, d);
  const base = d.baseCommitSha ?? null;
  const [commits, changes] = await Promise.all([commitsBetween(db, projectId, base, d.headCommitSha), changedFiles(db, projectId, base, d.headCommitSha)]);
  const read = async (sha: string | null) => {
    if (!sha) return null;
    const blob = await blobs.get(blobKey(projectId, sha));
    return blob ? new Uint8Array(await new Response(blob.body).arrayBuffer()) : null;
  };
  const files = [];
  for (const [i, ch] of changes.entries()) {
    const [before, after] = ch.oldBlob === ch.newBlob ? [null, null] : await Promise.all([read(ch.oldBlob), read(ch.newBlob)]);
    const binary = (before && isBinary(before)) || (after && isBinary(after));
    files.push({
      merge_request_diff_id: d.id,
      relative_order: i,
      utf8_diff: binary ? `Binary files a/${ch.oldPath} and b/${ch.newPath} differ\n` : ch.oldBlob === ch.newBlob ? '' : unifiedDiff(before ? decoder.decode(before) : '', after ? decoder.decode(after) : ''),
      new_path: ch.newPath,
      old_path: ch.oldPath,
      a_mode: ch.aMode,
      b_mode: ch.bMode,
      new_file: ch.newFile,
      renamed_file: ch.renamedFile,
      deleted_file: ch.deletedFile,
      too_large: false,
      binary: !!binary,
    });
  }
  return {
    commits: commits.map((c, i) => ({
      merge_request_diff_id: d.id,
      relative_order: i,
      sha: c.sha,
      message: c.message,
      authored_date: at(c.authoredAt),
      author_name: c.authorName,
      author_email: c.authorEmail,
      committed_date: at(c.committedAt),
      committer_name: c.committerName,
      committer_email: c.committerEmail,
      commit_author: { name: c.authorName, email: c.authorEmail },
      committer: { name: c.committerName, email: c.committerEmail },
      trailers: {},
    })),
    files,
  };
}

const at = (ms: number | null | undefined) => (ms == null ? null : iso(ms));

/** The archive's diff of an imported merge request (import-diffs.ts), as it came. */
async function storedDetails(db: Db, d: DiffRow) {
  const [files, commits] = await db.batch([
    db.select().from(mergeRequestDiffFiles).where(eq(mergeRequestDiffFiles.mergeRequestDiffId, d.id)).orderBy(asc(mergeRequestDiffFiles.relativeOrder)),
    db.select().from(mergeRequestDiffCommits).where(eq(mergeRequestDiffCommits.mergeRequestDiffId, d.id)).orderBy(asc(mergeRequestDiffCommits.relativeOrder)),
  ]);
  return {
    commits: commits.map((c) => ({
      merge_request_diff_id: d.id,
      relative_order: c.relativeOrder,
      sha: c.sha,
      message: c.message,
      authored_date: at(c.authoredAt),
      author_name: c.authorName,
      author_email: c.authorEmail,
      committed_date: at(c.committedAt),
      committer_name: c.committerName,
      committer_email: c.committerEmail,
      commit_author: { name: c.authorName, email: c.authorEmail },
      committer: { name: c.committerName, email: c.committerEmail },
      trailers: {},
    })),
    files: files.map((f) => ({
      merge_request_diff_id: d.id,
      relative_order: f.relativeOrder,
      utf8_diff: f.diff,
      new_path: f.newPath,
      old_path: f.oldPath,
      a_mode: f.aMode,
      b_mode: f.bMode,
      new_file: f.newFile,
      renamed_file: f.renamedFile,
      deleted_file: f.deletedFile,
      too_large: f.tooLarge,
      binary: f.binary,
    })),
  };
}

export async function* mergeRequestLines({ db, blobs, project: { id: projectId }, after: start }: ExportScope): AsyncGenerator<Record<string, unknown>> {
  let after = start ?? 0;
  for (;;) {
    const rows = await db.select().from(mergeRequests).where(and(eq(mergeRequests.projectId, projectId), gt(mergeRequests.id, after))).orderBy(asc(mergeRequests.id)).limit(PAGE).all();
    if (!rows.length) return;
    const ids = rows.map((r) => r.id);
    const milestoneIds = [...new Set(rows.map((r) => r.milestoneId).filter((m): m is number => m != null))];
    const [diffs, ms] = await db.batch([
      db.select().from(mergeRequestDiffs).where(inJson(mergeRequestDiffs.mergeRequestId, ids)).orderBy(desc(mergeRequestDiffs.id)),
      db.select().from(milestones).where(inJson(milestones.id, milestoneIds)),
    ]);
    const { notesOf: notesFor, awardsOf } = await notesOf(db, 'MergeRequest', ids);
    const linksOf = await labelLinksOf(db, 'MergeRequest', ids);
    const eventsOf = await resourceEventsOf(db, 'MergeRequest', ids);
    for (const m of rows) {
      const diff = diffs.find((d) => d.mergeRequestId === m.id);
      const details = diff ? await diffDetails(db, blobs, projectId, diff) : null;
      const milestone = ms.find((x) => x.id === m.milestoneId);
      yield {
        id: m.id,
        target_branch: m.targetBranch,
        source_branch: m.sourceBranch,
        source_project_id: m.sourceProjectId,
        author_id: m.authorId,
        assignee_id: null,
        title: m.title,
        created_at: at(m.createdAt),
        updated_at: at(m.updatedAt),
        state: m.state,
        merge_status: m.mergeStatus,
        target_project_id: m.projectId,
        iid: m.iid,
        description: m.description,
        position: 0,
        updated_by_id: m.lastEditedById,
        merge_error: m.mergeError,
        diff_head_sha: m.headSha,
        source_branch_sha: m.headSha,
        target_branch_sha: m.baseSha,
        merge_params: { force_remove_source_branch: m.forceRemoveSourceBranch ? '1' : null },
        merge_when_pipeline_succeeds: m.mergeWhenPipelineSucceeds,
        merge_user_id: m.mergeUserId,
        merge_commit_sha: m.mergeCommitSha,
        squash_commit_sha: m.squashCommitSha,
        squash: m.squash,
        draft: m.draft,
        discussion_locked: m.discussionLocked,
        time_estimate: m.timeEstimate,
        allow_maintainer_to_push: m.allowCollaboration,
        approvals_before_merge: m.approvalsBeforeMerge,
        ...(milestone
          ? { milestone: { id: milestone.id, title: milestone.title, project_id: milestone.projectId, description: milestone.description, due_date: milestone.dueDate, created_at: at(milestone.createdAt), updated_at: at(milestone.updatedAt), state: milestone.state, iid: milestone.iid, events: [] } }
          : {}),
        notes: notesFor(m.id),
        label_links: linksOf(m.id),
        award_emoji: awardsOf(m.id),
        merge_request_diff: diff
          ? {
              id: diff.id,
              state: diff.state,
              merge_request_diff_commits: details?.commits ?? [],
              merge_request_diff_files: details?.files ?? [],
              merge_request_id: m.id,
              created_at: at(diff.createdAt),
              updated_at: at(diff.updatedAt),
              base_commit_sha: diff.baseCommitSha,
              head_commit_sha: diff.headCommitSha,
              start_commit_sha: diff.startCommitSha,
              real_size: diff.realSize,
            }
          : null,
        metrics: { merged_by_id: m.mergedById, merged_at: at(m.mergedAt), latest_closed_by_id: m.closedById, latest_closed_at: at(m.closedAt) },
        ...eventsOf(m.id),
        events: [],
        timelogs: [],
      };
    }
    after = rows[rows.length - 1].id;
  }
}
