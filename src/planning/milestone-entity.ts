/** Milestone presenter (GitLab lib/api/entities/milestone.rb). Pure. */
import { z } from 'zod';
import type { milestones } from '../db/schema';
import { date, id, int, obj, timestamp } from '../platform/response-schemas';
import { iso, today } from '../platform/time';

export type MilestoneRow = typeof milestones.$inferSelect;

export type MilestoneUrlOptions =
  | { webUrl: string }
  /** `projectFullPath` (namespace/project) for project milestones, `groupFullPath` for group milestones. */
  | { base: string; projectFullPath?: string; groupFullPath?: string };

/** Gitlab::UrlBuilder: `/<project>/-/milestones/<iid>` or `/groups/<group>/-/milestones/<iid>`. */
export function milestoneWebUrl(m: Pick<MilestoneRow, 'iid' | 'projectId'>, o: MilestoneUrlOptions): string {
  if ('webUrl' in o) return o.webUrl;
  return m.projectId != null ? `${o.base}/${o.projectFullPath}/-/milestones/${m.iid}` : `${o.base}/groups/${o.groupFullPath}/-/milestones/${m.iid}`;
}

/** Milestone#expired: a due date in the past (false without one). */
export const milestoneExpired = (dueDate: string | null) => dueDate != null && dueDate < today();

export const MilestoneSchema = obj({
  id,
  iid: int,
  project_id: int.optional(),
  group_id: int.optional(),
  title: z.string(),
  description: z.string().nullable(),
  state: z.enum(['active', 'closed']),
  created_at: timestamp,
  updated_at: timestamp,
  due_date: date.nullable(),
  start_date: date.nullable(),
  expired: z.boolean(),
  web_url: z.string(),
}).meta({ id: 'Milestone' });
export type Milestone = z.infer<typeof MilestoneSchema>;

/** Entities::Milestone: `project_id` or `group_id`, whichever is set, after id/iid. */
export function milestoneEntity(m: MilestoneRow, o: MilestoneUrlOptions): Milestone {
  return {
    id: m.id,
    iid: m.iid,
    ...(m.projectId != null ? { project_id: m.projectId } : {}),
    ...(m.groupId != null ? { group_id: m.groupId } : {}),
    title: m.title,
    description: m.description ?? null,
    state: m.state as Milestone['state'],
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
    due_date: m.dueDate ?? null,
    start_date: m.startDate ?? null,
    expired: milestoneExpired(m.dueDate ?? null),
    web_url: milestoneWebUrl(m, o),
  };
}
