/** The Epic entity (GitLab ee/lib/ee/api/entities/epic.rb). Pure: preloaded extras come from services/epics.ts. */
import { z } from 'zod';
import type { epics } from '../db/schema';
import { date, id, int, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';
import { type UserBasic, UserBasicSchema } from '../users/user-entity';
import { IssuableLabelsSchema, type LabelRow, labelBasic, textColorFor } from './label-entity';

export type EpicRow = typeof epics.$inferSelect;

export interface EpicExtras {
  base: string;
  groupFullPath: string;
  /** The request's group: references.relative is `&iid` from the epic's own group, else the full form. */
  contextGroupId?: number;
  author: UserBasic | null;
  parentIid: number | null;
  parentGroupId: number | null;
  labels: LabelRow[];
  withLabelsDetails: boolean;
  upvotes: number;
  downvotes: number;
  subscribed?: boolean;
}

export const EpicSchema = obj({
  id,
  iid: int,
  color: z.string(),
  text_color: z.string(),
  group_id: int,
  parent_id: int.nullable(),
  parent_iid: int.nullable(),
  title: z.string(),
  description: z.string().nullable(),
  confidential: z.boolean(),
  author: UserBasicSchema.nullable(),
  start_date: date.nullable(),
  start_date_is_fixed: z.boolean(),
  start_date_fixed: date.nullable(),
  start_date_from_inherited_source: date.nullable(),
  start_date_from_milestones: date.nullable(),
  end_date: date.nullable(),
  due_date: date.nullable(),
  due_date_is_fixed: z.boolean(),
  due_date_fixed: date.nullable(),
  due_date_from_inherited_source: date.nullable(),
  due_date_from_milestones: date.nullable(),
  state: z.enum(['opened', 'closed']),
  web_edit_url: z.string(),
  web_url: z.string(),
  references: obj({ short: z.string(), relative: z.string(), full: z.string() }),
  created_at: timestamp,
  updated_at: timestamp,
  closed_at: timestamp.nullable(),
  labels: IssuableLabelsSchema,
  upvotes: int,
  downvotes: int,
  /** Single-epic responses only. */
  subscribed: z.boolean().optional(),
  _links: obj({ self: z.string(), epic_issues: z.string(), group: z.string(), parent: z.string().nullable() }),
}).meta({ id: 'Epic' });
export type Epic = z.infer<typeof EpicSchema>;

export function epicEntity(e: EpicRow, x: EpicExtras): Epic {
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
    state: e.state as Epic['state'],
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
