/**
 * Rate limits: the request throttles (GitLab Rack::Attack, per user or per IP) and the per-endpoint
 * application limits (GitLab ApplicationRateLimiter). The router calls `enforceRateLimits` for
 * every route after authentication; other code calls `checkRateLimit` for limits of its own
 * (issue creation: `checkRateLimit(c, 'issues_create', [project, user], threshold, 60)`).
 *
 * Counters go through the `RateLimiter` port: a Durable Object on Workers, memory on Node.
 */
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../platform/context';
import { ApiError, rateLimited } from '../platform/errors';
import { isExplicit, type Settings, settingsOf } from './settings';

export interface AppLimit {
  /** Setting holding the threshold (0 disables), when there is one. */
  setting?: string;
  /** GitLab's default threshold. */
  threshold: number;
  intervalSeconds: number;
  /** Administrators are not counted (`current_user.can_read_all_resources?`). */
  adminExempt?: boolean;
  /** Setting holding usernames that are never limited. */
  allowlistSetting?: string;
}

/**
 * Application limits by route key (lib/gitlab/application_rate_limiter.rb `rate_limits`;
 * the users API thresholds became settings in GitLab 17.10 with these defaults).
 */
export const APP_LIMITS: Record<string, AppLimit> = {
  users_get_by_id: { setting: 'users_get_by_id_limit', threshold: 300, intervalSeconds: 600, adminExempt: true, allowlistSetting: 'users_get_by_id_limit_allowlist' },
  user_status: { setting: 'users_api_limit_status', threshold: 240, intervalSeconds: 60 },
  user_ssh_keys: { setting: 'users_api_limit_ssh_keys', threshold: 120, intervalSeconds: 60 },
  user_ssh_key: { setting: 'users_api_limit_ssh_key', threshold: 120, intervalSeconds: 60 },
  user_gpg_keys: { setting: 'users_api_limit_gpg_keys', threshold: 120, intervalSeconds: 60 },
  user_gpg_key: { setting: 'users_api_limit_gpg_key', threshold: 120, intervalSeconds: 60 },
  user_followers: { setting: 'users_api_limit_followers', threshold: 100, intervalSeconds: 60 },
  user_following: { setting: 'users_api_limit_following', threshold: 100, intervalSeconds: 60 },
  issues_create: { setting: 'issues_create_limit', threshold: 0, intervalSeconds: 60 },
  notes_create: { setting: 'notes_create_limit', threshold: 300, intervalSeconds: 60, allowlistSetting: 'notes_create_limit_allowlist' },
  search_rate_limit: { setting: 'search_rate_limit', threshold: 30, intervalSeconds: 60 },
  search_rate_limit_unauthenticated: { setting: 'search_rate_limit_unauthenticated', threshold: 10, intervalSeconds: 60 },
  raw_blob: { setting: 'raw_blob_request_limit', threshold: 300, intervalSeconds: 60 },
  project_export: { setting: 'project_export_limit', threshold: 6, intervalSeconds: 60 },
  project_import: { setting: 'project_import_limit', threshold: 6, intervalSeconds: 60 },
  project_download_export: { setting: 'project_download_export_limit', threshold: 1, intervalSeconds: 60 },
  username_exists: { threshold: 20, intervalSeconds: 60 },
  user_sign_in: { threshold: 5, intervalSeconds: 600 },
  user_sign_up: { threshold: 20, intervalSeconds: 60 },
  // Per hook parent (project or group) and user (settings since GitLab 19.3, which removed the flags
  // web_hook_test_api_endpoint_rate_limit and web_hook_event_resend_api_endpoint_rate_limit).
  web_hook_test: { setting: 'web_hook_test_limit', threshold: 5, intervalSeconds: 60 },
  web_hook_event_resend: { setting: 'web_hook_event_resend_limit', threshold: 5, intervalSeconds: 60 },
};

/**
 * Threshold of an application limit: a value an administrator stored wins, then the operator's
 * RATE_LIMITS entry, then the setting's default, then GitLab's default.
 */
export function appLimitThreshold(settings: Settings, configLimits: Record<string, number>, key: string): number {
  const limit = APP_LIMITS[key];
  const fromConfig = configLimits[key];
  if (limit?.setting && isExplicit(settings, limit.setting)) return Number(settings[limit.setting]) || 0;
  if (typeof fromConfig === 'number' && Number.isFinite(fromConfig)) return fromConfig;
  if (limit?.setting && settings[limit.setting] != null) return Number(settings[limit.setting]) || 0;
  return limit?.threshold ?? 0;
}

/** The client address the way the edge reports it: CF-Connecting-IP, else the first X-Forwarded-For hop. */
export function clientIp(c: Context<AppEnv>): string {
  const cf = c.req.header('cf-connecting-ip')?.trim();
  if (cf) return cf;
  const first = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
  return first || 'unknown';
}

type ScopeItem = string | number | { id: number } | null | undefined;

