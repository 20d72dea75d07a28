import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const ts = (name: string) => integer(name);
const bool = (name: string) => integer(name, { mode: 'boolean' });

/**
 * Comments and system notes on issues, epics, merge requests and commits. A commit's notes carry
 * `commit_id` (and `noteable_id` 0: GitLab's is NULL), as GitLab stores them.
 */
export const notes = sqliteTable(
  'notes',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** Issue | Epic | MergeRequest | Commit */
    noteableType: text('noteable_type').notNull(),
    noteableId: integer('noteable_id').notNull(),
    projectId: integer('project_id'),
    authorId: integer('author_id').notNull(),
    body: text('body').notNull(),
    /** Written by the server for changes (closed, assigned, …) rather than by a person. */
    system: bool('system').notNull().default(false),
    /** Internal notes (`internal`, formerly `confidential`). */
    internal: bool('internal').notNull().default(false),
    /** null | DiscussionNote | DiffNote */
    type: text('type'),
    discussionId: text('discussion_id'),
    resolvable: bool('resolvable').notNull().default(false),
    /** The commit of a Commit note; a merge request DiffNote's `commit_id` when given. */
    commitId: text('commit_id'),
    /** A DiffNote's Gitlab::Diff::Position as JSON (its `to_h`), and the line code it resolved to. */
    position: text('position'),
    lineCode: text('line_code'),
    resolvedAt: ts('resolved_at'),
    resolvedById: integer('resolved_by_id'),
    lastEditedAt: ts('last_edited_at'),
    updatedById: integer('updated_by_id'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    index('notes_noteable').on(t.noteableType, t.noteableId, t.createdAt, t.id),
    index('notes_author').on(t.authorId),
    index('notes_discussion').on(t.discussionId),
    index('notes_commit').on(t.projectId, t.commitId),
  ],
);

/** Award emoji on issues, notes, epics, merge requests; one per (awardable, name, user). */
export const awardEmoji = sqliteTable(
  'award_emoji',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    userId: integer('user_id').notNull(),
    awardableType: text('awardable_type').notNull(),
    awardableId: integer('awardable_id').notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('award_emoji_unique').on(t.awardableType, t.awardableId, t.name, t.userId),
    // my_reaction_emoji filter: the caller's awards by name.
    index('award_emoji_user_name').on(t.userId, t.name, t.awardableType, t.awardableId),
  ],
);

/**
 * To-do items. `action` uses GitLab's numbers (1 assigned, 2 mentioned, 3 build_failed, 4 marked,
 * 5 approval_required, 6 unmergeable, 7 directly_addressed, …); `state` is pending | done.
 */
export const todos = sqliteTable(
  'todos',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: integer('user_id').notNull(),
    authorId: integer('author_id').notNull(),
    projectId: integer('project_id'),
    groupId: integer('group_id'),
    /** Issue | MergeRequest | Epic */
    targetType: text('target_type').notNull(),
    targetId: integer('target_id').notNull(),
    noteId: integer('note_id'),
    action: integer('action').notNull(),
    state: text('state').notNull().default('pending'),
    body: text('body').notNull().default(''),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    index('todos_user_state').on(t.userId, t.state, t.id),
    index('todos_target').on(t.targetType, t.targetId, t.userId, t.state),
  ],
);

/** Explicit subscribe / unsubscribe to an issue, label, epic or merge request. */
export const subscriptions = sqliteTable(
  'subscriptions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: integer('user_id').notNull(),
    subscribableType: text('subscribable_type').notNull(),
    subscribableId: integer('subscribable_id').notNull(),
    projectId: integer('project_id'),
    subscribed: bool('subscribed').notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('subscriptions_unique').on(t.subscribableType, t.subscribableId, t.userId, t.projectId)],
);
