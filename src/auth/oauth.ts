/**
 * The OAuth 2.0 token endpoint as Doorkeeper answers it for GitLab (config/initializers/doorkeeper.rb):
 * resource-owner password and refresh_token grants, token info and revocation. Access and refresh
 * tokens are stored only as digests; a refresh revokes the token it was issued with (one use each).
 */
import { and, eq, isNull, or, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, UserRow } from '../platform/context';
import { oauthAccessTokens, oauthApplications, users } from '../db/schema';
import { findUserByUsername } from '../users/user-queries';
import { randomHex, safeEqual, tokenDigest, verifyPassword } from '../platform/crypto';
import { ApiError } from '../platform/errors';
import { DEFAULT_OAUTH_SCOPES, oauthServerScopes } from './scopes';
import { oauthTokenInfo, tokenResponse } from './oauth-entity';
import { oauthExpired } from './tokens';
import { settingsOf } from '../settings/settings';
import { invalidateCaller } from '../users/caller-cache';

/** Doorkeeper's error descriptions (config/locales/en.yml). */
export const OAUTH_ERRORS = {
  invalid_request: 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
  invalid_client: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
  invalid_grant:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
  invalid_scope: 'The requested scope is invalid, unknown, or malformed.',
} as const;

/** Doorkeeper::OAuth::ErrorResponse: 401 for client errors, 400 otherwise, with its headers. */
export function oauthError(name: string, description: string): ApiError {
  const status = name === 'invalid_client' || name === 'unauthorized_client' ? 401 : 400;
  return new ApiError(
    status,
    { error: name, error_description: description },
    {
      'Cache-Control': 'no-store, no-cache',
      'WWW-Authenticate': `Bearer realm="Doorkeeper", error="${name}", error_description="${description}"`,
    },
  );
}

const missingParam = (name: string) => oauthError('invalid_request', `Missing required parameter: ${name}.`);