const scopeKey = (scope: ScopeItem[]) =>
  scope.map((s) => (s == null ? 'nil' : typeof s === 'object' ? `id:${s.id}` : String(s))).join(':');

/**
 * ApplicationRateLimiter#throttled? plus `check_rate_limit!`: counts one action of `key` for
 * `scope` in a fixed window of `intervalSeconds`; above `threshold` answers 429
 * `{"message":{"error":"This endpoint has been requested too many times. Try again later."}}`
 * with `Retry-After: <interval>` (lib/api/helpers/rate_limiter.rb). Threshold 0 disables.
 * Pass `{ retryAfter: false }` for service-level limits, which send no header (RateLimitedError#headers).
 */
export async function checkRateLimit(
  c: Context<AppEnv>,
  key: string,
  scope: ScopeItem[],
  threshold: number,
  intervalSeconds: number,
  opts: { retryAfter?: boolean } = {},
): Promise<void> {
  if (!(threshold > 0) || !(intervalSeconds > 0)) return;
  const result = await c.var.rateLimiter.hit(`app:${key}:${scopeKey(scope)}`, intervalSeconds);
  if (result.count > threshold) throw rateLimited(opts.retryAfter === false ? undefined : intervalSeconds);
}

interface Throttle {
  name: string;
  /** Settings prefix of `_enabled`, `_requests_per_period`, `_period_in_seconds`. */
  settings: string;
  /** The discriminator this throttle counts the request under, or null when it does not apply. */
  key(req: ThrottleRequest): string | null;
}

interface ThrottleRequest {
  api: boolean;
  post: boolean;
  protectedPath: boolean;
  /** The token's or session's owner: an administrator using sudo is counted as themself. */
  userId: number | null;
  ip: string;
  /** A files API path, and GET /groups/:id with its (deprecated) projects. */
  filesApi: boolean;
  deprecatedApi: boolean;
  /** A throttle of its own (files or deprecated API) counts this request, for a caller without / with a user. */
  ownUnauthenticated: boolean;
  ownAuthenticated: boolean;
}

/**
 * Rack::Attack throttles in GitLab's order (lib/gitlab/rack_attack.rb `configure_throttles`), all
 * disabled by default. A request the files API or deprecated API throttle counts (when that one is
 * enabled) is left out of the general API throttles (Gitlab::RackAttack::Request#throttle_*_api?).
 */
const THROTTLES: Throttle[] = [
  { name: 'throttle_unauthenticated_api', settings: 'throttle_unauthenticated_api', key: (r) => (r.api && r.userId == null && !r.ownUnauthenticated ? r.ip : null) },
  { name: 'throttle_unauthenticated_web', settings: 'throttle_unauthenticated', key: (r) => (!r.api && r.userId == null ? r.ip : null) },
  { name: 'throttle_authenticated_api', settings: 'throttle_authenticated_api', key: (r) => (r.api && r.userId != null && !r.ownAuthenticated ? `user:${r.userId}` : null) },
  { name: 'throttle_authenticated_web', settings: 'throttle_authenticated_web', key: (r) => (!r.api && r.userId != null ? `user:${r.userId}` : null) },
  { name: 'throttle_unauthenticated_protected_paths', settings: 'throttle_protected_paths', key: (r) => (r.post && r.protectedPath && r.userId == null ? r.ip : null) },
  { name: 'throttle_authenticated_protected_paths_api', settings: 'throttle_protected_paths', key: (r) => (r.post && r.protectedPath && r.api && r.userId != null ? `user:${r.userId}` : null) },
  { name: 'throttle_authenticated_protected_paths_web', settings: 'throttle_protected_paths', key: (r) => (r.post && r.protectedPath && !r.api && r.userId != null ? `user:${r.userId}` : null) },
  { name: 'throttle_unauthenticated_files_api', settings: 'throttle_unauthenticated_files_api', key: (r) => (r.filesApi && r.userId == null ? r.ip : null) },
  { name: 'throttle_authenticated_files_api', settings: 'throttle_authenticated_files_api', key: (r) => (r.filesApi && r.userId != null ? `user:${r.userId}` : null) },
  { name: 'throttle_unauthenticated_deprecated_api', settings: 'throttle_unauthenticated_deprecated_api', key: (r) => (r.deprecatedApi && r.userId == null ? r.ip : null) },
  { name: 'throttle_authenticated_deprecated_api', settings: 'throttle_authenticated_deprecated_api', key: (r) => (r.deprecatedApi && r.userId != null ? `user:${r.userId}` : null) },
];

/** Gitlab::RackAttack::Request::FILES_PATH_REGEX and GROUP_PATH_REGEX. */
const FILES_PATH = /^\/api\/v\d+\/projects\/[^/]+\/repository\/files\/.+/;
const GROUP_PATH = /^\/api\/v\d+\/groups\/[^/]+\/?$/;

