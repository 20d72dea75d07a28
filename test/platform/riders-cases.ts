/**
 * The riders' cases, run over D1 (riders.workers.test.ts) and libSQL (riders.node.test.ts): reads
 * registered with `ride` travel on the request's next round trip, whose own results are unchanged.
 */
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Db } from '../../src/db/client';
import { ride } from '../../src/db/riders';
import { meterRequest, type Tally } from '../../src/db/round-trips';
import { users } from '../../src/db/schema';

/** Two columns named `v` (SQLite names a result column after the expression's column). */
const twoV = (db: Db) => db.select({ a: sql<number>`a.v`, b: sql<number>`b.v` }).from(sql`(select 1 as v) a, (select 2 as v) b`);
/** Columns named "2" and "1": a row object would list them as 1, 2. */
const indexNamed = (db: Db) => db.select({ two: sql<number>`2`.mapWith(Number), one: sql<number>`1`.mapWith(Number) }).from(sql`(select 0) t`);
const word = (db: Db) => db.select({ w: sql<string>`'w'` }).from(sql`(select 0) t`);
const rider = (db: Db) => db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(users);

async function metered<T>(work: () => Promise<T>): Promise<{ out: T; tally: Tally }> {
  const tally: Tally = { roundTrips: 0, statements: 0 };
  const out = await meterRequest(tally, work);
  return { out, tally };
}

export async function riderCases(db: Db, runtime: 'd1' | 'libsql') {
  const [{ n: userCount }] = await rider(db);
  const alone = await twoV(db);
  expect(alone).toEqual([{ a: 1, b: 2 }]);

  // A single read turned into a batch: its rows as before, the rider's results delivered, one round trip.
  let got: unknown[] | undefined;
  const single = await metered(async () => {
    expect(ride(db, 'k', [rider(db)], (r) => (got = r))).toBe(true);
    // The same key again in this request: one refresh.
    ride(db, 'k', [rider(db)], () => expect.unreachable());
    return [await twoV(db), await twoV(db)];
  });
  expect(single.out).toEqual([alone, alone]);
  expect(got).toEqual([[{ n: userCount }]]);
  expect(single.tally).toEqual({ roundTrips: 2, statements: 3 });

  // A batch: the rider's statements go after the route's, the route gets its own results only.
  // (Neither `twoV` nor `indexNamed` in a batch: Drizzle reads a D1 batch's rows by column name.)
  got = undefined;
  const batch = await metered(async () => {
    ride(db, 'k', [rider(db), word(db)], (r) => (got = r));
    return db.batch([word(db), rider(db)]);
  });
  expect(batch.out).toEqual([[{ w: 'w' }], [{ n: userCount }]]);
  expect(got).toEqual([[{ n: userCount }], [{ w: 'w' }]]);
  expect(batch.tally).toEqual({ roundTrips: 1, statements: 4 });

  // A write alone keeps its own round trip: the rider waits for the next one.
  got = undefined;
  const write = await metered(async () => {
    ride(db, 'k', [rider(db)], (r) => (got = r));
    await db.run(sql`update users set id = id where id = -1`);
    expect(got).toBeUndefined();
    return indexNamed(db);
  });
  expect(write.out).toEqual([{ one: 1, two: 2 }]);
  expect(got).toEqual([[{ n: userCount }]]);
  // Columns named like array indexes ("1", "2") cannot be read back in order from a D1 batch's row objects: sent again alone.
  expect(write.tally.roundTrips).toBe(runtime === 'd1' ? 3 : 2);

  // Outside a request there is nothing to ride on.
  expect(ride(db, 'k', [rider(db)], () => expect.unreachable())).toBe(false);
  expect(await twoV(db)).toEqual(alone);
}
