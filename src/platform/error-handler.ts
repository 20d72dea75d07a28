/**
 * `onError` and the catch-all: ApiError → GitLab's body; anything else is logged with the request
 * id and answered `{"message":"500 Internal Server Error"}` (lib/api/api.rb).
 */
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from './context';
import { ApiError } from './errors';

function respond(c: Context, status: number, body: unknown, headers: Record<string, string> = {}) {
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  if (status === 304 || body === null) return c.body(null, status as 304);
  if (typeof body === 'string') return c.body(body, status as 400, { 'Content-Type': 'text/plain' });
  return c.json(body, status as 400);
}

export const onError: ErrorHandler<AppEnv> = (err, c) => {
  if (err instanceof ApiError) return respond(c, err.status, err.body, err.headers);
  if (err instanceof HTTPException) {
    // Hono's own body-limit and similar guards.
    if (err.status === 413) return respond(c, 413, { message: '413 Request Entity Too Large' });
    return respond(c, err.status, { message: `${err.status} ${err.message || 'Error'}` });
  }
  const requestId = c.get('requestId') ?? 'unknown';
  console.error(JSON.stringify({ level: 'error', request_id: requestId, method: c.req.method, path: new URL(c.req.url).pathname, error: String(err), stack: (err as Error)?.stack }));
  return respond(c, 500, { message: '500 Internal Server Error' });
};

/** Catch-all for unknown routes: 404 `{"error":"404 Not Found"}` for any method (lib/api/api.rb). */
export const notFoundHandler: NotFoundHandler<AppEnv> = (c) => c.json({ error: '404 Not Found' }, 404);
