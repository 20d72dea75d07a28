/**
 * Personal and impersonation token presenters (lib/api/entities/personal_access_token.rb,
 * personal_access_token_with_token.rb, impersonation_token.rb, impersonation_token_with_token.rb,
 * GitLab 16.x field order). The token value appears only in the *WithToken shapes, which only the
 * creating or rotating response uses.
 */
import { z } from 'zod';
import type { personalAccessTokens } from '../db/schema';
import { patExpired } from './tokens';
import { date, id, obj, timestamp } from '../platform/response-schemas';
import { iso } from '../platform/time';

export type TokenRow = typeof personalAccessTokens.$inferSelect;

/** `active?` = `!revoked? && !expired?`. */
export const isActive = (t: TokenRow) => !t.revoked && !patExpired(t.expiresAt);

export const PersonalAccessTokenSchema = obj({
  id,
  name: z.string(),
  revoked: z.boolean(),
  created_at: timestamp,
  description: z.string().nullable(),
  scopes: z.array(z.string()),
  user_id: id,
  last_used_at: timestamp.nullable(),
  active: z.boolean(),
  expires_at: date.nullable(),
}).meta({ id: 'PersonalAccessToken' });
export type PersonalAccessToken = z.infer<typeof PersonalAccessTokenSchema>;

export const personalAccessToken = (t: TokenRow): PersonalAccessToken => ({
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

export const PersonalAccessTokenWithTokenSchema = PersonalAccessTokenSchema.extend({ token: z.string() }).meta({ id: 'PersonalAccessTokenWithToken' });
export type PersonalAccessTokenWithToken = z.infer<typeof PersonalAccessTokenWithTokenSchema>;

export const personalAccessTokenWithToken = (t: TokenRow, token: string): PersonalAccessTokenWithToken => ({ ...personalAccessToken(t), token });

export const ImpersonationTokenSchema = PersonalAccessTokenSchema.extend({ impersonation: z.boolean() }).meta({ id: 'ImpersonationToken' });
export type ImpersonationToken = z.infer<typeof ImpersonationTokenSchema>;

export const impersonationToken = (t: TokenRow): ImpersonationToken => ({ ...personalAccessToken(t), impersonation: t.impersonation });

/** ImpersonationTokenWithToken < PersonalAccessTokenWithToken: `token` comes before `impersonation`. */
export const ImpersonationTokenWithTokenSchema = PersonalAccessTokenWithTokenSchema.extend({ impersonation: z.boolean() }).meta({ id: 'ImpersonationTokenWithToken' });
export type ImpersonationTokenWithToken = z.infer<typeof ImpersonationTokenWithTokenSchema>;

export const impersonationTokenWithToken = (t: TokenRow, token: string): ImpersonationTokenWithToken => ({ ...personalAccessTokenWithToken(t, token), impersonation: t.impersonation });
