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
import { Column, fillPlaceholders, getTableName, is, SQL, sql, Table } from 'drizzle-orm';
import { withRowMapper } from './row-mapper';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from './client';

const statements = new WeakMap<Db, Map<string, unknown>>();
/**
 * Keys may name a value (a caller's id written into the text) or a page's text, so the cache is
 * bounded like libsql-file's (512): an entry holds up to ~10 statements of a few kB each, and a
 * Worker isolate has 128 MB. Clearing costs each hot statement one rebuild.
 */
const LIMIT = 500;

export function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  let byName = statements.get(db);
  if (!byName) statements.set(db, (byName = new Map()));
  let statement = byName.get(name) as T | undefined;
  if (statement === undefined) {
    statement = build(db);
    if (byName.size >= LIMIT) byName.clear();
    byName.set(name, statement);
  }
  return statement;
}

/** What Drizzle's `db.batch` asks of an item (drizzle-orm libsql/d1 session `batch`), and how a lone item runs. */
interface PreparedQuery {
  getQuery(): { sql: string; params: unknown[] };
  execute(values?: Record<string, unknown>): Promise<unknown>;
}

/**
 * A batch statement built once per Db and `key`, bound to this request's `values`: what `prepared`
 * does for a lone statement, for the statements of a `db.batch` (`batchReads`, the lookups' `…With`
 * reads), where a page or an entity is read by many statements and building their SQL text was the
 * largest part of a request's CPU on Node (issue 13 profile: ~45 % of a single issue's).
 *
 * `build` writes every request value as `sql.placeholder(name)`; `key` names everything else that
 * shapes the text (which optional parts are there, values written into the text with `sql.raw`),
 * so two calls with the same key must build the same SQL. The result stands in for the builder in a
 * batch or when awaited alone; nothing else of the builder's API (`.all()`, `.limit()`) is there.
 *
 * @example cachedQuery(db, 'issue-row', (d) => d.select().from(issues).where(eq(issues.id, sql.placeholder('id'))), { id })
 */
export function cachedQuery<Q extends BatchItem<'sqlite'>>(db: Db, key: string, build: (db: Db) => Q, values: Record<string, unknown>): Q {
  const [query] = cachedQueries(db, key, (d) => [build(d)] as const, values);
  return query;
}

/**
 * cachedQuery for a tuple of statements built together (one `build` for all, `undefined` slots
 * kept): the reads of an entity that share their placeholders.
 */
export function cachedQueries<const Q extends readonly (BatchItem<'sqlite'> | undefined)[]>(db: Db, key: string, build: (db: Db) => Q, values: Record<string, unknown>): Q {
  const prepareAll = (d: Db) => build(d).map((q) => (q === undefined ? undefined : withRowMapper((q as unknown as { prepare(): PreparedQuery }).prepare())));
  const queries = prepared(db, `batch:${key}`, prepareAll);
  if (checked.has(db)) assertSameStatements(key, queries, prepareAll(db), values);
  return queries.map((q) => (q === undefined ? undefined : bind(q, values))) as unknown as Q;
}

/** Dbs whose cached statements are rebuilt and compared on every use (test mode: VALIDATE_RESPONSES). */
const checked = new WeakSet<Db>();
export const checkCachedStatements = (db: Db) => void checked.add(db);

/**
 * A key that does not name everything shaping the statement would serve one caller's text, or a
 * value written into it, to another: tests fail on it. Compares the text and the bound values.
 */
function assertSameStatements(key: string, cached: (PreparedQuery | undefined)[], fresh: (PreparedQuery | undefined)[], values: Record<string, unknown>) {
  const show = (qs: (PreparedQuery | undefined)[]) =>
    qs.map((q) => (q ? `${q.getQuery().sql} ${JSON.stringify(fillPlaceholders(q.getQuery().params, values))}` : '-')).join(';\n');
  const [a, b] = [show(cached), show(fresh)];
  if (a !== b) throw new Error(`cachedQuery "${key}": the key does not name everything that shapes the statement\n${a}\n---\n${b}`);
}

/** A query builder that renders its own SQL (Drizzle's `toSQL`) and prepares a reusable statement. */
interface Renderable {
  toSQL(): { sql: string; params: unknown[] };
  prepare(): unknown;
}

