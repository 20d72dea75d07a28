/**
 * What a project transfer does to the group labels and group milestones its issues and merge
 * requests use (Projects::TransferService#transfer_missing_group_resources: Labels::TransferService,
 * Milestones::TransferService). One left behind by the move (its group is not the new namespace or an
 * ancestor of it) is looked up by title among the project's own and the new hierarchy's
 * (Labels::FindOrCreateService with include_ancestor_groups, Milestones::FindOrCreateService); when
 * there is none, a project copy is made (labels: title, color, description; milestones: title,
 * description, start and due date, active, the project's next iid). The project's issues and merge
 * requests, and its label priorities, then point at what was found or made.
 *
 * Set-based statements for the transfer's db.batch (query builders: D1 batches take no raw
 * statements), in order: every "used" set is read before the statements that re-point it. A link or
 * priority whose new label the issuable or project already has would be a duplicate: it is deleted
 * before the rest are re-pointed.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { internalIds, issues, labelLinks, labelPriorities, labels, mergeRequests, milestones } from '../db/schema';

export interface TransferScope {
  projectId: number;
  /** The old namespace and its ancestors when it is a group (GitLab `old_group.self_and_ancestors`); empty for a personal one. */
  oldGroupIds: number[];
  /** The new namespace and its ancestors when it is a group; empty for a personal one. */
  newGroupIds: number[];
  now: number;
}

