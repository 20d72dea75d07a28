/** Riders (src/db/riders.ts) on D1: see riders-cases.ts. */
import { env } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/d1';
import { it } from 'vitest';
import { type Db, schema } from '../../src/db/client';
import { meterD1 } from '../../src/db/round-trips';
import { riderCases } from './riders-cases';

it('reads ride on the next round trip of a request over D1, which answers as before', async () => {
  const db = drizzle(meterD1((env as unknown as { DB: D1Database }).DB) as D1Database, { schema }) as unknown as Db;
  await riderCases(db, 'd1');
});
