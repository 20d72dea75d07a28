/**
 * workerd entry for the benchmark: the product's Worker (src/index.ts) unchanged, plus the floor route.
 * Bundled by `wrangler deploy --dry-run` with the project's wrangler.toml, so the bundle is what ships.
 */
import worker from '../../src/index';
import type { Env } from '../../src/env';
import { withFloor } from './floor';

export { RateLimiterObject } from '../../src/storage/rate-limiter-do';

export default {
  fetch: withFloor((req: Request, env: Env, ctx: ExecutionContext) => worker.fetch(req as Parameters<typeof worker.fetch>[0], env, ctx)),
  queue: worker.queue,
} satisfies ExportedHandler<Env>;
