/** The round-trip meter over a real D1 binding (db/round-trips.ts): a statement run is one round trip, a batch of any size is one. */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { meterD1, meterRequest, type Tally, totals } from '../../src/db/round-trips';

describe('round-trip meter on D1', () => {
  it('counts each run and each batch once, in the running request and in the totals', async () => {
    const db = meterD1((env as unknown as { DB: D1Database }).DB);
    const tally: Tally = { roundTrips: 0, statements: 0 };
    const before = { ...totals };
    const rows = await meterRequest(tally, async () => {
      const stmt = db.prepare('select ? as v');
      const one = await stmt.bind(1).first<{ v: number }>();
      const all = await stmt.bind(2).all<{ v: number }>();
      const raw = await stmt.bind(3).raw();
      const batch = await db.batch([stmt.bind(4), stmt.bind(5), db.prepare('select 6 as v')]);
      return [one?.v, all.results[0].v, raw[0][0], ...batch.map((r) => (r.results[0] as { v: number }).v)];
    });
    expect(rows).toEqual([1, 2, 3, 4, 5, 6]);
    expect(tally).toEqual({ roundTrips: 4, statements: 6 });
    expect(totals.roundTrips - before.roundTrips).toBe(4);
    expect(totals.statements - before.statements).toBe(6);
  });

  it('counts a read sent again with the same parameters and no write between as a repeat', async () => {
    const db = meterD1((env as unknown as { DB: D1Database }).DB);
    const tally: Tally = { roundTrips: 0, statements: 0, seen: new Set(), repeatedReads: 0 };
    await meterRequest(tally, async () => {
      const stmt = db.prepare('select ? as v');
      await stmt.bind(1).first();
      await stmt.bind(2).first(); // other parameters: not a repeat
      await db.batch([stmt.bind(1), db.prepare('select 7 as v')]); // a repeat
      await db.batch([db.prepare('update users set id = id where id = -1'), stmt.bind(1)]); // after a write: new
      await stmt.bind(1).all(); // a repeat of the read after the write
    });
    expect(tally.repeatedReads).toBe(2);
  });

  it('keeps concurrent requests apart', async () => {
    const db = meterD1((env as unknown as { DB: D1Database }).DB);
    const a: Tally = { roundTrips: 0, statements: 0 };
    const b: Tally = { roundTrips: 0, statements: 0 };
    await Promise.all([
      meterRequest(a, async () => {
        await db.prepare('select 1').all();
        await db.prepare('select 2').all();
      }),
      meterRequest(b, () => db.prepare('select 3').run()),
    ]);
    expect([a.roundTrips, b.roundTrips]).toEqual([2, 1]);
  });
});
