/**
 * The JSON body of each event (doc/user/project/integrations/webhook_events.md; Gitlab::DataBuilder,
 * Gitlab::HookData::IssueBuilder / MergeRequestBuilder, Issue#to_hook_data). Built once per event by
 * the dispatcher, from the rows as they are then plus what the event row recorded (`changes`).
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client';
import { changedFiles } from '../repository/diffs';
import { deployments, environments, issueAssignees, issues, labelLinks, labels, mergeRequestAssignees, mergeRequestReviewers, mergeRequests, namespaces, notes, projects, repoCommits, users } from '../db/schema';
import { issuableChanges, recordedChanges, STATE_ID } from './issuable-changes';
import { fullPath, hookTime, humanTime, labelHookAttrs, type ProjectCtx, projectHookAttrs, repositoryAttrs, userHookAttrs } from './payload-parts';
import type { webHookEvents } from '../db/schema';

export type EventRow = typeof webHookEvents.$inferSelect;
type IssueRow = typeof issues.$inferSelect;
type MrRow = typeof mergeRequests.$inferSelect;

async function usersById(db: Db, ids: number[]) {
  const unique = [...new Set(ids.filter((i) => i != null))];
  const rows = unique.length ? await db.select().from(users).where(inArray(users.id, unique)) : [];
  return new Map(rows.map((u) => [u.id, u]));
}

async function labelsOf(db: Db, type: 'Issue' | 'MergeRequest', id: number) {
  return db.select({ l: labels }).from(labelLinks).innerJoin(labels, eq(labels.id, labelLinks.labelId)).where(and(eq(labelLinks.targetType, type), eq(labelLinks.targetId, id))).orderBy(asc(labels.title)).then((r) => r.map((x) => x.l));
}

export async function projectCtx(db: Db, projectId: number, base: string): Promise<ProjectCtx | null> {
  const [row] = await db.select({ project: projects, namespace: namespaces }).from(projects).innerJoin(namespaces, eq(namespaces.id, projects.namespaceId)).where(eq(projects.id, projectId)).limit(1);
  return row ? { ...row, base } : null;
}

/** Issue#hook_attrs (IssueBuilder). */
export async function issueAttrs(db: Db, x: ProjectCtx, issue: IssueRow) {
  const [assignees, labelRows] = await Promise.all([db.select({ userId: issueAssignees.userId }).from(issueAssignees).where(eq(issueAssignees.issueId, issue.id)).orderBy(asc(issueAssignees.position)), labelsOf(db, 'Issue', issue.id)]);
  const assigneeIds = assignees.map((a) => a.userId);
  const attrs = {
    author_id: issue.authorId,
    closed_at: hookTime(issue.closedAt),
    confidential: issue.confidential,
    created_at: hookTime(issue.createdAt),
    description: issue.description,
    discussion_locked: issue.discussionLocked,
    due_date: issue.dueDate,
    id: issue.id,
    iid: issue.iid,
    last_edited_at: hookTime(issue.lastEditedAt),
    last_edited_by_id: issue.lastEditedById,
    milestone_id: issue.milestoneId,
    moved_to_id: issue.movedToId,
    duplicated_to_id: issue.duplicatedToId,
    project_id: issue.projectId,
    relative_position: issue.relativePosition,
    state_id: STATE_ID[issue.state] ?? 1,
    time_estimate: issue.timeEstimate,
    title: issue.title,
    updated_at: hookTime(issue.updatedAt),
    updated_by_id: issue.lastEditedById,
    weight: issue.weight,
    health_status: issue.healthStatus,
    type: issue.issueType === 'issue' ? 'Issue' : issue.issueType[0].toUpperCase() + issue.issueType.slice(1),
    url: `${x.base}/${fullPath(x)}/-/issues/${issue.iid}`,
    total_time_spent: issue.totalTimeSpent,
    time_change: 0,
    human_total_time_spent: humanTime(issue.totalTimeSpent),
    human_time_change: null,
    human_time_estimate: humanTime(issue.timeEstimate),
    assignee_ids: assigneeIds,
    assignee_id: assigneeIds[0] ?? null,
    labels: labelRows.map(labelHookAttrs),
    state: issue.state,
    severity: issue.severity,
    customer_relations_contacts: [],
  };
  return { attrs, assigneeIds, labelRows };
}

