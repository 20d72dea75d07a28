import { drizzle } from 'drizzle-orm/d1';
import { type Db, schema } from './client';
import { checkBatchColumns } from './batch-column-check';
import { sessionRouter } from './d1-sessions';
import { meterD1 } from './round-trips';

/**
 * The Db over a D1 binding, built once per isolate. Its statements run in the current request's D1
 * session (d1-sessions.ts `inSession`), or on the primary outside one; the meter sits above the
 * router, so it counts what every session sends. In test mode (`checkColumns`) the batch column check
 * sits below the meter, so its look-ups are not counted as the request's round trips.
 */
export const d1Db = (binding: D1Database, opts: { checkColumns?: boolean } = {}): Db => {
  const router = sessionRouter(binding);
  return drizzle(meterD1(opts.checkColumns ? checkBatchColumns(router) : router) as D1Database, { schema }) as unknown as Db;
};
