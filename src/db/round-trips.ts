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
}

/** Since this isolate (or Node process) started. */
export const totals: Tally = { roundTrips: 0, statements: 0 };

const current = new AsyncLocalStorage<Tally>();

function count(statements: number): void {
  totals.roundTrips++;
  totals.statements += statements;
  const t = current.getStore();
  if (t) {
    t.roundTrips++;
    t.statements += statements;
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

// ---- D1 ----

/** A D1 statement whose runs are counted; `bind` keeps the wrapper so Drizzle's prepared statements stay metered. */
class MeteredStatement {
  constructor(readonly inner: D1PreparedStatement) {}
  bind(...values: unknown[]) {
    return new MeteredStatement(this.inner.bind(...values));
  }
  first(column?: string) {
    count(1);
    return column === undefined ? this.inner.first() : this.inner.first(column);
  }
  all() {
    count(1);
    return this.inner.all();
  }
  run() {
    count(1);
    return this.inner.run();
  }
  raw(options?: { columnNames?: boolean }) {
    count(1);
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
      if (key === 'prepare') return (query: string) => (log?.(query), new MeteredStatement(target.prepare(query)) as unknown as D1PreparedStatement);
      if (key === 'batch') {
        return (statements: D1PreparedStatement[]) => {
          count(statements.length);
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
  client.execute = ((...args: Parameters<Client['execute']>) => (count(1), log?.(args[0]), execute(...args))) as Client['execute'];
  client.batch = ((statements: InStatement[], mode?: Parameters<Client['batch']>[1]) => (count(statements.length), log?.(statements), batch(statements, mode))) as Client['batch'];
  return client;
}