/** MergeRequest#hook_attrs (MergeRequestBuilder). */
export async function mergeRequestAttrs(db: Db, x: ProjectCtx, mr: MrRow) {
  const [assignees, reviewers, labelRows, lastCommit] = await Promise.all([
    db.select({ userId: mergeRequestAssignees.userId }).from(mergeRequestAssignees).where(eq(mergeRequestAssignees.mergeRequestId, mr.id)).orderBy(asc(mergeRequestAssignees.position)),
    db.select({ userId: mergeRequestReviewers.userId }).from(mergeRequestReviewers).where(eq(mergeRequestReviewers.mergeRequestId, mr.id)),
    labelsOf(db, 'MergeRequest', mr.id),
    mr.headSha ? db.select().from(repoCommits).where(and(eq(repoCommits.projectId, mr.sourceProjectId), eq(repoCommits.sha, mr.headSha))).limit(1) : Promise.resolve([]),
  ]);
  const assigneeIds = assignees.map((a) => a.userId);
  const reviewerIds = reviewers.map((r) => r.userId);
  const project = projectHookAttrs(x);
  const attrs = {
    assignee_id: assigneeIds[0] ?? null,
    author_id: mr.authorId,
    created_at: hookTime(mr.createdAt),
    description: mr.description,
    draft: mr.draft,
    head_pipeline_id: null,
    id: mr.id,
    iid: mr.iid,
    last_edited_at: hookTime(mr.lastEditedAt),
    last_edited_by_id: mr.lastEditedById,
    merge_commit_sha: mr.mergeCommitSha,
    merge_error: mr.mergeError,
    merge_params: { force_remove_source_branch: mr.forceRemoveSourceBranch ? '1' : '0' },
    merge_status: mr.mergeStatus,
    merge_user_id: mr.mergeUserId,
    merge_when_pipeline_succeeds: mr.mergeWhenPipelineSucceeds,
    milestone_id: mr.milestoneId,
    source_branch: mr.sourceBranch,
    source_project_id: mr.sourceProjectId,
    state_id: STATE_ID[mr.state] ?? 1,
    target_branch: mr.targetBranch,
    target_project_id: mr.projectId,
    time_estimate: mr.timeEstimate,
    title: mr.title,
    updated_at: hookTime(mr.updatedAt),
    updated_by_id: mr.lastEditedById,
    url: `${x.base}/${fullPath(x)}/-/merge_requests/${mr.iid}`,
    source: project,
    target: project,
    last_commit: lastCommit[0] ? commitHookAttrs(x, lastCommit[0]) : null,
    work_in_progress: mr.draft,
    total_time_spent: mr.totalTimeSpent,
    time_change: 0,
    human_total_time_spent: humanTime(mr.totalTimeSpent),
    human_time_change: null,
    human_time_estimate: humanTime(mr.timeEstimate),
    assignee_ids: assigneeIds,
    reviewer_ids: reviewerIds,
    labels: labelRows.map(labelHookAttrs),
    state: mr.state,
    blocking_discussions_resolved: true,
    first_contribution: false,
    detailed_merge_status: mr.state === 'opened' ? (mr.mergeStatus === 'can_be_merged' ? 'mergeable' : mr.mergeStatus === 'cannot_be_merged' ? 'conflict' : 'checking') : 'not_open',
  };
  return { attrs, assigneeIds, reviewerIds, labelRows };
}

type CommitRow = typeof repoCommits.$inferSelect;
/** Commit#hook_attrs. */
export function commitHookAttrs(x: ProjectCtx, c: Pick<CommitRow, 'sha' | 'message' | 'authoredAt' | 'authorName' | 'authorEmail'>) {
  return {
    id: c.sha,
    message: c.message,
    title: c.message.split('\n')[0],
    timestamp: new Date(c.authoredAt).toISOString().replace(/\.\d+Z$/, '+00:00'),
    url: `${x.base}/${fullPath(x)}/-/commit/${c.sha}`,
    author: { name: c.authorName, email: c.authorEmail },
  };
}

type Hash = Record<string, unknown>;
/** `assignees` / `reviewers` are left out when empty (IssuableBuilder: `if issuable.assignees.any?`). */
const present = (key: string, list: Hash[]) => (list.length ? { [key]: list } : {});
/** The associations as the event left them, when its write replaced them (association-changes.ts). */
function associationsAtEvent(data: Record<string, unknown> | null) {
  const raw = recordedChanges(data);
  const current = (k: string) => (raw[k] ? (raw[k].current as Hash[]) : undefined);
  return { labels: current('labels'), assignees: current('assignees'), reviewers: current('reviewers') };
}

