import { createClient } from '@libsql/client/web';
import { drizzle } from 'drizzle-orm/libsql';
import { type Db, schema } from './client';
import { meterLibsql } from './round-trips';

/** A remote libSQL server by URL (works on Workers and Node; `file:` URLs need the Node client, see node.ts). */
export const libsqlUrlDb = (url: string, authToken?: string): Db =>
  drizzle(meterLibsql(createClient({ url, authToken })), { schema }) as unknown as Db;
