import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const ts = (name: string) => integer(name);
const bool = (name: string) => integer(name, { mode: 'boolean' });

/**
 * Merge requests (GitLab `merge_requests`). `project_id` is the target project. An open merge request
 * reads its HEAD live from the source branch (services/repository.ts branchHead), so a commit pushed
 * to the branch moves it without a hook; `head_sha`/`base_sha`/`start_sha` are the diff refs recorded
 * at creation and again when it is merged or closed, and are what a merged or closed one (or one whose
 * source branch is gone) shows.
 */
export const mergeRequests = sqliteTable(
  'merge_requests',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id').notNull(),
    iid: integer('iid').notNull(),
    sourceProjectId: integer('source_project_id').notNull(),
    sourceBranch: text('source_branch').notNull(),
    targetBranch: text('target_branch').notNull(),
    title: text('title').notNull(),
    description: text('description'),
    /** opened | closed | merged | locked */
    state: text('state').notNull().default('opened'),
    /** From the title prefix (`Draft:`, `[Draft]`, `(Draft)`), kept in step with every title write. */
    draft: bool('draft').notNull().default(false),
    authorId: integer('author_id').notNull(),
    milestoneId: integer('milestone_id'),
    /** Who merged it, or who set it to merge when the pipeline succeeds (GitLab `merge_user_id`). */
    mergeUserId: integer('merge_user_id'),
    /** GitLab merge_request_metrics.merged_by_id / merged_at. */
    mergedById: integer('merged_by_id'),
    mergedAt: ts('merged_at'),
    closedById: integer('closed_by_id'),
    closedAt: ts('closed_at'),
    mergeCommitSha: text('merge_commit_sha'),
    squashCommitSha: text('squash_commit_sha'),
    squash: bool('squash').notNull().default(false),
    /** merge_params['force_remove_source_branch'] (set on create/update); null when never given. */
    forceRemoveSourceBranch: bool('force_remove_source_branch'),
    /** merge_params['should_remove_source_branch'] (set on merge); null when never given. */
    shouldRemoveSourceBranch: bool('should_remove_source_branch'),
    allowCollaboration: bool('allow_collaboration').notNull().default(false),
    mergeWhenPipelineSucceeds: bool('merge_when_pipeline_succeeds').notNull().default(false),
    /** unchecked | checking | can_be_merged | cannot_be_merged | cannot_be_merged_recheck */
    mergeStatus: text('merge_status').notNull().default('unchecked'),
    mergeError: text('merge_error'),
    /** The queued rebase job's id (MergeRequest#rebase_jid) while it has not finished; null otherwise. */
    rebaseJid: text('rebase_jid'),
    /** Null until locked or unlocked once (GitLab keeps the column nullable and shows null). */
    discussionLocked: bool('discussion_locked'),
    /** Merge-request-level approvals_before_merge (EE), null when unset. */
    approvalsBeforeMerge: integer('approvals_before_merge'),
    headSha: text('head_sha'),
    /**
     * What the system-written approval rules (code owner, report approver) were last built from
     * (services/system-approval-rules.ts): the plan, the target branch and its head, the source
     * head. They are rebuilt when it no longer matches.
     */
    systemRulesSyncedFor: text('system_rules_synced_for'),
    baseSha: text('base_sha'),
    startSha: text('start_sha'),
    /**
     * The merge facts of an open merge request (repository/merge-facts.ts) as the last push to its
     * source branch computed them, in the push's batch (merge-requests/refresh.ts): `<target
     * head>:<source head>` they hold for, the merge base, whether merging conflicts, the files
     * changed. A read uses them while both heads still match (a push to the target moves its head,
     * and the read then computes them again), so a list page needs no repository read for them.
     */
    mergeFactsFor: text('merge_facts_for'),
    mergeBaseSha: text('merge_base_sha'),
    mergeConflict: bool('merge_conflict'),
    changedFilesCount: integer('changed_files_count'),
    /** With the facts: the patch id of merge base..source head (repository/patch-id.ts), what an approval records, so approving reads no manifests. */
    mergePatchIdSha: text('merge_patch_id_sha'),
    /** Seconds. */
    timeEstimate: integer('time_estimate').notNull().default(0),
    totalTimeSpent: integer('total_time_spent').notNull().default(0),
    upvotes: integer('upvotes').notNull().default(0),
    downvotes: integer('downvotes').notNull().default(0),
    lastEditedAt: ts('last_edited_at'),
    lastEditedById: integer('last_edited_by_id'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('merge_requests_project_iid').on(t.projectId, t.iid),
    // MergeRequest#validate_branches: one open merge request per source/target branch pair; the
    // index settles racing creates and reopens (a lost race is the same 409).
    uniqueIndex('merge_requests_open_branches')
      .on(t.projectId, t.sourceProjectId, t.sourceBranch, t.targetBranch)
      .where(sql`state in ('opened', 'locked')`),
    index('merge_requests_source').on(t.sourceProjectId, t.sourceBranch, t.state),
    index('merge_requests_target').on(t.projectId, t.targetBranch, t.state),
    index('merge_requests_project_created').on(t.projectId, t.createdAt, t.id),
    index('merge_requests_project_state_created').on(t.projectId, t.state, t.createdAt, t.id),
    index('merge_requests_project_updated').on(t.projectId, t.updatedAt, t.id),
    index('merge_requests_created').on(t.createdAt, t.id),
    index('merge_requests_updated').on(t.updatedAt, t.id),
    index('merge_requests_author_created').on(t.authorId, t.createdAt, t.id),
    index('merge_requests_milestone').on(t.milestoneId, t.createdAt, t.id),
  ],
);

