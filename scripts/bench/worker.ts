/**
 * workerd entry for the benchmark: the product's Worker (src/index.ts) unchanged, plus the floor route
 * and `GET /__bench/stats`: requests served by this isolate and the product meter's round trips and
 * statements (src/db/round-trips.ts wraps the D1 binding where the Db is built; this file imports the
 * same module, and the bundle holds one copy of it, so these are the totals the product counts).
 * CPU is read by the harness from /proc (server-stats.ts): a Worker cannot see its process's CPU.
 * Bundled by `wrangler deploy --dry-run` with the project's wrangler.toml, so the bundle is what ships.
 */
import worker from '../../src';
import { totals } from '../../src/db/round-trips';
import type { Env } from '../../src/platform/env';
import { withFloor } from './floor';
import { statsBody } from './server-stats';

export { RateLimiterObject } from '../../src/platform/rate-limiter-do';

let requests = 0;
const product = withFloor((req: Request, env: Env, ctx: ExecutionContext) => worker.fetch(req as Parameters<typeof worker.fetch>[0], env, ctx));

export default {
  fetch(req, env, ctx) {
    if (req.url.endsWith('/__bench/stats')) return Response.json(statsBody(requests, totals, null));
    requests++;
    return product(req, env, ctx);
  },
  queue: worker.queue,
} satisfies ExportedHandler<Env>;
