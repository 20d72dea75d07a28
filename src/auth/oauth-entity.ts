/** OAuth token presenters: Doorkeeper's TokenResponse#body and AccessToken#as_json (GET /oauth/token/info). */
import { z } from 'zod';
import type { oauthAccessTokens, oauthApplications } from '../db/schema';
import { id, int, obj } from '../platform/response-schemas';

export type OauthTokenRow = typeof oauthAccessTokens.$inferSelect;

/** Doorkeeper `expires_in_seconds`: `expires_in - (now - created_at).floor`, never negative; null without expiry. */
export const expiresInSeconds = (row: OauthTokenRow, now = Date.now()) =>
  row.expiresIn == null ? null : Math.max(0, row.expiresIn - Math.floor((now - row.createdAt) / 1000));

/** Doorkeeper's names, not a GitLab entity: `created_at` is in Unix seconds. */
export const OAuthTokenResponseSchema = obj({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: int.optional(),
  refresh_token: z.string(),
  scope: z.string(),
  created_at: int,
}).meta({ id: 'OAuthTokenResponse', description: 'Doorkeeper TokenResponse#body: the grant that mints the tokens' });
export type OAuthTokenResponse = z.infer<typeof OAuthTokenResponseSchema>;

/** The only response carrying the token values: the grant that mints them. Blank values are dropped like Doorkeeper does. */
export const tokenResponse = (row: OauthTokenRow, access: string, refresh: string): OAuthTokenResponse => ({
  access_token: access,
  token_type: 'Bearer',
  expires_in: expiresInSeconds(row) ?? undefined,
  refresh_token: refresh,
  scope: (JSON.parse(row.scopes) as string[]).join(' '),
  created_at: Math.floor(row.createdAt / 1000),
});

export const OAuthTokenInfoSchema = obj({
  resource_owner_id: id,
  scope: z.array(z.string()),
  expires_in: int.nullable(),
  application: obj({ uid: z.string().nullable() }),
  created_at: int,
  scopes: z.array(z.string()),
  expires_in_seconds: int.nullable(),
}).meta({ id: 'OAuthTokenInfo', description: 'Doorkeeper AccessToken#as_json with GitLab aliases (GET /oauth/token/info)' });
export type OAuthTokenInfo = z.infer<typeof OAuthTokenInfoSchema>;

/** `scopes` and `expires_in_seconds` repeat `scope` and `expires_in` for older clients (GitLab doc/api/oauth2.md). */
export const oauthTokenInfo = (row: OauthTokenRow, applicationUid: string | null): OAuthTokenInfo => {
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

export const ApplicationSchema = obj({
  id,
  application_id: z.string(),
  application_name: z.string(),
  callback_url: z.string(),
  confidential: z.boolean(),
}).meta({ id: 'Application' });
export type Application = z.infer<typeof ApplicationSchema>;

/** Entities::Application (lib/api/entities/application.rb). */
export const application = (a: OauthApplicationRow): Application => ({
  id: a.id,
  application_id: a.uid,
  application_name: a.name,
  callback_url: a.redirectUri,
  confidential: a.confidential,
});

export const ApplicationWithSecretSchema = ApplicationSchema.extend({ secret: z.string() }).meta({ id: 'ApplicationWithSecret' });
export type ApplicationWithSecret = z.infer<typeof ApplicationWithSecretSchema>;

/** Entities::ApplicationWithSecret: only the create and renew-secret answers carry the secret. */
export const applicationWithSecret = (a: OauthApplicationRow, secret: string): ApplicationWithSecret => ({ ...application(a), secret });