/**
 * The attributes as the event left them: the payload is built when the consumer runs, after later
 * writes maybe, so what the event changed is taken from its recorded `changes`.
 */
function atEvent<T extends Record<string, unknown>>(attrs: T, data: Record<string, unknown> | null, action: string | null): T {
  const out: Record<string, unknown> = { ...attrs };
  for (const [k, v] of Object.entries(recordedChanges(data))) if (k in out && !['labels', 'assignees', 'reviewers'].includes(k)) out[k] = typeof v.current === 'number' && k.endsWith('_at') ? hookTime(v.current) : v.current;
  const assoc = associationsAtEvent(data);
  if (assoc.labels) out.labels = assoc.labels;
  if (assoc.assignees) Object.assign(out, { assignee_ids: assoc.assignees.map((u) => u.id), assignee_id: assoc.assignees[0]?.id ?? null });
  if (assoc.reviewers && 'reviewer_ids' in out) out.reviewer_ids = assoc.reviewers.map((u) => u.id);
  // The human_* forms follow the times as the event left them (a spend's time_change included).
  Object.assign(out, { human_total_time_spent: humanTime(Number(out.total_time_spent)), human_time_change: humanTime(Number(out.time_change)), human_time_estimate: humanTime(Number(out.time_estimate)) });
  // The state an action leaves, whatever later writes did.
  const state = ({ open: 'opened', reopen: 'opened', close: 'closed', merge: 'merged' } as Record<string, string>)[action ?? ''];
  if (state) out.state = state;
  if (typeof out.state === 'string') out.state_id = STATE_ID[out.state] ?? out.state_id;
  return out as T;
}

export async function issuePayload(db: Db, x: ProjectCtx, ev: EventRow, data: Record<string, unknown> | null) {
  const [issue] = await db.select().from(issues).where(eq(issues.id, ev.objectId!)).limit(1);
  if (!issue) return null;
  const { attrs, assigneeIds, labelRows } = await issueAttrs(db, x, issue);
  const people = await usersById(db, [ev.actorId!, ...assigneeIds]);
  const assoc = associationsAtEvent(data);
  return {
    object_kind: 'issue',
    event_type: issue.confidential ? 'confidential_issue' : 'issue',
    user: userHookAttrs(people.get(ev.actorId!), x.base),
    project: projectHookAttrs(x),
    object_attributes: { ...atEvent(attrs, data, ev.action), action: ev.action },
    labels: assoc.labels ?? labelRows.map(labelHookAttrs),
    changes: issuableChanges('issue', data),
    repository: repositoryAttrs(x),
    ...present('assignees', assoc.assignees ?? assigneeIds.map((id) => userHookAttrs(people.get(id), x.base))),
  };
}

export async function mergeRequestPayload(db: Db, x: ProjectCtx, ev: EventRow, data: Record<string, unknown> | null) {
  const [mr] = await db.select().from(mergeRequests).where(eq(mergeRequests.id, ev.objectId!)).limit(1);
  if (!mr) return null;
  const { attrs, assigneeIds, reviewerIds, labelRows } = await mergeRequestAttrs(db, x, mr);
  const people = await usersById(db, [ev.actorId!, ...assigneeIds, ...reviewerIds]);
  const assoc = associationsAtEvent(data);
  return {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: userHookAttrs(people.get(ev.actorId!), x.base),
    project: projectHookAttrs(x),
    object_attributes: { ...atEvent(attrs, data, ev.action), action: ev.action, ...(data?.oldrev ? { oldrev: data.oldrev } : {}) },
    labels: assoc.labels ?? labelRows.map(labelHookAttrs),
    changes: issuableChanges('merge_request', data),
    repository: repositoryAttrs(x),
    ...present('assignees', assoc.assignees ?? assigneeIds.map((id) => userHookAttrs(people.get(id), x.base))),
    ...present('reviewers', assoc.reviewers ?? reviewerIds.map((id) => userHookAttrs(people.get(id), x.base))),
  };
}

