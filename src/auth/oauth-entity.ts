/** OAuth token presenters: Doorkeeper's TokenResponse#body and AccessToken#as_json (GET /oauth/token/info). */
import type { oauthAccessTokens, oauthApplications } from '../db/schema';

export type OauthTokenRow = typeof oauthAccessTokens.$inferSelect;

/** Doorkeeper `expires_in_seconds`: `expires_in - (now - created_at).floor`, never negative; null without expiry. */
export const expiresInSeconds = (row: OauthTokenRow, now = Date.now()) =>
  row.expiresIn == null ? null : Math.max(0, row.expiresIn - Math.floor((now - row.createdAt) / 1000));

/** The only response carrying the token values: the grant that mints them. Blank values are dropped like Doorkeeper does. */
export const tokenResponse = (row: OauthTokenRow, access: string, refresh: string) => ({
  access_token: access,
  token_type: 'Bearer',
  expires_in: expiresInSeconds(row) ?? undefined,
  refresh_token: refresh,
  scope: (JSON.parse(row.scopes) as string[]).join(' '),
  created_at: Math.floor(row.createdAt / 1000),
});

/** `scopes` and `expires_in_seconds` repeat `scope` and `expires_in` for older clients (GitLab doc/api/oauth2.md). */
export const oauthTokenInfo = (row: OauthTokenRow, applicationUid: string | null) => {
  const scopes = JSON.parse(row.scopes) as string[];
  const remaining = expiresInSeconds(row);
  return {
    resource_owner_id: row.userId,
    scope: scopes,
    expires_in: remaining,
    application: { uid: applicationUid },
    created_at: Math.floor(row.createdAt / 1000),
    scopes,
    expires_in_seconds: remaining,
  };
};

export type OauthApplicationRow = typeof oauthApplications.$inferSelect;

/** Entities::Application (lib/api/entities/application.rb). */
export const application = (a: OauthApplicationRow) => ({
  id: a.id,
  application_id: a.uid,
  application_name: a.name,
  callback_url: a.redirectUri,
  confidential: a.confidential,
});

/** Entities::ApplicationWithSecret: only the create and renew-secret answers carry the secret. */
export const applicationWithSecret = (a: OauthApplicationRow, secret: string) => ({ ...application(a), secret });
