/**
 * Application settings: GitLab's defaults of a fresh instance (reference B §2.3) overlaid by the
 * JSON row an administrator edits through PUT /application/settings. Read lazily, once per request,
 * from a per-isolate copy checked against a version stamp (`loadSettings`).
 *
 * Writes touch only the keys a PUT changed, with one `json_set` per statement in one batch, so two
 * concurrent PUTs of different keys both land (a read-modify-write of the whole JSON would lose one).
 */
import { eq, sql, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import type { AppEnv } from '../platform/context';
import { applicationSettings, cacheVersions } from '../db/schema';
import { requestScope, ride } from '../db/riders';
import { sha256, toHex } from '../platform/crypto';
import { SETTINGS } from './settings-catalogue';
import { perDb } from '../platform/isolate-cache';

export const SETTINGS_DEFAULTS = {
  admin_mode: false,
  abuse_notification_email: null as string | null,
  after_sign_out_path: null as string | null,
  after_sign_up_text: null as string | null,
  default_projects_limit: 100000,
  default_branch_protection: 2,
  default_project_creation: 2,
  default_project_visibility: 'private',
  default_group_visibility: 'private',
  default_snippet_visibility: 'private',
  restricted_visibility_levels: [] as string[],
  signup_enabled: true,
  password_authentication_enabled_for_web: true,
  password_authentication_enabled_for_git: true,
  session_expire_delay: 10080,
  minimum_password_length: 8,
  max_attachment_size: 100,
  max_artifacts_size: 100,
  max_import_size: 0,
  max_decompressed_archive_size: 25600,
  max_pages_size: 100,
  dsa_key_restriction: 0,
  rsa_key_restriction: 0,
  ecdsa_key_restriction: 0,
  ecdsa_sk_key_restriction: 0,
  ed25519_key_restriction: 0,
  ed25519_sk_key_restriction: 0,
  personal_access_token_prefix: 'glpat-',
  issues_create_limit: 0,
  notes_create_limit: 300,
  users_get_by_id_limit: 300,
  users_get_by_id_limit_allowlist: [] as string[],
  raw_blob_request_limit: 300,
  user_default_external: false,
  user_defaults_to_private_profile: false,
  require_admin_approval_after_user_signup: false,
  send_user_confirmation_email: false,
  rate_limiting_response_text: null as string | null,
  throttle_authenticated_api_enabled: false,
  throttle_authenticated_api_requests_per_period: 7200,
  throttle_authenticated_api_period_in_seconds: 3600,
  throttle_unauthenticated_api_enabled: false,
  throttle_unauthenticated_api_requests_per_period: 3600,
  throttle_unauthenticated_api_period_in_seconds: 3600,
  require_personal_access_token_expiry: true,
  max_personal_access_token_lifetime: null as number | null,
  max_ssh_key_lifetime: null as number | null,
};

export type Settings = typeof SETTINGS_DEFAULTS & Record<string, unknown>;

/** Every attribute's fresh-instance value (the catalogue), with the typed defaults above on top. */
const ALL_DEFAULTS: Record<string, unknown> = { ...Object.fromEntries(SETTINGS.map((d) => [d.name, d.def])), repository_storages_weighted: { default: 100 }, ...SETTINGS_DEFAULTS };

/** Fresh copies, so a caller mutating an array cannot change the defaults. */
const freshDefaults = (): Record<string, unknown> => structuredClone(ALL_DEFAULTS);

const EXPLICIT = Symbol('explicitSettings');

/** True when an administrator stored a value for `key` (as opposed to the fresh-instance default). */
export function isExplicit(settings: Settings, key: string): boolean {
  const set = (settings as unknown as Record<symbol, Set<string> | undefined>)[EXPLICIT];
  return set?.has(key) ?? false;
}

export interface SettingsRow {
  settings: Settings;
  createdAt: number | null;
  updatedAt: number | null;
}

type StoredRow = typeof applicationSettings.$inferSelect;

/** The defaults overlaid by the stored row (absent on a fresh instance). */
function settingsRowFrom(row: StoredRow | undefined): SettingsRow {
  let overrides: Record<string, unknown> = {};
  if (row) {
    try {
      const parsed = JSON.parse(row.data);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) overrides = parsed;
    } catch {
      overrides = {};
    }
  }
  const settings = { ...freshDefaults(), ...overrides } as Settings;
  Object.defineProperty(settings, EXPLICIT, { value: new Set(Object.keys(overrides)), enumerable: false });
  return { settings, createdAt: row?.createdAt ?? null, updatedAt: row?.updatedAt ?? null };
}

