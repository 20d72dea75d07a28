/**
 * The resource events of a page of issues or merge requests, as GitLab's exporter nests them under
 * each (import_export.yml): `resource_label_events` with their `label`, `resource_milestone_events`
 * with their `milestone`, and `resource_state_events`, each with only the attributes the yml lets
 * through (no ids of this server's rows: the importer finds labels and milestones by title).
 */
import { asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { inJson } from '../db/batch-reads';
import { aliasedColumns } from '../db/aliased-columns';
import { labels, milestones, resourceLabelEvents, resourceMilestoneEvents, resourceStateEvents } from '../db/schema';
import { iso } from '../platform/time';

const L = aliasedColumns(labels, 'rl_');
const M = aliasedColumns(milestones, 'rm_');

/** The three event lists of each issuable of the page, read in one batch. */
export async function resourceEventsOf(db: Db, type: 'Issue' | 'MergeRequest', ids: number[]) {
  const issue = type === 'Issue';
  const [labelRows, milestoneRows, stateRows] = await db.batch([
    db.select({ e: resourceLabelEvents, label: L }).from(resourceLabelEvents).leftJoin(labels, eq(labels.id, resourceLabelEvents.labelId)).where(inJson(issue ? resourceLabelEvents.issueId : resourceLabelEvents.mergeRequestId, ids)).orderBy(asc(resourceLabelEvents.id)),
    db.select({ e: resourceMilestoneEvents, milestone: M }).from(resourceMilestoneEvents).leftJoin(milestones, eq(milestones.id, resourceMilestoneEvents.milestoneId)).where(inJson(issue ? resourceMilestoneEvents.issueId : resourceMilestoneEvents.mergeRequestId, ids)).orderBy(asc(resourceMilestoneEvents.id)),
    db.select().from(resourceStateEvents).where(inJson(issue ? resourceStateEvents.issueId : resourceStateEvents.mergeRequestId, ids)).orderBy(asc(resourceStateEvents.id)),
  ]);
  const of = (e: { issueId: number | null; mergeRequestId: number | null }) => (issue ? e.issueId : e.mergeRequestId);
  return (id: number) => ({
    resource_label_events: labelRows
      .filter((r) => of(r.e) === id)
      .map((r) => ({
        action: r.e.action,
        user_id: r.e.userId,
        created_at: iso(r.e.createdAt),
        // A deleted label leaves its events without one (GitLab nullifies label_id); the key is then left out.
        ...(r.label?.id != null
          ? { label: { title: r.label.title, color: r.label.color, project_id: r.label.projectId, created_at: iso(r.label.createdAt), updated_at: iso(r.label.updatedAt), template: false, description: r.label.description ?? '', type: r.label.projectId ? 'ProjectLabel' : 'GroupLabel', priorities: [] } }
          : {}),
      })),
    resource_milestone_events: milestoneRows
      .filter((r) => of(r.e) === id)
      .map((r) => ({
        user_id: r.e.userId,
        action: r.e.action,
        created_at: iso(r.e.createdAt),
        state: r.e.state,
        ...(r.milestone?.id != null
          ? {
              milestone: {
                iid: r.milestone.iid,
                title: r.milestone.title,
                project_id: r.milestone.projectId,
                group_id: r.milestone.groupId,
                description: r.milestone.description,
                due_date: r.milestone.dueDate,
                created_at: iso(r.milestone.createdAt),
                updated_at: iso(r.milestone.updatedAt),
                start_date: r.milestone.startDate,
                state: r.milestone.state,
              },
            }
          : {}),
      })),
    // source_merge_request_id is excluded by the yml (it names a row of this instance).
    resource_state_events: stateRows
      .filter((e) => of(e) === id)
      .map((e) => ({ user_id: e.userId, state: e.state, created_at: iso(e.createdAt), source_commit: e.sourceCommit, close_after_error_tracking_resolve: false, close_auto_resolve_prometheus_alert: false })),
  });
}
