/**
 * Facts that are pure functions of commit shas, kept per isolate (../shared/DESIGN.md "Cache what
 * never changes"): a commit's file manifest, the merge base of two commits, and what merge requests
 * derive from them (conflict verdicts, change counts). A sha names its content and its ancestry (the
 * parents are hashed into it), so an entry never goes stale and nothing invalidates it. What is not
 * known yet is never kept: a missing commit reads as an empty manifest or no merge base, and it may
 * be written later (a push stores its commit after MergeRequests::RefreshService reads), so empty
 * manifests and null merge bases are read again next time.
 *
 * Keyed by Db, so the test suites' many apps in one process never share entries; a cold isolate
 * simply reads storage. Bounded: least recently used entries go first.
 */
import type { Db } from '../db/client';

/** A Map kept in recency order: a hit moves to the end, the oldest entry leaves past `max`. */
export class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
}

/** Manifests hold a row per file: fewer of them than of the small facts. */
const MANIFESTS = 512;
const FACTS = 8192;

const caches = new WeakMap<Db, { manifests: Lru<unknown>; facts: Lru<unknown> }>();

function of(db: Db) {
  let c = caches.get(db);
  if (!c) caches.set(db, (c = { manifests: new Lru(MANIFESTS), facts: new Lru(FACTS) }));
  return c;
}

/** The cache of manifests (`<project>:<sha>`) of this Db. */
export const manifestCache = <V>(db: Db) => of(db).manifests as Lru<V>;
/** The cache of small sha-keyed facts (merge bases, verdicts) of this Db; keys carry their kind. */
export const factCache = <V>(db: Db) => of(db).facts as Lru<V>;