/** Gitlab::DataBuilder::Note: the note and what it is on. */
export async function notePayload(db: Db, x: ProjectCtx, ev: EventRow) {
  const [note] = await db.select().from(notes).where(eq(notes.id, ev.objectId!)).limit(1);
  if (!note) return null;
  const people = await usersById(db, [ev.actorId!]);
  const path = `${x.base}/${fullPath(x)}`;
  let on: Record<string, unknown> = {};
  let url = path;
  if (note.noteableType === 'Issue') {
    const [issue] = await db.select().from(issues).where(eq(issues.id, note.noteableId)).limit(1);
    if (issue) {
      on = { issue: (await issueAttrs(db, x, issue)).attrs };
      url = `${path}/-/issues/${issue.iid}#note_${note.id}`;
    }
  } else if (note.noteableType === 'MergeRequest') {
    const [mr] = await db.select().from(mergeRequests).where(eq(mergeRequests.id, note.noteableId)).limit(1);
    if (mr) {
      on = { merge_request: (await mergeRequestAttrs(db, x, mr)).attrs };
      url = `${path}/-/merge_requests/${mr.iid}#note_${note.id}`;
    }
  } else if (note.noteableType === 'Commit' && note.commitId) {
    // build_data_for_commit: the commit's hook_attrs (without its changed files).
    const [commit] = await db.select().from(repoCommits).where(and(eq(repoCommits.projectId, x.project.id), eq(repoCommits.sha, note.commitId))).limit(1);
    if (commit) on = { commit: commitHookAttrs(x, commit) };
    url = `${path}/-/commit/${note.commitId}#note_${note.id}`;
  }
  return {
    object_kind: 'note',
    event_type: note.internal || ev.confidential ? 'confidential_note' : 'note',
    user: userHookAttrs(people.get(ev.actorId!), x.base),
    project_id: x.project.id,
    project: projectHookAttrs(x),
    object_attributes: {
      attachment: null,
      author_id: note.authorId,
      change_position: null,
      commit_id: note.commitId,
      created_at: hookTime(note.createdAt),
      discussion_id: note.discussionId,
      id: note.id,
      line_code: note.lineCode,
      note: note.body,
      // A commit's notes have no noteable row (GitLab's noteable_id is nil; the commit is commit_id).
      noteable_id: note.noteableType === 'Commit' ? null : note.noteableId,
      noteable_type: note.noteableType,
      // A diff note's position (this server keeps the one it was written on, which is also the original).
      original_position: note.position ? JSON.parse(note.position) : null,
      position: note.position ? JSON.parse(note.position) : null,
      project_id: note.projectId,
      resolved_at: hookTime(note.resolvedAt),
      resolved_by_id: note.resolvedById,
      resolved_by_push: null,
      st_diff: null,
      system: note.system,
      type: note.type,
      updated_at: hookTime(note.updatedAt),
      updated_by_id: note.updatedById,
      description: note.body,
      url,
      action: ev.action ?? 'create',
    },
    repository: repositoryAttrs(x),
    ...on,
  };
}

/** Gitlab::DataBuilder::Deployment. */
export async function deploymentPayload(db: Db, x: ProjectCtx, ev: EventRow, data: Record<string, unknown> | null) {
  const [row] = await db.select({ d: deployments, env: environments }).from(deployments).innerJoin(environments, eq(environments.id, deployments.environmentId)).where(eq(deployments.id, ev.objectId!)).limit(1);
  if (!row) return null;
  const { d, env } = row;
  const people = await usersById(db, [d.userId ?? ev.actorId!]);
  const user = people.get(d.userId ?? ev.actorId!);
  const [commit] = await db.select().from(repoCommits).where(and(eq(repoCommits.projectId, d.projectId), eq(repoCommits.sha, d.sha))).limit(1);
  const path = `${x.base}/${fullPath(x)}`;
  return {
    object_kind: 'deployment',
    status: (data?.status as string | undefined) ?? d.status,
    status_changed_at: hookTime(d.updatedAt),
    deployment_id: d.id,
    deployable_id: null,
    deployable_url: null,
    environment: env.name,
    environment_tier: env.tier,
    environment_slug: env.slug,
    environment_external_url: env.externalUrl,
    project: projectHookAttrs(x),
    short_sha: d.sha.slice(0, 8),
    user: userHookAttrs(user, x.base),
    user_url: user ? `${x.base}/${user.username}` : null,
    commit_url: `${path}/-/commit/${d.sha}`,
    commit_title: commit ? commit.message.split('\n')[0] : null,
    ref: d.ref,
  };
}

/**
 * Commit#repo_changes for each pushed commit: paths added, modified (a rename counts as its new path)
 * and removed against the commit's first parent. Built here, in the queue job, not in the push.
 */
