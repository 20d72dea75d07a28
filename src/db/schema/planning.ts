import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const ts = (name: string) => integer(name);
const bool = (name: string) => integer(name, { mode: 'boolean' });

/**
 * Per-scope counters for `iid`s (GitLab `internal_ids`): `usage` is `issues`, `merge_requests`,
 * `milestones` (project scope), `group_milestones` or `epics` (namespace scope). An iid is taken in
 * the same db.batch as the insert that uses it: `UPDATE … SET last_value = last_value + 1` then
 * `INSERT … (SELECT last_value …)`, so two creators never share one (D1 batches are atomic).
 */
export const internalIds = sqliteTable(
  'internal_ids',
  {
    usage: text('usage').notNull(),
    scopeId: integer('scope_id').notNull(),
    lastValue: integer('last_value').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.usage, t.scopeId] })],
);

/** Project labels (`project_id`) and group labels (`group_id`); exactly one of the two is set. */
export const labels = sqliteTable(
  'labels',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id'),
    groupId: integer('group_id'),
    title: text('title').notNull(),
    /** `#rrggbb` as given (GitLab keeps named colours converted to hex). */
    color: text('color').notNull(),
    description: text('description'),
    archived: bool('archived').notNull().default(false),
    lockOnMerge: bool('lock_on_merge').notNull().default(false),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('labels_project_title').on(t.projectId, t.title),
    uniqueIndex('labels_group_title').on(t.groupId, t.title),
    index('labels_title').on(t.title),
  ],
);

/** A label's priority in one project (GitLab `label_priorities`); lower sorts first. */
export const labelPriorities = sqliteTable(
  'label_priorities',
  {
    projectId: integer('project_id').notNull(),
    labelId: integer('label_id').notNull(),
    priority: integer('priority').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.labelId] }), index('label_priorities_label').on(t.labelId)],
);

/** Labels applied to issues, epics and (later) merge requests: `target_type` is `Issue`, `Epic`, `MergeRequest`. */
export const labelLinks = sqliteTable(
  'label_links',
  {
    labelId: integer('label_id').notNull(),
    targetType: text('target_type').notNull(),
    targetId: integer('target_id').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.targetType, t.targetId, t.labelId] }),
    // The labels filter: issues carrying label X, newest first, via a join on this index.
    index('label_links_label_target').on(t.labelId, t.targetType, t.targetId),
  ],
);

/** Project milestones (`project_id`) and group milestones (`group_id`); `iid` counts per project or group. */
export const milestones = sqliteTable(
  'milestones',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id'),
    groupId: integer('group_id'),
    iid: integer('iid').notNull(),
    title: text('title').notNull(),
    description: text('description'),
    /** active | closed */
    state: text('state').notNull().default('active'),
    /** `YYYY-MM-DD` or null. */
    dueDate: text('due_date'),
    startDate: text('start_date'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('milestones_project_iid').on(t.projectId, t.iid),
    uniqueIndex('milestones_group_iid').on(t.groupId, t.iid),
    uniqueIndex('milestones_project_title').on(t.projectId, t.title),
    uniqueIndex('milestones_group_title').on(t.groupId, t.title),
    index('milestones_title').on(t.title),
  ],
);

/** Group epics (premium). `iid` counts per group; issues point at one through `issues.epic_id`. */
export const epics = sqliteTable(
  'epics',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    groupId: integer('group_id').notNull(),
    iid: integer('iid').notNull(),
    title: text('title').notNull(),
    description: text('description'),
    authorId: integer('author_id').notNull(),
    /** opened | closed */
    state: text('state').notNull().default('opened'),
    confidential: bool('confidential').notNull().default(false),
    parentId: integer('parent_id'),
    startDate: text('start_date'),
    dueDate: text('due_date'),
    color: text('color').notNull().default('#1068bf'),
    closedAt: ts('closed_at'),
    closedById: integer('closed_by_id'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('epics_group_iid').on(t.groupId, t.iid),
    index('epics_group_created').on(t.groupId, t.createdAt, t.id),
    index('epics_parent').on(t.parentId),
    index('epics_author').on(t.authorId),
  ],
);

/**
 * Linked epics (GitLab `related_epic_links`, ee Epic::RelatedEpicLink): `relates_to` or `blocks`
 * from source to target. `is_blocked_by` is stored as `blocks` with the two ends swapped, as GitLab
 * does, so a pair has one row whichever way it was asked for.
 */
export const relatedEpicLinks = sqliteTable(
  'related_epic_links',
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
    // One row per pair whichever way round (IssuableLink's uniqueness and check_opposite_relation): the
    // sum and the distance of the two ids name an unordered pair, so A-to-B and B-to-A cannot both land.
    uniqueIndex('related_epic_links_pair').on(sql`(${t.sourceId} + ${t.targetId})`, sql`abs(${t.sourceId} - ${t.targetId})`),
    index('related_epic_links_source').on(t.sourceId),
    index('related_epic_links_target').on(t.targetId),
  ],
);
