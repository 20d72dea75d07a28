import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const ts = (name: string) => integer(name);

/**
 * Linked issues (GitLab `issue_links`, IssueLink): `blocks` reads from the source; `is_blocked_by`
 * is never stored, it is a `blocks` link with the ends swapped (ee IssueLinks::CreateService).
 */
export const issueLinks = sqliteTable(
  'issue_links',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sourceId: integer('source_id').notNull(),
    targetId: integer('target_id').notNull(),
    /** relates_to | blocks */
    linkType: text('link_type').notNull().default('relates_to'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    // One row per pair whichever way round (IssuableLink's uniqueness and check_opposite_relation):
    // the sum and the distance of the two ids name an unordered pair, so concurrent A-B and B-A
    // links cannot both land.
    uniqueIndex('issue_links_pair').on(sql`(${t.sourceId} + ${t.targetId})`, sql`abs(${t.sourceId} - ${t.targetId})`),
    index('issue_links_source').on(t.sourceId),
    index('issue_links_target').on(t.targetId),
  ],
);

/**
 * Label changes of issues, merge requests and epics (GitLab `resource_label_events`): one row per
 * label added or removed, written in the change's own batch. Exactly one of the three ids is set.
 */
export const resourceLabelEvents = sqliteTable(
  'resource_label_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** add | remove */
    action: text('action').notNull(),
    issueId: integer('issue_id'),
    mergeRequestId: integer('merge_request_id'),
    epicId: integer('epic_id'),
    /** Null once the label is deleted (GitLab nullifies it; the event stays). */
    labelId: integer('label_id'),
    userId: integer('user_id'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('resource_label_events_issue').on(t.issueId), index('resource_label_events_mr').on(t.mergeRequestId), index('resource_label_events_epic').on(t.epicId), index('resource_label_events_label').on(t.labelId)],
);

/** Milestone changes (GitLab `resource_milestone_events`): `state` is the issuable's state at the time. */
export const resourceMilestoneEvents = sqliteTable(
  'resource_milestone_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** add | remove */
    action: text('action').notNull(),
    issueId: integer('issue_id'),
    mergeRequestId: integer('merge_request_id'),
    milestoneId: integer('milestone_id'),
    /** opened | closed | merged | locked */
    state: text('state').notNull(),
    userId: integer('user_id'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('resource_milestone_events_issue').on(t.issueId), index('resource_milestone_events_mr').on(t.mergeRequestId), index('resource_milestone_events_milestone').on(t.milestoneId)],
);

/** State changes (GitLab `resource_state_events`): closed, reopened, merged. */
export const resourceStateEvents = sqliteTable(
  'resource_state_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    issueId: integer('issue_id'),
    mergeRequestId: integer('merge_request_id'),
    epicId: integer('epic_id'),
    /** opened | closed | reopened | merged | locked */
    state: text('state').notNull(),
    userId: integer('user_id'),
    createdAt: ts('created_at').notNull(),
    /** The merge request whose merge closed the issue (Issues::CloseService `closed_via`). */
    sourceMergeRequestId: integer('source_merge_request_id'),
    /** The commit whose push closed the issue (unused: pushes do not close issues here). */
    sourceCommit: text('source_commit'),
  },
  (t) => [index('resource_state_events_issue').on(t.issueId), index('resource_state_events_mr').on(t.mergeRequestId), index('resource_state_events_epic').on(t.epicId)],
);
