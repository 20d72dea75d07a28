/**
 * Memoised reads for one read-only pass of a request, such as presenting a page of merge requests:
 * twenty merge requests of one project share their target branch head, its manifest, the project's
 * protected branches, approval rules and settings, and each would otherwise read them again
 * (liveState, the approval state and the system rules each ask for the same branch heads).
 *
 * The memo lives only while `withReadMemo` runs and only for that request's context, so nothing read
 * before a write is served after it: callers open it around code that does not write the memoised
 * tables (the only write a presentation can make, the system approval rules' lazy rebuild, touches
 * none of them). Outside a memo, `memo` simply loads.
 */
import type { Context } from 'hono';

const memos = new WeakMap<Context, Map<string, Promise<unknown>>>();

export async function withReadMemo<T>(c: Context, run: () => Promise<T>): Promise<T> {
  if (memos.has(c)) return run();
  memos.set(c, new Map());
  try {
    return await run();
  } finally {
    memos.delete(c);
  }
}

/** The value for `key` read once per memo (a rejected load is not kept). */
export function memo<T>(c: Context, key: string, load: () => Promise<T>): Promise<T> {
  const m = memos.get(c);
  if (!m) return load();
  let p = m.get(key) as Promise<T> | undefined;
  if (!p) {
    p = load();
    m.set(key, p);
    p.catch(() => m.get(key) === p && m.delete(key));
  }
  return p;
}

/** Seeds values read in bulk (one query for many keys); keys already present stay as they are. */
export function primeMemo(c: Context, entries: Iterable<[string, unknown]>): void {
  const m = memos.get(c);
  if (!m) return;
  for (const [k, v] of entries) if (!m.has(k)) m.set(k, Promise.resolve(v));
}

export const isMemoised = (c: Context) => memos.has(c);

/** What the memo holds for `key`, without loading. */
export const peekMemo = <T>(c: Context, key: string): Promise<T> | undefined => memos.get(c)?.get(key) as Promise<T> | undefined;

/** Drops `key` after a write changed what it read. */
export function forgetMemo(c: Context, key: string): void {
  memos.get(c)?.delete(key);
}
