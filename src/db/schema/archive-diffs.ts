/**
 * Diff versions carried by an imported archive (GitLab's merge_request_diff_commits and
 * merge_request_diff_files, import_export.yml `merge_request_diff`): written by the import only for a
 * merge request whose commits the imported repository lacks, so its changes and diffs still answer.
 * A version computed from the repository has no rows here (it is read from base..head).
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const mergeRequestDiffFiles = sqliteTable(
  'merge_request_diff_files',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    mergeRequestDiffId: integer('merge_request_diff_id').notNull(),
    relativeOrder: integer('relative_order').notNull(),
    oldPath: text('old_path').notNull(),
    newPath: text('new_path').notNull(),
    aMode: text('a_mode').notNull(),
    bMode: text('b_mode').notNull(),
    newFile: integer('new_file', { mode: 'boolean' }).notNull(),
    renamedFile: integer('renamed_file', { mode: 'boolean' }).notNull(),
    deletedFile: integer('deleted_file', { mode: 'boolean' }).notNull(),
    tooLarge: integer('too_large', { mode: 'boolean' }).notNull(),
    binary: integer('binary', { mode: 'boolean' }).notNull(),
    diff: text('diff').notNull(),
  },
  (t) => [index('merge_request_diff_files_version').on(t.mergeRequestDiffId, t.relativeOrder)],
);

export const mergeRequestDiffCommits = sqliteTable(
  'merge_request_diff_commits',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    mergeRequestDiffId: integer('merge_request_diff_id').notNull(),
    relativeOrder: integer('relative_order').notNull(),
    sha: text('sha').notNull(),
    message: text('message').notNull(),
    authorName: text('author_name'),
    authorEmail: text('author_email'),
    authoredAt: integer('authored_at'),
    committerName: text('committer_name'),
    committerEmail: text('committer_email'),
    committedAt: integer('committed_at'),
  },
  (t) => [index('merge_request_diff_commits_version').on(t.mergeRequestDiffId, t.relativeOrder)],
);
