/**
 * Resolves the caller the way GitLab's API guard does (lib/api/api_guard.rb, auth_finders.rb):
 * OAuth token, then personal/impersonation token, then job token (routes that allow it), then the
 * web session cookie; validates the token (expired, revoked, impersonation disabled, scope), checks
 * the account may use the API, and applies sudo. Guards (`requireUser`, `requireAdmin`) are calls
 * inside handlers; this only decides who is calling.
 */
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { eq } from 'drizzle-orm';
import type { AppEnv, Caller, Credential, UserRow } from '../context';
import { oauthAccessTokens, personalAccessTokens, users, webSessions } from '../db/schema';
import { findUserById, findUserByUsername } from '../db/queries/users';
import { tokenDigest } from '../lib/crypto';
import {
  forbidden,
  insufficientScope,
  invalidToken,
  notFound,
  TOKEN_EXPIRED,
  TOKEN_IMPERSONATION_DISABLED,
  TOKEN_REVOKED,
  unauthorized,
} from '../lib/errors';
import { requestParams } from '../lib/params';
import { today } from '../lib/time';

export const SESSION_COOKIE = '_service_session';

/** Scopes an endpoint accepts besides the global `api` and (GET/HEAD) `read_api`. */
export interface RouteAuth {
  /** Extra scopes, e.g. `read_user` on user endpoints. `read_user`/`read_api` count only for GET and HEAD. */
  scopes?: string[];
  /** The route accepts CI job tokens ("for specific endpoints only"). */
  jobToken?: boolean;
}

const READ_ONLY_SCOPES = new Set(['read_api', 'read_user']);
const anonymous: Caller = { user: null, sudoer: null, credential: null, isAdmin: false };

interface FoundToken {
  credential: Credential;
  user: UserRow;
  expired: boolean;
  revoked: boolean;
}

