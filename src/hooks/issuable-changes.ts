/**
 * The `changes` of issue and merge request payloads as GitLab sends them
 * (Gitlab::DataBuilder::Issuable#build: `final_changes(changes.slice(*safe_keys))`): only the
 * builder's safe attributes and relations, in that order (Hash#slice keeps the order of the keys
 * asked), each `{ previous, current }`. The event row recorded our column names
 * (eventChanges in src/platform/events.ts); GitLab's differ for a few.
 */
import { hookTime } from './payload-parts';

type Change = { previous: unknown; current: unknown };

/** Gitlab::HookData::IssueBuilder.safe_hook_attributes (+ EE weight, health_status), then safe_hook_relations. */
const ISSUE_KEYS = [
  'assignee_id', 'author_id', 'closed_at', 'confidential', 'created_at', 'description', 'discussion_locked', 'due_date', 'id', 'iid',
  'last_edited_at', 'last_edited_by_id', 'milestone_id', 'moved_to_id', 'duplicated_to_id', 'project_id', 'relative_position', 'state_id',
  'time_estimate', 'title', 'updated_at', 'updated_by_id', 'weight', 'health_status',
  'assignees', 'labels', 'total_time_spent', 'time_change', 'severity', 'escalation_status', 'customer_relations_contacts',
];

/** Gitlab::HookData::MergeRequestBuilder.safe_hook_attributes, then safe_hook_relations. */
const MERGE_REQUEST_KEYS = [
  'assignee_id', 'author_id', 'blocking_discussions_resolved', 'created_at', 'description', 'draft', 'head_pipeline_id', 'id', 'iid',
  'last_edited_at', 'last_edited_by_id', 'merge_commit_sha', 'merge_error', 'merge_params', 'merge_status', 'merge_user_id',
  'merge_when_pipeline_succeeds', 'milestone_id', 'reviewer_ids', 'source_branch', 'source_project_id', 'state_id', 'target_branch',
  'target_project_id', 'time_estimate', 'title', 'updated_at', 'updated_by_id', 'prepared_at',
  'assignees', 'labels', 'reviewers', 'total_time_spent', 'time_change',
];

export const STATE_ID: Record<string, number> = { opened: 1, closed: 2, merged: 3, locked: 4 };

/** The recorded changes (our column names, timestamps in ms), or none. */
export function recordedChanges(data: Record<string, unknown> | null): Record<string, Change> {
  return (data?.changes as Record<string, Change> | undefined) ?? {};
}

/** GitLab's name and value for what we recorded: `state` is the `state_id` column there, the merge flag lives in `merge_params`. */
function gitlabNamed(raw: Record<string, Change>): Record<string, Change> {
  const out: Record<string, Change> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'state') out.state_id = { previous: STATE_ID[v.previous as string] ?? null, current: STATE_ID[v.current as string] ?? null };
    else if (k === 'force_remove_source_branch') out.merge_params = { previous: { force_remove_source_branch: v.previous ? '1' : '0' }, current: { force_remove_source_branch: v.current ? '1' : '0' } };
    else out[k] = k.endsWith('_at') ? { previous: at(v.previous), current: at(v.current) } : v;
  }
  return out;
}
const at = (v: unknown) => (typeof v === 'number' ? hookTime(v) : v);

/** The payload's `changes` for an issue or a merge request event. */
export function issuableChanges(kind: 'issue' | 'merge_request', data: Record<string, unknown> | null): Record<string, Change> {
  const named = gitlabNamed(recordedChanges(data));
  const out: Record<string, Change> = {};
  for (const k of kind === 'issue' ? ISSUE_KEYS : MERGE_REQUEST_KEYS) if (k in named) out[k] = named[k];
  return out;
}
