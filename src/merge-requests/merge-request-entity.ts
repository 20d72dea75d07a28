/**
 * The merge request entities (GitLab lib/api/entities/merge_request_basic.rb, merge_request.rb,
 * merge_request_simple.rb, issuable_entity.rb and EE's merge_request_basic.rb prepend): pure, from a
 * row plus everything merge-request-presenter.ts loads for a page.
 */
import { z } from 'zod';
import type { mergeRequestReviewers, mergeRequests } from '../db/schema';
import { iso } from '../platform/time';
import { type LabelRow, labelBasic } from '../planning/label-entity';
import { type Milestone, MilestoneSchema } from '../planning/milestone-entity';
import { IssueLabelsSchema, taskSummary } from '../issues/issue-entity';
import { type TimeStats, TimeStatsSchema } from '../platform/duration';
import { id, int, obj, timestamp } from '../platform/response-schemas';
import { type UserBasic, UserBasicSchema } from '../users/user-entity';
import { type Diff, DiffSchema } from '../repository/commit-entity';

export type MergeRequestRow = typeof mergeRequests.$inferSelect;

/** MergeRequest::DRAFT_REGEX: `Draft:`, `[Draft]`, `(Draft)` (any case) at the start of the title. */
const DRAFT_REGEX = /^\s*(\[draft\]|\(draft\)|draft:)\s*/i;
export const isDraftTitle = (title: string) => DRAFT_REGEX.test(title);
/** MergeRequest.draftless_title. */
export const draftlessTitle = (title: string) => title.replace(DRAFT_REGEX, '');

export interface DiffRefs {
  base_sha: string | null;
  head_sha: string | null;
  start_sha: string | null;
}

/** What the presenter computes live for one merge request (HEAD, mergeability, diff size). */
export interface MergeRequestLive {
  sha: string | null;
  diffRefs: DiffRefs;
  mergeStatus: string;
  detailedMergeStatus: string;
  hasConflicts: boolean;
  changesCount: string | null;
}

export interface MergeRequestExtras {
  base: string;
  /** `namespace/project` of the target project. */
  projectFullPath: string;
  /** references.relative (and the deprecated `reference`), relative to the request's project or group. */
  relativeReference: string;
  author: UserBasic | null;
  mergedBy: UserBasic | null;
  mergeUser: UserBasic | null;
  closedBy: UserBasic | null;
  assignees: UserBasic[];
  reviewers: UserBasic[];
  labels: LabelRow[];
  withLabelsDetails: boolean;
  milestone: Milestone | null;
  userNotesCount: number;
  timeStats: TimeStats;
  live: MergeRequestLive;
  blockingDiscussionsResolved: boolean;
  premium: boolean;
  /** The target project's squash option (never, always, default_on, default_off). */
  squashOption?: string;
}

export const mergeRequestWebUrl = (base: string, projectFullPath: string, iid: number) => `${base}/${projectFullPath}/-/merge_requests/${iid}`;

const sha = z.string().nullable();
export const MergeRequestState = z.enum(['opened', 'closed', 'locked', 'merged']);

export const MergeRequestBasicSchema = obj({
  id,
  iid: int,
  project_id: int,
  title: z.string(),
  description: z.string().nullable(),
  state: MergeRequestState,
  created_at: timestamp,
  updated_at: timestamp,
  merged_by: UserBasicSchema.nullable(),
  merge_user: UserBasicSchema.nullable(),
  merged_at: timestamp.nullable(),
  closed_by: UserBasicSchema.nullable(),
  closed_at: timestamp.nullable(),
  target_branch: z.string(),
  source_branch: z.string(),
  user_notes_count: int,
  upvotes: int,
  downvotes: int,
  author: UserBasicSchema.nullable(),
  assignees: z.array(UserBasicSchema),
  assignee: UserBasicSchema.nullable(),
  reviewers: z.array(UserBasicSchema),
  source_project_id: int,
  target_project_id: int,
  labels: IssueLabelsSchema,
  draft: z.boolean(),
  imported: z.boolean(),
  imported_from: z.string(),
  work_in_progress: z.boolean(),
  milestone: MilestoneSchema.nullable(),
  merge_when_pipeline_succeeds: z.boolean(),
  merge_status: z.string(),
  detailed_merge_status: z.string(),
  merge_after: timestamp.nullable(),
  sha,
  merge_commit_sha: sha,
  squash_commit_sha: sha,
  discussion_locked: z.boolean().nullable(),
  should_remove_source_branch: z.boolean().nullable(),
  force_remove_source_branch: z.boolean().nullable(),
  prepared_at: timestamp,
  reference: z.string(),
  references: obj({ short: z.string(), relative: z.string(), full: z.string() }),
  web_url: z.string(),
  time_stats: TimeStatsSchema,
  squash: z.boolean(),
  squash_on_merge: z.boolean(),
  task_completion_status: obj({ count: int, completed_count: int }),
  has_conflicts: z.boolean(),
  blocking_discussions_resolved: z.boolean(),
  /** Premium. */
  approvals_before_merge: int.nullable().optional(),
}).meta({ id: 'MergeRequestBasic' });
export type MergeRequestBasic = z.infer<typeof MergeRequestBasicSchema>;

