/**
 * Runner tokens (reference gitlab-behaviour-2.md 5.1): registration tokens of the instance, of each
 * group and of each project, and each runner's authentication token. Only digests are stored; a
 * value is shown once, in the answer that issues it.
 *
 * A runner fleet polls forever (POST /jobs/request every few seconds per runner), so the runner
 * behind a token is kept per isolate (`RUNNER_CACHE_TTL_MS`) and a known token's poll sends no
 * storage round trip. What changes a runner's answer in this isolate drops its entry at once
 * (reset, delete, pause and every update go through `forgetRunner`); another isolate sees the change
 * once its entry is older than the TTL.
 */
import { eq } from 'drizzle-orm';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import { ciRegistrationTokens, ciRunners } from '../db/schema';
import type { AppEnv } from '../platform/context';
import { randomToken, tokenDigest } from '../platform/crypto';
import { TtlCache } from '../platform/isolate-cache';
import type { Settings } from '../settings/settings';

export type RunnerRow = typeof ciRunners.$inferSelect;
export type RunnerType = 'instance_type' | 'group_type' | 'project_type';
export type RegistrationScope = 'instance' | 'group' | 'project';

/** GitLab's registration token prefix: "GR" and the rotation date 2022-02-25 in hex (runners_token_prefixable.rb). */
export const REGISTRATION_TOKEN_PREFIX = 'GR1348941';
/** Runners created with POST /user/runners get `glrt-` tokens (gitlab-runner tells them apart by it). */
export const CREATED_RUNNER_TOKEN_PREFIX = 'glrt-';

export const newRegistrationToken = () => `${REGISTRATION_TOKEN_PREFIX}${randomToken(20)}`;
/** A registered runner's token keeps GitLab's legacy form (Devise.friendly_token: 20 URL-safe characters). */
export const newAuthenticationToken = (registrationType: 'registration_token' | 'authenticated_user') =>
  registrationType === 'authenticated_user' ? `${CREATED_RUNNER_TOKEN_PREFIX}${randomToken(20)}` : randomToken(20);

// `c.get`, not `c.var`: Hono builds a fresh object of every variable on each `c.var` read, a cost a
// cached poll (these three functions and nothing else) pays several times.
export const digestOf = (c: Context<AppEnv>, token: string) => tokenDigest(token, c.get('config').tokenPepper);

/**
 * When a token issued now expires (Ci::Runner#compute_token_expiration): the interval setting of
 * the runner's type, in seconds; null when none is set.
 */
export function tokenExpiry(settings: Settings, type: RunnerType, now: number): number | null {
  const key = { instance_type: 'runner_token_expiration_interval', group_type: 'group_runner_token_expiration_interval', project_type: 'project_runner_token_expiration_interval' }[type];
  const seconds = (settings as Record<string, unknown>)[key];
  return typeof seconds === 'number' && seconds > 0 ? now + seconds * 1000 : null;
}

/** The registration token's scope and owner (0 for the instance), or undefined: one indexed read. */
export const registrationTokenRead = (db: Db, digest: string) =>
  db.select({ scope: ciRegistrationTokens.scope, ownerId: ciRegistrationTokens.ownerId }).from(ciRegistrationTokens).where(eq(ciRegistrationTokens.tokenDigest, digest)).limit(1);

/** A new registration token for a scope, replacing the old one: the statement and the value to show once. */
export async function resetRegistrationToken(c: Context<AppEnv>, scope: RegistrationScope, ownerId: number) {
  const token = newRegistrationToken();
  const digest = await digestOf(c, token);
  const statement = c.var.db
    .insert(ciRegistrationTokens)
    .values({ scope, ownerId, tokenDigest: digest, createdAt: Date.now() })
    .onConflictDoUpdate({ target: [ciRegistrationTokens.scope, ciRegistrationTokens.ownerId], set: { tokenDigest: digest, createdAt: Date.now() } });
  return { token, statement };
}

// ---- the runner behind an authentication token, per isolate ----

/**
 * How long this isolate trusts a cached runner: a runner deleted, paused or reset in another isolate
 * is answered as before here for at most this long. Longer than the caller cache's 10 s because a
 * fleet's polls are the instance's steadiest load and a stale answer here hands out nothing (no job
 * is ever assigned from a cached row without storage).
 */
export const RUNNER_CACHE_TTL_MS = 60_000;

interface CachedRunner {
  runner: RunnerRow;
  /** The last contact this isolate saw (newer than the row's between persisted writes). */
  contactedAt: number | null;
}

