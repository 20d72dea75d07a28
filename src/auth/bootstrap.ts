/**
 * A fresh database gets the administrator `root` (id 1, namespace id 1) and its personal access
 * token (id 1) whose value comes from configuration. Inserts with fixed ids and ON CONFLICT DO
 * NOTHING make this idempotent and safe at every start: a revoked bootstrap token stays revoked.
 */
import { eq } from 'drizzle-orm';
import type { Config } from '../platform/config';
import type { Db } from '../db/client';
import { emails, namespaces, personalAccessTokens, users } from '../db/schema';
import { hashPassword, tokenDigest } from '../platform/crypto';

export const ROOT_TOKEN_SCOPES = ['api', 'read_api', 'read_user', 'sudo', 'admin_mode', 'create_runner', 'manage_runner'];

export async function bootstrap(db: Db, config: Config): Promise<void> {
  const existing = await db.select({ id: personalAccessTokens.id }).from(personalAccessTokens).where(eq(personalAccessTokens.id, 1)).get();
  if (existing) return;
  const now = Date.now();
  const digest = await tokenDigest(config.rootToken, config.tokenPepper);
  const passwordDigest = await hashPassword(config.rootPassword, config.passwordIterations);
  await db.batch([
    db
      .insert(users)
      .values({ id: 1, username: 'root', email: 'admin@example.com', name: 'Administrator', isAdmin: true, passwordDigest, confirmedAt: now, createdAt: now, updatedAt: now })
      .onConflictDoNothing(),
    db
      .insert(namespaces)
      .values({ id: 1, kind: 'User', name: 'Administrator', path: 'root', fullPath: 'root', ownerId: 1, createdAt: now, updatedAt: now })
      .onConflictDoNothing(),
    // root is confirmed, so its primary address has its `emails` row as every confirmed user's (users/primary-email.ts).
    db.insert(emails).values({ userId: 1, email: 'admin@example.com', confirmedAt: now, createdAt: now }).onConflictDoNothing(),
    db
      .insert(personalAccessTokens)
      .values({ id: 1, userId: 1, name: 'bootstrap', tokenDigest: digest, scopes: JSON.stringify(ROOT_TOKEN_SCOPES), createdAt: now, updatedAt: now })
      .onConflictDoNothing(),
  ]);
}