/**
 * A statement whose text varies with the request (a filtered list's page): rendered once here, the
 * statement of that text is prepared once per Db and bound to the values just rendered, so the batch
 * does not render it again. Same text, same statement. `name` stands for the shape of the result
 * (the selected fields' keys, which the text does not show: `{ a: t.x }` and `{ b: t.x }` render alike).
 */
export function renderedOnce<Q extends BatchItem<'sqlite'> & Renderable>(db: Db, name: string, query: Q, rendered = query.toSQL()): Q {
  const { sql: text, params } = rendered;
  const statement = prepared(db, `text:${name}:${text}`, () => withRowMapper(query.prepare() as PreparedQuery));
  return bind(statement, {}, params) as unknown as Q;
}

/**
 * renderedOnce for any batch item: a select builder is named by the shape of its selected fields
 * (their keys, which its text does not show); anything else (a promise, raw SQL) is returned as is.
 */
export function renderedOnceIfSelect<T>(db: Db, item: T): T {
  const q = item as unknown as Partial<Renderable & { getSelectedFields(): Record<string, unknown> }>;
  if (!q || typeof q.toSQL !== 'function' || typeof q.prepare !== 'function' || typeof q.getSelectedFields !== 'function') return item;
  let shape: string;
  try {
    shape = shapeOf(q.getSelectedFields());
  } catch {
    // A select from a subquery hands out selection proxies that throw on raw fields: left as it is.
    return item;
  }
  return renderedOnce(db, `fields:${shape}`, item as unknown as BatchItem<'sqlite'> & Renderable) as unknown as T;
}

/** The keys of selected fields, nested objects and tables included (a table's own keys follow from its name). */
function shapeOf(fields: Record<string, unknown>): string {
  let out = '';
  for (const key in fields) {
    const v = fields[key];
    if (is(v, Column) || is(v, SQL) || is(v, SQL.Aliased)) out += `${key},`;
    else if (is(v, Table)) out += `${key}<${getTableName(v)}>,`;
    else if (v && typeof v === 'object' && !('_' in v)) out += `${key}{${shapeOf(v as Record<string, unknown>)}},`;
    else out += `${key}?,`;
  }
  return out;
}

/**
 * A rendered query (`toSQL()`) as a fragment for statements built once (cachedQueries): its text, to put in their key,
 * the fragment itself with its values as placeholders `q0`, `q1`…, and those values. Undefined when
 * the text holds a `?` that is not a parameter (then the caller builds its statements as usual).
 */
export function fragmentOf(rendered: { sql: string; params: unknown[] }): { text: string; fragment: SQL; values: Record<string, unknown> } | undefined {
  const { sql: text, params } = rendered;
  const parts = text.split('?');
  if (parts.length !== params.length + 1) return undefined;
  const chunks: SQL[] = [sql.raw(parts[0])];
  const values: Record<string, unknown> = {};
  params.forEach((v, i) => {
    values[`q${i}`] = v;
    chunks.push(sql`${sql.placeholder(`q${i}`)}`, sql.raw(parts[i + 1]));
  });
  return { text, fragment: sql.join(chunks), values };
}

function bind(query: PreparedQuery, values: Record<string, unknown>, rendered?: unknown[]) {
  const built = query.getQuery();
  // The drivers' batch reads the SQL and params from getQuery() and maps rows with the prepared
  // query's own mapResult: an object over it with this request's params is all a batch needs.
  // Run alone, the prepared query reads its own `query` (Drizzle's SQLitePreparedQuery) with the values filled in.
  const boundQuery = Object.create(query as object) as PreparedQuery & { query: unknown };
  const params = rendered ?? fillPlaceholders(built.params, values);
  boundQuery.query = { ...built, params };
  boundQuery.getQuery = () => ({ ...built, params });
  return {
    _prepare: () => boundQuery,
    then<A, B>(onFulfilled?: (v: unknown) => A | PromiseLike<A>, onRejected?: (e: unknown) => B | PromiseLike<B>) {
      return boundQuery.execute({}).then(onFulfilled, onRejected);
    },
  };
}

