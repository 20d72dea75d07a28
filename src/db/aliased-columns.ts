/**
 * A table's columns under prefixed result names, for joined selects sent in a `db.batch`: D1
 * answers a batch with rows keyed by column name, so two columns both named `id` (projects.id and
 * namespaces.id) collapse into one and Drizzle maps the row's values to the wrong fields. Outside a
 * batch Drizzle reads rows as arrays and the collision does not arise; in a batch it does, on D1 only.
 * (For the same reason an unnamed constant column such as `sql\`0\`` needs `.as(name)`: a key like "0"
 * is enumerated first by JavaScript and shifts every value of the row.)
 *
 * @example db.select({ project: projects, namespace: aliasedColumns(namespaces, 'ns_') }).from(projects).innerJoin(…)
 */
import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';

const cache = new WeakMap<SQLiteTable, Map<string, unknown>>();

export function aliasedColumns<T extends SQLiteTable>(table: T, prefix: string): { [K in keyof T['$inferSelect']]: SQL.Aliased<T['$inferSelect'][K]> } {
  let byPrefix = cache.get(table);
  if (!byPrefix) cache.set(table, (byPrefix = new Map()));
  let out = byPrefix.get(prefix);
  if (!out) {
    out = Object.fromEntries(Object.entries(getTableColumns(table)).map(([key, column]) => [key, sql`${column}`.mapWith(column).as(`${prefix}${column.name}`)]));
    byPrefix.set(prefix, out);
  }
  return out as never;
}
