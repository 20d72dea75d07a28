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
import type { Client, InStatement } from '@libsql/client';

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

/** Runs `work` with its own tally: every round trip it causes (awaited or not) is counted there too. */
export function meterRequest<T>(tally: Tally, work: () => T): T {
  return current.run(tally, work);
}

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
  ) {}
  bind(...values: unknown[]) {
    return new MeteredStatement(this.inner.bind(...values), this.sql, values);
  }
  first(column?: string) {
    count(1, () => [this]);
    return column === undefined ? this.inner.first() : this.inner.first(column);
  }
  all() {
    count(1, () => [this]);
    return this.inner.all();
  }
  run() {
    count(1, () => [this]);
    return this.inner.run();
  }
  raw(options?: { columnNames?: boolean }) {
    count(1, () => [this]);
    return this.inner.raw(options as { columnNames: true });
  }
}

const unwrap = (s: D1PreparedStatement) => (s instanceof MeteredStatement ? s.inner : s);

/** The part of D1's interface a D1 database and a D1 session share (prepare, batch). */
type D1Like = Pick<D1Database, 'prepare' | 'batch'>;

/** A D1 binding (or session) whose round trips are counted. */
export function meterD1<T extends D1Like>(db: T): T {
  return new Proxy(db, {
    get(target, key) {
      if (key === 'prepare') return (query: string) => (log?.(query), new MeteredStatement(target.prepare(query), query) as unknown as D1PreparedStatement);
      if (key === 'batch') {
        return (statements: D1PreparedStatement[]) => {
          count(statements.length, () => statements.filter((x): x is D1PreparedStatement & MeteredStatement => x instanceof MeteredStatement));
          return target.batch(statements.map(unwrap));
        };
      }
      const v = Reflect.get(target, key);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

// ---- libSQL ----

/** A libSQL client whose `execute` and `batch` are counted (a batch is one round trip to a server). */
export function meterLibsql(client: Client): Client {
  const execute = client.execute.bind(client);
  const batch = client.batch.bind(client);
  client.execute = ((...args: Parameters<Client['execute']>) => (count(1, () => [libsqlStatement(args[0] as InStatement)]), log?.(args[0]), execute(...args))) as Client['execute'];
  client.batch = ((statements: InStatement[], mode?: Parameters<Client['batch']>[1]) => (
    count(statements.length, () => statements.map(libsqlStatement)), log?.(statements), batch(statements, mode)
  )) as Client['batch'];
  return client;
}

const libsqlStatement = (s: InStatement): Statement => (typeof s === 'string' ? { sql: s, args: undefined } : { sql: s.sql, args: s.args as Statement['args'] });
