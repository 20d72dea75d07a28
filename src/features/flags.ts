/**
 * Reading feature flags: ONE helper, `featureEnabled(c, name, actor?)`, over a per-isolate snapshot
 * of every persisted flag (the `features` and `feature_gates` tables are small: one statement reads
 * them all).
 *
 * Cost and freshness (../shared/DESIGN.md "Cache what changes rarely"): a check reads the snapshot
 * this isolate holds, so it costs no round trip; the request then sends a refresh of the snapshot
 * along with its own next round trip (db/riders.ts), so a change made in another isolate is seen
 * here from the next request on, and never later than ISOLATE_CACHE_TTL_MS. A change made here drops
 * the snapshot at once (`invalidateFlags`). Only an isolate with no snapshot (cold, or idle past the
 * TTL) pays a read of its own.
 */
import { asc, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import type { Db } from '../db/client';
import { ride } from '../db/riders';
import { featureGates, features } from '../db/schema';
import type { AppEnv } from '../platform/context';
import { ISOLATE_CACHE_TTL_MS, perDb, TtlCache } from '../platform/isolate-cache';
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

const cacheOf = perDb(() => new TtlCache<FlagSnapshot>(ISOLATE_CACHE_TTL_MS, 1));

/**
 * The snapshot straight from storage (the admin endpoints read through this, never the cache), as a
 * query to send in a caller's batch and the step that turns its rows into the snapshot (and caches it).
 */
export function flagsRead(db: Db) {
  const cache = cacheOf(db);
  const generation = cache.generation;
  return {
    query: snapshotQuery(db),
    snapshot(rows: readonly SnapshotRow[]): FlagSnapshot {
      const snapshot = snapshotFrom(rows);
      cache.setIfCurrent(generation, '', snapshot);
      return snapshot;
    },
  };
}

export async function readFlags(db: Db): Promise<FlagSnapshot> {
  const read = flagsRead(db);
  return read.snapshot(await read.query);
}

/** Drops this isolate's snapshot after a write (POST/DELETE /features). */
export const invalidateFlags = (db: Db) => cacheOf(db).invalidate();

const perRequest = new WeakMap<Context, Promise<FlagSnapshot>>();

/** The flags as this request sees them: read at most once per request. */
function flagsOf(c: Context<AppEnv>): Promise<FlagSnapshot> {
  let snapshot = perRequest.get(c);
  if (snapshot) return snapshot;
  const db = c.var.db;
  const cache = cacheOf(db);
  const hit = cache.get('');
  if (hit) {
    // Refresh on the request's next round trip: a flag flipped by another isolate shows from the next request.
    const generation = cache.generation;
    ride(db, 'features', [snapshotQuery(db)], ([rows]) => cache.setIfCurrent(generation, '', snapshotFrom(rows as SnapshotRow[])));
    snapshot = Promise.resolve(hit);
  } else {
    snapshot = readFlags(db);
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
