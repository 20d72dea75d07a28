/** Milestone presenter (GitLab lib/api/entities/milestone.rb). Pure. */
import type { milestones } from '../db/schema';
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

/** Entities::Milestone: `project_id` or `group_id`, whichever is set, after id/iid. */
export function milestoneEntity(m: MilestoneRow, o: MilestoneUrlOptions) {
  return {
    id: m.id,
    iid: m.iid,
    ...(m.projectId != null ? { project_id: m.projectId } : {}),
    ...(m.groupId != null ? { group_id: m.groupId } : {}),
    title: m.title,
    description: m.description ?? null,
    state: m.state,
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
    due_date: m.dueDate ?? null,
    start_date: m.startDate ?? null,
    expired: milestoneExpired(m.dueDate ?? null),
    web_url: milestoneWebUrl(m, o),
  };
}
