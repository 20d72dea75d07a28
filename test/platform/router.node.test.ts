import { Hono } from 'hono';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config';
import type { AppEnv } from '../../src/platform/context';
import { onError } from '../../src/platform/error-handler';
import { Router } from '../../src/platform/router';
import { g, params } from '../../src/platform/validate';

/** A bare app with one anonymous-friendly route, to check routing itself. */
function appWith(path: string) {
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    c.set('config', loadConfig({}));
    await next();
  });
  // Every caller is anonymous here: these tests are about routing, not authentication.
  const r = new Router(app, '/api/v4', { authenticate: async () => ({ user: null, sudoer: null, credential: null, isAdmin: false }), enforceRateLimits: async () => {} });
  r.route({ method: 'GET', path, summary: 't', tags: ['t'], params: params({ id: g.string(), file_path: g.string().optional() }), responses: { 200: z.record(z.string(), z.string()) } }, ({ c, p }) => c.json(p));
  app.onError(onError);
  return app;
}

describe('Router', () => {
  it('passes a URL-encoded full path (`%2F`) to the handler as one decoded segment', async () => {
    const res = await appWith('/projects/:id').request('/api/v4/projects/group%2Fsub%2Fproj');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 'group/sub/proj' });
  });
  it('does not match an unencoded slash (spec Errors 4: it must be encoded)', async () => {
    const res = await appWith('/projects/:id').request('/api/v4/projects/group/sub');
    expect(res.status).toBe(404);
  });
  it('answers HEAD on GET routes without a body', async () => {
    const res = await appWith('/projects/:id').request('/api/v4/projects/7', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });
  it('lets path parameters win over query parameters of the same name', async () => {
    const res = await appWith('/projects/:id').request('/api/v4/projects/7?id=9');
    expect(await res.json()).toEqual({ id: '7' });
  });
});
