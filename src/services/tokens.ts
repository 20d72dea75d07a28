/** Minting personal and impersonation tokens: value shown once, only the digest stored. */
import type { Db } from '../db/client';
import { personalAccessTokens } from '../db/schema';
import { randomToken, tokenDigest } from '../lib/crypto';
import type { Config } from '../config';
import type { Settings } from './settings';

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