function bearer(c: Context): string | undefined {
  const h = c.req.header('authorization');
  const m = h?.match(/^Bearer\s+(.+)$/i);
  return m?.[1].trim();
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

async function findOauthToken(c: Context<AppEnv>, value: string): Promise<FoundToken | null> {
  const digest = await tokenDigest(value, c.var.config.tokenPepper);
  const row = await c.var.db
    .select({ t: oauthAccessTokens, u: users })
    .from(oauthAccessTokens)
    .innerJoin(users, eq(users.id, oauthAccessTokens.userId))
    .where(eq(oauthAccessTokens.tokenDigest, digest))
    .get();
  if (!row) return null;
  const expired = row.t.expiresIn != null && row.t.createdAt + row.t.expiresIn * 1000 < Date.now();
  return {
    credential: { kind: 'oauth', id: row.t.id, scopes: JSON.parse(row.t.scopes) },
    user: row.u,
    expired,
    revoked: row.t.revokedAt != null,
  };
}

async function findPersonalToken(c: Context<AppEnv>, value: string): Promise<FoundToken | null> {
  const digest = await tokenDigest(value, c.var.config.tokenPepper);
  const row = await c.var.db
    .select({ t: personalAccessTokens, u: users })
    .from(personalAccessTokens)
    .innerJoin(users, eq(users.id, personalAccessTokens.userId))
    .where(eq(personalAccessTokens.tokenDigest, digest))
    .get();
  if (!row) return null;
  touchToken(c, row.t.id, row.t.lastUsedAt);
  return {
    credential: { kind: row.t.impersonation ? 'impersonation_token' : 'personal_access_token', id: row.t.id, scopes: JSON.parse(row.t.scopes) },
    user: row.u,
    expired: row.t.expiresAt != null && row.t.expiresAt < today(),
    revoked: row.t.revoked,
  };
}

/** GitLab records `last_used_at` at most every 10 minutes; done after the response where the runtime allows. */
function touchToken(c: Context<AppEnv>, id: number, lastUsedAt: number | null) {
  const now = Date.now();
  if (lastUsedAt && now - lastUsedAt < 10 * 60_000) return;
  const p = c.var.db.update(personalAccessTokens).set({ lastUsedAt: now }).where(eq(personalAccessTokens.id, id)).run().catch(() => {});
  runInBackground(c, p);
}

export function runInBackground(c: Context, p: Promise<unknown>) {
  try {
    c.executionCtx.waitUntil(p);
  } catch {
    // Node: no execution context; the promise simply runs on.
  }
}

/** Reasons a valid account may not use the API (lib/gitlab/auth/user_access_denied_reason.rb). */
export function accessDeniedReason(user: UserRow): string | null {
  switch (user.state) {
    case 'blocked':
    case 'ldap_blocked':
    case 'banned':
      return 'Your account has been blocked.';
    case 'blocked_pending_approval':
      return 'Your account is pending approval from your administrator and hence blocked.';
    case 'deactivated':
      return 'Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account';
  }
  if (user.userType !== 'human' && user.userType !== 'project_bot' && user.userType !== 'service_account') {
    return 'This action cannot be performed by internal users';
  }
  return null;
}

function scopeSufficient(scope: string, method: string): boolean {
  return !READ_ONLY_SCOPES.has(scope) || method === 'GET' || method === 'HEAD';
}

/**
 * Authenticates the request for a route. Throws GitLab's 401/403 bodies for bad credentials;
 * returns the anonymous caller when none were sent.
 */
export async function authenticate(c: Context<AppEnv>, route: RouteAuth = {}): Promise<Caller> {
  const params = await requestParams(c);
  const method = c.req.method;
  const headerSudo = c.req.header('sudo');
  const sudoId = str(params.sudo) ?? (typeof params.sudo === 'number' ? String(params.sudo) : undefined) ?? str(headerSudo);

  let found: FoundToken | null = null;
  let session: { user: UserRow } | null = null;

  const oauthValue = str(params.access_token) ?? bearer(c) ?? str(params.bearer_token);
  const patValue = str(params.private_token) ?? str(c.req.header('private-token')) ?? bearer(c);
  const jobValue = route.jobToken ? str(params.job_token) ?? str(c.req.header('job-token')) : undefined;

  if (oauthValue) found = await findOauthToken(c, oauthValue);
  if (!found && patValue) found = await findPersonalToken(c, patValue);
  if (!found && (oauthValue || patValue)) throw unauthorized();
  if (!found && jobValue) {
    // No CI jobs exist yet, so no job token can match: GitLab answers an unknown job token with 401.
    throw unauthorized();
  }

  if (!found) {
    const cookie = getCookie(c, SESSION_COOKIE);
    if (cookie) session = await findSession(c, cookie);
    if (!session) {
      if (sudoId) throw unauthorized();
      return anonymous;
    }
  }

  if (found) {
    if (found.expired) throw invalidToken(TOKEN_EXPIRED);
    if (found.revoked) throw invalidToken(TOKEN_REVOKED);
    if (found.credential.kind === 'impersonation_token' && !c.var.config.impersonationEnabled) throw invalidToken(TOKEN_IMPERSONATION_DISABLED);
    if (!sudoId) {
      const registered = [...(route.scopes ?? []), 'api', 'read_api'];
      const ok = registered.some((s) => scopeSufficient(s, method) && found!.credential.scopes.includes(s));
      if (!ok) throw insufficientScope(registered);
    }
  }

  const user = found ? found.user : session!.user;
  const denied = accessDeniedReason(user);
  if (denied) throw forbidden(denied);

  const credential = found?.credential ?? { kind: 'session' as const, id: 0, scopes: [] };
  const isAdmin = await effectiveAdmin(c, user, credential);
  const caller: Caller = { user, sudoer: null, credential, isAdmin };
  if (sudoId) return sudo(c, caller, sudoId);
  return caller;
}

/** With the instance setting `admin_mode` on, an administrator's token needs the `admin_mode` scope. */
async function effectiveAdmin(c: Context<AppEnv>, user: UserRow, credential: Credential): Promise<boolean> {
  if (!user.isAdmin) return false;
  const settings = await c.var.settings();
  if (!settings.admin_mode) return true;
  return credential.kind !== 'session' && credential.scopes.includes('admin_mode');
}

/** `sudo!` in lib/api/helpers.rb, checks in GitLab's order. */
async function sudo(c: Context<AppEnv>, caller: Caller, identifier: string): Promise<Caller> {
  if (!caller.isAdmin) throw forbidden('Must be admin to use sudo');
  if (caller.credential!.kind === 'session') throw forbidden('Must be authenticated using an OAuth or Personal Access Token to use sudo');
  if (!caller.credential!.scopes.includes('sudo')) throw insufficientScope(['sudo']);
  const target = /^\d+$/.test(identifier) ? await findUserById(c.var.db, Number(identifier)) : await findUserByUsername(c.var.db, identifier);
  if (!target) throw notFound(`User with ID or username '${identifier}'`);
  const isAdmin = target.isAdmin && (await effectiveAdmin(c, target, caller.credential!));
  return { user: target, sudoer: caller.user, credential: caller.credential, isAdmin };
}

async function findSession(c: Context<AppEnv>, cookie: string): Promise<{ user: UserRow } | null> {
  const digest = await tokenDigest(cookie, c.var.config.tokenPepper);
  const row = await c.var.db
    .select({ s: webSessions, u: users })
    .from(webSessions)
    .innerJoin(users, eq(users.id, webSessions.userId))
    .where(eq(webSessions.sessionDigest, digest))
    .get();
  if (!row || row.s.expiresAt < Date.now()) return null;
  // The API honours the session only for GET/HEAD or with the session's CSRF token (GitLab `find_user_from_warden`).
  const method = c.req.method;
  if (method !== 'GET' && method !== 'HEAD' && c.req.header('x-csrf-token') !== row.s.csrfToken) return null;
  return { user: row.u };
}

export const requireUser = (caller: Caller): UserRow => {
  if (!caller.user) throw unauthorized();
  return caller.user;
};

/** `authenticated_as_admin!`: 401 without a user, 403 unless administrator (in admin mode when required). */
export const requireAdmin = (caller: Caller): UserRow => {
  const user = requireUser(caller);
  if (!caller.isAdmin) throw forbidden();
  return user;
};