const idList = (ids: number[]) => sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`;

export function transferPlanningStatements(db: Db, s: TransferScope): BatchItem<'sqlite'>[] {
  // Labels::TransferService and Milestones::TransferService return at once without an old group.
  if (!s.oldGroupIds.length) return [];
  return [...labelStatements(db, s), ...milestoneStatements(db, s)];
}

function labelStatements(db: Db, { projectId: p, newGroupIds, now }: TransferScope): BatchItem<'sqlite'>[] {
  const inNew = idList(newGroupIds);
  // Group labels (of any group, as the service's join on a Group namespace) outside the new hierarchy.
  const moved = (col: SQL) => sql`${col} IN (SELECT l.id FROM labels l JOIN namespaces n ON n.id = l.group_id AND n.kind = 'Group' WHERE l.group_id NOT IN ${inNew})`;
  const ofProject = (ll: string) =>
    sql`((${sql.raw(ll)}.target_type = 'Issue' AND ${sql.raw(ll)}.target_id IN (SELECT id FROM issues WHERE project_id = ${p}))
      OR (${sql.raw(ll)}.target_type = 'MergeRequest' AND ${sql.raw(ll)}.target_id IN (SELECT id FROM merge_requests WHERE project_id = ${p})))`;
  const used = sql`(SELECT u.label_id FROM label_links u WHERE ${ofProject('u')} AND ${moved(sql`u.label_id`)})`;
  // The label of that title available to the project once moved: its own first, then the nearest group's.
  const resolve = (title: SQL) =>
    sql`COALESCE((SELECT pl.id FROM labels pl WHERE pl.project_id = ${p} AND pl.title = ${title}),
      (SELECT gl.id FROM labels gl JOIN namespaces gn ON gn.id = gl.group_id WHERE gl.group_id IN ${inNew} AND gl.title = ${title} ORDER BY length(gn.traversal_path) DESC LIMIT 1))`;
  const titleOf = (col: SQL) => sql`(SELECT t.title FROM labels t WHERE t.id = ${col})`;
  const linkTitle = titleOf(sql`label_links.label_id`);
  const prioTitle = titleOf(sql`label_priorities.label_id`);
  return [
    // One copy per missing title, from the first such label (the service finds the copy for the next one).
    db.insert(labels).select(sql`SELECT NULL, ${p}, NULL, l.title, l.color, l.description, 0, 0, ${now}, ${now} FROM labels l
      WHERE l.id IN (SELECT min(a.id) FROM labels a WHERE a.id IN ${used} GROUP BY a.title) AND ${resolve(sql`l.title`)} IS NULL`),
    // Priorities: one the project already gives the new label wins.
    db.delete(labelPriorities).where(sql`project_id = ${p} AND label_id IN ${used}
      AND EXISTS (SELECT 1 FROM label_priorities d WHERE d.project_id = ${p} AND d.label_id = ${resolve(prioTitle)})`),
    db.update(labelPriorities).set({ labelId: sql`${resolve(prioTitle)}` }).where(sql`project_id = ${p} AND label_id IN ${used}`),
    // Links: a link whose new label the issuable already carries, or carries through a same-titled
    // moved label of lower id, goes; the others are re-pointed.
    db.delete(labelLinks).where(sql`${ofProject('label_links')} AND ${moved(sql`label_links.label_id`)} AND (
      EXISTS (SELECT 1 FROM label_links d WHERE d.target_type = label_links.target_type AND d.target_id = label_links.target_id AND d.label_id = ${resolve(linkTitle)})
      OR EXISTS (SELECT 1 FROM label_links d WHERE d.target_type = label_links.target_type AND d.target_id = label_links.target_id AND d.label_id < label_links.label_id
        AND ${moved(sql`d.label_id`)} AND ${titleOf(sql`d.label_id`)} = ${linkTitle}))`),
    db.update(labelLinks).set({ labelId: sql`${resolve(linkTitle)}` }).where(sql`${ofProject('label_links')} AND ${moved(sql`label_links.label_id`)}`),
  ];
}

function milestoneStatements(db: Db, { projectId: p, oldGroupIds, newGroupIds, now }: TransferScope): BatchItem<'sqlite'>[] {
  const inNew = idList(newGroupIds);
  // Milestones of the old group and its ancestors (the service's `group_id: old_group.self_and_ancestors`) outside the new hierarchy.
  const moved = (col: SQL) => sql`${col} IN (SELECT m.id FROM milestones m WHERE m.group_id IN ${idList(oldGroupIds)} AND m.group_id NOT IN ${inNew})`;
  const used = sql`(SELECT i.milestone_id FROM issues i WHERE i.project_id = ${p} AND ${moved(sql`i.milestone_id`)}
    UNION SELECT r.milestone_id FROM merge_requests r WHERE r.project_id = ${p} AND ${moved(sql`r.milestone_id`)})`;
  const resolve = (title: SQL) =>
    sql`COALESCE((SELECT pm.id FROM milestones pm WHERE pm.project_id = ${p} AND pm.title = ${title}),
      (SELECT gm.id FROM milestones gm JOIN namespaces gn ON gn.id = gm.group_id WHERE gm.group_id IN ${inNew} AND gm.title = ${title} ORDER BY length(gn.traversal_path) DESC LIMIT 1))`;
  const titleOf = (col: SQL) => sql`(SELECT t.title FROM milestones t WHERE t.id = ${col})`;
  // The project's iids continue after its counter and its highest iid, whichever is larger.
  const base = sql`max(COALESCE((SELECT last_value FROM internal_ids WHERE usage = 'milestones' AND scope_id = ${p}), 0), COALESCE((SELECT max(iid) FROM milestones WHERE project_id = ${p}), 0))`;
  return [
    db.insert(milestones).select(sql`SELECT NULL, ${p}, NULL, ${base} + row_number() OVER (ORDER BY m.id), m.title, m.description, 'active', m.due_date, m.start_date, ${now}, ${now}
      FROM milestones m WHERE m.id IN (SELECT min(a.id) FROM milestones a WHERE a.id IN ${used} GROUP BY a.title) AND ${resolve(sql`m.title`)} IS NULL`),
    db
      .insert(internalIds)
      .select(sql`SELECT 'milestones', ${p}, mx FROM (SELECT max(iid) AS mx FROM milestones WHERE project_id = ${p}) WHERE mx IS NOT NULL`)
      .onConflictDoUpdate({ target: [internalIds.usage, internalIds.scopeId], set: { lastValue: sql`max(last_value, excluded.last_value)` } }),
    db.update(issues).set({ milestoneId: sql`${resolve(titleOf(sql`issues.milestone_id`))}` }).where(sql`project_id = ${p} AND ${moved(sql`issues.milestone_id`)}`),
    db.update(mergeRequests).set({ milestoneId: sql`${resolve(titleOf(sql`merge_requests.milestone_id`))}` }).where(sql`project_id = ${p} AND ${moved(sql`merge_requests.milestone_id`)}`),
  ];
}
