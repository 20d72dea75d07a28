/**
 * Independent reads in one round trip (../shared/DESIGN.md "Data access"): unexecuted Drizzle
 * queries go to storage in one `db.batch`, a skipped slot (`undefined`, for a read the request does
 * not need) answers `undefined`. A single query runs alone: it is one round trip either way.
 * Queries must be unexecuted builders (no `.all()`/`.get()`, which would run them at once); a
 * single-row read is a builder with `.limit(1)` whose result is an array.
 *
 * @example const [ids, followers] = await batchReads(db, [db.select().from(identities).where(…), admin ? db.select()… : undefined]);
 */
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from './client';
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

/** A slot's result: distributes over `query | undefined`, so an optional read types as `rows | undefined`. */
type Result<T> = T extends BatchItem<'sqlite'> ? Awaited<T> : undefined;
type Results<Q extends readonly unknown[]> = { -readonly [K in keyof Q]: Result<Q[K]> };

export async function batchReads<const Q extends readonly (BatchItem<'sqlite'> | undefined)[]>(db: Db, queries: Q): Promise<Results<Q>> {
  return writeThenRead(db, [], queries);
}

/**
 * A write and the reads of its answer in one atomic batch, one round trip: `writes` run first (all
 * or none), then `reads` see what they wrote. Results as `batchReads` gives them, for the reads only.
 */
export async function writeThenRead<const Q extends readonly (BatchItem<'sqlite'> | undefined)[]>(
  db: Db,
  writes: readonly BatchItem<'sqlite'>[],
  queries: Q,
): Promise<Results<Q>> {
  const present = queries.map((q, i) => [q, i] as const).filter((x): x is readonly [BatchItem<'sqlite'>, number] => x[0] !== undefined);
  const out: unknown[] = queries.map(() => undefined);
  if (!writes.length && present.length === 1) out[present[0][1]] = await present[0][0];
  else if (writes.length + present.length > 0) {
    const results = await db.batch([...writes, ...present.map((x) => x[0])] as unknown as Parameters<Db['batch']>[0]);
    present.forEach(([, i], k) => (out[i] = (results as unknown as unknown[])[writes.length + k]));
  }
  return out as Results<Q>;
}

/**
 * `column IN (…values)` with one bound parameter, whatever the number of values: the statement text
 * stays the same (one cached prepared statement) and D1's 100-parameter limit never applies.
 */
export const inJson = (column: SQLWrapper, values: readonly (number | string)[]): SQL => sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
