/**
 * Runner tokens (reference gitlab-behaviour-2.md 5.1): registration tokens of the instance, of each
 * group and of each project, and each runner's authentication token. Only digests are stored; a
 * value is shown once, in the answer that issues it.
 *
 * A runner fleet polls forever (POST /jobs/request every few seconds per runner), so the runner
 * behind a token is kept per isolate until a change to it is seen, and a known token's poll sends no
 * storage round trip. What changes a runner's answer in this isolate drops its entry at once
 * (reset, delete, pause and every update go through `forgetRunner`); every such write also logs the
 * change in its batch, and another isolate drops the entry within 10 s, when it next reads the log
 * (runner-changes.ts explains why and how).
 */
import { eq } from 'drizzle-orm';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import { ciRegistrationTokens, ciRunners } from '../db/schema';
import type { AppEnv } from '../platform/context';
import { randomToken, tokenDigest } from '../platform/crypto';
import { perDb, TtlCache } from '../platform/isolate-cache';
import type { Settings } from '../settings/settings';
import { cacheable, type ChangeCheck, type ChangeRow, changeCheckDue, claimChangeCheck, type Dropped, newestChange, RUNNER_CHANGES_RETENTION_MS } from './runner-changes';

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
 * A backstop only: entries are dropped when the change log names them (runner-changes.ts), so this
 * bounds how long a write path that forgot to log its change could go unseen elsewhere. Each runner
 * costs one read per hour for it.
 */
export const RUNNER_CACHE_TTL_MS = RUNNER_CHANGES_RETENTION_MS;

export interface CachedRunner {
  runner: RunnerRow;
  /** The last contact this isolate saw (newer than the row's between persisted writes). */
  contactedAt: number | null;
}

const cacheOf = perDb(() => new TtlCache<CachedRunner>(RUNNER_CACHE_TTL_MS, 50_000));

/** Drops what a change check found; true when it moved the cache's generation. */
function dropChanged(cache: TtlCache<CachedRunner>, dropped: Dropped): boolean {
  if (dropped === 'all') cache.invalidate();
  else if (dropped.size) cache.invalidate((e) => dropped.has(e.runner.id));
  else return false;
  return true;
}

/** Awaits the statement that carries a check; a failure leaves the check to the next request. */
async function carrying<T>(check: ChangeCheck, sent: PromiseLike<T>): Promise<T> {
  try {
    return await sent;
  } catch (e) {
    check.abandon();
    throw e;
  }
}

/**
 * The runner an authentication token names, or null: unknown, or expired (a runner whose token
 * expired must reset it with a valid one, so an expired token is refused like an unknown one).
 * Once per check interval a request also reads the change log: alone on a hit, in the same round
 * trip as the runner on a miss.
 */
export async function runnerByToken(c: Context<AppEnv>, token: string): Promise<CachedRunner | null> {
  if (!token) return null;
  const db = c.get('db');
  const digest = await digestOf(c, token);
  const cache = cacheOf(db);
  let check = claimChangeCheck(db);
  if (check?.fresh) cache.invalidate();
  let entry = cache.get(digest);
  if (check && entry) {
    dropChanged(cache, check.apply(await carrying(check, check.query)));
    check = undefined;
    entry = cache.get(digest);
  }
  if (!entry) {
    const generation = cache.generation;
    const read = db.select().from(ciRunners).where(eq(ciRunners.tokenDigest, digest)).limit(1);
    let row: RunnerRow | undefined;
    let newest: number | null | undefined;
    let moved = 0;
    if (check) {
      // The row and the log from one batch: the row is as new as the changes applied with it, so
      // the generation those changes move is no reason not to cache it.
      const [rows, changes, [top]] = await carrying(check, db.batch([read, check.query, newestChange(db)]));
      row = rows[0];
      newest = top?.id;
      moved = dropChanged(cache, check.apply(changes as ChangeRow[])) ? 1 : 0;
    } else {
      const [rows, [top]] = await db.batch([read, newestChange(db)]);
      row = rows[0];
      newest = top?.id;
    }
    if (!row) return null;
    entry = { runner: row, contactedAt: row.contactedAt };
    if (cacheable(db, newest)) cache.setIfCurrent(generation + moved, digest, entry);
  }
  if (entry.runner.tokenExpiresAt !== null && entry.runner.tokenExpiresAt <= Date.now()) return null;
  // Only a runner's token is noted: unknown tokens would push known ones out.
  const digests = digestsOf(db);
  if (!digests.has(token)) {
    if (digests.size >= 50_000) digests.delete(digests.keys().next().value as string);
    digests.set(token, digest);
  }
  return entry;
}