const caches = new WeakMap<Db, TtlCache<CachedRunner>>();
const cacheOf = (db: Db) => {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new TtlCache<CachedRunner>(RUNNER_CACHE_TTL_MS, 50_000)));
  return cache;
};

/**
 * The runner an authentication token names, or null: unknown, or expired (a runner whose token
 * expired must reset it with a valid one, so an expired token is refused like an unknown one).
 */
export async function runnerByToken(c: Context<AppEnv>, token: string): Promise<CachedRunner | null> {
  if (!token) return null;
  const db = c.get('db');
  const digest = await digestOf(c, token);
  const cache = cacheOf(db);
  let entry = cache.get(digest);
  if (!entry) {
    const generation = cache.generation;
    const row = await db.select().from(ciRunners).where(eq(ciRunners.tokenDigest, digest)).get();
    if (!row) return null;
    entry = { runner: row, contactedAt: row.contactedAt };
    cache.setIfCurrent(generation, digest, entry);
  }
  if (entry.runner.tokenExpiresAt !== null && entry.runner.tokenExpiresAt <= Date.now()) return null;
  return entry;
}

/** Drops a runner from this isolate's cache (after any write to it). */
export function forgetRunner(db: Db, runnerId: number): void {
  cacheOf(db).invalidate((e) => e.runner.id === runnerId);
}

/**
 * Drops every runner from this isolate's cache: a project or group deletion removes runners it names
 * by sub-select (cascade.ts), so which ones is not known here. Deletions are rare; each cached runner
 * costs one read to come back.
 */
export function forgetAllRunners(db: Db): void {
  cacheOf(db).invalidate();
}

/**
 * The contacts this isolate saw, newer than the stored ones between writes (bounded; an entry
 * outlives the longest gap between persisted contacts, after which the row is as new).
 */
const contacts = new WeakMap<Db, TtlCache<number>>();
const contactsOf = (db: Db) => {
  let m = contacts.get(db);
  if (!m) contacts.set(db, (m = new TtlCache<number>(55 * 60_000, 100_000)));
  return m;
};

/** The contact time this isolate knows for a runner (readers show it: `online`, `status`, `contacted_at`). */
export function knownContact(db: Db, runner: Pick<RunnerRow, 'id' | 'contactedAt'>): number | null {
  const seen = contactsOf(db).get(String(runner.id));
  return seen !== undefined && (runner.contactedAt === null || seen > runner.contactedAt) ? seen : runner.contactedAt;
}

/**
 * GitLab persists a runner's contact every 40-55 minutes (a random age per write,
 * UPDATE_CONTACT_COLUMN_EVERY), keeping the newest in its cache meanwhile.
 */
const persistAfterMs = () => (40 + Math.random() * 15) * 60_000;

export interface RunnerInfo {
  name?: string;
  version?: string;
  revision?: string;
  platform?: string;
  architecture?: string;
  executor?: string;
}

/** The info fields a runner reports (`info` hash), as stored; unknown keys and non-strings are ignored. */
export function infoColumns(info: Record<string, unknown> | undefined, ip: string | null) {
  const str = (k: string) => (typeof info?.[k] === 'string' ? (info[k] as string).slice(0, 255) : undefined);
  const out: Partial<RunnerRow> = {};
  for (const [k, col] of [
    ['name', 'name'],
    ['version', 'version'],
    ['revision', 'revision'],
    ['platform', 'platform'],
    ['architecture', 'architecture'],
    ['executor', 'executorType'],
  ] as const) {
    const v = str(k);
    if (v !== undefined) out[col] = v;
  }
  if (ip) out.ipAddress = ip;
  return out;
}

/**
 * Ci::Runner#heartbeat: every authenticated runner request is a contact. The contact (and what the
 * runner reports about itself) is written when the stored one is older than 40-55 minutes or missing,
 * or when the reported info changed; otherwise only this isolate remembers it.
 */
export async function heartbeat(c: Context<AppEnv>, entry: CachedRunner, info: Partial<RunnerRow>): Promise<void> {
  const now = Date.now();
  const runner = entry.runner;
  entry.contactedAt = now;
  const db = c.get('db');
  const seen = contactsOf(db);
  seen.setIfCurrent(seen.generation, String(runner.id), now);
  const changed = Object.entries(info).some(([k, v]) => runner[k as keyof RunnerRow] !== v);
  const stale = runner.contactedAt === null || now - runner.contactedAt >= persistAfterMs();
  if (!changed && !stale) return;
  await db.update(ciRunners).set({ ...info, contactedAt: now }).where(eq(ciRunners.id, runner.id)).run();
  Object.assign(runner, info, { contactedAt: now });
}
