/**
 * Workers entry point: D1 (or a libSQL URL), R2, the jobs Queue and the rate-limiter Durable Object.
 * The app is built once per isolate; bootstrap runs on the isolate's first request. Over D1 each
 * request runs in its own D1 session (db/d1-sessions.ts: reads may go to a nearby replica, the
 * `x-d1-bookmark` header keeps a client reading its own writes); a libSQL URL has no replicas.
 */
import { createApp, type CreatedApp } from './app';
import { loadConfig } from './platform/config';
import { d1Db } from './db/d1';
import { inSession } from './db/d1-sessions';
import { libsqlUrlDb } from './db/libsql';
import type { Env } from './platform/env';
import { handleJobBatch } from './platform/jobs-consumer';
import { sweepWebHooks } from './hooks/dispatch';
import { queueJobs } from './platform/jobs';
import { memoryRateLimiter } from './platform/rate-limiter';
import { bootstrap } from './auth/bootstrap';
import { r2Blobs } from './platform/blobs';
import { workerAssets } from './platform/assets';
import type { Db } from './db/client';
import { durableRateLimiter } from './platform/rate-limiter-do';

export { RateLimiterObject } from './platform/rate-limiter-do';

let built: { app: CreatedApp; db: Db; config: ReturnType<typeof loadConfig>; replicated?: D1Database } | undefined;
/**
 * Set once the root user exists. Not a shared promise: on Workers a request may not await I/O
 * started by another request, so each request that arrives before it is set runs the (idempotent)
 * bootstrap itself.
 */
let bootstrapped = false;

async function ready(b: NonNullable<typeof built>) {
  if (bootstrapped) return;
  await bootstrap(b.db, b.config);
  bootstrapped = true;
}

function build(env: Env) {
  if (built) return built;
  const config = loadConfig(env);
  const db = env.LIBSQL_URL ? libsqlUrlDb(env.LIBSQL_URL, env.LIBSQL_AUTH_TOKEN) : env.DB ? d1Db(env.DB, { checkColumns: config.validateResponses }) : null;
  if (!db) throw new Error('No database: bind D1 as DB or set LIBSQL_URL');
  if (!env.BLOBS) throw new Error('No R2 bucket bound as BLOBS');
  if (!env.JOBS) throw new Error('No Queue bound as JOBS');
  const app = createApp({
    db,
    blobs: r2Blobs(env.BLOBS),
    jobs: queueJobs(env.JOBS),
    config,
    rateLimiter: env.RATE_LIMITER ? durableRateLimiter(env.RATE_LIMITER) : memoryRateLimiter(),
    assets: env.ASSETS ? workerAssets(env.ASSETS) : undefined,
  });
  built = { app, db, config, replicated: env.LIBSQL_URL ? undefined : env.DB };
  return built;
}

export default {
  async fetch(request, env, ctx) {
    const b = build(env);
    await ready(b);
    const handle = async () => b.app.app.fetch(request, env, ctx);
    return b.replicated ? inSession(b.replicated, request, handle) : handle();
  },
  async queue(batch, env, _ctx) {
    const b = build(env);
    await ready(b);
    // Outside any request's D1 session, so over D1 every statement goes to the primary: jobs write,
    // and read what the request that queued them has just written.
    const db = env.LIBSQL_URL ? libsqlUrlDb(env.LIBSQL_URL, env.LIBSQL_AUTH_TOKEN) : d1Db(env.DB!, { checkColumns: env.VALIDATE_RESPONSES === 'true' });
    await handleJobBatch(batch, { db, blobs: r2Blobs(env.BLOBS!), jobs: queueJobs(env.JOBS!), config: loadConfig(env) });
  },
  // The cron trigger (wrangler.toml): the webhook sweep re-sends what lost Queue messages left pending.
  async scheduled(_event, env, _ctx) {
    const b = build(env);
    await ready(b);
    const db = env.LIBSQL_URL ? libsqlUrlDb(env.LIBSQL_URL, env.LIBSQL_AUTH_TOKEN) : d1Db(env.DB!, { checkColumns: env.VALIDATE_RESPONSES === 'true' });
    await sweepWebHooks({ db, blobs: r2Blobs(env.BLOBS!), jobs: queueJobs(env.JOBS!), config: loadConfig(env) });
  },
} satisfies ExportedHandler<Env>;
