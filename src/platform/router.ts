/**
 * Route definitions: one object per endpoint carries its path, parameters, authentication and
 * documentation. `Router.route` mounts it on Hono with GitLab's order of checks (authenticate,
 * then validate parameters, then the handler) and records it for the OpenAPI document.
 */
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { AppEnv, Caller } from './context';
import type { RouteAuth } from './guards';
import { checkContentLength, requestParams } from './params';
import { DEFAULT_BODY_LIMIT } from './limits';
import type { Responses } from './response-schemas';
import { type ParamSpec, validateParams } from './validate';
import { checkPositivePagination } from './pagination';
import { FILE_SINK, type FileSink } from './multipart-params';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteDef<S extends z.ZodRawShape> extends RouteAuth {
  method: Method;
  /** Hono path relative to the mount point, with GitLab's parameter names (`/users/:id/keys/:key_id`). */
  path: string;
  summary: string;
  tags: string[];
  params?: ParamSpec<S>;
  /**
   * Success responses by status: the body's zod schema (shared with its presenter), `raw(type)` for
   * a non-JSON body, `null` for none. Errors are GitLab's error bodies on every route.
   */
  responses: Responses;
  /** The domain (src/<domain>/) that serves the route; set by src/routes.ts for every module it mounts. */
  domain?: string;
  /** Application rate-limit key of this endpoint (GitLab `check_rate_limit!`), e.g. `users_get_by_id`. */
  rateLimit?: string;
  /**
   * Largest request body in bytes (default DEFAULT_BODY_LIMIT, platform/limits.ts). Upload routes
   * derive theirs from a setting (GitLab's `max_attachment_size`), hence the function form.
   */
  bodyLimit?: number | ((c: Context<AppEnv>) => number | Promise<number>);
  /** Where a multipart body's file parts go as they arrive (multipart-params.ts), instead of memory. */
  fileSink?: FileSink;
  /**
   * The Hono pattern, when `path` (what the documentation and route table show) is one Hono cannot
   * match: a parameter inside a segment (`archive.:format`) becomes a regex parameter over the segment.
   */
  honoPath?: string;
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
  responses: Responses;
  domain?: string;
  /** Authentication options, for the OpenAPI document's security requirements. */
  auth: RouteAuth;
  /** The Hono pattern when it differs from `path` (RouteDef.honoPath). */
  honoPath?: string;
}

const matched = new WeakMap<Context, RouteRecord>();
/** The route that answered this request (undefined for the catch-all 404/405). */
export const routeOf = (c: Context): RouteRecord | undefined => matched.get(c);

/**
 * What runs before every handler, supplied by the app (src/app.ts) so the router stays below the
 * domains that implement it.
 */
export interface RouteGuards {
  /** Decides who is calling, throwing GitLab's 401/403 bodies (auth/authenticate.ts). */
  authenticate(c: Context<AppEnv>, route: RouteAuth): Promise<Caller>;
  /** Request throttles and the route's application rate limit (settings/rate-limits.ts). */
  enforceRateLimits(c: Context<AppEnv>, caller: Caller, key?: string): Promise<void>;
}

export class Router {
  constructor(
    readonly app: Hono<AppEnv>,
    readonly prefix: string,
    readonly guards: RouteGuards,
    readonly records: RouteRecord[] = [],
  ) {}

  /** A router for another prefix (e.g. '' for files GitLab serves outside /api/v4) that records into the same table. */
  at(prefix: string): Router {
    return new Router(this.app, prefix, this.guards, this.records);
  }

  /**
   * The same router with authentication defaults derived for every route, like the class-level
   * `allow_access_with_scope` and `before { authenticate! }` blocks of a GitLab API file.
   * Scopes are merged (the route's own first); other options apply unless the route sets them.
   */
  withDefaults(defaults: (def: RouteDef<z.ZodRawShape>) => Partial<RouteAuth> & { domain?: string }): Router {
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
    const record: RouteRecord = {
      method: def.method,
      path: fullPath,
      summary: def.summary,
      tags: def.tags,
      params: def.params as ParamSpec | undefined,
      scopes: def.scopes,
      responses: def.responses,
      domain: def.domain,
      auth: { signedIn: def.signedIn, admin: def.admin, noAuth: def.noAuth, jobToken: def.jobToken, basicAuthPat: def.basicAuthPat, anyScope: def.anyScope },
      ...(def.honoPath ? { honoPath: this.prefix + def.honoPath } : {}),
    };
    this.records.push(record);
    const methods = def.method === 'GET' ? ['GET', 'HEAD'] : [def.method];
    const honoPath = record.honoPath ?? fullPath;
    this.app.on(methods, [honoPath, `${honoPath}.json`], async (c) => {
      matched.set(c, record);
      // An oversized declared body is refused before authentication reads any of it; a chunked one
      // is cut off at the same limit while it is read (params.ts readBody).
      const limit = typeof def.bodyLimit === 'function' ? await def.bodyLimit(c) : (def.bodyLimit ?? DEFAULT_BODY_LIMIT);
      c.set('bodyLimit' as never, limit as never);
      checkContentLength(c, limit);
      if (!def.fileSink) return this.run(c, def, handler);
      // Credentials may come in the body (private_token), so a file part is stored while
      // authentication reads it (as Workhorse takes an upload before Rails answers); the request
      // keeps it only when it succeeds: a refused one (401, 403, 413, 400...) leaves nothing stored.
      c.set(FILE_SINK as never, def.fileSink as never);
      try {
        const res = await this.run(c, def, handler);
        if (res.status >= 400) await def.fileSink.discard(c);
        return res;
      } catch (err) {
        await def.fileSink.discard(c);
        throw err;
      }
    });
  }

  private async run<S extends z.ZodRawShape>(c: Context<AppEnv>, def: RouteDef<S>, handler: (ctx: RouteContext<S>) => Promise<Response> | Response): Promise<Response> {
    const caller = await this.guards.authenticate(c, def);
    c.set('caller', caller);
    await this.guards.enforceRateLimits(c, caller, def.rateLimit);
    const raw = await requestParams(c);
    await checkPositivePagination(c, def.params as ParamSpec | undefined, raw);
    const p = def.params ? validateParams(def.params, raw) : ({} as z.output<z.ZodObject<S>>);
    return handler({ c, p, caller });
  }
}