/** Doorkeeper::OAuth::InvalidTokenResponse (GET /oauth/token/info). */
export function invalidOauthToken(reason: 'unknown' | 'expired' | 'revoked'): ApiError {
  const description = { unknown: 'The access token is invalid', expired: 'The access token expired', revoked: 'The access token was revoked' }[reason];
  return new ApiError(
    401,
    { error: 'invalid_token', error_description: description },
    { 'WWW-Authenticate': `Bearer realm="Doorkeeper", error="invalid_token", error_description="${description}"` },
  );
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** `client_credentials :from_basic, :from_params`. */
function clientCredentials(c: Context, params: Record<string, unknown>): { uid: string; secret: string } | null {
  const auth = c.req.header('authorization');
  const basic = auth?.match(/^Basic\s+(.+)$/i);
  if (basic) {
    try {
      const decoded = atob(basic[1].trim());
      const i = decoded.indexOf(':');
      if (i >= 0) return { uid: decodeURIComponent(decoded.slice(0, i)), secret: decodeURIComponent(decoded.slice(i + 1)) };
    } catch {
      return { uid: '', secret: '' };
    }
  }
  const uid = str(params.client_id);
  if (uid) return { uid, secret: str(params.client_secret) ?? '' };
  return null;
}

/** The application named by client credentials; invalid credentials are `invalid_client`. */
async function authenticateClient(c: Context<AppEnv>, params: Record<string, unknown>) {
  const creds = clientCredentials(c, params);
  if (!creds) return null;
  const app = await c.var.db.select().from(oauthApplications).where(eq(oauthApplications.uid, creds.uid)).get();
  if (!app) throw oauthError('invalid_client', OAUTH_ERRORS.invalid_client);
  const digest = await tokenDigest(creds.secret, c.var.config.tokenPepper);
  if (!safeEqual(digest, app.secretDigest)) throw oauthError('invalid_client', OAUTH_ERRORS.invalid_client);
  return app;
}

/** Doorkeeper::OAuth::Scopes.from_string + ScopeChecker: space-separated, each a server scope, no duplicates. */
function parseScopes(raw: unknown, allowed: string[]): string[] | null {
  const s = typeof raw === 'string' ? raw.trim() : '';
  if (!s) return null;
  const list = [...new Set(s.split(/\s+/))];
  return list.every((x) => allowed.includes(x)) ? list : [];
}

/** User.find_by_login: an address when it contains `@`, else a username; both case-insensitive. */
async function findByLogin(c: Context<AppEnv>, login: string): Promise<UserRow | undefined> {
  if (login.includes('@')) return c.var.db.select().from(users).where(sql`lower(${users.email}) = lower(${login})`).get();
  return findUserByUsername(c.var.db, login);
}

/** GlobalPolicy `log_in`: blocked, banned, pending approval and internal users (including bots) cannot sign in. */
export function canLogIn(user: UserRow): boolean {
  if (['blocked', 'ldap_blocked', 'banned', 'blocked_pending_approval'].includes(user.state)) return false;
  return user.userType === 'human' || user.userType === 'service_account';
}

/**
 * Gitlab::Auth.find_with_user_password: the user when login and password match and the account may
 * sign in with a non-expired password; undefined otherwise (never says which part failed).
 */
export async function findWithUserPassword(c: Context<AppEnv>, login: string | undefined, password: string | undefined, opts: { requireUnexpired: boolean }) {
  if (!login || !password) return undefined;
  const user = await findByLogin(c, login);
  if (!user) return undefined;
  if (!canLogIn(user)) return undefined;
  if (opts.requireUnexpired && passwordExpiredNow(user)) return undefined;
  if (!(await verifyPassword(password, user.passwordDigest))) return undefined;
  return user;
}

const passwordExpiredNow = (u: UserRow) => u.userType === 'human' && u.passwordExpiresAt != null && u.passwordExpiresAt <= Date.now() && !u.passwordAutomaticallySet;

async function issueToken(c: Context<AppEnv>, userId: number, scopes: string[], applicationId: number | null) {
  const access = randomHex(32);
  const refresh = randomHex(32);
  const pepper = c.var.config.tokenPepper;
  const [row] = await c.var.db
    .insert(oauthAccessTokens)
    .values({
      userId,
      applicationId,
      tokenDigest: await tokenDigest(access, pepper),
      refreshTokenDigest: await tokenDigest(refresh, pepper),
      scopes: JSON.stringify(scopes),
      expiresIn: c.var.config.oauthTokenTtl,
      createdAt: Date.now(),
    })
    .returning();
  return tokenResponse(row, access, refresh);
}

/** POST /oauth/token: dispatches on `grant_type` like Doorkeeper::Server#token_request. */
export async function tokenRequest(c: Context<AppEnv>, params: Record<string, unknown>) {
  const grantType = str(params.grant_type);
  if (!grantType) throw missingParam('grant_type');
  if (grantType === 'password') return passwordGrant(c, params);
  if (grantType === 'refresh_token') return refreshGrant(c, params);
  throw oauthError('unsupported_grant_type', OAUTH_ERRORS.unsupported_grant_type);
}

/** Resource owner password credentials (PasswordAccessTokenRequest): client, then resource owner, then scopes. */
async function passwordGrant(c: Context<AppEnv>, params: Record<string, unknown>) {
  const app = await authenticateClient(c, params);
  const settings = await settingsOf(c);
  // `authenticate_using_internal_or_ldap_password?`: with password sign-in for Git/API off, no password grant.
  const user = settings.password_authentication_enabled_for_git === false
    ? undefined
    : await findWithUserPassword(c, str(params.username), typeof params.password === 'string' ? params.password : undefined, { requireUnexpired: true });
  // doorkeeper.rb `resource_owner_from_credentials`: users with two-factor authentication must use another flow.
  if (!user || user.twoFactorEnabled) throw oauthError('invalid_grant', OAUTH_ERRORS.invalid_grant);
  // ScopeChecker: a requested scope must be a server scope and, for an application, one of its scopes.
  const serverScopes = app ? oauthServerScopes().filter((s) => app.scopes.split(/\s+/).includes(s)) : oauthServerScopes();
  const requested = parseScopes(params.scope, serverScopes);
  if (requested && requested.length === 0) throw oauthError('invalid_scope', OAUTH_ERRORS.invalid_scope);
  return issueToken(c, user.id, requested ?? DEFAULT_OAUTH_SCOPES, app?.id ?? null);
}

/**
 * RefreshTokenRequest: the refresh token is single-use. Its access token is revoked by a
 * compare-and-set, so of two concurrent refreshes only one gets a new token (InvalidGrantReuse).
 */
async function refreshGrant(c: Context<AppEnv>, params: Record<string, unknown>) {
  const refresh = str(params.refresh_token);
  if (!refresh) throw missingParam('refresh_token');
  const digest = await tokenDigest(refresh, c.var.config.tokenPepper);
  const old = await c.var.db.select().from(oauthAccessTokens).where(eq(oauthAccessTokens.refreshTokenDigest, digest)).get();
  if (!old || old.revokedAt != null) throw oauthError('invalid_grant', OAUTH_ERRORS.invalid_grant);
  const app = await authenticateClient(c, params);
  if (old.applicationId != null && app?.id !== old.applicationId) throw oauthError('invalid_grant', OAUTH_ERRORS.invalid_grant);
  const original = JSON.parse(old.scopes) as string[];
  const requested = parseScopes(params.scope ?? params.scopes, original);
  if (requested && requested.length === 0) throw oauthError('invalid_scope', OAUTH_ERRORS.invalid_scope);
  const revoked = await c.var.db
    .update(oauthAccessTokens)
    .set({ revokedAt: Date.now() })
    .where(and(eq(oauthAccessTokens.id, old.id), isNull(oauthAccessTokens.revokedAt)))
    .returning({ id: oauthAccessTokens.id });
  if (revoked.length === 0) throw oauthError('invalid_grant', OAUTH_ERRORS.invalid_grant);
  invalidateCaller(c.var.db, { userId: old.userId });
  return issueToken(c, old.userId, requested ?? original, old.applicationId);
}

/** Doorkeeper's `from_access_token_param, from_bearer_authorization, from_bearer_param`. */
export function oauthTokenFromRequest(c: Context, params: Record<string, unknown>): string | undefined {
  const auth = c.req.header('authorization')?.match(/^Bearer\s+(.+)$/i)?.[1].trim();
  return str(params.access_token) ?? (auth || undefined) ?? str(params.bearer_token);
}

/** GET /oauth/token/info: Doorkeeper's AccessToken#as_json plus GitLab's `scopes`/`expires_in_seconds` aliases. */
export async function tokenInfo(c: Context<AppEnv>, params: Record<string, unknown>) {
  const value = oauthTokenFromRequest(c, params);
  if (!value) throw invalidOauthToken('unknown');
  const digest = await tokenDigest(value, c.var.config.tokenPepper);
  const row = await c.var.db.select().from(oauthAccessTokens).where(eq(oauthAccessTokens.tokenDigest, digest)).get();
  if (!row) throw invalidOauthToken('unknown');
  if (row.revokedAt != null) throw invalidOauthToken('revoked');
  if (oauthExpired(row)) throw invalidOauthToken('expired');
  const app = row.applicationId != null ? await c.var.db.select({ uid: oauthApplications.uid }).from(oauthApplications).where(eq(oauthApplications.id, row.applicationId)).get() : undefined;
  return oauthTokenInfo(row, app?.uid ?? null);
}

/**
 * POST /oauth/revoke (RFC 7009, Doorkeeper TokensController#revoke): the access or refresh token is
 * revoked when still usable; unknown tokens answer the same 200 so nothing is revealed. Tokens of a
 * confidential application need that application's credentials (403 otherwise).
 */
export async function revokeRequest(c: Context<AppEnv>, params: Record<string, unknown>) {
  const value = str(params.token);
  if (!value) return;
  const digest = await tokenDigest(value, c.var.config.tokenPepper);
  const row = await c.var.db
    .select()
    .from(oauthAccessTokens)
    .where(or(eq(oauthAccessTokens.tokenDigest, digest), eq(oauthAccessTokens.refreshTokenDigest, digest)))
    .get();
  if (!row) return;
  if (row.applicationId != null) {
    const app = await c.var.db.select().from(oauthApplications).where(eq(oauthApplications.id, row.applicationId)).get();
    if (app?.confidential) {
      const client = await authenticateClient(c, params).catch(() => null);
      if (!client || client.id !== app.id) {
        throw new ApiError(403, { error: 'unauthorized_client', error_description: 'You are not authorized to revoke this token' });
      }
    }
  }
  // Revoked even when its access token has expired: the refresh token must stop working too.
  if (row.revokedAt != null) return;
  await c.var.db
    .update(oauthAccessTokens)
    .set({ revokedAt: Date.now() })
    .where(and(eq(oauthAccessTokens.id, row.id), isNull(oauthAccessTokens.revokedAt)))
    .run();
  invalidateCaller(c.var.db, { userId: row.userId });
}
