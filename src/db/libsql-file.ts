/**
 * A libSQL client for a database file on Node, used instead of @libsql/client's file mode.
 *
 * Why: the benchmark profile of the issue endpoints spent about a third of the server's CPU inside
 * @libsql/client's file mode, which prepares every statement afresh, asks the native side for its
 * columns twice and builds each row with one `Object.defineProperty` per value. This client
 * speaks to the same engine (the `libsql` package @libsql/client itself wraps) with the same
 * semantics, but keeps prepared statements in a bounded cache and builds rows from a per-statement
 * prototype. It implements the part of @libsql/client's `Client` that drizzle-orm's libsql driver
 * and our code use: `execute`, `batch` (one transaction, rolled back on any error, as D1's
 * `batch` is), `migrate`, `executeMultiple`, `close`. Interactive transactions are refused: the
 * product never uses them (D1 has none).
 *
 * Rows keep @libsql/client's shape: indexable (`row[0]`, `length`, not enumerable, which is what
 * drizzle's mapped selects read) and with enumerable named properties (what raw queries read).
 * Integers outside JavaScript's safe range raise the same RangeError as @libsql/client.
 */
import type { Client, InArgs, InStatement, ResultSet, Row } from '@libsql/client';
import Database from 'libsql';

type SqlValue = null | number | bigint | string | Buffer;
type Statement = ReturnType<InstanceType<typeof Database>['prepare']>;

interface Prepared {
  stmt: Statement;
  /** null for statements that return no rows (INSERT/UPDATE/DELETE without RETURNING, DDL). */
  columns: string[] | null;
  makeRow: ((values: SqlValue[]) => Row) | null;
}

const VALUES = Symbol('values');
const CACHE_LIMIT = 512;
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** `file:/abs/path.db`, `file:relative.db`, `file:///abs/path.db`; null when this client cannot serve the URL. */
export function filePathOf(url: string): string | null {
  if (url === ':memory:') return null;
  if (!url.startsWith('file:') || url.includes('?')) return null;
  const rest = url.slice('file:'.length);
  return rest.startsWith('//') ? decodeURIComponent(new URL(url).pathname) : rest;
}

export function libsqlFileClient(path: string): Client {
  const db = new Database(path);
  const cache = new Map<string, Prepared>();

  const prepare = (sql: string): Prepared => {
    const hit = cache.get(sql);
    if (hit) return hit;
    const stmt = db.prepare(sql);
    stmt.safeIntegers(true);
    let columns: string[] | null = null;
    try {
      stmt.raw(true);
      columns = stmt.columns().map((col) => col.name);
    } catch {
      // raw() throws for a statement that returns no data.
    }
    const prepared: Prepared = { stmt, columns, makeRow: columns ? rowFactory(columns) : null };
    // Statements with IN lists of many lengths would grow the cache without bound.
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(sql, prepared);
    return prepared;
  };

  const run = (input: InStatement): ResultSet => {
    const sql = typeof input === 'string' ? input : input.sql;
    const args = typeof input === 'string' ? [] : toArgs(input.args);
    const { stmt, columns, makeRow } = prepare(sql);
    if (columns && makeRow) {
      const raw = stmt.all(args) as SqlValue[][];
      const rows = raw.map((values) => makeRow(values));
      return resultSet(columns, rows, 0, undefined);
    }
    const info = stmt.run(args);
    return resultSet([], [], info.changes, BigInt(info.lastInsertRowid));
  };

  const inTransaction = (statements: InStatement[]): ResultSet[] => {
    db.exec('BEGIN');
    try {
      const out = statements.map(run);
      db.exec('COMMIT');
      return out;
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw err;
    }
  };

  let closed = false;
  const client = {
    protocol: 'file',
    get closed() {
      return closed;
    },
    async execute(stmtOrSql: InStatement, args?: unknown[]) {
      return run(typeof stmtOrSql === 'string' && args ? ({ sql: stmtOrSql, args } as InStatement) : stmtOrSql);
    },
    async batch(stmts: Array<InStatement | [string, unknown[]?]>) {
      return inTransaction(stmts.map((s) => (Array.isArray(s) ? ({ sql: s[0], args: s[1] ?? [] } as InStatement) : s)));
    },
    async migrate(stmts: InStatement[]) {
      db.exec('PRAGMA foreign_keys=off');
      try {
        return inTransaction(stmts);
      } finally {
        db.exec('PRAGMA foreign_keys=on');
      }
    },
    async executeMultiple(sql: string) {
      db.exec(sql);
    },
    async transaction(): Promise<never> {
      throw new Error('Interactive transactions are not used: write with one db.batch (D1 has no transactions).');
    },
    async sync() {
      return undefined;
    },
    close() {
      if (closed) return;
      closed = true;
      cache.clear();
      db.close();
    },
    reconnect() {},
  };
  return client as unknown as Client;
}

function toArgs(args: InArgs | undefined): unknown[] | Record<string, unknown> {
  if (args === undefined) return [];
  if (Array.isArray(args)) return args.map(toSql);
  const named: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args as Record<string, unknown>)) named[/^[@$:]/.test(name) ? name.slice(1) : name] = toSql(value);
  return named;
}

/** @libsql/client's valueToSql (intMode "number"). */
function toSql(value: unknown): unknown {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError('Only finite numbers (not Infinity or NaN) can be passed as arguments');
    return value;
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (value instanceof Date) return value.valueOf();
  if (value === undefined) throw new TypeError('undefined cannot be passed as argument to the database');
  return value;
}

/** @libsql/client's valueFromSql (intMode "number"). */
function fromSql(value: SqlValue): unknown {
  if (typeof value === 'bigint') {
    if (value < MIN_SAFE || value > MAX_SAFE) throw new RangeError('Received integer which cannot be safely represented as a JavaScript number');
    return Number(value);
  }
  if (Buffer.isBuffer(value)) {
    const b = value as Uint8Array;
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  }
  return value;
}

/**
 * Rows of one statement share a prototype whose index getters read the converted values, so a
 * row costs one object and one assignment per named column instead of a property definition per
 * value. A name repeated by a join keeps its first value, as in @libsql/client.
 */
function rowFactory(columns: string[]): (values: SqlValue[]) => Row {
  const proto: Record<PropertyKey, unknown> = {};
  Object.defineProperty(proto, 'length', { value: columns.length });
  for (let i = 0; i < columns.length; i++) {
    Object.defineProperty(proto, i, {
      get(this: { [VALUES]: unknown[] }) {
        return this[VALUES][i];
      },
    });
  }
  const named: Array<[string, number]> = [];
  const seen = new Set<string>(['length']);
  columns.forEach((name, i) => {
    if (!seen.has(name) && !/^\d+$/.test(name)) named.push([name, i]);
    seen.add(name);
  });
  return (values) => {
    const converted = values.map(fromSql);
    const row = Object.create(proto) as Record<PropertyKey, unknown>;
    row[VALUES] = converted;
    for (const [name, i] of named) row[name] = converted[i];
    return row as unknown as Row;
  };
}

function resultSet(columns: string[], rows: Row[], rowsAffected: number, lastInsertRowid: bigint | undefined): ResultSet {
  return {
    columns,
    columnTypes: columns.map(() => ''),
    rows,
    rowsAffected,
    lastInsertRowid,
    toJSON() {
      return { columns, rows: rows.map((r) => Array.from({ length: columns.length }, (_, i) => r[i])), rowsAffected, lastInsertRowid: lastInsertRowid?.toString() ?? null };
    },
  };
}
