/**
 * Resolves the caller the way GitLab's API guard does (lib/api/api_guard.rb `find_user_from_sources`,
 * lib/gitlab/auth/auth_finders.rb, lib/api/helpers.rb `current_user`/`sudo!`), in GitLab's order:
 *  1. on job-token routes a Bearer value is tried as a CI job token;
 *  2. the access token: OAuth (`access_token` param, `Authorization: Bearer`, `bearer_token` param),
 *     else a personal/impersonation token (`private_token` param, `PRIVATE-TOKEN` header, then the same
 *     OAuth value); a value that matches nothing is 401;
 *  3. on job-token routes `job_token`/`token` params or the `JOB-TOKEN` header;
 *  4. the `_service_session` cookie, honoured for GET/HEAD or with the session's CSRF token.
 * Then: token validity (expired, revoked, impersonation disabled) -> account may use the API ->
 * sudo -> scopes. Guards (`requireUser`, `requireAdmin`) are calls inside handlers; this only decides
 * who is calling (plus `admin: true` routes, which GitLab guards in a `before` block ahead of params).
 */
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { and, eq, sql } from 'drizzle-orm';
import type { AppEnv, Caller, Credential, UserRow } from '../platform/context';
import { personalAccessTokens, users } from '../db/schema';
import { findUserById, findUserByUsername } from '../users/user-queries';
import { noteAvatarService } from '../users/user-entity';
import { safeEqual, tokenDigest } from '../platform/crypto';
import {
  forbidden,
  insufficientScope,
  invalidToken,
  notFound,
  TOKEN_EXPIRED,
  TOKEN_IMPERSONATION_DISABLED,
  TOKEN_REVOKED,
  unauthorized,
} from '../platform/errors';
import { baseUrl } from '../platform/pagination';
import { requestParams } from '../platform/params';
import { oauthExpired, patExpired } from './tokens';
import { requireAdmin, type RouteAuth } from '../platform/guards';
import { primeSettings, settingsOf, settingsPrefetch } from '../settings/settings';
import { batchReads } from '../db/batch-reads';
import { cachedCredential, callerCacheGeneration, invalidateCaller, rememberCredential, type CachedCredential } from '../users/caller-cache';
import { oauthLookup, oauthUser, patLookup, patUser, refreshOnNextTrip, sessionLookup, sessionUser } from './credential-reads';
import { decimalId } from '../platform/record-id';
import { today } from '../platform/time';

export const SESSION_COOKIE = '_service_session';

const READ_ONLY_SCOPES = new Set(['read_api', 'read_user']);
const anonymous: Caller = { user: null, sudoer: null, credential: null, isAdmin: false };

/** `Ci::Build::TOKEN_PREFIX`: a job token sent as PRIVATE-TOKEN is not looked up as a personal token (auth_finders.rb). */
const JOB_TOKEN_PREFIX = 'glcbt-';
/** GitLab records `last_used_at` at most this often (PersonalAccessTokens::LastUsedService). */
export const LAST_USED_INTERVAL_MS = 10 * 60_000;

interface FoundToken {
  credential: Credential;
  user: UserRow;
  expired: boolean;
  revoked: boolean;
  /** The cached rows it came from. */
  entry: Extract<CachedCredential, { kind: 'pat' | 'oauth' }>;
}

/** A CI job authenticated by its token. */
export interface AuthenticatedJob {
  jobId: number;
  user: UserRow;
}

/**
 * How job tokens are resolved. No CI jobs exist yet, so the default finds none and every job token
 * is 401 (`find_valid_running_job_by_token!`); the CI module installs the real lookup here.
 */
export type JobTokenResolver = (c: Context<AppEnv>, token: string) => Promise<AuthenticatedJob | null>;
let resolveJobToken: JobTokenResolver = async () => null;
export function setJobTokenResolver(resolver: JobTokenResolver) {
  resolveJobToken = resolver;
}

function bearer(c: Context): string | undefined {
  const h = c.req.header('authorization');
  const m = h?.match(/^Bearer\s+(.+)$/i);
  return m?.[1].trim() || undefined;
}

