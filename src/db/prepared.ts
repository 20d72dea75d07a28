/**
 * Hot statements built once per Db (../shared/DESIGN.md "Build hot statements once"): Drizzle spends
 * more CPU turning a query builder into SQL text than SQLite spends running a point lookup, so a
 * statement that runs on most requests is built with `sql.placeholder(...)` and `.prepare()` once and
 * executed with its values afterwards. Keyed by Db (tests build several apps in one process) and by
 * name; a cold isolate simply builds it on first use.
 *
 * @example
 * const byId = prepared(db, 'user-by-id', (db) => db.select().from(users).where(eq(users.id, sql.placeholder('id'))).prepare());
 * const user = await byId.get({ id });
 */
import type { Db } from './client';

const statements = new WeakMap<Db, Map<string, unknown>>();

export function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  let byName = statements.get(db);
  if (!byName) statements.set(db, (byName = new Map()));
  let statement = byName.get(name) as T | undefined;
  if (statement === undefined) {
    statement = build(db);
    byName.set(name, statement);
  }
  return statement;
}
