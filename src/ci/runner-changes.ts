/**
 * The runner change log (ci_runner_changes) that keeps every isolate's runner cache
 * (runner-tokens.ts) valid for as long as nothing changes.
 *
 * Why: a fleet polls every few seconds per runner, forever. Expiring cached runners after a TTL
 * made every runner cost a read per TTL, and once a fleet is larger than what an isolate serves in
 * one TTL (10,000 runners polling every few seconds spread over isolates), nearly every poll found
 * its entry expired. A change log turns "re-read every runner every minute" into "ask once every
 * 10 s what changed, for the whole fleet":
 *
 * - Every write to a runner (update, pause, delete, token reset, enabling or disabling it in a
 *   project, a project or group deletion that removes it) adds a row naming it IN THE SAME db.batch
 *   as the write (`runnerChangeStatements`), so no change is committed without its row.
 * - An isolate reads the rows past the last id it saw at most every RUNNER_CHANGES_CHECK_MS (the
 *   caller cache's 10 s TTL: a paused, reset or deleted runner stops being served everywhere within
 *   10 s, better than the 60 s the TTL gave), with ONE statement on the primary key, and drops the
 *   runners named. Ids, not times, are the cursor: SQLite commits one writer at a time and
 *   AUTOINCREMENT never reuses an id, so once an id is seen every smaller one is committed and no
 *   row is missed whatever the writers' clocks say.
 * - Writes prune rows older than RUNNER_CHANGES_RETENTION_MS (indexed on changed_at). An isolate
 *   whose last check is older than half of it (by its own clock; the margin absorbs clock skew) may
 *   have missed pruned rows, so it drops its whole cache and starts again from the newest id.
 *
 * Over D1 with read replication, requests may read replicas that lag differently: a runner row is
 * cached only when read with a change id at least as new as the cursor (`cacheable`), and a check
 * that reads a lagging replica only moves the cursor as far as what it saw.
 *
 * The check is claimed synchronously: concurrent polls keep answering from the cache while one of
 * them asks (Workers must not await another request's I/O), so the window is 10 s plus one round trip.
 * The contact a poll writes every 40-55 minutes is not logged: it changes nothing a poll answers.
 */
