/**
 * Personal and impersonation token presenters (lib/api/entities/personal_access_token.rb,
 * personal_access_token_with_token.rb, impersonation_token.rb, impersonation_token_with_token.rb,
 * GitLab 16.x field order). The token value appears only in the *WithToken shapes, which only the
 * creating or rotating response uses.
 */
import type { personalAccessTokens } from '../db/schema';
import { patExpired } from './tokens';
import { iso } from '../platform/time';

export type TokenRow = typeof personalAccessTokens.$inferSelect;

/** `active?` = `!revoked? && !expired?`. */
export const isActive = (t: TokenRow) => !t.revoked && !patExpired(t.expiresAt);

export const personalAccessToken = (t: TokenRow) => ({
  id: t.id,
  name: t.name,
  revoked: t.revoked,
  created_at: iso(t.createdAt),
  description: t.description,
  scopes: JSON.parse(t.scopes) as string[],
  user_id: t.userId,
  last_used_at: iso(t.lastUsedAt),
  active: isActive(t),
  expires_at: t.expiresAt,
});

export const personalAccessTokenWithToken = (t: TokenRow, token: string) => ({ ...personalAccessToken(t), token });

export const impersonationToken = (t: TokenRow) => ({ ...personalAccessToken(t), impersonation: t.impersonation });

/** ImpersonationTokenWithToken < PersonalAccessTokenWithToken: `token` comes before `impersonation`. */
export const impersonationTokenWithToken = (t: TokenRow, token: string) => ({ ...personalAccessTokenWithToken(t, token), impersonation: t.impersonation });
