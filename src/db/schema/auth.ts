import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const ts = (name: string) => integer(name);
const bool = (name: string) => integer(name, { mode: 'boolean' });

/**
 * Personal access tokens and impersonation tokens (GitLab keeps both in one table, `impersonation`
 * tells them apart). Only a digest of the value is stored.
 */
export const personalAccessTokens = sqliteTable(
  'personal_access_tokens',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: integer('user_id').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    tokenDigest: text('token_digest').notNull(),
    /** JSON array of scope names. */
    scopes: text('scopes').notNull(),
    impersonation: bool('impersonation').notNull().default(false),
    revoked: bool('revoked').notNull().default(false),
    /** `YYYY-MM-DD` or null; expired when `expires_at < today` (GitLab personal_access_token.rb). */
    expiresAt: text('expires_at'),
    lastUsedAt: ts('last_used_at'),
    /** Rotation chain: revoking a token revokes its whole family (reuse detection). */
    previousTokenId: integer('previous_token_id'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('pat_token_digest').on(t.tokenDigest), index('pat_user').on(t.userId, t.id), index('pat_previous').on(t.previousTokenId)],
);

/** OAuth 2.0 access tokens issued by POST /oauth/token (password and refresh_token grants). */
export const oauthAccessTokens = sqliteTable(
  'oauth_access_tokens',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: integer('user_id').notNull(),
    applicationId: integer('application_id'),
    tokenDigest: text('token_digest').notNull(),
    refreshTokenDigest: text('refresh_token_digest'),
    scopes: text('scopes').notNull(),
    expiresIn: integer('expires_in'),
    revokedAt: ts('revoked_at'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('oauth_token_digest').on(t.tokenDigest),
    uniqueIndex('oauth_refresh_digest').on(t.refreshTokenDigest),
    index('oauth_user').on(t.userId),
    // Deleting an application deletes its tokens.
    index('oauth_application').on(t.applicationId),
  ],
);

export const oauthApplications = sqliteTable(
  'oauth_applications',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    uid: text('uid').notNull(),
    secretDigest: text('secret_digest').notNull(),
    redirectUri: text('redirect_uri').notNull().default(''),
    scopes: text('scopes').notNull().default('api'),
    confidential: bool('confidential').notNull().default(true),
    ownerId: integer('owner_id'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('oauth_app_uid').on(t.uid)],
);

/** Web sessions of the main application (`_service_session` cookie); the cookie value is never stored, only its digest. */
export const webSessions = sqliteTable(
  'web_sessions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sessionDigest: text('session_digest').notNull(),
    csrfToken: text('csrf_token').notNull(),
    userId: integer('user_id').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [uniqueIndex('web_sessions_digest').on(t.sessionDigest), index('web_sessions_user').on(t.userId)],
);