/**
 * Each token's digest, noted where runnerByToken computed it: a digest is a function of the token
 * (and the app's pepper), so it never goes stale, and a poll answered before any context exists
 * (runner-poll-first.ts) looks its runner up without hashing. Bounded like the runner cache.
 */
const digestsOf = perDb(() => new Map<string, string>());

/**
 * The runner of a token when it is answered from this isolate's cache with no I/O at all: its digest
 * known, no change check due, the entry cached and unexpired. Undefined otherwise (runnerByToken
 * decides, with its reads).
 */
export function cachedRunner(db: Db, token: string): CachedRunner | undefined {
  const digest = digestsOf(db).get(token);
  if (digest === undefined || changeCheckDue(db)) return undefined;
  const entry = cacheOf(db).get(digest);
  if (!entry || (entry.runner.tokenExpiresAt !== null && entry.runner.tokenExpiresAt <= Date.now())) return undefined;
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
const contactDue = (runner: RunnerRow, now: number) => runner.contactedAt === null || now - runner.contactedAt >= persistAfterMs();

/** The contact this isolate remembers between persisted ones. */
function noteContact(db: Db, entry: CachedRunner, now: number): void {
  entry.contactedAt = now;
  const seen = contactsOf(db);
  seen.setIfCurrent(seen.generation, String(entry.runner.id), now);
}

/**
 * `heartbeat` for a runner that reports nothing new, when it needs no write: true with the contact
 * noted, or false (nothing noted) when the contact is due to be persisted.
 */
export function contactWithoutWrite(db: Db, entry: CachedRunner): boolean {
  const now = Date.now();
  if (contactDue(entry.runner, now)) return false;
  noteContact(db, entry, now);
  return true;
}

export interface RunnerInfo {
  name?: string;
  version?: string;
  revision?: string;
  platform?: string;
  architecture?: string;
  executor?: string;
}

const INFO_KEYS = [
  ['name', 'name'],
  ['version', 'version'],
  ['revision', 'revision'],
  ['platform', 'platform'],
  ['architecture', 'architecture'],
  ['executor', 'executorType'],
] as const;

/**
 * Whether `infoColumns(info, ip)` would differ from the row, without building it: nearly every poll
 * reports what the row already says, and this is on every poll's path.
 */
export function reportsChange(runner: RunnerRow, info: Record<string, unknown> | undefined, ip: string | null): boolean {
  if (ip && runner.ipAddress !== ip) return true;
  if (!info) return false;
  for (const [k, col] of INFO_KEYS) {
    const v = info[k];
    if (typeof v === 'string' && runner[col] !== (v.length > 255 ? v.slice(0, 255) : v)) return true;
  }
  return false;
}

/** The info fields a runner reports (`info` hash), as stored; unknown keys and non-strings are ignored. */
export function infoColumns(info: Record<string, unknown> | undefined, ip: string | null) {
  const str = (k: string) => (typeof info?.[k] === 'string' ? (info[k] as string).slice(0, 255) : undefined);
  const out: Partial<RunnerRow> = {};
  for (const [k, col] of INFO_KEYS) {
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
export function heartbeat(c: Context<AppEnv>, entry: CachedRunner, info: Partial<RunnerRow>): Promise<void> | undefined {
  const now = Date.now();
  const runner = entry.runner;
  const db = c.get('db');
  noteContact(db, entry, now);
  const changed = Object.entries(info).some(([k, v]) => runner[k as keyof RunnerRow] !== v);
  const stale = contactDue(runner, now);
  // Nothing to write (nearly every poll): no promise to wait for.
  if (!changed && !stale) return undefined;
  return db
    .update(ciRunners)
    .set({ ...info, contactedAt: now })
    .where(eq(ciRunners.id, runner.id))
    .run()
    .then(() => void Object.assign(runner, info, { contactedAt: now }));
}
