/**
 * Riders: reads that travel on a request's next storage round trip instead of paying one of their own
 * (issue 13: a request costs exactly its route's round trips).
 *
 * A per-isolate cache whose entry is getting old (the cached caller past half its TTL) still answers
 * the request, and hands its refresh reads to `ride`. The round-trip meter (round-trips.ts) appends
 * them to the request's next batch, or turns the next single read into a batch, and passes their
 * results back through `done`; the route's own statements and results are exactly as before. A request
 * that makes no round trip after registering simply drops its riders: the entry stays valid until
 * its TTL and the next request registers them again.
 *
 * The store is per request (an AsyncLocalStorage opened by the round-trip meter), so concurrent
 * requests on one isolate never carry each other's reads; riders are also matched to the client of
 * the Db they were built on (`db.$client`), so a request touching two databases sends each its own.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from './client';

/** What Drizzle's own `db.batch` uses of a query: its SQL and parameters, and how to map a batch result (drizzle-orm session.js). */
interface PreparedLike {
  getQuery(): { sql: string; params: unknown[] };
  mapResult(result: unknown, isFromBatch: boolean): unknown;
}

export interface Rider {
  /** One rider per key and request (two reads of the same stale entry send one refresh). */
  key: string;
  client: unknown;
  queries: readonly BatchItem<'sqlite'>[];
  /** Gets the mapped results of `queries`, in order, once the round trip they rode on answered. */
  done(results: unknown[]): void;
}

/** A rider taken for one round trip: its statements' SQL and parameters, and the mapping back. */
export interface Boarding {
  statements: { sql: string; params: unknown[] }[];
  /** Hands the raw driver results (one per statement, in order) to the riders; never throws. */
  deliver(raw: unknown[]): void;
}

const store = new AsyncLocalStorage<Rider[]>();

/**
 * The identity of the request being served (its riders' list), undefined outside one: for caches that
 * note "already checked in this request" (settings/settings.ts) without a request object at hand.
 */
export const requestScope = (): object | undefined => store.getStore();

/** Runs one request with its own (empty) set of riders. */
export const withRiders = <T>(work: () => T): T => store.run([], work);

/**
 * Registers reads to send with this request's next round trip on `db`. False outside a request (no
 * store), where there is no round trip to ride on: the caller then does without the refresh.
 */
export function ride(db: Db, key: string, queries: readonly BatchItem<'sqlite'>[], done: (results: unknown[]) => void): boolean {
  const list = store.getStore();
  if (!list) return false;
  const client = (db as unknown as { $client: unknown }).$client;
  if (!list.some((r) => r.key === key && r.client === client)) list.push({ key, client, queries, done });
  return true;
}

/** The riders waiting for a round trip of `client` (removed from the request: each rides once); null when none. */
export function board(client: unknown): Boarding | null {
  const list = store.getStore();
  if (!list?.length) return null;
  const mine = list.filter((r) => r.client === client);
  if (!mine.length) return null;
  store.getStore()!.splice(0, list.length, ...list.filter((r) => r.client !== client));
  const prepared = mine.map((r) => r.queries.map((q) => (q as unknown as { _prepare(): PreparedLike })._prepare()));
  return {
    statements: prepared.flat().map((p) => p.getQuery()),
    deliver(raw) {
      let at = 0;
      mine.forEach((r, i) => {
        const own = prepared[i];
        const slice = raw.slice(at, (at += own.length));
        try {
          r.done(own.map((p, k) => p.mapResult(slice[k], true)));
        } catch {
          // A refresh that cannot be read back is skipped: the entry stays as it was, valid until its TTL.
        }
      });
    },
  };
}
