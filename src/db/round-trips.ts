/**
 * The round-trip meter of the Db port (issue 13; ../shared/DESIGN.md "Data access: round trips").
 *
 * At the edge what a request costs is its number of storage round trips: each D1
 * `prepare().all/first/run/raw` and each `batch([...])` is one network hop from the Worker to the
 * database, whatever the batch holds. The drivers under Drizzle are wrapped so every round trip is
 * counted twice: in the isolate's running totals (the benchmark reads them) and in the tally of the
 * request that caused it (an AsyncLocalStorage store opened by `meterRequest`, so concurrent
 * requests on one isolate or process never mix). The wrappers add one object per statement and no
 * I/O; the totals are plain counters.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Client, InStatement, ResultSet } from '@libsql/client';
import { board, type Boarding, withRiders } from './riders';

export interface Tally {
  /** Storage round trips: one per statement run alone, one per batch. */
  roundTrips: number;
  /** SQL statements sent, a batch counting each of its own. */
  statements: number;
  /**
   * Reads sent again with the same text and parameters while no write came between (issue 13: "no
   * statement is repeated inside one request"). Counted only when `seen` is given (tests and the
   * benchmark report it; production skips the bookkeeping).
   */
  repeatedReads?: number;
  seen?: Set<string>;
}

/** Since this isolate (or Node process) started. */
export const totals: Tally = { roundTrips: 0, statements: 0 };

const current = new AsyncLocalStorage<Tally>();

function count(statements: number, keys?: () => Statement[]): void {
  totals.roundTrips++;
  totals.statements += statements;
  const t = current.getStore();
  if (t) {
    t.roundTrips++;
    t.statements += statements;
    if (t.seen && keys) noteRepeats(t, keys());
  }
}

/** What a repeat is judged on: the statement's text and its parameters. */
interface Statement {
  sql: string;
  args: readonly unknown[] | Record<string, unknown> | undefined;
}

const WRITE = /^\s*(?:with\b[\s\S]*?\b)?(?:insert|update|delete|replace|create|drop|alter|pragma)\b/i;

/** A read seen before with no write since is a repeat; a write makes every later read new again (it may see other rows). */
function noteRepeats(t: Tally, sent: Statement[]): void {
  for (const s of sent) {
    if (WRITE.test(s.sql)) {
      t.seen!.clear();
      continue;
    }
    const key = `${s.sql}\u0000${JSON.stringify(s.args ?? null, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))}`;
    if (t.seen!.has(key)) t.repeatedReads = (t.repeatedReads ?? 0) + 1;
    else t.seen!.add(key);
  }
}

/** A debugging aid: `setStatementLog((s) => console.log(s))` shows what each round trip sends (null turns it off). */
let log: ((sent: unknown) => void) | null = null;
export const setStatementLog = (fn: typeof log) => {
  log = fn;
};

/**
 * Runs `work` with its own tally: every round trip it causes (awaited or not) is counted there too.
 * It also gets its own riders (riders.ts): reads registered in it travel on its next round trip.
 */
export function meterRequest<T>(tally: Tally, work: () => T): T {
  return current.run(tally, () => withRiders(work));
}

/**
 * A single statement that may carry riders when turned into a batch: a plain SELECT (a write alone
 * keeps its own round trip, whose errors a batch would report differently).
 */
const RIDEABLE = /^\s*select\b/i;
const riderFor = (client: unknown, sql: string): Boarding | null => (RIDEABLE.test(sql) && !sql.includes(';') ? board(client) : null);
/** An array index as an object key: JavaScript orders those first, so a row object's values would not be in column order. */
const INDEX_KEY = /^(?:0|[1-9]\d*)$/;

/** The response header that carries a request's round trips when the config asks for it (tests, benchmark). */
export const ROUND_TRIPS_HEADER = 'X-Storage-Round-Trips';
/** And the reads it repeated (`Tally.repeatedReads`). */
export const REPEATED_READS_HEADER = 'X-Storage-Repeated-Reads';

// ---- D1 ----

/** A D1 statement whose runs are counted; `bind` keeps the wrapper so Drizzle's prepared statements stay metered. */
class MeteredStatement {
  constructor(
    readonly inner: D1PreparedStatement,
    readonly sql: string,
    readonly args: readonly unknown[] = [],
    /** The (unmetered) database it was prepared on and the metered one Drizzle holds (riders are matched to it). */
    readonly via?: { target: D1Like; owner: unknown },
  ) {}
  bind(...values: unknown[]) {
    return new MeteredStatement(this.inner.bind(...values), this.sql, values, this.via);
  }
  first(column?: string) {
    count(1, () => [this]);
    return column === undefined ? this.inner.first() : this.inner.first(column);
  }
  all() {
    const riders = this.via && riderFor(this.via.owner, this.sql);
    if (riders) return this.carry(riders, this.sql).then((r) => r as D1Result);
    count(1, () => [this]);
    return this.inner.all();
  }
  run() {
    count(1, () => [this]);
    return this.inner.run();
  }
  raw(options?: { columnNames?: boolean }) {
    const riders = !options?.columnNames && this.via && riderFor(this.via.owner, this.sql);
    if (riders) return this.rawWith(riders);
    count(1, () => [this]);
    return this.inner.raw(options as { columnNames: true });
  }