/** Gitlab::Utils.to_boolean as deprecated_api_request? uses it (blank counts as true there). */
const truthy = (v: string | undefined) => v == null || v === '' || ['true', 't', '1', 'yes', 'y', 'on'].includes(v.toLowerCase());

/**
 * An application limit of APP_LIMITS by key, threshold and interval resolved as for routes:
 * issue creation calls `applicationLimit(c, 'issues_create', [project.id, user.id], { retryAfter: false })`
 * (Issues::CreateService scope [project, current_user, external_author]; no Retry-After).
 */
export async function applicationLimit(c: Context<AppEnv>, key: string, scope: ScopeItem[], opts: { retryAfter?: boolean } = {}): Promise<void> {
  const settings = await settingsOf(c);
  const threshold = appLimitThreshold(settings, c.var.config?.rateLimits ?? {}, key);
  await checkRateLimit(c, key, scope, threshold, APP_LIMITS[key]?.intervalSeconds ?? 60, opts);
}

/** Rack::Attack: every matching throttle counts the request; the first one over its limit answers 429. */
async function throttleRequest(c: Context<AppEnv>, caller: Caller, settings: Settings): Promise<void> {
  const enabled = THROTTLES.filter((t) => settings[`${t.settings}_enabled`] === true);
  if (!enabled.length) return;
  const path = new URL(c.req.url).pathname;
  const protectedPaths = Array.isArray(settings.protected_paths) ? (settings.protected_paths as string[]) : [];
  const user = caller.sudoer ?? caller.user;
  const filesApi = FILES_PATH.test(path);
  const deprecatedApi = GROUP_PATH.test(path) && truthy(c.req.query('with_projects'));
  const on = (name: string) => settings[`throttle_${name}_enabled`] === true;
  const req: ThrottleRequest = {
    api: path.startsWith('/api/'),
    post: c.req.method === 'POST',
    protectedPath: protectedPaths.some((p) => p && path.startsWith(p)),
    userId: user?.id ?? null,
    ip: clientIp(c),
    filesApi,
    deprecatedApi,
    ownUnauthenticated: (filesApi && on('unauthenticated_files_api')) || (deprecatedApi && on('unauthenticated_deprecated_api')),
    ownAuthenticated: (filesApi && on('authenticated_files_api')) || (deprecatedApi && on('authenticated_deprecated_api')),
  };
  for (const t of enabled) {
    const discriminator = t.key(req);
    if (discriminator == null) continue;
    const limit = Number(settings[`${t.settings}_requests_per_period`]);
    const period = Number(settings[`${t.settings}_period_in_seconds`]);
    if (!(limit > 0) || !(period > 0)) continue;
    const { count, resetAt } = await c.var.rateLimiter.hit(`rack:${t.name}:${discriminator}`, period);
    if (count > limit) throttled(c, settings, t.name, limit, period, count, resetAt);
  }
}

function throttled(c: Context<AppEnv>, settings: Settings, name: string, limit: number, period: number, count: number, resetAt: number): never {
  const nowSeconds = Math.floor(Date.now() / 1000);
  const resetSeconds = Math.floor(resetAt / 1000);
  const headers: Record<string, string> = {
    'RateLimit-Name': name,
    // Gitlab::RackAttack.throttled_response_headers: the limit scaled to a one-minute window.
    'RateLimit-Limit': String(Math.ceil((limit * 60) / period)),
    'RateLimit-Observed': String(count),
    'RateLimit-Remaining': String(Math.max(limit - count, 0)),
    'RateLimit-Reset': String(resetSeconds),
    'RateLimit-ResetTime': new Date(resetSeconds * 1000).toUTCString(),
    'Retry-After': String(Math.max(resetSeconds - nowSeconds, 0)),
  };
  // GitLab's throttled_responder answers text/plain.
  throw new ApiError(429, `${(settings.rate_limiting_response_text as string | null) || 'Retry later'}\n`, headers);
}

/** Called by the router for every route, after authentication and before parameter validation. */
export async function enforceRateLimits(c: Context<AppEnv>, caller: Caller, routeKey?: string): Promise<void> {
  const settings = await settingsOf(c);
  await throttleRequest(c, caller, settings);
  if (!routeKey) return;
  const limit = APP_LIMITS[routeKey];
  const threshold = appLimitThreshold(settings, c.var.config?.rateLimits ?? {}, routeKey);
  if (!(threshold > 0)) return;
  const user = caller.user;
  if (limit?.adminExempt && caller.isAdmin) return;
  if (user && limit?.allowlistSetting) {
    const allow = (settings[limit.allowlistSetting] as unknown[] | undefined) ?? [];
    if (allow.some((u) => String(u).toLowerCase() === user.username.toLowerCase())) return;
  }
  // check_rate_limit_by_user_or_ip!: the signed-in user, else the client address.
  const scope = user ? [`user:${user.id}`] : [`ip:${clientIp(c)}`];
  await checkRateLimit(c, routeKey, scope, threshold, limit?.intervalSeconds ?? 60);
}
