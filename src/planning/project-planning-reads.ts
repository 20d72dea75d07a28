/**
 * The labels and milestone an issue or merge request write names, as unexecuted reads over the
 * project's id as SQL (the number, or a sub-select by path): they go in the batch that finds the
 * project (findReadableProjectWith) instead of one round trip each after it. The project's groups
 * come from its namespace's traversal path in the same statement.
 */
import { and, asc, eq, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { labels, milestones } from '../db/schema';
import { normalizeLabelTitles, titleIn } from './labels';

/**
 * SQL sub-select: the ids of the project's group and its ancestors (`traversal_ids` of its
 * namespace, '/1/5/'); none for a personal namespace, whose path is NULL.
 */
export const projectGroupIdsSql = (projectId: SQL) =>
  sql`SELECT j.value FROM projects gp JOIN namespaces gn ON gn.id = gp.namespace_id, json_each('[' || replace(trim(gn.traversal_path, '/'), '/', ',') || ']') j WHERE gp.id = ${projectId}`;

/** The labels available to the project (availableProjectLabelsSql) with these titles, for labelsFoundOrBuilt. */
export const projectLabelsByTitleRead = (db: Db, projectId: SQL, titles: string[]) =>
  db
    .select()
    .from(labels)
    .where(and(or(sql`${labels.projectId} = ${projectId}`, sql`${labels.groupId} IN (${projectGroupIdsSql(projectId)})`), titleIn(normalizeLabelTitles(titles))))
    .orderBy(asc(labels.title), asc(labels.id));

/**
 * The milestone `id` if the project's issuables may be given it (`[]` otherwise): the project's own
 * and those of its group and ancestor groups (IssuableBaseService#filter_milestone).
 */
export const projectAssignableMilestoneRead = (db: Db, projectId: SQL, id: number) =>
  db
    .select()
    .from(milestones)
    .where(and(eq(milestones.id, id), or(sql`${milestones.projectId} = ${projectId}`, sql`${milestones.groupId} IN (${projectGroupIdsSql(projectId)})`)))
    .limit(1);