  /**
   * `raw()` in a batch, which answers rows as objects keyed by column name: wrapped in `SELECT * FROM
   * (…)`, whose columns SQLite names uniquely (a repeated name gets a `:1` suffix), the objects' values
   * are the row's values in column order. Only a column named like an array index would be reordered
   * (JavaScript puts those keys first): then the statement is sent again alone, as before riders.
   */
  private async rawWith(riders: Boarding): Promise<unknown[][]> {
    const { results } = await this.carry(riders, `SELECT * FROM (${this.sql})`);
    const rows = results as Record<string, unknown>[];
    if (rows.length && Object.keys(rows[0]).some((k) => INDEX_KEY.test(k))) {
      count(1, () => [this]);
      return this.inner.raw();
    }
    return rows.map((r) => Object.values(r));
  }

  /** This statement (as `sql`) and the riders' in one batch: one round trip; the riders get their results. */
  private async carry(riders: Boarding, sql: string): Promise<D1Result> {
    const { target } = this.via!;
    count(1 + riders.statements.length, () => [this]);
    const own = target.prepare(sql).bind(...this.args);
    const results = await target.batch([own, ...riders.statements.map((s) => target.prepare(s.sql).bind(...s.params))]);
    riders.deliver(results.slice(1));
    return results[0];
  }
}

const unwrap = (s: D1PreparedStatement) => (s instanceof MeteredStatement ? s.inner : s);

/** The part of D1's interface a D1 database and a D1 session share (prepare, batch). */
type D1Like = Pick<D1Database, 'prepare' | 'batch'>;

/** A D1 binding (or session) whose round trips are counted, and on whose next round trip a request's riders travel. */
export function meterD1<T extends D1Like>(db: T): T {
  const metered: T = new Proxy(db, {
    get(target, key) {
      if (key === 'prepare') {
        return (query: string) => (log?.(query), new MeteredStatement(target.prepare(query), query, [], { target, owner: metered }) as unknown as D1PreparedStatement);
      }
      if (key === 'batch') {
        return (statements: D1PreparedStatement[]) => {
          const riders = board(metered);
          const n = statements.length;
          count(n + (riders?.statements.length ?? 0), () => statements.filter((x): x is D1PreparedStatement & MeteredStatement => x instanceof MeteredStatement));
          if (!riders) return target.batch(statements.map(unwrap));
          const extra = riders.statements.map((s) => target.prepare(s.sql).bind(...s.params));
          return target.batch([...statements.map(unwrap), ...extra]).then((results) => (riders.deliver(results.slice(n)), results.slice(0, n)));
        };
      }
      const v = Reflect.get(target, key);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return metered;
}

// ---- libSQL ----

/** A libSQL client whose `execute` and `batch` are counted (a batch is one round trip to a server), and carry the request's riders. */
export function meterLibsql(client: Client): Client {
  const execute = client.execute.bind(client);
  const batch = client.batch.bind(client);
  client.execute = ((...args: Parameters<Client['execute']>) => {
    const stmt = args[0] as InStatement;
    const riders = args.length === 1 ? riderFor(client, typeof stmt === 'string' ? stmt : stmt.sql) : null;
    count(1 + (riders?.statements.length ?? 0), () => [libsqlStatement(stmt)]);
    log?.(stmt);
    if (!riders) return execute(...args);
    // A read alone and the same read first in a batch answer the same ResultSet.
    return batch([stmt, ...riders.statements.map(toLibsql)]).then((results) => (riders.deliver(results.slice(1)), results[0]));
  }) as Client['execute'];
  client.batch = ((statements: InStatement[], mode?: Parameters<Client['batch']>[1]) => {
    const riders = board(client);
    count(statements.length + (riders?.statements.length ?? 0), () => statements.map(libsqlStatement));
    log?.(statements);
    if (!riders) return batch(statements, mode);
    const n = statements.length;
    return batch([...statements, ...riders.statements.map(toLibsql)], mode).then((results: ResultSet[]) => (riders.deliver(results.slice(n)), results.slice(0, n)));
  }) as Client['batch'];
  return client;
}

const toLibsql = (s: { sql: string; params: unknown[] }): InStatement => ({ sql: s.sql, args: s.params as never });
const libsqlStatement = (s: InStatement): Statement => (typeof s === 'string' ? { sql: s, args: undefined } : { sql: s.sql, args: s.args as Statement['args'] });
