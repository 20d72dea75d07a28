/**
 * Milestones: loading and presenting them for other modules (the Issue entity's `milestone`), iid
 * allocation and validation (app/models/milestone.rb, app/models/concerns/timebox.rb). The
 * milestone an issuable write names is read with its project (project-planning-reads.ts).
 */
import { and, eq, getTableColumns, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { internalIds, issues, milestones, namespaces, projects } from '../db/schema';
import { milestoneEntity, type MilestoneRow } from './milestone-entity';

export type { MilestoneRow };

/** Milestones by id (chunked). */
export async function milestonesByIds(db: Db, ids: number[]): Promise<Map<number, MilestoneRow>> {
  const out = new Map<number, MilestoneRow>();
  const uniq = [...new Set(ids)];
  for (let i = 0; i < uniq.length; i += 90) for (const m of await db.select().from(milestones).where(inArray(milestones.id, uniq.slice(i, i + 90))).all()) out.set(m.id, m);
  return out;
}

/**
 * Full paths for web_url: `namespace/project` of project milestones, the group path of group
 * milestones. Two queries at most.
 */
export async function milestonePaths(db: Db, rows: MilestoneRow[]): Promise<{ projects: Map<number, string>; groups: Map<number, string> }> {
  const projectIds = [...new Set(rows.map((m) => m.projectId).filter((x): x is number => x != null))];
  const groupIds = [...new Set(rows.map((m) => m.groupId).filter((x): x is number => x != null))];
  const out = { projects: new Map<number, string>(), groups: new Map<number, string>() };
  for (let i = 0; i < projectIds.length; i += 90) {
    const found = await db
      .select({ id: projects.id, path: projects.path, ns: namespaces.fullPath })
      .from(projects)
      .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
      .where(inArray(projects.id, projectIds.slice(i, i + 90)))
      .all();
    for (const p of found) out.projects.set(p.id, `${p.ns}/${p.path}`);
  }
  for (let i = 0; i < groupIds.length; i += 90)
    for (const g of await db.select({ id: namespaces.id, path: namespaces.fullPath }).from(namespaces).where(inArray(namespaces.id, groupIds.slice(i, i + 90))).all()) out.groups.set(g.id, g.path);
  return out;
}

/**
 * A milestone row with the full path its web_url is built on (`namespace/project` of a project
 * milestone, the group's path of a group milestone) as a column of the same statement, so a page
 * is presented without reading its parents again.
 */
export const milestoneWithPath = {
  ...getTableColumns(milestones),
  webPath: sql<string | null>`coalesce((SELECT wn.full_path || '/' || wp.path FROM projects wp JOIN namespaces wn ON wn.id = wp.namespace_id WHERE wp.id = ${sql.raw('"milestones"."project_id"')}), (SELECT wg.full_path FROM namespaces wg WHERE wg.id = ${sql.raw('"milestones"."group_id"')}))`.as('web_path'),
};
export type MilestoneWithPath = MilestoneRow & { webPath: string | null };

/** Presents milestones (Entities::Milestone) with their web_url, in input order (rows read with `milestoneWithPath` need no query). */
export async function presentMilestones(db: Db, base: string, rows: (MilestoneRow | MilestoneWithPath)[]) {
  const withPaths = rows.every((m) => 'webPath' in m);
  const paths = withPaths ? null : await milestonePaths(db, rows);
  return rows.map((m) => {
    const own = 'webPath' in m ? (m.webPath ?? undefined) : undefined;
    const projectFullPath = m.projectId != null ? (paths ? paths.projects.get(m.projectId) : own) : undefined;
    const groupFullPath = m.groupId != null ? (paths ? paths.groups.get(m.groupId) : own) : undefined;
    return milestoneEntity(m, { base, projectFullPath, groupFullPath });
  });
}

/**
 * For the Issue entity: milestone JSON by milestone id for a page of issues (two or three queries
 * whatever the page size). Missing ids are absent from the map (present `null`).
 */
export async function presentMilestonesById(db: Db, base: string, ids: (number | null | undefined)[]): Promise<Map<number, ReturnType<typeof milestoneEntity>>> {
  const rows = await milestonesByIds(db, ids.filter((x): x is number => x != null));
  const list = [...rows.values()];
  const presented = await presentMilestones(db, base, list);
  return new Map(list.map((m, i) => [m.id, presented[i]]));
}

/**
 * iid allocation inside the inserting db.batch (brief: internal_ids): bump the counter, then the
 * insert reads it with `iidSql`. D1 batches are atomic and serialised, so no two inserts share one.
 */
export function bumpIid(db: Db, usage: 'milestones' | 'group_milestones', scopeId: number) {
  return db
    .insert(internalIds)
    .values({ usage, scopeId, lastValue: 1 })
    .onConflictDoUpdate({ target: [internalIds.usage, internalIds.scopeId], set: { lastValue: sql`last_value + 1` } });
}
export const iidSql = (usage: string, scopeId: number) => sql<number>`(select ${internalIds.lastValue} from ${internalIds} where ${internalIds.usage} = ${usage} and ${internalIds.scopeId} = ${scopeId})`;

/**
 * Statements removing the milestones of a project or group being deleted, for the deleting
 * module's db.batch (issues of other projects lose a deleted group milestone).
 */
export function milestoneDeletionStatements(db: Db, owner: { projectId: number } | { groupIds: SQL | number[] }, now: number) {
  const own = 'projectId' in owner ? eq(milestones.projectId, owner.projectId) : inArray(milestones.groupId, owner.groupIds as number[]);
  return [
    db.update(issues).set({ milestoneId: null, updatedAt: now }).where(inArray(issues.milestoneId, db.select({ id: milestones.id }).from(milestones).where(own))),
    db.delete(milestones).where(own),
    db.delete(internalIds).where('projectId' in owner ? and(eq(internalIds.usage, 'milestones'), eq(internalIds.scopeId, owner.projectId)) : and(eq(internalIds.usage, 'group_milestones'), inArray(internalIds.scopeId, owner.groupIds as number[]))),
  ] as const;
}
