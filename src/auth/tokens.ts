/**
 * Personal and impersonation tokens: minting (value shown once, only the digest stored), the model
 * validations of PersonalAccessToken in GitLab's wording, revocation and rotation
 * (app/models/personal_access_token.rb, app/services/personal_access_tokens/*_service.rb).
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { personalAccessTokens } from '../db/schema';
import { randomToken, tokenDigest } from '../platform/crypto';
import { planAllows } from '../platform/plan';
import { allAvailableScopes } from './scopes';
import { addDays, today } from '../platform/time';
import type { Config } from '../platform/config';
import type { Settings } from '../settings/settings';
import { checkText, NAME_MAX } from '../platform/text-limits';
import { invalidateCaller } from '../users/caller-cache';

export type TokenRow = typeof personalAccessTokens.$inferSelect;

/** A PAT counts as expired from its `expires_at` date on (Expirable: `expires_at <= Time.current`; tokens expire at 00:00 UTC). */
export const patExpired = (expiresAt: string | null) => expiresAt != null && expiresAt <= today();

export const oauthExpired = (t: { createdAt: number; expiresIn: number | null }, now = Date.now()) =>
  t.expiresIn != null && t.createdAt + t.expiresIn * 1000 <= now;

/** What token validation depends on: the application settings and the instance plan. */
export interface TokenPolicy {
  settings: Settings;
  config: Pick<Config, 'plan'>;
}

/**
 * PersonalAccessToken::MAX_PERSONAL_ACCESS_TOKEN_LIFETIME_IN_DAYS, lowered by the instance setting
 * `max_personal_access_token_lifetime` on Ultimate only (ee/app/models/ee/personal_access_token.rb).
 */
export function maxLifetimeDays({ settings, config }: TokenPolicy): number {
  const instance = Number(settings.max_personal_access_token_lifetime);
  if (!planAllows(config, 'ultimate')) return 365;
  return Number.isInteger(instance) && instance > 0 ? Math.min(365, instance) : 365;
}

/** RotateService::EXPIRATION_PERIOD. */
export const ROTATION_EXPIRY_DAYS = 7;

export interface MintTokenInput {
  userId: number;
  name: string;
  description?: string | null;
  scopes: string[];
  expiresAt: string | null;
  impersonation?: boolean;
  previousTokenId?: number | null;
}

/** A new token value: the instance prefix (`personal_access_token_prefix`, default `glpat-`) + 20 URL-safe characters. */
export function newTokenValue(settings: Settings): string {
  return `${settings.personal_access_token_prefix ?? ''}${randomToken(20)}`;
}

