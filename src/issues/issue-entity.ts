/**
 * The Issue entity (GitLab lib/api/entities/issuable_entity.rb, issue_basic.rb, issue.rb and their
 * EE prepends): pure, from a row plus everything preloaded by services/issue-presenter.ts.
 */
import { z } from 'zod';
import type { issues } from '../db/schema';
import { IssuableLabelsSchema, type LabelRow, labelBasic } from '../planning/label-entity';
import { type Milestone, MilestoneSchema } from '../planning/milestone-entity';
import { type TimeStats, TimeStatsSchema } from '../platform/duration';
import { date, id, int, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import { type UserBasic, UserBasicSchema } from '../users/user-entity';

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
  author: UserBasic;
  closedBy: UserBasic | null;
  assignees: UserBasic[];
  labels: LabelRow[];
  withLabelsDetails: boolean;
  milestone: Milestone | null;
  userNotesCount: number;
  mergeRequestsCount: number;
  timeStats: TimeStats;
  /** Present on single-issue responses only (`include_subscribed`). */
  subscribed?: boolean;
  /** Premium attributes: weight, blocking_issues_count, iteration; the epic only for projects in a group. */
  premium: boolean;
  /** Premium: the open issues this one blocks. */
  blockingIssuesCount?: number;
  ultimate: boolean;
  epic?: { id: number; iid: number; title: string; url: string; group_id: number } | null;
}

/** Gitlab::UrlBuilder: incidents live under `/-/issues/incident/<iid>`. */
export const issueWebUrl = (i: Pick<IssueRow, 'iid' | 'issueType'>, base: string, projectFullPath: string) =>
  `${base}/${projectFullPath}/-/issues/${i.issueType === 'incident' ? 'incident/' : ''}${i.iid}`;

const IssueEpicSchema = obj({ id, iid: int, title: z.string(), url: z.string(), group_id: int });

export const IssueLabelsSchema = IssuableLabelsSchema;

export const IssueSchema = obj({
  id,
  iid: int,
  project_id: int,
  title: z.string(),
  description: z.string().nullable(),
  state: z.enum(['opened', 'closed']),
  created_at: timestamp,
  updated_at: timestamp,
  closed_at: timestamp.nullable(),
  closed_by: UserBasicSchema.nullable(),
  labels: IssueLabelsSchema,
  milestone: MilestoneSchema.nullable(),
  assignees: z.array(UserBasicSchema),
  author: UserBasicSchema,
  type: z.string(),
  assignee: UserBasicSchema.nullable(),
  user_notes_count: int,
  merge_requests_count: int,
  upvotes: int,
  downvotes: int,
  due_date: date.nullable(),
  confidential: z.boolean(),
  discussion_locked: z.boolean().nullable(),
  issue_type: z.string(),
  web_url: z.string(),
  time_stats: TimeStatsSchema,
  task_completion_status: obj({ count: int, completed_count: int }),
  /** Premium. */
  weight: int.nullable().optional(),
  blocking_issues_count: int.optional(),
  has_tasks: z.boolean(),
  task_status: z.string().optional(),
  _links: obj({ self: z.string(), notes: z.string(), award_emoji: z.string(), project: z.string(), closed_as_duplicate_of: z.string().nullable() }),
  references: obj({ short: z.string(), relative: z.string(), full: z.string() }),
  severity: z.string(),
  /** Single-issue responses only. */
  subscribed: z.boolean().optional(),
  moved_to_id: int.nullable(),
  imported: z.boolean(),
  imported_from: z.string(),
  service_desk_reply_to: z.string().nullable(),
  /** Premium, for projects in a group. */
  epic_iid: int.nullable().optional(),
  epic: IssueEpicSchema.nullable().optional(),
  iteration: z.null().optional(),
  /** Ultimate. */
  health_status: z.string().nullable().optional(),
}).meta({ id: 'Issue' });
export type Issue = z.infer<typeof IssueSchema>;

export function issueEntity(i: IssueRow, x: IssueExtras): Issue {
  const api = `${x.base}/api/v4/projects/${i.projectId}`;
  const tasks = taskSummary(i.description);
  const labels = [...x.labels].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
  return {
    id: i.id,
    iid: i.iid,
    project_id: i.projectId,
    title: i.title,
    description: i.description ?? null,
    state: i.state as Issue['state'],
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
    ...(x.premium ? { weight: i.weight ?? null, blocking_issues_count: x.blockingIssuesCount ?? 0 } : {}),
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

/** The fields Entities::Issue adds to Entities::IssueBasic. */
const ISSUE_ONLY = {
  has_tasks: true,
  task_status: true,
  _links: true,
  references: true,
  severity: true,
  subscribed: true,
  moved_to_id: true,
  service_desk_reply_to: true,
  epic_iid: true,
  epic: true,
  iteration: true,
  health_status: true,
} as const;

export const IssueBasicSchema = IssueSchema.omit(ISSUE_ONLY).meta({ id: 'IssueBasic', description: 'The issue entity of the milestone issue lists' });
export type IssueBasic = z.infer<typeof IssueBasicSchema>;

/** Entities::IssueBasic of a presented issue. */
export function issueBasic(i: Issue): IssueBasic {
  const out: Partial<Issue> = { ...i };
  for (const k of Object.keys(ISSUE_ONLY) as (keyof typeof ISSUE_ONLY)[]) delete out[k];
  return out as IssueBasic;
}
