/**
 * The diff version an imported archive carried (import-export/import-diffs.ts writes it) for a
 * merge request whose commits the imported repository lacks: its files and commits as stored
 * (MergeRequestDiffFile#utf8_diff, MergeRequestDiffCommit), served by /changes, /diffs and /commits
 * where base..head cannot be read. Only the newest version is looked at, as those routes show it.
 */
import { asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { mergeRequestDiffCommits, mergeRequestDiffFiles } from '../db/schema';
import { type Commit, commitDate, type Diff } from '../repository/commit-entity';

const newestVersion = (mrId: number | SQL) => sql`(SELECT max(id) FROM merge_request_diffs WHERE merge_request_id = ${mrId})`;

/** The stored files of the newest version (none for a version read from the repository), unexecuted. */
export const archiveFilesRead = (db: Db, mrId: number | SQL) =>
  db.select().from(mergeRequestDiffFiles).where(eq(mergeRequestDiffFiles.mergeRequestDiffId, newestVersion(mrId) as never)).orderBy(asc(mergeRequestDiffFiles.relativeOrder));

export const archiveCommitsRead = (db: Db, mrId: number | SQL) =>
  db.select().from(mergeRequestDiffCommits).where(eq(mergeRequestDiffCommits.mergeRequestDiffId, newestVersion(mrId) as never)).orderBy(asc(mergeRequestDiffCommits.relativeOrder));

export const archiveDiffEntity = (f: typeof mergeRequestDiffFiles.$inferSelect): Diff => ({
  diff: f.diff,
  collapsed: false,
  too_large: f.tooLarge,
  new_path: f.newPath,
  old_path: f.oldPath,
  a_mode: f.aMode,
  b_mode: f.bMode,
  new_file: f.newFile,
  renamed_file: f.renamedFile,
  deleted_file: f.deletedFile,
  generated_file: false,
});

/** A stored commit as Entities::Commit; its parents are not in the archive. */
export function archiveCommitEntity(r: typeof mergeRequestDiffCommits.$inferSelect, x: { base: string; projectFullPath: string }): Commit {
  const committed = r.committedAt ?? r.authoredAt ?? 0;
  return {
    id: r.sha,
    short_id: r.sha.slice(0, 8),
    created_at: commitDate(committed),
    parent_ids: [],
    title: r.message.split('\n')[0].replace(/\r$/, ''),
    message: r.message,
    author_name: r.authorName ?? '',
    author_email: r.authorEmail ?? '',
    authored_date: commitDate(r.authoredAt ?? committed),
    committer_name: r.committerName ?? '',
    committer_email: r.committerEmail ?? '',
    committed_date: commitDate(committed),
    trailers: {},
    extended_trailers: {},
    web_url: `${x.base}/${x.projectFullPath}/-/commit/${r.sha}`,
  };
}
