/**
 * Web sessions of the main application: sign-in with login and password sets the `_service_session`
 * cookie the API honours (GET/HEAD, or writes carrying the session's CSRF token). Only the digest of
 * the cookie value is stored; the session lasts `session_expire_delay` minutes.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { AppEnv, UserRow } from '../platform/context';
import { users, webSessions } from '../db/schema';
import { randomHex, randomToken, tokenDigest } from '../platform/crypto';
import { settingsOf } from '../settings/settings';
import { invalidateCaller } from '../users/caller-cache';

export interface NewSession {
  cookie: string;
  csrfToken: string;
  expiresAt: number;
}

/** The client address as the edge reports it (Workers: CF-Connecting-IP; behind a proxy: X-Forwarded-For). */
function clientIp(c: Context): string | null {
  return c.req.header('cf-connecting-ip') ?? c.req.header('x-forwarded-for')?.split(',')[0].trim() ?? c.req.header('x-real-ip') ?? null;
}

/**
 * Devise's trackable fields, and the reactivation GitLab performs when a deactivated user signs in
 * again (config/initializers/warden.rb `after_set_user`), in one batch with the new session.
 */
export async function startSession(c: Context<AppEnv>, user: UserRow): Promise<NewSession> {
  const settings = await settingsOf(c);
  const now = Date.now();
  const cookie = randomHex(32);
  const csrfToken = randomToken(43);
  const expiresAt = now + Number(settings.session_expire_delay ?? 10080) * 60_000;
  const ip = clientIp(c);
  const db = c.var.db;
  await db.batch([
    db.insert(webSessions).values({ sessionDigest: await tokenDigest(cookie, c.var.config.tokenPepper), csrfToken, userId: user.id, createdAt: now, expiresAt }),
    db
      .update(users)
      .set({
        lastSignInAt: sql`coalesce(${users.currentSignInAt}, ${now})`,
        lastSignInIp: sql`coalesce(${users.currentSignInIp}, ${ip})`,
        currentSignInAt: now,
        currentSignInIp: ip,
        signInCount: sql`${users.signInCount} + 1`,
      })
      .where(eq(users.id, user.id)),
    db.update(users).set({ state: 'active', updatedAt: now }).where(and(eq(users.id, user.id), eq(users.state, 'deactivated'))),
  ]);
  // The sign-in fields and a reactivation change the user row cached callers carry.
  invalidateCaller(db, { userId: user.id });
  return { cookie, csrfToken, expiresAt };
}

export async function findSessionByCookie(c: Context<AppEnv>, cookie: string) {
  const digest = await tokenDigest(cookie, c.var.config.tokenPepper);
  return c.var.db.select().from(webSessions).where(eq(webSessions.sessionDigest, digest)).get();
}

export async function endSession(c: Context<AppEnv>, session: { id: number; userId: number }) {
  await c.var.db.delete(webSessions).where(eq(webSessions.id, session.id)).run();
  invalidateCaller(c.var.db, { userId: session.userId });
}
