/**
 * Route definitions: one object per endpoint carries its path, parameters, authentication and
 * documentation. `Router.route` mounts it on Hono with GitLab's order of checks (authenticate,
 * then validate parameters, then the handler) and records it for the OpenAPI document.
 */
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { AppEnv, Caller } from './context';
import { authenticate, type RouteAuth } from '../auth/authenticate';
import { enforceRateLimits } from '../settings/rate-limits';
import { requestParams } from './params';
import { type ParamSpec, validateParams } from './validate';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteDef<S extends z.ZodRawShape> extends RouteAuth {
  method: Method;
  /** Hono path relative to the mount point, with GitLab's parameter names (`/users/:id/keys/:key_id`). */
  path: string;
  summary: string;
  tags: string[];
  params?: ParamSpec<S>;
  /** Documented success status (OpenAPI only). */
  status?: number;
  /** Application rate-limit key of this endpoint (GitLab `check_rate_limit!`), e.g. `users_get_by_id`. */
  rateLimit?: string;
}

export interface RouteContext<S extends z.ZodRawShape> {
  c: Context<AppEnv>;
  p: z.output<z.ZodObject<S>>;
  caller: Caller;
}

export interface RouteRecord {
  method: Method;
  path: string;
  summary: string;
  tags: string[];
  params?: ParamSpec;
  scopes?: string[];
  status?: number;
}

export class Router {
  readonly records: RouteRecord[] = [];

  constructor(
    readonly app: Hono<AppEnv>,
    readonly prefix: string,
  ) {}

  /**
   * The same router with authentication defaults derived for every route, like the class-level
   * `allow_access_with_scope` and `before { authenticate! }` blocks of a GitLab API file.
   * Scopes are merged (the route's own first); other options apply unless the route sets them.
   */
  withDefaults(defaults: (def: RouteDef<z.ZodRawShape>) => Partial<RouteAuth>): Router {
    const child = Object.create(this) as Router;
    child.route = (def, handler) => {
      const d = defaults(def as RouteDef<z.ZodRawShape>);
      const scopes = d.scopes || def.scopes ? [...new Set([...(def.scopes ?? []), ...(d.scopes ?? [])])] : undefined;
      return this.route({ ...d, ...def, scopes }, handler);
    };
    return child;
  }

  route<S extends z.ZodRawShape>(def: RouteDef<S>, handler: (ctx: RouteContext<S>) => Promise<Response> | Response) {
    const fullPath = this.prefix + def.path;
    this.records.push({ method: def.method, path: fullPath, summary: def.summary, tags: def.tags, params: def.params as ParamSpec | undefined, scopes: def.scopes, status: def.status });
    const methods = def.method === 'GET' ? ['GET', 'HEAD'] : [def.method];
    this.app.on(methods, [fullPath, `${fullPath}.json`], async (c) => {
      const caller = await authenticate(c, def);
      c.set('caller', caller);
      await enforceRateLimits(c, caller, def.rateLimit);
      const raw = await requestParams(c);
      const p = def.params ? validateParams(def.params, raw) : ({} as z.output<z.ZodObject<S>>);
      return handler({ c, p, caller });
    });
  }
}
