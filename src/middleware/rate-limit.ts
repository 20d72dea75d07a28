/**
 * Rate limits: the request throttles (GitLab Rack::Attack, per user or per IP) and the per-endpoint
 * application limits (GitLab ApplicationRateLimiter). Called by the router for every route after
 * authentication. Owned by the rate-limiting work; until it lands, nothing is throttled.
 */
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../context';

export async function enforceRateLimits(_c: Context<AppEnv>, _caller: Caller, _routeKey?: string): Promise<void> {}
