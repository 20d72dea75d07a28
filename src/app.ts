/**
 * The one Hono app both runtimes serve. `createApp(deps)` wires the ports onto the context,
 * mounts every resource under /api/v4 (alphabetically), and ends with GitLab's catch-all.
 */
import { Hono } from 'hono';
import type { AppEnv, Deps } from './context';
import { methodNotAllowed } from './lib/errors';
import { Router, type RouteRecord } from './lib/router';
import { notFoundHandler, onError } from './middleware/errors';
import { requestBasics } from './middleware/request';
import { loadSettings, type Settings } from './services/settings';
import { mountApi } from './api';

export interface CreatedApp {
  app: Hono<AppEnv>;
  routes: RouteRecord[];
}

export function createApp(deps: Deps): CreatedApp {
  const app = new Hono<AppEnv>();
  app.use('*', requestBasics());
  app.use('*', async function injectDeps(c, next) {
    c.set('db', deps.db);
    c.set('blobs', deps.blobs);
    c.set('jobs', deps.jobs);
    c.set('config', deps.config);
    c.set('rateLimiter', deps.rateLimiter);
    c.set('assets', deps.assets);
    let settings: Promise<Settings> | undefined;
    c.set('settings', () => (settings ??= loadSettings(deps.db)));
    await next();
  });

  const api = new Router(app, '/api/v4');
  const web = new Router(app, '');
  mountApi(api, web);

  const patterns = [...api.records, ...web.records].map((r) => ({ method: r.method, re: pathRegex(r.path) }));
  app.notFound((c) => {
    // A known path with another method: Grape's 405 (reference 1 §2.2), not the catch-all 404.
    const path = new URL(c.req.url).pathname.replace(/\.json$/, '');
    const allowed = patterns.filter((p) => p.re.test(path)).map((p) => p.method);
    if (allowed.length && !allowed.includes(c.req.method as never)) {
      const err = methodNotAllowed();
      c.header('Allow', [...new Set(allowed.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])))].join(', '));
      return c.json(err.body, 405);
    }
    return notFoundHandler(c);
  });
  app.onError(onError);
  return { app, routes: [...api.records, ...web.records] };
}

/** `/users/:id/keys` → a regex over one URL segment per parameter (encoded `%2F` stays inside a segment). */
function pathRegex(path: string): RegExp {
  const src = path.split('/').map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
  return new RegExp(`^${src}$`);
}
