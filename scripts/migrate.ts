/**
 * `DATABASE_URL=libsql://… [LIBSQL_AUTH_TOKEN=…] npm run db:migrate`: applies drizzle/ migrations to a
 * libSQL database by URL (the remote database a Worker uses through LIBSQL_URL, or a `file:` path).
 * D1 is migrated by `wrangler d1 migrations apply`; the Node server migrates itself at start.
 */
import { createClient } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL is required (libsql://…, http(s)://… or file:…)');
  process.exit(2);
}
const client = createClient({ url, authToken: process.env.LIBSQL_AUTH_TOKEN });
await migrate(drizzle(client), { migrationsFolder: process.env.MIGRATIONS_FOLDER ?? 'drizzle' });
console.log(`migrations applied to ${url.replace(/\/\/[^@/]*@/, '//***@')}`);
client.close();