const readSettingsRow = (db: Db) => db.select().from(applicationSettings).where(eq(applicationSettings.id, 1)).get();

export async function loadSettingsRow(db: Db): Promise<SettingsRow> {
  return settingsRowFrom(await readSettingsRow(db));
}

/** The settings' row of the version stamps (db/schema/instance.ts `cacheVersions`). */
const STAMP = 'settings';

/**
 * One statement: the settings row with the stamp it is at, when the stamp differs from `since`; no
 * row when it does not. `since` -1 always answers (stamps start at 0). Built on a one-row constant so
 * that a missing stamp (version 0) or a missing settings row (a fresh instance) still answers a row.
 */
const versionedQuery = (db: Db, since: number) =>
  db
    .select({
      stamp: sql<number>`coalesce(${cacheVersions.version}, 0)`.as('stamp'),
      data: applicationSettings.data,
      createdAt: applicationSettings.createdAt,
      updatedAt: applicationSettings.updatedAt,
    })
    .from(sql`(select 1) as one`)
    .leftJoin(cacheVersions, eq(cacheVersions.name, STAMP))
    .leftJoin(applicationSettings, eq(applicationSettings.id, 1))
    .where(sql`coalesce(${cacheVersions.version}, 0) <> ${since}`);

type VersionedRow = { stamp: number; data: string | null; createdAt: number | null; updatedAt: number | null };

interface Cached {
  version: number;
  settings: Settings;
  /** The check a request sends along with its first round trip: answers a row only once the stamp moved. */
  check: ReturnType<typeof versionedQuery>;
}

/**
 * Settings as request handlers see them, cached per isolate and trusted while their version stamp is
 * current (issue 17: "a PUT is seen by every isolate within one request"). Every request that uses the
 * cached copy sends the stamp check along with its first storage round trip (db/riders.ts), so it
 * costs no round trip of its own: unchanged, the check answers nothing; changed, it answers the new
 * row, which later requests use. A PUT bumps the stamp in its write batch (`writeSettings`). So another
 * isolate's change is seen from the request after the first one that went to storage; this isolate's
 * own change at once (the entry is dropped). A request that makes no round trip (a cached runner poll)
 * checks nothing and reads nothing: the stamp check waits for the next request that goes to storage.
 *
 * `generation` moves on every local write: a read that was in flight across it is not stored.
 * Only a finished value is cached, never a pending promise: on Workers a request may not await I/O
 * started by another request, so concurrent first readers each run their own query.
 */
const settingsCache = perDb(() => ({ entry: undefined as Cached | undefined, generation: 0, checked: new WeakSet<object>() }));
type SettingsCache = ReturnType<typeof settingsCache>;

/** Turns a versioned row into settings, and caches them unless a local write (or a newer stamp) came first. */
function remember(db: Db, cache: SettingsCache, generation: number, row: VersionedRow): Settings {
  const stored = row.data === null ? undefined : ({ id: 1, data: row.data, createdAt: row.createdAt ?? 0, updatedAt: row.updatedAt ?? 0 } as StoredRow);
  const settings = Object.freeze(settingsRowFrom(stored).settings);
  const version = Number(row.stamp);
  if (generation === cache.generation && !(cache.entry && cache.entry.version > version)) cache.entry = { version, settings, check: versionedQuery(db, version) };
  return settings;
}

/** Notes that this request already checks the stamp (true the first time, in a request). */
function claimCheck(cache: SettingsCache): boolean {
  const scope = requestScope();
  if (!scope) return true;
  if (cache.checked.has(scope)) return false;
  cache.checked.add(scope);
  return true;
}

