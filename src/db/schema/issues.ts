import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const ts = (name: string) => integer(name);
const bool = (name: string) => integer(name, { mode: 'boolean' });

/**
 * Project issues. `upvotes`/`downvotes` are kept in step with award_emoji in the same db.batch
 * (popularity sorting and the list entity read them without a per-row count).
 */
export const issues = sqliteTable(
  'issues',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id').notNull(),
    iid: integer('iid').notNull(),
    title: text('title').notNull(),
    description: text('description'),
    /** opened | closed */
    state: text('state').notNull().default('opened'),
    authorId: integer('author_id').notNull(),
    /** issue | incident | test_case | task */
    issueType: text('issue_type').notNull().default('issue'),
    confidential: bool('confidential').notNull().default(false),
    discussionLocked: bool('discussion_locked').notNull().default(false),
    milestoneId: integer('milestone_id'),
    epicId: integer('epic_id'),
    /** `YYYY-MM-DD` or null. */
    dueDate: text('due_date'),
    weight: integer('weight'),
    /** on_track | needs_attention | at_risk, or null. */
    healthStatus: text('health_status'),
    /** unknown | low | medium | high | critical (incidents). */
    severity: text('severity').notNull().default('unknown'),
    relativePosition: integer('relative_position'),
    movedToId: integer('moved_to_id'),
    duplicatedToId: integer('duplicated_to_id'),
    /** Seconds. */
    timeEstimate: integer('time_estimate').notNull().default(0),
    /** Seconds; the sum of timelogs, kept in step in the same batch as each timelog. */
    totalTimeSpent: integer('total_time_spent').notNull().default(0),
    upvotes: integer('upvotes').notNull().default(0),
    downvotes: integer('downvotes').notNull().default(0),
    closedAt: ts('closed_at'),
    closedById: integer('closed_by_id'),
    lastEditedAt: ts('last_edited_at'),
    lastEditedById: integer('last_edited_by_id'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('issues_project_iid').on(t.projectId, t.iid),
    // List orders per project (default created_at desc, id desc as the tie-break). The trailing
    // columns make the date, state and confidentiality filters and the bounded count answerable
    // from the index alone (no issue row read per candidate; issue 13: created_after + updated_before).
    index('issues_project_created').on(t.projectId, t.createdAt, t.id, t.updatedAt, t.state, t.confidential, t.authorId),
    index('issues_project_state_created').on(t.projectId, t.state, t.createdAt, t.id),
    index('issues_project_updated').on(t.projectId, t.updatedAt, t.id, t.createdAt, t.state),
    index('issues_project_due').on(t.projectId, t.dueDate, t.id),
    // Instance-wide lists (/issues scope=all, created_by_me) walk these in order (services/issue-finder.ts):
    // project and confidentiality (confidential, author) are tested on the index, no row read.
    index('issues_created').on(t.createdAt, t.id, t.projectId, t.confidential, t.authorId),
    index('issues_updated').on(t.updatedAt, t.id, t.projectId, t.confidential, t.authorId),
    // Author and milestone filters: project and state read from the index too (covering counts).
    index('issues_author_created').on(t.authorId, t.createdAt, t.id, t.projectId, t.state),
    index('issues_milestone').on(t.milestoneId, t.createdAt, t.id, t.projectId, t.state),
    index('issues_epic').on(t.epicId),
  ],
);

export const issueAssignees = sqliteTable(
  'issue_assignees',
  {
    issueId: integer('issue_id').notNull(),
    userId: integer('user_id').notNull(),
    /** Position in the `assignees` array (the first is the deprecated `assignee`). */
    position: integer('position').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.issueId, t.userId] }), index('issue_assignees_user').on(t.userId, t.issueId)],
);

/** Spent-time entries (GitLab `timelogs`); negative `time_spent` subtracts. */
export const timelogs = sqliteTable(
  'timelogs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    issueId: integer('issue_id').notNull(),
    userId: integer('user_id').notNull(),
    timeSpent: integer('time_spent').notNull(),
    summary: text('summary'),
    spentAt: ts('spent_at').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('timelogs_issue').on(t.issueId)],
);

/** User agent and IP recorded when an issue is created (GitLab `user_agent_details`), for administrators. */
export const userAgentDetails = sqliteTable(
  'user_agent_details',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    subjectType: text('subject_type').notNull(),
    subjectId: integer('subject_id').notNull(),
    userAgent: text('user_agent').notNull(),
    ipAddress: text('ip_address').notNull(),
    submitted: bool('submitted').notNull().default(false),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('user_agent_details_subject').on(t.subjectType, t.subjectId)],
);

/** Incident metric images; the file lives in the blob store under `blob_key`. */
export const issueMetricImages = sqliteTable(
  'issue_metric_images',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    issueId: integer('issue_id').notNull(),
    filename: text('filename').notNull(),
    blobKey: text('blob_key').notNull(),
    contentType: text('content_type'),
    size: integer('size').notNull(),
    url: text('url'),
    urlText: text('url_text'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [index('issue_metric_images_issue').on(t.issueId, t.createdAt)],
);
