/**
 * An issue's or merge request's resource events in an archive (import_export.yml
 * `resource_label_events` with `label`, `resource_milestone_events` with `milestone`,
 * `resource_state_events`): checked before the issuable's line writes anything, then held in the
 * chunk's bulk rows (import-bulk.ts) naming their issuable by iid and their label or milestone by
 * title, as RelationFactory maps them. Users are mapped by the caller (unmatched: the importer).
 */
import type { BulkRows } from './import-bulk';

type Row = Record<string, unknown>;

export interface ArchiveEvents {
  label: { action: string; label: Row | null; userId: unknown; createdAt: unknown }[];
  milestone: { action: string; milestone: Row | null; state: string; userId: unknown; createdAt: unknown }[];
  state: { state: string; userId: unknown; createdAt: unknown; sourceCommit: string | null }[];
}

const ACTIONS = new Set(['add', 'remove']);
/** ResourceMilestoneEvent#state: the issuable's states (Issue and MergeRequest available_states). */
const ISSUABLE_STATES = new Set(['opened', 'closed', 'merged', 'locked']);
/** ResourceStateEvent#state: those and `reopened`. */
const EVENT_STATES = new Set([...ISSUABLE_STATES, 'reopened']);

const rows = (v: unknown): Row[] | null => (v == null ? [] : Array.isArray(v) && v.every((x) => !!x && typeof x === 'object' && !Array.isArray(x)) ? (v as Row[]) : null);
const obj = (v: unknown): Row | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Row) : null);
const oneOf = (set: Set<string>, v: unknown): v is string => typeof v === 'string' && set.has(v);

/**
 * The events of an archive line, or the message its line fails with: an event GitLab could not
 * build (an unknown action or state, not an object) fails the issuable's save! and so its line.
 */
export function parseResourceEvents(row: Row): ArchiveEvents | string {
  const [labels, milestones, states] = [rows(row.resource_label_events), rows(row.resource_milestone_events), rows(row.resource_state_events)];
  const invalid = (what: string) => `Validation failed: ${what} is invalid`;
  if (!labels || !labels.every((e) => oneOf(ACTIONS, e.action))) return invalid('Resource label events');
  if (!milestones || !milestones.every((e) => oneOf(ACTIONS, e.action) && oneOf(ISSUABLE_STATES, e.state))) return invalid('Resource milestone events');
  if (!states || !states.every((e) => oneOf(EVENT_STATES, e.state))) return invalid('Resource state events');
  return {
    label: labels.map((e) => ({ action: e.action as string, label: obj(e.label), userId: e.user_id, createdAt: e.created_at })),
    milestone: milestones.map((e) => ({ action: e.action as string, milestone: obj(e.milestone), state: e.state as string, userId: e.user_id, createdAt: e.created_at })),
    state: states.map((e) => ({ state: e.state as string, userId: e.user_id, createdAt: e.created_at, sourceCommit: typeof e.source_commit === 'string' && /^[0-9a-f]{40}$/.test(e.source_commit) ? e.source_commit : null })),
  };
}

export interface EventMapping {
  user: (archiveId: unknown) => number;
  time: (v: unknown) => number;
  /** The title the event's label or milestone is found by once written (null: none, as for a deleted one). */
  labelTitle: (label: Row | null) => string | null;
  milestoneTitle: (milestone: Row | null) => string | null;
}

/** The parsed events into the chunk's bulk rows, after their issuable's. */
export function pushResourceEvents(bulk: BulkRows, targetType: 'Issue' | 'MergeRequest', targetIid: number, ev: ArchiveEvents, map: EventMapping): void {
  for (const e of ev.label) bulk.labelEvent({ targetType, targetIid, action: e.action, labelTitle: map.labelTitle(e.label), userId: map.user(e.userId), createdAt: map.time(e.createdAt) });
  for (const e of ev.milestone)
    bulk.milestoneEvent({ targetType, targetIid, action: e.action, milestoneTitle: map.milestoneTitle(e.milestone), state: e.state, userId: map.user(e.userId), createdAt: map.time(e.createdAt) });
  for (const e of ev.state) bulk.stateEvent({ targetType, targetIid, state: e.state, userId: map.user(e.userId), createdAt: map.time(e.createdAt), sourceCommit: e.sourceCommit });
}
