/** Group lookups (namespaces of kind Group). */
import { and, eq, sql } from 'drizzle-orm';
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
