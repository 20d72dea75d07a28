/**
 * Repositories without git transport: commits, their file manifests and branches, written only
 * through the commits API. Object ids are real git ids (blob, tree and commit hashed in git's
 * object formats), file contents live in the blob store under their blob id.
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const repoCommits = sqliteTable(
  'repo_commits',
  {
    projectId: integer('project_id').notNull(),
    sha: text('sha').notNull(),
    treeSha: text('tree_sha').notNull(),
    /** Parent ids in order (the first parent first), JSON. */
    parentShas: text('parent_shas', { mode: 'json' }).$type<string[]>().notNull(),
    /** 1 + the highest parent generation: orders candidates for the merge base. */
    generation: integer('generation').notNull(),
    message: text('message').notNull(),
    authorName: text('author_name').notNull(),
    authorEmail: text('author_email').notNull(),
    authoredAt: integer('authored_at').notNull(),
    committerName: text('committer_name').notNull(),
    committerEmail: text('committer_email').notNull(),
    committedAt: integer('committed_at').notNull(),
    /** The user whose API call wrote the commit (GitLab's committer is the API user). */
    userId: integer('user_id'),
    additions: integer('additions').notNull().default(0),
    deletions: integer('deletions').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.sha] }), index('repo_commits_time').on(t.projectId, t.committedAt)],
);

/** Parent edges, for ancestry walks in SQL (recursive CTEs). */
export const repoCommitParents = sqliteTable(
  'repo_commit_parents',
  {
    projectId: integer('project_id').notNull(),
    sha: text('sha').notNull(),
    parentSha: text('parent_sha').notNull(),
    position: integer('position').notNull(),
  },
  // By parent: walks toward descendants (the branches and tags containing a commit).
  (t) => [primaryKey({ columns: [t.projectId, t.sha, t.position] }), index('repo_commit_parents_parent').on(t.projectId, t.parentSha)],
);

/** The complete file list of each commit (path -> blob), copied from the parent and changed by the commit's actions. */
export const repoCommitFiles = sqliteTable(
  'repo_commit_files',
  {
    projectId: integer('project_id').notNull(),
    commitSha: text('commit_sha').notNull(),
    path: text('path').notNull(),
    blobSha: text('blob_sha').notNull(),
    /** git file mode: 100644 or 100755. */
    mode: text('mode').notNull(),
    size: integer('size').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.commitSha, t.path] })],
);

export const repoBranches = sqliteTable(
  'repo_branches',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id').notNull(),
    name: text('name').notNull(),
    commitSha: text('commit_sha').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('repo_branches_name').on(t.projectId, t.name)],
);

/**
 * Every branch move (a reflog). Its NOT NULL `new_sha` doubles as the compare-and-swap guard of a
 * push: the insert selects the new sha only while the branch still points at the old one, so a
 * concurrent push fails the whole batch instead of being overwritten.
 */
export const repoBranchUpdates = sqliteTable(
  'repo_branch_updates',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id').notNull(),
    branch: text('branch').notNull(),
    oldSha: text('old_sha'),
    newSha: text('new_sha').notNull(),
    userId: integer('user_id'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('repo_branch_updates_branch').on(t.projectId, t.branch)],
);

/**
 * Tags (refs/tags/<name>). A lightweight tag names a commit (`target_sha` = `commit_sha`, no
 * message); an annotated one names a tag object (git-objects.ts `tagId`) whose fields are kept here,
 * so its id can be written again when a bundle or export carries it.
 */
export const repoTags = sqliteTable(
  'repo_tags',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id').notNull(),
    name: text('name').notNull(),
    /** The tag object's id (annotated) or the commit's (lightweight): the entity's `target`. */
    targetSha: text('target_sha').notNull(),
    /** The commit the tag dereferences to. */
    commitSha: text('commit_sha').notNull(),
    /** The annotation; null for a lightweight tag. */
    message: text('message'),
    taggerName: text('tagger_name'),
    taggerEmail: text('tagger_email'),
    /** The tagger's date (annotated only): the entity's `created_at`. */
    taggedAt: integer('tagged_at'),
    userId: integer('user_id'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('repo_tags_name').on(t.projectId, t.name), index('repo_tags_commit').on(t.projectId, t.commitSha)],
);

/** Protected tags (GitLab `protected_tags`): an exact name or a wildcard (`v*`), unique per project. */
export const protectedTags = sqliteTable(
  'protected_tags',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id').notNull(),
    name: text('name').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('protected_tags_project_name').on(t.projectId, t.name)],
);

/** Who may create a protected tag (`protected_tag_create_access_levels`): a role (0, 30, 40, 60) or a user. */
export const protectedTagCreateAccessLevels = sqliteTable(
  'protected_tag_create_access_levels',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    protectedTagId: integer('protected_tag_id').notNull(),
    accessLevel: integer('access_level'),
    userId: integer('user_id'),
  },
  (t) => [index('protected_tag_create_access_levels_tag').on(t.protectedTagId)],
);