/** The password of `Authorization: Basic`, if well-formed. */
function basicPassword(c: Context): string | undefined {
  const m = c.req.header('authorization')?.match(/^Basic\s+(.+)$/i);
  if (!m) return undefined;
  try {
    const decoded = atob(m[1].trim());
    const i = decoded.indexOf(':');
    return i >= 0 && i < decoded.length - 1 ? decoded.slice(i + 1) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

/**
 * The validity facts of a token, from its rows as cached or just read. The user is a copy: a handler
 * changing its caller's fields must not change what the next request of this caller sees.
 */
function foundFrom(entry: Extract<CachedCredential, { kind: 'pat' | 'oauth' }>): FoundToken {
  if (entry.kind === 'oauth') {
    const t = entry.token;
    return { credential: { kind: 'oauth', id: t.id, scopes: JSON.parse(t.scopes) }, user: { ...entry.user }, expired: oauthExpired(t), revoked: t.revokedAt != null, entry };
  }
  const t = entry.token;
  return {
    credential: { kind: t.impersonation ? 'impersonation_token' : 'personal_access_token', id: t.id, scopes: JSON.parse(t.scopes) },
    user: { ...entry.user },
    expired: patExpired(t.expiresAt),
    revoked: t.revoked,
    entry,
  };
}

/**
 * The OAuth token `oauthValue`, else the personal or impersonation token `patValue` (GitLab's order).
 * From this isolate's cache when fresh (no round trip); otherwise both lookups, each joined with its
 * user, and the settings row when this isolate has no fresh copy, go in one batch: one round trip.
 */
async function findToken(c: Context<AppEnv>, oauthValue: string | undefined, patValue: string | undefined): Promise<FoundToken | null> {
  const db = c.var.db;
  const pepper = c.var.config.tokenPepper;
  const oauthDigest = oauthValue ? await tokenDigest(oauthValue, pepper) : undefined;
  const patDigest = !patValue ? undefined : patValue === oauthValue ? oauthDigest : await tokenDigest(patValue, pepper);
  const cachedOauth = oauthDigest ? cachedCredential(db, 'oauth', oauthDigest) : undefined;
  if (cachedOauth) {
    if (cachedOauth.aging) refreshOnNextTrip(db, 'oauth', oauthDigest!);
    return foundFrom(cachedOauth.entry);
  }
  // A cached personal token answers only when no other OAuth value could take precedence over it.
  const cachedPat = patDigest && (!oauthDigest || oauthDigest === patDigest) ? cachedCredential(db, 'pat', patDigest) : undefined;
  if (cachedPat) {
    if (cachedPat.aging) refreshOnNextTrip(db, 'pat', patDigest!);
    return foundFrom(cachedPat.entry);
  }

  const generation = callerCacheGeneration(db);
  const prefetch = settingsPrefetch(db);
  const [oauthRows, oauthUsers, patRows, patUsers, settingsRows] = await batchReads(db, [
    oauthDigest ? oauthLookup(db, oauthDigest) : undefined,
    oauthDigest ? oauthUser(db, oauthDigest) : undefined,
    patDigest ? patLookup(db, patDigest) : undefined,
    patDigest ? patUser(db, patDigest) : undefined,
    prefetch.query,
  ]);
  primeSettings(db, prefetch, settingsRows);
  const [o, ou] = [oauthRows?.[0], oauthUsers?.[0]];
  const [p, pu] = [patRows?.[0], patUsers?.[0]];
  // A credential whose user is gone matches nothing, as the inner join did.
  const entry: CachedCredential | undefined = o && ou ? { kind: 'oauth', token: o, user: ou } : p && pu ? { kind: 'pat', token: p, user: pu } : undefined;
  if (!entry) return null;
  rememberCredential(db, generation, entry.kind === 'oauth' ? oauthDigest! : patDigest!, entry);
  return foundFrom(entry);
}

/** The personal or impersonation token each request authenticated with, as read (or cached) for it. */
const authenticatedTokens = new WeakMap<Request, Extract<CachedCredential, { kind: 'pat' }>['token']>();

/**
 * The row of the personal token `id` this request authenticated with, so the /self routes do not read
 * it again (a copy; as fresh as the caller cache: writes to it compare-and-set on `revoked`).
 */
export function authenticatedPersonalToken(c: Context, id: number) {
  const row = authenticatedTokens.get(c.req.raw);
  return row && row.id === id ? { ...row } : undefined;
}

/**
 * Records `last_used_at` at most every 10 minutes. The conditional update lets concurrent requests
 * race harmlessly; it is awaited so the value a client reads back right after is already there. The
 * cached row takes the new value too, so this isolate does not write again within the interval.
 *
 * The same write records the user's `last_activity_on` (Users::ActivityService: once a day, for API
 * use among others; GET /user/activities lists it) when the day changed since the cached value:
 * no request pays a statement of its own for it, and a day's first use is recorded within the
 * 10-minute interval at worst.
 */
async function touchToken(c: Context<AppEnv>, entry: Extract<CachedCredential, { kind: 'pat' }>) {
  const now = Date.now();
  const lastUsedAt = entry.token.lastUsedAt;
  if (lastUsedAt != null && now - lastUsedAt < LAST_USED_INTERVAL_MS) return;
  const db = c.var.db;
  const touch = db
    .update(personalAccessTokens)
    .set({ lastUsedAt: now })
    .where(and(eq(personalAccessTokens.id, entry.token.id), sql`(${personalAccessTokens.lastUsedAt} IS NULL OR ${personalAccessTokens.lastUsedAt} <= ${now - LAST_USED_INTERVAL_MS})`));
  const day = today();
  if (entry.user.lastActivityOn === day) await touch.run();
  else {
    await db.batch([
      touch,
      db.update(users).set({ lastActivityOn: day }).where(and(eq(users.id, entry.user.id), sql`(${users.lastActivityOn} IS NULL OR ${users.lastActivityOn} < ${day})`)),
    ]);
    entry.user.lastActivityOn = day;
  }
  entry.token.lastUsedAt = now;
}

/**
 * A revoked token presented to a rotation endpoint revokes every token rotated from it
 * (auth_finders.rb `revoke_token_family`, PersonalAccessTokens::RevokeTokenFamilyService): whoever
 * replays an old token cannot keep rotating a stolen family.
 */
async function revokeTokenFamily(c: Context<AppEnv>, tokenId: number, userId: number) {
  const now = Date.now();
  await c.var.db.run(sql`
    WITH RECURSIVE family(id) AS (
      SELECT id FROM personal_access_tokens WHERE previous_token_id = ${tokenId}
      UNION
      SELECT p.id FROM personal_access_tokens p JOIN family f ON p.previous_token_id = f.id
    )
    UPDATE personal_access_tokens SET revoked = 1, updated_at = ${now}
    WHERE id IN (SELECT id FROM family) AND revoked = 0`);
  invalidateCaller(c.var.db, { userId });
}

const ROTATION_PATH = /access_tokens\/(\d+|self)\/rotate(\.json)?$/;

/**
 * Reasons a valid account may not use the API, in GitLab's order
 * (lib/gitlab/auth/user_access_denied_reason.rb, GlobalPolicy `access_api`).
 */
export function accessDeniedReason(user: UserRow, url: string): string | null {
  const internal = user.userType !== 'human' && user.userType !== 'project_bot' && user.userType !== 'service_account';
  const blocked = ['blocked', 'ldap_blocked', 'banned', 'blocked_pending_approval'].includes(user.state);
  if (internal) return 'This action cannot be performed by internal users';
  if (user.state === 'blocked_pending_approval') return 'Your account is pending approval from your administrator and hence blocked.';
  if (user.state === 'deactivated') {
    return `Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account at ${url}`;
  }
  if (blocked) return 'Your account has been blocked.';
  if (passwordExpired(user)) return 'Your password expired. Please access GitLab from a web browser to update your password.';
  return null;
}

/** User#password_expired_if_applicable?: an administrator-set password must be changed before API use. */
export function passwordExpired(user: UserRow, now = Date.now()): boolean {
  if (user.userType !== 'human') return false;
  if (user.passwordExpiresAt == null || user.passwordExpiresAt > now) return false;
  return !user.passwordAutomaticallySet;
}

function scopeSufficient(scope: string, method: string): boolean {
  return !READ_ONLY_SCOPES.has(scope) || method === 'GET' || method === 'HEAD';
}

interface Resolved {
  found: FoundToken | null;
  job: AuthenticatedJob | null;
  session: { user: UserRow } | null;
}

/**
 * Who the credentials of this request belong to, with the token validity checks. Memoised per
 * request (and job-token flag): modules that authenticate ahead of the router pay for one lookup.
 */
const resolvedCache = new WeakMap<Request, Map<boolean, Resolved | null>>();

async function resolveCredentials(c: Context<AppEnv>, route: RouteAuth, params: Record<string, unknown>): Promise<Resolved | null> {
  const perRequest = resolvedCache.get(c.req.raw) ?? new Map<boolean, Resolved | null>();
  resolvedCache.set(c.req.raw, perRequest);
  const key = Boolean(route.jobToken);
  if (perRequest.has(key)) return perRequest.get(key)!;
  const result = await resolveUncached(c, route, params);
  perRequest.set(key, result);
  return result;
}

async function resolveUncached(c: Context<AppEnv>, route: RouteAuth, params: Record<string, unknown>): Promise<Resolved | null> {
  let found: FoundToken | null = null;
  let job: AuthenticatedJob | null = null;
  let session: { user: UserRow } | null = null;

  const oauthValue = str(params.access_token) ?? bearer(c) ?? str(params.bearer_token);
  let patValue = str(params.private_token) ?? str(c.req.header('private-token')) ?? oauthValue;
  if (patValue?.startsWith(JOB_TOKEN_PREFIX) && new URL(c.req.url).pathname.startsWith('/api/')) patValue = undefined;

  if (route.jobToken && oauthValue) job = await resolveJobToken(c, oauthValue);
  if (!job && (oauthValue || patValue)) {
    found = await findToken(c, oauthValue, patValue);
    if (!found) throw unauthorized();
  }
  if (!found && !job && route.basicAuthPat) {
    // api_guard.rb `find_personal_access_token_from_http_basic_auth`: no match is simply no token.
    const password = basicPassword(c);
    if (password) found = await findToken(c, undefined, password);
  }
  if (!found && !job && route.jobToken) {
    const jobValue = str(params.job_token) ?? str(params.token) ?? str(c.req.header('job-token'));
    if (jobValue) {
      job = await resolveJobToken(c, jobValue);
      if (!job) throw unauthorized();
    }
  }

  if (found) {
    // validate_and_save_access_token!: expired, then revoked, then impersonation disabled.
    if (found.expired) throw invalidToken(TOKEN_EXPIRED);
    if (found.revoked) {
      if (found.credential.kind !== 'oauth' && ROTATION_PATH.test(new URL(c.req.url).pathname)) await revokeTokenFamily(c, found.credential.id, found.user.id);
      throw invalidToken(TOKEN_REVOKED);
    }
    if (found.credential.kind === 'impersonation_token' && !c.var.config.impersonationEnabled) throw invalidToken(TOKEN_IMPERSONATION_DISABLED);
    if (found.entry.kind === 'pat') {
      await touchToken(c, found.entry);
      authenticatedTokens.set(c.req.raw, found.entry.token);
    }
  }

  if (!found && !job) {
    const cookie = getCookie(c, SESSION_COOKIE);
    if (cookie) session = await findSession(c, cookie, params);
    if (!session) return null;
  }
  return { found, job, session };
}

/**
 * Authenticates the request for a route. Throws GitLab's 401/403 bodies for bad credentials;
 * returns the anonymous caller when none were sent.
 */
export async function authenticate(c: Context<AppEnv>, route: RouteAuth = {}): Promise<Caller> {
  if (route.noAuth) return anonymous;
  const params = await requestParams(c);
  const method = c.req.method;
  // `params[:sudo] || env['HTTP_SUDO']`: the parameter wins over the header.
  const sudoId = str(params.sudo) ?? str(c.req.header('sudo'));

  const resolved = await resolveCredentials(c, route, params);
  if (!resolved) {
    if (sudoId) throw unauthorized();
    if (route.admin) throw unauthorized();
    if (route.signedIn === true || (route.signedIn === 'nonGet' && method !== 'GET' && method !== 'HEAD')) throw unauthorized();
    await noteRequestSettings(c);
    return anonymous;
  }
  const { found, job, session } = resolved;

  const user = found ? found.user : job ? job.user : session!.user;
  const denied = accessDeniedReason(user, baseUrl(c));
  if (denied) throw forbidden(denied);

  const credential: Credential = found?.credential ?? (job ? { kind: 'job_token', id: job.jobId, scopes: [] } : { kind: 'session', id: 0, scopes: [] });
  const isAdmin = await effectiveAdmin(c, user, credential);
  let caller: Caller = { user, sudoer: null, credential, isAdmin };
  if (sudoId) caller = await sudo(c, caller, sudoId);

  // The endpoint's scopes are checked only for access tokens, and not while sudoing (helpers.rb `current_user`).
  if (found && !caller.sudoer && !route.anyScope) {
    const registered = [...(route.scopes ?? []), 'api', 'read_api'];
    const ok = registered.some((s) => scopeSufficient(s, method) && found!.credential.scopes.includes(s));
    if (!ok) throw insufficientScope(registered);
  }
  if (route.admin) requireAdmin(caller);
  await noteRequestSettings(c);
  return caller;
}

/**
 * Notes for the request the settings the synchronous presenters obey (users/user-entity.ts
 * `avatarUrl`). The settings were read with the credential, or are cached per isolate with their
 * stamp check riding on the next round trip: no round trip of their own but on a cold isolate.
 */
async function noteRequestSettings(c: Context<AppEnv>): Promise<void> {
  noteAvatarService((await settingsOf(c)).avatarsvc_enabled !== false);
}

/** With the instance setting `admin_mode` on, an administrator's token needs the `admin_mode` scope (api_guard.rb `bypass_session_for_admin_mode?`). */
async function effectiveAdmin(c: Context<AppEnv>, user: UserRow, credential: Credential): Promise<boolean> {
  if (!user.isAdmin) return false;
  const settings = await settingsOf(c);
  if (!settings.admin_mode) return true;
  return (credential.kind === 'personal_access_token' || credential.kind === 'impersonation_token' || credential.kind === 'oauth') && credential.scopes.includes('admin_mode');
}

/** `sudo!` in lib/api/helpers.rb, checks in GitLab's order. */
async function sudo(c: Context<AppEnv>, caller: Caller, identifier: string): Promise<Caller> {
  if (!caller.isAdmin) throw forbidden('Must be admin to use sudo');
  const kind = caller.credential!.kind;
  if (kind === 'session' || kind === 'job_token') throw forbidden('Must be authenticated using an OAuth or Personal Access Token to use sudo');
  if (!caller.credential!.scopes.includes('sudo')) throw insufficientScope(['sudo']);
  const id = decimalId(identifier);
  const target = id !== undefined ? await findUserById(c.var.db, id) : await findUserByUsername(c.var.db, identifier);
  if (!target) throw notFound(`User with ID or username '${identifier}'`);
  // `sudo?` is `initial_current_user != current_user`: sudo to oneself is an ordinary request.
  if (target.id === caller.user!.id) return caller;
  const isAdmin = await effectiveAdmin(c, target, caller.credential!);
  return { user: target, sudoer: caller.user, credential: caller.credential, isAdmin };
}

/** The CSRF token a session-authenticated write must carry: header `X-CSRF-Token` or param `authenticity_token` (Gitlab::RequestForgeryProtection). */
export function csrfTokenOf(c: Context, params: Record<string, unknown>): string | undefined {
  return c.req.header('x-csrf-token') ?? str(params.authenticity_token);
}

/** The session of a `_service_session` cookie, from this isolate's cache or with the settings in one batch (as tokens are). */
async function findSession(c: Context<AppEnv>, cookie: string, params: Record<string, unknown>): Promise<{ user: UserRow } | null> {
  const db = c.var.db;
  const digest = await tokenDigest(cookie, c.var.config.tokenPepper);
  const cached = cachedCredential(db, 'session', digest);
  if (cached?.aging) refreshOnNextTrip(db, 'session', digest);
  let entry = cached?.entry;
  if (!entry) {
    const generation = callerCacheGeneration(db);
    const prefetch = settingsPrefetch(db);
    const [rows, sessionUsers, settingsRows] = await batchReads(db, [sessionLookup(db, digest), sessionUser(db, digest), prefetch.query]);
    primeSettings(db, prefetch, settingsRows);
    if (!rows[0] || !sessionUsers[0]) return null;
    entry = { kind: 'session', token: rows[0], user: sessionUsers[0] };
    rememberCredential(db, generation, digest, entry);
  }
  if (entry.token.expiresAt <= Date.now()) return null;
  // `find_user_from_warden` runs only for `verified_request?`: GET/HEAD, or the session's CSRF token.
  const method = c.req.method;
  if (method !== 'GET' && method !== 'HEAD') {
    const sent = csrfTokenOf(c, params);
    if (!sent || !safeEqual(sent, entry.token.csrfToken)) return null;
  }
  return { user: { ...entry.user } };
}
