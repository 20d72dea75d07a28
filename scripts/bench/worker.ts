/**
 * workerd entry for the benchmark: the product's Worker (src/index.ts) unchanged, plus the floor route
 * and `GET /__bench/stats` (requests served and D1 statements prepared by this isolate; the app keeps
 * the D1 binding it was built with, so wrapping it on every request wraps the one it uses).
 * Bundled by `wrangler deploy --dry-run` with the project's wrangler.toml, so the bundle is what ships.
 */
import worker from '../../src';
import type { Env } from '../../src/platform/env';
import { withFloor } from './floor';

export { RateLimiterObject } from '../../src/platform/rate-limiter-do';

const stats = { requests: 0, statements: 0 };

function counted(db: D1Database): D1Database {
  return new Proxy(db, {
    get(target, key) {
      if (key === 'prepare') return (query: string) => (stats.statements++, target.prepare(query));
      const v = Reflect.get(target, key);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

const product = withFloor((req: Request, env: Env, ctx: ExecutionContext) =>
  worker.fetch(req as Parameters<typeof worker.fetch>[0], env.DB ? { ...env, DB: counted(env.DB) } : env, ctx),
);

export default {
  fetch(req, env, ctx) {
    if (req.url.endsWith('/__bench/stats')) return Response.json(stats);
    stats.requests++;
    return product(req, env, ctx);
  },
  queue: worker.queue,
} satisfies ExportedHandler<Env>;
