/**
 * Per-isolate caches of what nearly every request reads and rarely changes (issue 13; ../shared/DESIGN.md
 * "Data access: round trips are the cost"): the caller behind a token. (The application settings and the
 * feature flags are kept under a version stamp instead: settings/settings.ts, features/flags.ts.)
 *
 * One TTL for all of them, ISOLATE_CACHE_TTL_MS. A write made in this isolate (or Node process) drops
 * what it changes at once; a write made in another Workers isolate is seen here once the entry is
 * older than the TTL, so a token revoked or a user blocked elsewhere stops working within 10 seconds.
 * GitLab itself caches ApplicationSetting.current per process for a minute; 10 s keeps the window a
 * revoked credential stays usable short. A busy caller costs no lookup at all: past half the TTL an
 * entry still answers and its refresh rides on the request's own next round trip (db/riders.ts,
 * auth/credential-reads.ts), so it is renewed before it expires; only an entry left alone past the
 * TTL is looked up again, in a round trip of its own.
 *
 * The caches are keyed by Db (tests build several apps in one process) and read the clock through
 * `cacheNow`, which tests move with `setCacheClock` instead of sleeping.
 */
import type { Db } from '../db/client';

/** How long a cached caller or settings row is trusted without asking storage again. */
export const ISOLATE_CACHE_TTL_MS = 10_000;

let clock: () => number = () => Date.now();

/** The caches' clock (Date.now unless a test set another). */
export const cacheNow = () => clock();

/** Tests: move the caches' clock without sleeping; null goes back to Date.now. */
export function setCacheClock(now: (() => number) | null): void {
  clock = now ?? (() => Date.now());
}

/**
 * A bounded map whose entries expire `ttlMs` after they were stored. The least recently used entry
 * goes first when full (a Map keeps insertion order; a hit moves its key to the end).
 *
 * `generation` moves on every invalidation: a reader notes it before going to storage and stores its
 * answer only if it has not moved (`setIfCurrent`), so a row read before a write that landed while the
 * read was in flight is never cached after that write dropped it.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();
  generation = 0;

  constructor(
    readonly ttlMs: number,
    readonly maxEntries: number,
  ) {}

  get(key: string): V | undefined {
    return this.lookup(key)?.value;
  }

  /**
   * The entry and whether it is past half its TTL (`aging`): still valid, but the time to refresh it
   * on a round trip the request makes anyway (db/riders.ts) so it never expires under a busy caller.
   */
  lookup(key: string): { value: V; aging: boolean } | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    const age = cacheNow() - e.at;
    // A clock moved backwards (a test restoring it) counts as expired too.
    if (age >= this.ttlMs || age < 0) {
      this.entries.delete(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, e);
    return { value: e.value, aging: age >= this.ttlMs / 2 };
  }

  /** Drops one entry (a refresh found it gone from storage); no generation move: nothing stale can be stored by it. */
  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Stores `value` unless an invalidation happened since `generation` was read. */
  setIfCurrent(generation: number, key: string, value: V): void {
    if (generation !== this.generation) return;
    this.entries.delete(key);
    this.entries.set(key, { value, at: cacheNow() });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Drops every entry `matches` accepts (all of them without a predicate). */
  invalidate(matches?: (value: V) => boolean): void {
    this.generation++;
    if (!matches) return this.entries.clear();
    for (const [key, e] of this.entries) if (matches(e.value)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** One cache per Db, made on first use. */
export function perDb<V>(make: () => V): (db: Db) => V {
  const byDb = new WeakMap<Db, V>();
  return (db) => {
    let v = byDb.get(db);
    if (v === undefined) byDb.set(db, (v = make()));
    return v;
  };
}