export async function loadSettings(db: Db): Promise<Settings> {
  const cache = settingsCache(db);
  // Outside a request (a queued job) there is no round trip to carry the check: read the row itself,
  // so a job never acts on settings older than its start (the export upload's outbound URL guard).
  const hit = requestScope() ? cache.entry : undefined;
  if (hit) {
    if (claimCheck(cache)) {
      const generation = cache.generation;
      ride(db, STAMP, [hit.check], ([rows]) => {
        const row = (rows as VersionedRow[])[0];
        if (row) remember(db, cache, generation, row);
      });
    }
    return hit.settings;
  }
  const generation = cache.generation;
  claimCheck(cache);
  const [row] = (await versionedQuery(db, -1)) as VersionedRow[];
  return remember(db, cache, generation, row);
}

/**
 * The settings read to send along with the caller's lookup, and `primeSettings` stores what the batch
 * answered: the stamp check when a copy is cached (nothing comes back unless it moved), the whole row
 * otherwise. It stands for this request's stamp check: `loadSettings` does not send another.
 */
export function settingsPrefetch(db: Db) {
  const cache = settingsCache(db);
  claimCheck(cache);
  return { generation: cache.generation, query: cache.entry?.check ?? versionedQuery(db, -1) };
}

export function primeSettings(db: Db, prefetch: { generation: number }, rows: unknown[]): void {
  const row = (rows as VersionedRow[])[0];
  if (row) remember(db, settingsCache(db), prefetch.generation, row);
}

const perRequest = new WeakMap<Context, Promise<Settings>>();

/** The settings of this request: read once per request (loadSettings caches them across requests). */
export function settingsOf(c: Context<AppEnv>): Promise<Settings> {
  let settings = perRequest.get(c);
  if (!settings) perRequest.set(c, (settings = loadSettings(c.var.db)));
  return settings;
}

/** Secret settings are kept as a digest: presence is all this server needs (spec: never returned). */
export async function secretDigest(value: string): Promise<string> {
  return `sha256:${toHex(await sha256(value))}`;
}

// D1 binds at most 100 parameters per statement; json_set takes two per key (path and value).
const KEYS_PER_STATEMENT = 40;

/**
 * Writes `changes` (attribute -> new value, nulls included) into the settings row atomically:
 * create the row if missing, then one `UPDATE ... SET data = json_set(data, ...)` per chunk of keys,
 * all in one batch. Keys not in `changes` are never rewritten.
 */
export async function writeSettings(db: Db, changes: Record<string, unknown>, now = Date.now()): Promise<void> {
  const entries = Object.entries(changes);
  const insert = db.insert(applicationSettings).values({ id: 1, data: '{}', createdAt: now, updatedAt: now }).onConflictDoNothing();
  const updates = [];
  for (let k = 0; k < entries.length || k === 0; k += KEYS_PER_STATEMENT) {
    const chunk = entries.slice(k, k + KEYS_PER_STATEMENT);
    let expr: SQL = sql`${applicationSettings.data}`;
    if (chunk.length) {
      const args = chunk.map(([key, value]) => sql`${`$."${key}"`}, json(${JSON.stringify(value ?? null)})`);
      expr = sql`json_set(${applicationSettings.data}, ${sql.join(args, sql`, `)})`;
    }
    updates.push(db.update(applicationSettings).set({ data: expr, updatedAt: now }).where(eq(applicationSettings.id, 1)));
    if (!entries.length) break;
  }
  // The stamp moves in the same batch: every isolate's cached copy is stale from this write on.
  const bump = db.insert(cacheVersions).values({ name: STAMP, version: 1 }).onConflictDoUpdate({ target: cacheVersions.name, set: { version: sql`${cacheVersions.version} + 1` } });
  await db.batch([insert, ...updates, bump]);
  const cache = settingsCache(db);
  cache.generation++;
  cache.entry = undefined;
}

/** The settings row exists from the first read on (ApplicationSetting.find_or_create_without_cache). */
export async function ensureSettingsRow(db: Db, now = Date.now()): Promise<void> {
  await db.insert(applicationSettings).values({ id: 1, data: '{}', createdAt: now, updatedAt: now }).onConflictDoNothing();
}
