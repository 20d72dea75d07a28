/** Group lookups (namespaces of kind Group). */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { namespaces } from '../db/schema';
import { decimalId } from '../platform/record-id';

/** `find_group(id)`: an integer id, or a full path (URL-decoded by the router), case-insensitive. */
export function findGroup(db: Db, idOrPath: string) {
  return db.select().from(namespaces).where(findGroupWhere(idOrPath)).get();
}

/** `find_group(id)` as a condition on `namespaces`: an integer id or a full path, groups only. */
export function findGroupWhere(idOrPath: string) {
  const id = decimalId(idOrPath);
  const cond = id !== undefined ? eq(namespaces.id, id) : sql`lower(${namespaces.fullPath}) = lower(${idOrPath})`;
  return and(cond, eq(namespaces.kind, 'Group'));
}

export const findNamespaceById = (db: Db, id: number) => db.select().from(namespaces).where(eq(namespaces.id, id)).get();

export const findNamespaceByPath = (db: Db, path: string) => db.select().from(namespaces).where(sql`lower(${namespaces.fullPath}) = lower(${path})`).get();

export const personalNamespace = (db: Db, userId: number) =>
  db.select().from(namespaces).where(and(eq(namespaces.kind, 'User'), eq(namespaces.ownerId, userId))).get();

/**
 * `full_name` of the `namespaces` row of the statement: its ancestors' names (traversal_path, root
 * first) joined by ` / `, each found by primary key; a personal namespace is its own name.
 */
export const namespaceFullNameSql = () =>
  sql<string>`coalesce((SELECT group_concat(name, ' / ') FROM (SELECT a.name FROM json_each('[' || replace(trim(${NS_TRAVERSAL}, '/'), '/', ',') || ']') j JOIN namespaces a ON a.id = j.value ORDER BY j.key)), ${NS_NAME})`;
// Qualified: inside the sub-select an unqualified column would bind to the sub-select's own table.
const NS_TRAVERSAL = sql.raw('"namespaces"."traversal_path"');
const NS_NAME = sql.raw('"namespaces"."name"');

/** The group's id as SQL for statements batched with its lookup: the number, or a sub-select by full path. */
export function groupIdRef(idOrPath: string): SQL {
  const id = decimalId(idOrPath);
  if (id !== undefined) return sql`${id}`;
  return sql`(SELECT g.id FROM namespaces g WHERE lower(g.full_path) = lower(${idOrPath}) AND g.kind = 'Group')`;
}