/** Entities::MergeRequestBasic, field for field in GitLab's order. */
export function mergeRequestBasic(m: MergeRequestRow, x: MergeRequestExtras): MergeRequestBasic {
  const labels = [...x.labels].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
  const tasks = taskSummary(m.description);
  return {
    id: m.id,
    iid: m.iid,
    project_id: m.projectId,
    title: m.title,
    description: m.description ?? null,
    state: m.state as MergeRequestBasic['state'],
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
    merged_by: x.mergedBy,
    merge_user: x.mergedBy ?? x.mergeUser,
    merged_at: iso(m.mergedAt),
    closed_by: x.closedBy,
    closed_at: iso(m.closedAt),
    target_branch: m.targetBranch,
    source_branch: m.sourceBranch,
    user_notes_count: x.userNotesCount,
    upvotes: m.upvotes,
    downvotes: m.downvotes,
    author: x.author,
    assignees: x.assignees,
    assignee: x.assignees[0] ?? null,
    reviewers: x.reviewers,
    source_project_id: m.sourceProjectId,
    target_project_id: m.projectId,
    labels: x.withLabelsDetails ? labels.map(labelBasic) : labels.map((l) => l.title),
    draft: m.draft,
    imported: false,
    imported_from: 'none',
    work_in_progress: m.draft,
    milestone: x.milestone,
    merge_when_pipeline_succeeds: m.mergeWhenPipelineSucceeds,
    merge_status: x.live.mergeStatus,
    detailed_merge_status: x.live.detailedMergeStatus,
    merge_after: null,
    sha: x.live.sha,
    merge_commit_sha: m.mergeCommitSha ?? null,
    squash_commit_sha: m.squashCommitSha ?? null,
    discussion_locked: m.discussionLocked ?? null,
    should_remove_source_branch: m.shouldRemoveSourceBranch ?? null,
    force_remove_source_branch: m.forceRemoveSourceBranch ?? null,
    prepared_at: iso(m.createdAt),
    reference: x.relativeReference,
    references: { short: `!${m.iid}`, relative: x.relativeReference, full: `${x.projectFullPath}!${m.iid}` },
    web_url: mergeRequestWebUrl(x.base, x.projectFullPath, m.iid),
    time_stats: x.timeStats,
    squash: m.squash,
    // MergeRequest#squash_on_merge?: the project's squash option `always`/`never` wins over the request's.
    squash_on_merge: x.squashOption === 'always' ? true : x.squashOption === 'never' ? false : m.squash,
    task_completion_status: { count: tasks.count, completed_count: tasks.completed },
    has_conflicts: x.live.hasConflicts,
    blocking_discussions_resolved: x.blockingDiscussionsResolved,
    // EE::API::Entities::MergeRequestBasic.
    ...(x.premium ? { approvals_before_merge: m.approvalsBeforeMerge ?? null } : {}),
  };
}

export interface MergeRequestFullExtras extends MergeRequestExtras {
  subscribed?: boolean;
  canMerge: boolean;
  /** Project builds feature readable: the pipeline fields appear (always null: no CI here). */
  buildsAvailable: boolean;
  readPipeline: boolean;
  firstContribution?: boolean;
  rebaseInProgress?: boolean;
  divergedCommitsCount?: number;
}