import { gt, lt, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { ciRunnerChanges } from '../db/schema';
import { cacheNow, ISOLATE_CACHE_TTL_MS } from '../platform/isolate-cache';

/** How often an isolate asks what changed. */
export const RUNNER_CHANGES_CHECK_MS = ISOLATE_CACHE_TTL_MS;
/** How long change rows are kept. */
export const RUNNER_CHANGES_RETENTION_MS = 60 * 60_000;
/** More rows than this in one check: the whole cache goes (a mass change; cheaper than naming each). */
const CHECK_LIMIT = 500;

/**
 * The statements a write adds to its batch: a row per runner it changes (ids, or a sub-select of
 * `runner_id`s evaluated before the batch's deletes when placed first), and the prune.
 */
export function runnerChangeStatements(db: Db, runners: number | readonly number[] | SQL, now = Date.now()): [BatchItem<'sqlite'>, BatchItem<'sqlite'>] {
  const insert =
    typeof runners === 'number' || Array.isArray(runners)
      ? db.insert(ciRunnerChanges).values(([] as number[]).concat(runners as number | number[]).map((runnerId) => ({ runnerId, changedAt: now })))
      : // Drizzle lists every column (id, runner_id, changed_at); a NULL id takes the next one. (A raw
        // db.run cannot go in a D1 batch.)
        db.insert(ciRunnerChanges).select(sql`SELECT NULL, runner_id, ${now} FROM (${runners})`);
  return [insert, db.delete(ciRunnerChanges).where(lt(ciRunnerChanges.changedAt, now - RUNNER_CHANGES_RETENTION_MS))];
}

/** One isolate's position in the log, per Db. */
interface Cursor {
  /** The newest id seen; null before the first check (or after a gap). */
  lastId: number | null;
  checkedAt: number;
  checking: boolean;
}

const cursors = new WeakMap<Db, Cursor>();
const cursorOf = (db: Db) => {
  let c = cursors.get(db);
  if (!c) cursors.set(db, (c = { lastId: null, checkedAt: 0, checking: false }));
  return c;
};

/**
 * The newest change id, read in the same batch as a runner row: the row may be cached only if it is
 * at least as new as this isolate's cursor. Over D1 with read replication each request may read
 * another replica, and a row read from one that lags behind the cursor could miss a change the
 * cursor has already passed (it would never be dropped).
 */
export const newestChange = (db: Db) => db.select({ id: sql<number | null>`max(${ciRunnerChanges.id})` }).from(ciRunnerChanges);

/** Whether a row read where the newest change id was `newest` may be cached by this isolate. */
export function cacheable(db: Db, newest: number | null | undefined): boolean {
  const cursor = cursorOf(db);
  return cursor.lastId !== null && (newest ?? 0) >= cursor.lastId;
}

/** What a check found: `all` (drop everything) or the runner ids to drop. */
export type Dropped = 'all' | Set<number>;

export interface ChangeRow {
  id: number;
  runnerId: number | null;
}

export interface ChangeCheck {
  /** A fresh start: everything cached goes whatever the log says (drop it first, then read with the check). */
  fresh: boolean;
  /** The statement to send (alone or in a batch with a read). */
  query: BatchItem<'sqlite'> & PromiseLike<ChangeRow[]>;
  /** Applies its rows: moves the cursor and says what to drop. */
  apply(rows: ChangeRow[]): Dropped;
  /** The statement failed: the next request asks again. */
  abandon(): void;
}

/** Whether a check is due: none under way, and the last one older than the interval (or none yet). */
const checkDue = (cursor: Cursor, age: number) => !cursor.checking && (cursor.lastId === null || age < 0 || age >= RUNNER_CHANGES_CHECK_MS);

/** Whether a request would claim the check now (claimChangeCheck), without claiming it. */
export const changeCheckDue = (db: Db) => {
  const cursor = cursorOf(db);
  return checkDue(cursor, cacheNow() - cursor.checkedAt);
};

/**
 * Claims this isolate's check when one is due (undefined otherwise, the cached path: no I/O). The
 * claimant must send `query` and call `apply` or `abandon`.
 */
export function claimChangeCheck(db: Db): ChangeCheck | undefined {
  const cursor = cursorOf(db);
  const now = cacheNow();
  const age = now - cursor.checkedAt;
  if (!checkDue(cursor, age)) return undefined;
  const fresh = cursor.lastId === null || age < 0 || age >= RUNNER_CHANGES_RETENTION_MS / 2;
  const previous = { checkedAt: cursor.checkedAt };
  cursor.checking = true;
  cursor.checkedAt = now;
  // A fresh start reads the newest row only (its id is the cursor); the cache is dropped anyway.
  const after = fresh ? sql`(SELECT max(${ciRunnerChanges.id}) - 1 FROM ${ciRunnerChanges})` : sql`${cursor.lastId}`;
  const query = db.select({ id: ciRunnerChanges.id, runnerId: ciRunnerChanges.runnerId }).from(ciRunnerChanges).where(gt(ciRunnerChanges.id, after)).orderBy(ciRunnerChanges.id).limit(CHECK_LIMIT);
  return {
    fresh,
    query,
    apply(rows) {
      cursor.checking = false;
      if (rows.length) cursor.lastId = rows[rows.length - 1].id;
      else if (fresh) cursor.lastId = 0;
      if (fresh || rows.length >= CHECK_LIMIT || rows.some((r) => r.runnerId === null)) return 'all';
      return new Set(rows.map((r) => r.runnerId as number));
    },
    abandon() {
      cursor.checking = false;
      cursor.checkedAt = previous.checkedAt;
    },
  };
}
