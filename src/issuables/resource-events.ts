/**
 * Resource events (GitLab ResourceEvents::ChangeLabelsService, ChangeMilestoneService,
 * ChangeStateService): label, milestone and state changes of issues, merge requests and epics,
 * recorded as rows instead of system notes. Written as insert builders so they ride the change's
 * own db.batch: no extra round trip, and never an event for a write that did not happen.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { resourceLabelEvents, resourceMilestoneEvents, resourceStateEvents } from '../db/schema';

export type EventableType = 'Issue' | 'MergeRequest' | 'Epic';
export interface Eventable {
  type: EventableType;
  /** The issuable's id, or a sub-select of it evaluated inside the batch (a create's new row). */
  id: number | SQL;
}

const idSql = (v: number | SQL) => (typeof v === 'number' ? sql`${v}` : sql`(${v})`);
/** The three owner columns (issue_id, merge_request_id, epic_id), one of them set. */
const owners = (t: Eventable) => {
  const v = idSql(t.id);
  return sql`${t.type === 'Issue' ? v : sql`NULL`}, ${t.type === 'MergeRequest' ? v : sql`NULL`}, ${t.type === 'Epic' ? v : sql`NULL`}`;
};

/**
 * A label added or removed, recorded only when the label link is, as the batch reaches it,
 * absent (add) or present (remove): placed before the statement that inserts or deletes the link,
 * a label a concurrent request added or removed first is not recorded twice.
 */
export function labelEventInsert(db: Db, t: Eventable, action: 'add' | 'remove', labelId: number | SQL, userId: number, at: number) {
  const label = idSql(labelId);
  const linked = sql`EXISTS (SELECT 1 FROM label_links ll WHERE ll.target_type = ${t.type} AND ll.target_id = ${idSql(t.id)} AND ll.label_id = ${label})`;
  const when = action === 'add' ? sql`NOT ${linked}` : linked;
  // Every column in table order (id, action, issue_id, merge_request_id, epic_id, label_id, user_id, created_at).
  return db.insert(resourceLabelEvents).select(sql`SELECT NULL, ${action}, ${owners(t)}, ${label}, ${userId}, ${at} WHERE ${label} IS NOT NULL AND ${when}`);
}

/**
 * A milestone change: `add` with the new milestone, or `remove` with the one taken away
 * (ChangeMilestoneService); `state` is the issuable's state at the time.
 */
export function milestoneEventInsert(db: Db, t: Eventable, e: { action: 'add' | 'remove'; milestoneId: number; state: string }, userId: number, at: number) {
  // id, action, issue_id, merge_request_id, milestone_id, state, user_id, created_at.
  const [issue, mr] = [t.type === 'Issue' ? idSql(t.id) : sql`NULL`, t.type === 'MergeRequest' ? idSql(t.id) : sql`NULL`];
  return db.insert(resourceMilestoneEvents).select(sql`SELECT NULL, ${e.action}, ${issue}, ${mr}, ${e.milestoneId}, ${e.state}, ${userId}, ${at}`);
}

/**
 * A state change (`closed`, `reopened`, `merged`), recorded only when `when` holds as the batch
 * reaches it: placed before the update with the state it changes from, a close that a concurrent
 * close beat is not recorded twice.
 */
export function stateEventInsert(db: Db, t: Eventable, state: 'closed' | 'reopened' | 'merged', userId: number, at: number, when?: SQL, sourceMergeRequestId: number | null = null) {
  // id, issue_id, merge_request_id, epic_id, state, user_id, created_at, source_merge_request_id, source_commit.
  return db.insert(resourceStateEvents).select(sql`SELECT NULL, ${owners(t)}, ${state}, ${userId}, ${at}, ${sourceMergeRequestId}, NULL${when ? sql` WHERE ${when}` : sql``}`);
}

/** The label events of one change: removals, then additions (each placed before the link statements it describes). */
export const labelEvents = (db: Db, t: Eventable, added: readonly (number | SQL)[], removed: readonly number[], userId: number, at: number) => [
  ...removed.map((id) => labelEventInsert(db, t, 'remove', id, userId, at)),
  ...added.map((id) => labelEventInsert(db, t, 'add', id, userId, at)),
];

/** The milestone event of a change from `from` to `to` (none when they are the same). */
export function milestoneEvents(db: Db, t: Eventable, from: number | null, to: number | null, state: string, userId: number, at: number) {
  if (from === to) return [];
  return [to != null ? milestoneEventInsert(db, t, { action: 'add', milestoneId: to, state }, userId, at) : milestoneEventInsert(db, t, { action: 'remove', milestoneId: from!, state }, userId, at)];
}

/**
 * `remove` events for every label linked to `t` as the batch reaches it except `keep`: a `labels`
 * replacement that deletes the whole set, recorded from the links themselves in one statement.
 */
export function labelsRemovedEvents(db: Db, t: Eventable, keep: readonly number[], userId: number, at: number) {
  return db
    .insert(resourceLabelEvents)
    .select(
      sql`SELECT NULL, 'remove', ${owners(t)}, ll.label_id, ${userId}, ${at} FROM label_links ll WHERE ll.target_type = ${t.type} AND ll.target_id = ${idSql(t.id)} AND ll.label_id NOT IN (SELECT value FROM json_each(${JSON.stringify(keep)}))`,
    );
}

/** `remove` events for every issue or merge request that has the milestone, as the batch reaches them (a deleted milestone). */
export function milestoneRemovedEvents(db: Db, type: 'Issue' | 'MergeRequest', milestoneId: number, userId: number, at: number) {
  const [issue, mr, table] = type === 'Issue' ? [sql`t.id`, sql`NULL`, sql`issues`] : [sql`NULL`, sql`t.id`, sql`merge_requests`];
  // id, action, issue_id, merge_request_id, milestone_id, state, user_id, created_at.
  return db.insert(resourceMilestoneEvents).select(sql`SELECT NULL, 'remove', ${issue}, ${mr}, ${milestoneId}, t.state, ${userId}, ${at} FROM ${table} t WHERE t.milestone_id = ${milestoneId}`);
}
