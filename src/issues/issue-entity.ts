/**
 * The Issue entity (GitLab lib/api/entities/issuable_entity.rb, issue_basic.rb, issue.rb and their
 * EE prepends): pure, from a row plus everything preloaded by services/issue-presenter.ts.
 */
import type { issues } from '../db/schema';
import { type LabelRow, labelBasic } from '../planning/label-entity';
import { iso } from '../platform/time';

export type IssueRow = typeof issues.$inferSelect;

/** Task list items (TaskList::Filter): `- [ ]`, `* [x]`, `1. [X]`; `[~]` (inapplicable) is not counted. */
const TASK_ITEM = /^[ \t]*(?:[-+*]|\d+[.)])[ \t]+\[([ xX~])\](?=[ \t]|$)/gm;

export function taskSummary(description: string | null | undefined): { count: number; completed: number } {
  let count = 0;
  let completed = 0;
  for (const m of (description ?? '').matchAll(TASK_ITEM)) {
    if (m[1] === '~') continue;
    count++;
    if (m[1] !== ' ') completed++;
  }
  return { count, completed };
}

/** Taskable#task_status: "1 of 2 checklist items completed". */
export const taskStatus = (t: { count: number; completed: number }) => `${t.completed} of ${t.count} ${t.count === 1 ? 'checklist item' : 'checklist items'} completed`;

export interface IssueExtras {
  base: string;
  /** `namespace/project` of the issue's project. */
  projectFullPath: string;
  /** references.relative, computed by the presenter from the request's group or project. */
  relativeReference: string;
  author: object;
  closedBy: object | null;
  assignees: object[];
  labels: LabelRow[];
  withLabelsDetails: boolean;
  milestone: object | null;
  userNotesCount: number;
  mergeRequestsCount: number;
  timeStats: object;
  /** Present on single-issue responses only (`include_subscribed`). */
  subscribed?: boolean;
  /** Premium attributes: weight, blocking_issues_count, iteration; the epic only for projects in a group. */
  premium: boolean;
  ultimate: boolean;
  epic?: { id: number; iid: number; title: string; url: string; group_id: number } | null;
}

/** Gitlab::UrlBuilder: incidents live under `/-/issues/incident/<iid>`. */
export const issueWebUrl = (i: Pick<IssueRow, 'iid' | 'issueType'>, base: string, projectFullPath: string) =>
  `${base}/${projectFullPath}/-/issues/${i.issueType === 'incident' ? 'incident/' : ''}${i.iid}`;

export function issueEntity(i: IssueRow, x: IssueExtras) {
  const api = `${x.base}/api/v4/projects/${i.projectId}`;
  const tasks = taskSummary(i.description);
  const labels = [...x.labels].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
  return {
    id: i.id,
    iid: i.iid,
    project_id: i.projectId,
    title: i.title,
    description: i.description ?? null,
    state: i.state,
    created_at: iso(i.createdAt),
    updated_at: iso(i.updatedAt),
    closed_at: iso(i.closedAt),
    closed_by: x.closedBy,
    labels: x.withLabelsDetails ? labels.map(labelBasic) : labels.map((l) => l.title),
    milestone: x.milestone,
    assignees: x.assignees,
    author: x.author,
    type: i.issueType.toUpperCase(),
    assignee: x.assignees[0] ?? null,
    user_notes_count: x.userNotesCount,
    merge_requests_count: x.mergeRequestsCount,
    upvotes: i.upvotes,
    downvotes: i.downvotes,
    due_date: i.dueDate ?? null,
    confidential: i.confidential,
    discussion_locked: i.discussionLocked,
    issue_type: i.issueType,
    web_url: issueWebUrl(i, x.base, x.projectFullPath),
    time_stats: x.timeStats,
    task_completion_status: { count: tasks.count, completed_count: tasks.completed },
    ...(x.premium ? { weight: i.weight ?? null, blocking_issues_count: 0 } : {}),
    has_tasks: tasks.count > 0,
    ...(tasks.count > 0 ? { task_status: taskStatus(tasks) } : {}),
    _links: {
      self: `${api}/issues/${i.iid}`,
      notes: `${api}/issues/${i.iid}/notes`,
      award_emoji: `${api}/issues/${i.iid}/award_emoji`,
      project: api,
      closed_as_duplicate_of: null,
    },
    references: { short: `#${i.iid}`, relative: x.relativeReference, full: `${x.projectFullPath}#${i.iid}` },
    severity: i.severity.toUpperCase(),
    ...(x.subscribed !== undefined ? { subscribed: x.subscribed } : {}),
    moved_to_id: i.movedToId ?? null,
    imported: false,
    imported_from: 'none',
    service_desk_reply_to: null,
    ...(x.epic !== undefined ? { epic_iid: x.epic?.iid ?? null, epic: x.epic } : {}),
    ...(x.premium ? { iteration: null } : {}),
    ...(x.ultimate ? { health_status: i.healthStatus ?? null } : {}),
  };
}
