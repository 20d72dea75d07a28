/** The Epic entity (GitLab ee/lib/ee/api/entities/epic.rb). Pure: preloaded extras come from services/epics.ts. */
import type { epics } from '../db/schema';
import { iso } from '../platform/time';
import { type LabelRow, labelBasic, textColorFor } from './label-entity';

export type EpicRow = typeof epics.$inferSelect;

export interface EpicExtras {
  base: string;
  groupFullPath: string;
  /** The request's group: references.relative is `&iid` from the epic's own group, else the full form. */
  contextGroupId?: number;
  author: object | null;
  parentIid: number | null;
  parentGroupId: number | null;
  labels: LabelRow[];
  withLabelsDetails: boolean;
  upvotes: number;
  downvotes: number;
  subscribed?: boolean;
}

export function epicEntity(e: EpicRow, x: EpicExtras) {
  const api = `${x.base}/api/v4/groups/${e.groupId}`;
  const labels = [...x.labels].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
  const full = `${x.groupFullPath}&${e.iid}`;
  return {
    id: e.id,
    iid: e.iid,
    color: e.color,
    text_color: textColorFor(e.color),
    group_id: e.groupId,
    parent_id: e.parentId ?? null,
    parent_iid: x.parentIid,
    title: e.title,
    description: e.description ?? null,
    confidential: e.confidential,
    author: x.author,
    start_date: e.startDate ?? null,
    // Dates are only ever fixed here: inherited dates come from milestones of child issues, which this service does not roll up.
    start_date_is_fixed: e.startDate != null,
    start_date_fixed: e.startDate ?? null,
    start_date_from_inherited_source: null,
    start_date_from_milestones: null,
    end_date: e.dueDate ?? null,
    due_date: e.dueDate ?? null,
    due_date_is_fixed: e.dueDate != null,
    due_date_fixed: e.dueDate ?? null,
    due_date_from_inherited_source: null,
    due_date_from_milestones: null,
    state: e.state,
    web_edit_url: `/groups/${x.groupFullPath}/-/epics/${e.iid}`,
    web_url: `${x.base}/groups/${x.groupFullPath}/-/epics/${e.iid}`,
    references: { short: `&${e.iid}`, relative: x.contextGroupId === e.groupId ? `&${e.iid}` : full, full },
    created_at: iso(e.createdAt),
    updated_at: iso(e.updatedAt),
    closed_at: iso(e.closedAt),
    labels: x.withLabelsDetails ? labels.map(labelBasic) : labels.map((l) => l.title),
    upvotes: x.upvotes,
    downvotes: x.downvotes,
    ...(x.subscribed !== undefined ? { subscribed: x.subscribed } : {}),
    _links: {
      self: `${api}/epics/${e.iid}`,
      epic_issues: `${api}/epics/${e.iid}/issues`,
      group: api,
      parent: e.parentId != null && x.parentIid != null ? `${x.base}/api/v4/groups/${x.parentGroupId}/epics/${x.parentIid}` : null,
    },
  };
}