async function commitChanges(db: Db, projectId: number, shas: string[]): Promise<Map<string, { added: string[]; modified: string[]; removed: string[] }>> {
  const out = new Map<string, { added: string[]; modified: string[]; removed: string[] }>();
  if (!shas.length) return out;
  const rows = await db.select({ sha: repoCommits.sha, parentShas: repoCommits.parentShas }).from(repoCommits).where(and(eq(repoCommits.projectId, projectId), inArray(repoCommits.sha, shas)));
  for (const row of rows) {
    const changes = await changedFiles(db, projectId, row.parentShas[0] ?? null, row.sha);
    out.set(row.sha, {
      added: changes.filter((f) => f.newFile).map((f) => f.newPath),
      modified: changes.filter((f) => !f.newFile && !f.deletedFile).map((f) => f.newPath),
      removed: changes.filter((f) => f.deletedFile).map((f) => f.oldPath),
    });
  }
  return out;
}

/** Gitlab::DataBuilder::Push, from what the push recorded (its commits, at most 20, newest first). */
export async function pushPayload(db: Db, x: ProjectCtx, ev: EventRow, data: Record<string, unknown> | null) {
  const people = await usersById(db, [ev.actorId!]);
  const u = people.get(ev.actorId!);
  const commits = (data?.commits as Pick<CommitRow, 'sha' | 'message' | 'authoredAt' | 'authorName' | 'authorEmail'>[] | undefined) ?? [];
  const changes = await commitChanges(db, x.project.id, commits.map((c) => c.sha));
  const repo = repositoryAttrs(x);
  const project = projectHookAttrs(x);
  return {
    object_kind: ev.kind,
    event_name: ev.kind,
    before: data?.before ?? '0000000000000000000000000000000000000000',
    after: data?.after ?? null,
    ref: data?.ref ?? null,
    ref_protected: data?.ref_protected ?? false,
    // A tag push names the tagged commit (null when the tag is deleted) and the tag's message.
    checkout_sha: data && 'checkout_sha' in data ? data.checkout_sha : (data?.after ?? null),
    message: (data?.message as string | null | undefined) ?? null,
    user_id: u?.id ?? ev.actorId,
    user_name: u?.name ?? null,
    user_username: u?.username ?? null,
    user_email: '[REDACTED]',
    user_avatar: null,
    project_id: x.project.id,
    project,
    commits: commits.map((c) => ({ ...commitHookAttrs(x, c), ...(changes.get(c.sha) ?? { added: [], modified: [], removed: [] }) })),
    total_commits_count: (data?.total_commits_count as number | undefined) ?? commits.length,
    push_options: {},
    repository: { ...repo, git_http_url: project.git_http_url, git_ssh_url: project.git_ssh_url, visibility_level: project.visibility_level },
  };
}

/** The payload of one event, or null when what it was about is gone. */
export async function buildPayload(db: Db, ev: EventRow): Promise<Record<string, unknown> | null> {
  const data = ev.data ? (JSON.parse(ev.data) as Record<string, unknown>) : null;
  const x = await projectCtx(db, ev.projectId, (data?.base as string | undefined) ?? 'http://localhost');
  if (!x) return null;
  switch (ev.kind) {
    case 'issue':
      return issuePayload(db, x, ev, data);
    case 'merge_request':
      return mergeRequestPayload(db, x, ev, data);
    case 'note':
      return notePayload(db, x, ev);
    case 'deployment':
      return deploymentPayload(db, x, ev, data);
    case 'push':
    case 'tag_push':
      return pushPayload(db, x, ev, data);
    default:
      return null;
  }
}

/** X-Gitlab-Event per kind (WebHookService's `hook_name` through the trigger). */
export const EVENT_HEADER: Record<string, string> = {
  issue: 'Issue Hook',
  confidential_issue: 'Confidential Issue Hook',
  merge_request: 'Merge Request Hook',
  note: 'Note Hook',
  confidential_note: 'Confidential Note Hook',
  push: 'Push Hook',
  tag_push: 'Tag Push Hook',
  deployment: 'Deployment Hook',
};

/** The web_hook_logs `trigger` (ProjectHook triggers' keys). */
export const TRIGGER_OF: Record<string, string> = {
  issue: 'issue_hooks',
  confidential_issue: 'confidential_issue_hooks',
  merge_request: 'merge_request_hooks',
  note: 'note_hooks',
  confidential_note: 'confidential_note_hooks',
  push: 'push_hooks',
  tag_push: 'tag_push_hooks',
  deployment: 'deployment_hooks',
};