export async function tokenInsert(db: Db, config: Config, settings: Settings, input: MintTokenInput) {
  const value = newTokenValue(settings);
  const now = Date.now();
  const query = db
    .insert(personalAccessTokens)
    .values({
      userId: input.userId,
      name: input.name,
      description: input.description ?? null,
      tokenDigest: await tokenDigest(value, config.tokenPepper),
      scopes: JSON.stringify(input.scopes),
      impersonation: input.impersonation ?? false,
      expiresAt: input.expiresAt,
      previousTokenId: input.previousTokenId ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return { value, query };
}

/** CreateService#pat_expiration: without a date the token gets the longest lifetime allowed, when expiry is required. */
export function defaultExpiry(policy: TokenPolicy, expiresAt: string | null | undefined): string | null {
  if (expiresAt) return expiresAt;
  return policy.settings.require_personal_access_token_expiry ? addDays(today(), maxLifetimeDays(policy)) : null;
}

const TOKEN_TEXT = { name: { max: NAME_MAX }, description: { max: NAME_MAX } };

/** PersonalAccessToken validations, in the order Rails runs them: `{attribute: [messages]}`, empty when valid. */
export function tokenErrors(policy: TokenPolicy, input: { name: string; scopes: string[]; expiresAt: string | null; description?: string | null }): Record<string, string[]> {
  const { settings } = policy;
  const errors: Record<string, string[]> = {};
  const add = (attr: string, msg: string) => (errors[attr] ??= []).push(msg);
  if (!input.name.trim()) add('name', "can't be blank");
  // `name` is a `string(255)` column; `description` is held to 255 characters by a check constraint.
  checkText(errors, { name: input.name, description: input.description }, TOKEN_TEXT);
  if (input.scopes.length === 0) add('scopes', "can't be blank");
  if (input.expiresAt == null && settings.require_personal_access_token_expiry) add('expires_at', "can't be blank");
  const allowed = allAvailableScopes();
  if (input.scopes.some((s) => !allowed.includes(s))) add('scopes', 'can only contain available scopes');
  const max = addDays(today(), maxLifetimeDays(policy));
  if (input.expiresAt != null && input.expiresAt > max) add('expires_at', `must be before ${max}`);
  return errors;
}

const HUMAN_ATTRIBUTE: Record<string, string> = { name: 'Name', description: 'Description', scopes: 'Scopes', expires_at: 'Expires at' };

/** `errors.full_messages.to_sentence`: "Name can't be blank and Expires at must be before 2026-01-01". */
export function fullMessagesSentence(errors: Record<string, string[]>): string {
  const msgs = Object.entries(errors).flatMap(([attr, list]) => list.map((m) => `${HUMAN_ATTRIBUTE[attr] ?? attr} ${m}`));
  if (msgs.length <= 1) return msgs.join('');
  return `${msgs.slice(0, -1).join(', ')} and ${msgs[msgs.length - 1]}`;
}

export const findToken = (db: Db, id: number) => db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, id)).get();

/** `revoke!`: idempotent; the conditional update keeps `updated_at` of an already revoked token. */
export async function revokeToken(db: Db, id: number): Promise<void> {
  const [revoked] = await db
    .update(personalAccessTokens)
    .set({ revoked: true, updatedAt: Date.now() })
    .where(and(eq(personalAccessTokens.id, id), eq(personalAccessTokens.revoked, false)))
    .returning({ userId: personalAccessTokens.userId });
  // The owner's cached credentials go: a revoked token stops working in this isolate at once.
  if (revoked) invalidateCaller(db, { userId: revoked.userId });
}

export type RotateResult = { ok: true; row: TokenRow; value: string } | { ok: false; message: string };

/**
 * PersonalAccessTokens::RotateService: revoke the old token, then mint its successor with the same
 * name, description, scopes and impersonation flag, linked by `previous_token_id`. The revocation is
 * a compare-and-set, so of two concurrent rotations only one mints a successor.
 */
export async function rotateToken(db: Db, config: Config, settings: Settings, token: TokenRow, expiresAtParam: string | undefined): Promise<RotateResult> {
  if (token.revoked) return { ok: false, message: 'Token already revoked' };
  const expiresAt = expiresAtParam ?? (settings.require_personal_access_token_expiry ? addDays(today(), ROTATION_EXPIRY_DAYS) : null);
  const scopes = JSON.parse(token.scopes) as string[];
  const errors = tokenErrors({ settings, config }, { name: token.name, scopes, expiresAt });
  if (Object.keys(errors).length) return { ok: false, message: fullMessagesSentence(errors) };
  const revoked = await db
    .update(personalAccessTokens)
    .set({ revoked: true, updatedAt: Date.now() })
    .where(and(eq(personalAccessTokens.id, token.id), eq(personalAccessTokens.revoked, false)))
    .returning({ id: personalAccessTokens.id });
  if (revoked.length === 0) return { ok: false, message: 'Token already revoked' };
  invalidateCaller(db, { userId: token.userId });
  const { value, query } = await tokenInsert(db, config, settings, {
    userId: token.userId,
    name: token.name,
    description: token.description,
    scopes,
    expiresAt,
    impersonation: token.impersonation,
    previousTokenId: token.id,
  });
  const [row] = await query;
  return { ok: true, row, value };
}
