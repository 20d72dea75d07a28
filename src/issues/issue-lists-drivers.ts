/**
 * A project list's selective filters (assignee_id, labels) answered with the project lookup:
 * the ids of the project's issues they match, read in the lookup's round trip and handed to
 * buildIssueQuery as one JSON array (FinderInput.driverIds).
 *
 * Why: every read of a list page's batch (assignees, labels, notes, users, milestones, …) hangs
 * off the page query, so the page's filters ran ten times per request; answered once, each
 * statement tests a short list instead (issue 13: the benchmark's two-label filter on a
 * 20,000-issue project ran ~2,000 label link probes per statement).
 */
import { and, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { issues } from '../db/schema';
import { int, intersectedLabels, labelLinksSql } from './issue-filters';
import type { IssueListParams } from './issue-lists-params';

/** Matches up to which the ids are read (above, the filters run in the page's statements as usual). */
export const DRIVER_IDS_MAX = 5000;

/**
 * The query (undefined when no such filter is set): `ids`, the matching issues of the project as
 * a JSON array, or null above DRIVER_IDS_MAX matches. `projectId` is SQL (findReadableProjectWith).
 * The labels are scoped as labelsSql scopes them for a project (its own and its ancestor groups').
 */
export function driverIdsQuery(db: Db, p: IssueListParams, projectId: SQL) {
  const conds: SQL[] = [];
  if (typeof p.assignee_id === 'number') conds.push(sql`${issues.id} IN (SELECT ia.issue_id FROM issue_assignees ia WHERE ia.user_id = ${int(p.assignee_id)})`);
  const labels = intersectedLabels(p.labels);
  if (labels) {
    const groups = sql`(SELECT n.traversal_path FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE p.id = ${projectId})`;
    const scope = sql` AND (l.project_id = ${projectId} OR (l.group_id IS NOT NULL AND instr(${groups}, '/' || l.group_id || '/') > 0))`;
    conds.push(sql`${issues.id} IN (${labelLinksSql(labels, scope)})`);
  }
  if (!conds.length) return undefined;
  // `+project_id`: driven from the lists, not by scanning the project.
  const matches = db
    .select({ id: issues.id })
    .from(issues)
    .where(and(sql`+${issues.projectId} = ${projectId}`, ...conds))
    .limit(DRIVER_IDS_MAX + 1)
    .as('d');
  return db
    .select({
      ids: sql<string | null>`CASE WHEN count(*) <= ${int(DRIVER_IDS_MAX)} THEN json_group_array("d"."id") END`.as('ids'),
    })
    .from(matches);
}

/** Whether buildIssueQuery takes the place of these filters by the ids (what driverIdsQuery read). */
export function drivenByIds(p: IssueListParams): { assignee: boolean; labels: boolean } {
  return { assignee: typeof p.assignee_id === 'number', labels: intersectedLabels(p.labels) !== undefined };
}
