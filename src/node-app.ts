/**
 * Builds the app for Node: libSQL (a `file:` path or a server URL), filesystem blobs, in-process jobs
 * and in-memory rate limits. Migrations are applied and the root account bootstrapped before use.
 */
import { createClient } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { createApp, type CreatedApp } from './app';
import { type Config, loadConfig } from './platform/config';
import { type Db, schema } from './db/client';
import { filePathOf, libsqlFileClient } from './db/libsql-file';
import { meterLibsql } from './db/round-trips';
import type { Env } from './platform/env';
import type { BlobStore } from './platform/blobs';
import type { JobDeps } from './platform/jobs-consumer';
import { inProcessJobs } from './platform/jobs-in-process';
import { sweepWebHooks } from './hooks/dispatch';
import { memoryRateLimiter } from './platform/rate-limiter';
import { bootstrap } from './auth/bootstrap';
import { fsBlobs, sweepTempFiles } from './platform/fs-blobs';
import { SCALAR_BUNDLE } from './platform/api-docs';
import { packageAssets } from './platform/package-assets';

export interface NodeAppOptions {
  databaseUrl: string;
  blobRoot: string;
  migrationsFolder: string;
  env?: Env;
}

export async function createNodeApp(opts: NodeAppOptions): Promise<CreatedApp & { db: Db; config: Config; jobs: ReturnType<typeof inProcessJobs>; blobs: BlobStore }> {
  // The test suite turns response checking and round-trip reporting on for every app it builds (vitest.node.config.ts).
  const env = opts.env ? { VALIDATE_RESPONSES: process.env.VALIDATE_RESPONSES, REPORT_ROUND_TRIPS: process.env.REPORT_ROUND_TRIPS, REPORT_REPEATED_READS: process.env.REPORT_REPEATED_READS, ...opts.env } : (process.env as unknown as Env);
  const config = loadConfig(env);
  // A database file gets our cached-statement client (src/db/libsql-file.ts); a server URL or
  // :memory: gets @libsql/client.
  const filePath = filePathOf(opts.databaseUrl);
  const client = filePath ? libsqlFileClient(filePath) : createClient({ url: opts.databaseUrl, authToken: env.LIBSQL_AUTH_TOKEN });
  if (opts.databaseUrl.startsWith('file:') || opts.databaseUrl === ':memory:') {
    // WAL lets readers run beside the writer; busy_timeout waits instead of failing under load.
    await client.execute('PRAGMA journal_mode = WAL');
    await client.execute('PRAGMA busy_timeout = 5000');
    // Never OFF: FULL syncs the WAL at every commit, so an acknowledged write survives a process
    // kill and a power loss alike (NORMAL would survive only the former).
    await client.execute('PRAGMA synchronous = FULL');
    // SQLite's default page cache is 2 MB: a list that looks up a few hundred issue rows by id
    // (labels, assignee, search) then reads most pages from the OS again. 64 MB keeps the issue
    // rows and the list indexes of the benchmark's 100,000 issues in memory (issue 13: a
    // filtered list's count went from 3.7 to 1.8 ms, an assignee count from 0.9 to 0.3 ms).
    await client.execute('PRAGMA cache_size = -65536');
  }
  const db = drizzle(meterLibsql(client), { schema }) as unknown as Db;
  await migrate(db as never, { migrationsFolder: opts.migrationsFolder });
  await bootstrap(db, config);
  // Temporary blob files a crashed predecessor left between write and rename.
  await sweepTempFiles(opts.blobRoot);
  const blobs = fsBlobs(opts.blobRoot);
  let deps: JobDeps;
  const jobs = inProcessJobs(() => deps);
  deps = { db, blobs, jobs, config };
  const assets = packageAssets({ [SCALAR_BUNDLE.urlPath]: SCALAR_BUNDLE });
  const created = createApp({ db, blobs, jobs, config, rateLimiter: memoryRateLimiter(), assets });
  // The webhook sweep (hooks/dispatch.ts): what a lost dispatch or delivery left pending is sent again.
  setInterval(() => void sweepWebHooks(deps).catch((err) => console.error(JSON.stringify({ level: 'error', job: 'web_hooks.sweep', error: String(err) }))), 60_000).unref();
  return { ...created, db, config, jobs, blobs };
}