export const mergeRequestAssignees = sqliteTable(
  'merge_request_assignees',
  {
    mergeRequestId: integer('merge_request_id').notNull(),
    userId: integer('user_id').notNull(),
    /** Position in the `assignees` array (the first is the deprecated `assignee`). */
    position: integer('position').notNull().default(0),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.mergeRequestId, t.userId] }),
    index('merge_request_assignees_user').on(t.userId, t.mergeRequestId),
  ],
);

export const mergeRequestReviewers = sqliteTable(
  'merge_request_reviewers',
  {
    mergeRequestId: integer('merge_request_id').notNull(),
    userId: integer('user_id').notNull(),
    /** unreviewed | review_started | reviewed | requested_changes | approved | unapproved */
    state: text('state').notNull().default('unreviewed'),
    position: integer('position').notNull().default(0),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.mergeRequestId, t.userId] }),
    index('merge_request_reviewers_user').on(t.userId, t.mergeRequestId),
  ],
);

/**
 * Issues a merge request closes when merged into the default branch (GitLab
 * `merge_requests_closing_issues`), from `Closes #n`-style references in its description.
 */
export const mergeRequestsClosingIssues = sqliteTable(
  'merge_requests_closing_issues',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    mergeRequestId: integer('merge_request_id').notNull(),
    issueId: integer('issue_id').notNull(),
    fromMrDescription: bool('from_mr_description').notNull().default(true),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('merge_requests_closing_issues_pair').on(t.mergeRequestId, t.issueId),
    index('merge_requests_closing_issues_issue').on(t.issueId, t.mergeRequestId),
  ],
);

/**
 * Issues a merge request's description mentions without closing them (GitLab records these as
 * cross-reference system notes); Issues::ReferencedMergeRequestsService lists them as related.
 */
export const mergeRequestMentionedIssues = sqliteTable(
  'merge_request_mentioned_issues',
  {
    mergeRequestId: integer('merge_request_id').notNull(),
    issueId: integer('issue_id').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.mergeRequestId, t.issueId] }),
    index('merge_request_mentioned_issues_issue').on(t.issueId, t.mergeRequestId),
  ],
);

/**
 * Diff versions of a merge request (GitLab `merge_request_diffs`): one written with the merge
 * request, one per push to its source branch while it is open (MergeRequests::RefreshService
 * reload_diff), each in the same batch as what caused it. The commits and files of a version are
 * computed from base..head on read, as the repository keeps every commit.
 */
export const mergeRequestDiffs = sqliteTable(
  'merge_request_diffs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    mergeRequestId: integer('merge_request_id').notNull(),
    /** GitLab's state machine ends at `collected` for a diff it could read (`empty`, `overflow` otherwise). */
    state: text('state').notNull().default('collected'),
    headCommitSha: text('head_commit_sha'),
    baseCommitSha: text('base_commit_sha'),
    startCommitSha: text('start_commit_sha'),
    /** The number of changed files as GitLab stores it: a string, `"N+"` past the collection limit. */
    realSize: text('real_size'),
    /** `git patch-id` of the version's diff (GitLab MergeRequestDiff#patch_id_sha); null when not computed. */
    patchIdSha: text('patch_id_sha'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [index('merge_request_diffs_merge_request').on(t.mergeRequestId, t.id)],
);
