/**
 * Reading feature flags: ONE helper, `featureEnabled(c, name, actor?)`, over a per-isolate snapshot
 * of every persisted flag (the `features` and `feature_gates` tables are small: one statement reads
 * them all).
 *
 * Cost and freshness (../shared/DESIGN.md "Cache what changes rarely"): a check reads the snapshot
 * this isolate holds, so it costs no round trip. The snapshot is trusted while the `features` version
 * stamp it was read at is current (db/schema/instance.ts `cacheVersions`; every flag write bumps it in
 * its own batch, flag-writes.ts): a request that checks a flag sends the stamp, and the snapshot only
 * if the stamp moved, along with its own next round trip (db/riders.ts). So a change made in another
 * isolate is seen here from the next request on; a change made here drops the snapshot at once
 * (`invalidateFlags`). Only an isolate with no snapshot (cold) pays a read of its own, as settings do.
 */
import { asc, eq, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import { ride } from '../db/riders';
import { cacheVersions, featureGates, features } from '../db/schema';
import type { AppEnv } from '../platform/context';
import { perDb } from '../platform/isolate-cache';
import { definitionOf, type FlagName } from './definitions';
import { type Actor, gatesOpen, gateValues, type GateValues } from './flipper';

/** Persisted features in creation order, each with its gate values. */
export type FlagSnapshot = ReadonlyMap<string, GateValues>;

type SnapshotRow = { name: string; key: string | null; value: string | null };

/**
 * One statement: every feature with its gates (a feature without gates comes with nulls). Columns
 * are named apart: in a batch (a rider) D1 answers rows as objects, where two `key`s would be one.
 */
const snapshotQuery = (db: Db) =>
  db
    .select({ name: sql<string>`${features.key}`.as('feature_name'), key: sql<string | null>`${featureGates.key}`.as('gate_key'), value: featureGates.value })
    .from(features)
    .leftJoin(featureGates, sql`${featureGates.featureKey} = ${features.key}`)
    .orderBy(asc(sql`${features}.rowid`), asc(featureGates.id));

function snapshotFrom(rows: readonly SnapshotRow[]): FlagSnapshot {
  const byName = new Map<string, { key: string; value: string }[]>();
  for (const r of rows) {
    const gates = byName.get(r.name) ?? [];
    if (r.key !== null && r.value !== null) gates.push({ key: r.key, value: r.value });
    byName.set(r.name, gates);
  }
  return new Map([...byName].map(([name, gates]) => [name, gateValues(gates)]));
}

/** The flags' row of the version stamps. */
const STAMP = 'features';

/** The stamp's current value (0 while no flag was ever written): one row, always. */
const stampQuery = (db: Db) => db.select({ stamp: sql<number>`coalesce(max(${cacheVersions.version}), 0)`.as('stamp') }).from(cacheVersions).where(eq(cacheVersions.name, STAMP));

/** The snapshot's rows only when the stamp moved past `since` (none otherwise). */
const snapshotSinceQuery = (db: Db, since: number) =>
  snapshotQuery(db).where(sql`coalesce((select ${cacheVersions.version} from ${cacheVersions} where ${cacheVersions.name} = ${STAMP}), 0) <> ${since}`);

/** The statement every flag write adds to its batch: the stamp moves on (flag-writes.ts). */
export const flagsStampBump = (db: Db) =>
  db.insert(cacheVersions).values({ name: STAMP, version: 1 }).onConflictDoUpdate({ target: cacheVersions.name, set: { version: sql`${cacheVersions.version} + 1` } });

interface Cached {
  version: number;
  snapshot: FlagSnapshot;
  /** What a request sends to check it: the stamp, and the rows if it moved. */
  check: readonly [ReturnType<typeof stampQuery>, ReturnType<typeof snapshotSinceQuery>];
}

const cacheOf = perDb(() => ({ entry: undefined as Cached | undefined, generation: 0 }));
type FlagsCache = ReturnType<typeof cacheOf>;

/** Caches a snapshot read at `version`, unless a local write (or a newer stamp) came first. */
function remember(db: Db, cache: FlagsCache, generation: number, version: number, snapshot: FlagSnapshot): void {
  if (generation !== cache.generation || (cache.entry && cache.entry.version > version)) return;
  cache.entry = { version, snapshot, check: [stampQuery(db), snapshotSinceQuery(db, version)] };
}

/**
 * The snapshot straight from storage (the admin endpoints read through this, never the cache), as a
 * query to send in a caller's batch and the step that turns its rows into the snapshot. Not cached:
 * it is read without the stamp.
 */
export function flagsRead(db: Db) {
  return {
    query: snapshotQuery(db),
    snapshot: (rows: readonly SnapshotRow[]): FlagSnapshot => snapshotFrom(rows),
  };
}

export async function readFlags(db: Db): Promise<FlagSnapshot> {
  return snapshotFrom(await snapshotQuery(db));
}

/** Drops this isolate's snapshot after a write (POST/DELETE /features). */
export const invalidateFlags = (db: Db) => {
  const cache = cacheOf(db);
  cache.generation++;
  cache.entry = undefined;
};

/** The cold read: the stamp and the snapshot in one round trip, cached together. */
async function loadFlags(db: Db): Promise<FlagSnapshot> {
  const cache = cacheOf(db);
  const generation = cache.generation;
  const [[stamp], rows] = await db.batch([stampQuery(db), snapshotQuery(db)]);
  const snapshot = snapshotFrom(rows as SnapshotRow[]);
  remember(db, cache, generation, Number(stamp?.stamp ?? 0), snapshot);
  return snapshot;
}

const perRequest = new WeakMap<Context, Promise<FlagSnapshot>>();

/** The flags as this request sees them: read at most once per request. */
function flagsOf(c: Context<AppEnv>): Promise<FlagSnapshot> {
  let snapshot = perRequest.get(c);
  if (snapshot) return snapshot;
  const db = c.var.db;
  const cache = cacheOf(db);
  const hit = cache.entry;
  if (hit) {
    // Checked on the request's next round trip: a flag flipped by another isolate shows from the next request.
    const generation = cache.generation;
    ride(db, STAMP, hit.check, ([stampRows, rows]) => {
      const version = Number((stampRows as { stamp: number }[])[0]?.stamp ?? 0);
      if (version !== hit.version) remember(db, cache, generation, version, snapshotFrom(rows as SnapshotRow[]));
    });
    snapshot = Promise.resolve(hit.snapshot);
  } else {
    snapshot = loadFlags(db);
  }
  perRequest.set(c, snapshot);
  return snapshot;
}

/**
 * `Feature.enabled?(name, actor)`: a flag nobody persisted answers its definition's default
 * (lib/feature.rb: `default_enabled && !persisted_name?` is true; otherwise the gates decide).
 */
export async function featureEnabled(c: Context<AppEnv>, name: FlagName, actor?: Actor): Promise<boolean> {
  const values = (await flagsOf(c)).get(name);
  if (!values) return definitionOf(name)?.default_enabled ?? false;
  return gatesOpen(name, values, actor);
}

/** lib/api/project_import.rb `POST /projects/remote-import`: `not_found!` unless this is on (default on). */
export const remoteImportEnabled = (c: Context<AppEnv>) => featureEnabled(c, 'import_project_from_remote_file');

/** lib/api/project_import.rb `POST /projects/remote-import-s3`: `not_found!` unless this is on (default off). */
export const remoteImportS3Enabled = (c: Context<AppEnv>) => featureEnabled(c, 'import_project_from_remote_file_s3');