export const MergeRequestSchema = MergeRequestBasicSchema.extend({
  /** Single-merge-request responses only. */
  subscribed: z.boolean().optional(),
  changes_count: z.string().nullable(),
  /** With the builds feature readable: always null, no CI runs here. */
  latest_build_started_at: z.null().optional(),
  latest_build_finished_at: z.null().optional(),
  first_deployed_to_production_at: z.null().optional(),
  pipeline: z.null().optional(),
  head_pipeline: z.null().optional(),
  diff_refs: obj({ base_sha: sha, head_sha: sha, start_sha: sha }),
  merge_error: z.string().nullable(),
  rebase_in_progress: z.boolean().optional(),
  diverged_commits_count: int.optional(),
  first_contribution: z.boolean().optional(),
  user: obj({ can_merge: z.boolean() }),
}).meta({ id: 'MergeRequest' });
export type MergeRequest = z.infer<typeof MergeRequestSchema>;

/** Entities::MergeRequest (single merge request, create, update, merge responses). */
export function mergeRequestEntity(m: MergeRequestRow, x: MergeRequestFullExtras): MergeRequest {
  return {
    ...mergeRequestBasic(m, x),
    ...(x.subscribed !== undefined ? { subscribed: x.subscribed } : {}),
    changes_count: x.live.changesCount,
    ...(x.buildsAvailable ? { latest_build_started_at: null, latest_build_finished_at: null, first_deployed_to_production_at: null, pipeline: null } : {}),
    ...(x.readPipeline ? { head_pipeline: null } : {}),
    diff_refs: x.live.diffRefs,
    merge_error: m.mergeError ?? null,
    ...(x.rebaseInProgress !== undefined ? { rebase_in_progress: x.rebaseInProgress } : {}),
    ...(x.divergedCommitsCount !== undefined ? { diverged_commits_count: x.divergedCommitsCount } : {}),
    ...(x.firstContribution !== undefined ? { first_contribution: x.firstContribution } : {}),
    user: { can_merge: x.canMerge },
  };
}

export const MergeRequestSimpleSchema = obj({
  id,
  iid: int,
  project_id: int,
  title: z.string(),
  description: z.string().nullable(),
  state: MergeRequestState,
  created_at: timestamp,
  updated_at: timestamp,
  web_url: z.string(),
}).meta({ id: 'MergeRequestSimple' });
export type MergeRequestSimple = z.infer<typeof MergeRequestSimpleSchema>;

/** Entities::MergeRequestSimple (`view=simple`). */
export function mergeRequestSimple(m: MergeRequestRow, x: Pick<MergeRequestExtras, 'base' | 'projectFullPath'>): MergeRequestSimple {
  return {
    id: m.id,
    iid: m.iid,
    project_id: m.projectId,
    title: m.title,
    description: m.description ?? null,
    state: m.state as MergeRequestBasic['state'],
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
    web_url: mergeRequestWebUrl(x.base, x.projectFullPath, m.iid),
  };
}

export const MergeRequestChangesSchema = MergeRequestSchema.extend({
  changes: z.array(DiffSchema),
  overflow: z.boolean(),
}).meta({ id: 'MergeRequestChanges' });
export type MergeRequestChanges = z.infer<typeof MergeRequestChangesSchema>;

/** Entities::MergeRequestChanges: the MergeRequest entity plus the files of its diff. */
/** `overflow`: the diff collection stopped at a limit of the settings (never with access_raw_diffs). */
export const mergeRequestChanges = (entity: MergeRequest, changes: Diff[], overflow: boolean): MergeRequestChanges => ({ ...entity, changes, overflow });

export type MergeRequestReviewerRow = typeof mergeRequestReviewers.$inferSelect;

export const MergeRequestReviewerSchema = obj({
  user: UserBasicSchema,
  state: z.enum(['unreviewed', 'review_started', 'reviewed', 'requested_changes', 'approved', 'unapproved']),
  created_at: timestamp,
}).meta({ id: 'MergeRequestReviewer' });
export type MergeRequestReviewer = z.infer<typeof MergeRequestReviewerSchema>;

/** Entities::MergeRequestReviewer. */
export const mergeRequestReviewerEntity = (r: MergeRequestReviewerRow, user: UserBasic): MergeRequestReviewer => ({
  user,
  state: r.state as MergeRequestReviewer['state'],
  created_at: iso(r.createdAt),
});
