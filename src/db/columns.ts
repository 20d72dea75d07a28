/**
 * Selects that go into a D1 batch need unique column names that are not integers: D1 answers a batch's rows as
 * objects keyed by column name and Drizzle reads them back by position (`Object.keys`), so two
 * tables' `id`, `name`, `path`… collapse into one key and every later column shifts (a project read
 * with its namespace in a batch came back with the namespace's id as its own). Selecting one side's
 * columns under prefixed aliases keeps the names distinct; each still decodes as its column does.
 * A computed column needs an alias too: `sql`0`` is named "0", and JavaScript puts integer keys
 * first, shifting every other column.
 *
 * @example db.select({ project: projects, namespace: prefixedColumns(namespaces, 'ns_') }).from(projects).innerJoin(namespaces, …)
 */
import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';

export function prefixedColumns<T extends SQLiteTable>(table: T, prefix: string): { [K in keyof T['$inferSelect']]: SQL.Aliased<T['$inferSelect'][K]> } {
  const out: Record<string, SQL.Aliased> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) out[key] = sql`${column}`.mapWith(column).as(`${prefix}${column.name}`);
  return out as never;
}
