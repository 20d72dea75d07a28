/** Personal and impersonation token presenters (lib/api/entities/personal_access_token*.rb, impersonation_token*.rb). */
import type { personalAccessTokens } from '../db/schema';
import { iso, today } from '../lib/time';

export type TokenRow = typeof personalAccessTokens.$inferSelect;

export const isActive = (t: TokenRow) => !t.revoked && !(t.expiresAt != null && t.expiresAt < today());

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

/** The only response that ever carries the token value: the one that creates (or rotates) it. */
export const personalAccessTokenWithToken = (t: TokenRow, token: string) => ({ ...personalAccessToken(t), token });

export const impersonationToken = (t: TokenRow) => ({ ...personalAccessToken(t), impersonation: t.impersonation });

export const impersonationTokenWithToken = (t: TokenRow, token: string) => ({ ...impersonationToken(t), token });
