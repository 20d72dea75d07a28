/**
 * Per-request plumbing: request id, GitLab's security headers, request-line limit, removed API
 * versions, and wrong methods on known routes.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './context';
import { grapeError } from './errors';
import { randomIdHex } from './crypto';
import { MAX_URL_BYTES, uriTooLong } from './limits';


export function requestBasics(): MiddlewareHandler<AppEnv> {
  return async function requestBasicsMiddleware(c, next) {
    const requestId = c.req.header('x-request-id')?.slice(0, 64) || randomIdHex(13);
    c.set('requestId', requestId);
    c.header('X-Request-Id', requestId);
    c.header('X-Frame-Options', 'SAMEORIGIN');
    c.header('X-Content-Type-Options', 'nosniff');
    if (c.req.url.length > MAX_URL_BYTES) {
      throw uriTooLong();
    }
    const path = new URL(c.req.url).pathname;
    if (path === '/api/v3' || path.startsWith('/api/v3/')) {
      throw grapeError('API V3 is no longer supported. Use API V4 instead.', 410);
    }
    await next();
  };
}
