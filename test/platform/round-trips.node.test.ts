/** The round-trip meter over libSQL (db/round-trips.ts) and its response header. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { libsqlFileClient } from '../../src/db/libsql-file';
import { meterLibsql, meterRequest, type Tally } from '../../src/db/round-trips';
import { api, createUser } from '../support';

describe('round-trip meter on libSQL', () => {
  it('counts an execute and a batch as one round trip each, statements one by one', async () => {
    const client = meterLibsql(libsqlFileClient(join(mkdtempSync(join(tmpdir(), 'rt-')), 'x.db')));
    const tally: Tally = { roundTrips: 0, statements: 0 };
    const out = await meterRequest(tally, async () => {
      const one = await client.execute({ sql: 'select ? as v', args: [1] });
      const batch = await client.batch([{ sql: 'select 2 as v', args: [] }, { sql: 'select 3 as v', args: [] }]);
      return [one.rows[0].v, ...batch.map((r) => r.rows[0].v)];
    });
    expect(out).toEqual([1, 2, 3]);
    expect(tally).toEqual({ roundTrips: 2, statements: 3 });
    client.close();
  });

  it('counts a read sent again with the same parameters and no write between as a repeat', async () => {
    const client = meterLibsql(libsqlFileClient(join(mkdtempSync(join(tmpdir(), 'rt-')), 'x.db')));
    await client.execute('create table t (v integer)');
    const tally: Tally = { roundTrips: 0, statements: 0, seen: new Set(), repeatedReads: 0 };
    await meterRequest(tally, async () => {
      await client.execute({ sql: 'select count(*) from t where v = ?', args: [1] });
      await client.execute({ sql: 'select count(*) from t where v = ?', args: [2] }); // other parameters: not a repeat
      await client.batch([{ sql: 'select count(*) from t where v = ?', args: [1] }, 'select 1']); // a repeat
      await client.batch([{ sql: 'insert into t values (?)', args: [1] }, { sql: 'select count(*) from t where v = ?', args: [1] }]); // after a write: new
      await client.execute({ sql: 'select count(*) from t where v = ?', args: [1] }); // a repeat of the read after the write
    });
    expect(tally.repeatedReads).toBe(2);
    // Without `seen` (production) nothing is looked for.
    const plain: Tally = { roundTrips: 0, statements: 0 };
    await meterRequest(plain, async () => {
      await client.execute('select 1');
      await client.execute('select 1');
    });
    expect(plain).toEqual({ roundTrips: 2, statements: 2 });
    client.close();
  });
});

describe('X-Storage-Round-Trips', () => {
  it('answers each request its own count', async () => {
    const u = await createUser();
    const [user, missing] = await Promise.all([api('/user', { token: u.token }), api('/projects/999999999', { token: u.token })]);
    // The caller is read at least once, whatever else the route reads.
    expect(Number(user.headers.get('x-storage-round-trips'))).toBeGreaterThanOrEqual(1);
    expect(Number(missing.headers.get('x-storage-round-trips'))).toBeGreaterThanOrEqual(1);
    // No storage at all for a request refused before authentication.
    const bad = await api('/user?private_token=x%00');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-storage-round-trips')).toBe('0');
    expect(user.headers.get('x-storage-repeated-reads')).toBe('0');
  });
});
