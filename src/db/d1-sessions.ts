/**
 * Reads near the client: D1 read replication through the Sessions API (issue 13; README "Reads near
 * the client").
 *
 * Each request on Workers runs in its own D1 session. A request that may write starts on the primary
 * (`first-primary`); a GET or HEAD starts where the client's `x-d1-bookmark` says (a replica at least
 * as fresh as that bookmark), or anywhere (`first-unconstrained`, usually the nearest replica) when it
 * sent none. Every answer carries the session's bookmark in `x-d1-bookmark`, so a client that sends
 * back the last bookmark it received always reads its own writes. The header name is Cloudflare's
 * own convention (the D1 read replication docs' example). Clients that never send it (stock GitLab
 * clients) get the same guarantee whenever they reach the same isolate: the isolate remembers the last
 * bookmark it answered each caller.
 *
 * The Db is built once per isolate (Drizzle's schema extraction, and the statements `prepared()`
 * caches per Db), so the session cannot be baked into it. Instead Drizzle talks to a D1-shaped router
 * whose statements only remember their SQL and values and are handed to the running request's session
 * (an AsyncLocalStorage store) when they run — a statement Drizzle prepared once therefore goes to the
 * right session in every request. Outside a request (bootstrap, the queue consumer) the router uses
 * the plain binding, which D1 sends to the primary.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { literalLimits } from './literal-limits';

export const BOOKMARK_HEADER = 'x-d1-bookmark';

/**
 * What D1 hands out (`00000000-00000015-00000000-<32 hex>`). Anything else from a client is ignored
 * rather than passed on: local D1 keeps and echoes any string (so a garbage bookmark would outrank
 * every real one), and what the deployed service does with one is not documented; a request must not
 * fail for a header the client may not even know it sent.
 */
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

/** The part of D1's interface a database and a session share. */
type D1Like = Pick<D1Database, 'prepare' | 'batch'>;

const current = new AsyncLocalStorage<D1DatabaseSession>();

/** A statement that is prepared on the running request's session (or the binding) only when it runs. */
class RoutedStatement {
  constructor(
    private readonly binding: D1Database,
    readonly query: string,
    readonly values: readonly unknown[] = [],
  ) {}
  bind(...values: unknown[]) {
    return new RoutedStatement(this.binding, this.query, values);
  }
  /** The real statement on `target` (D1's `prepare` is local: no round trip), LIMIT/OFFSET values in its text (literal-limits.ts). */
  on(target: D1Like): D1PreparedStatement {
    const [query, values] = literalLimits(this.query, this.values);
    const s = target.prepare(query);
    return values.length ? s.bind(...values) : s;
  }
  private get target(): D1Like {
    return current.getStore() ?? this.binding;
  }
  first(column?: string) {
    const s = this.on(this.target);
    return column === undefined ? s.first() : s.first(column);
  }
  all() {
    return this.on(this.target).all();
  }
  run() {
    return this.on(this.target).run();
  }
  raw(options?: { columnNames?: boolean }) {
    return this.on(this.target).raw(options as { columnNames: true });
  }
}

/**
 * The D1-shaped object Drizzle is built over: statements and batches go to the running request's
 * session. Compose the round-trip meter over it (`meterD1(sessionRouter(binding))`) so it counts the
 * session's round trips like any other.
 */
export function sessionRouter(binding: D1Database): D1Like {
  return {
    prepare: (query: string) => new RoutedStatement(binding, query) as unknown as D1PreparedStatement,
    batch: <T>(statements: D1PreparedStatement[]) => {
      const target = current.getStore() ?? binding;
      return target.batch<T>(statements.map((s) => (s instanceof RoutedStatement ? s.on(target) : s)));
    },
  };
}

/**
 * The last bookmark this isolate answered each caller, for clients that never send the header (stock
 * GitLab clients): their reads still start no earlier than their own last write whenever they reach
 * the same isolate. Keyed by a 32-bit hash of the caller's credentials, not the credentials
 * themselves; a collision only makes another caller's read fresher than it needed to be. Bounded:
 * the oldest caller is forgotten first.
 */
const remembered = new Map<number, string>();
const REMEMBERED_CALLERS = 10_000;

/** The credentials a request authenticates with (auth/authenticate.ts), hashed; null for an anonymous request. */
function callerKey(request: Request): number | null {
  const url = new URL(request.url);
  const parts = [
    request.headers.get('private-token'),
    request.headers.get('authorization'),
    request.headers.get('job-token'),
    request.headers.get('cookie'),
    url.searchParams.get('private_token'),
    url.searchParams.get('access_token'),
    url.searchParams.get('job_token'),
  ];
  if (parts.every((p) => !p)) return null;
  // FNV-1a: cheap, synchronous, and good enough to spread callers.
  let h = 0x811c9dc5;
  for (const ch of parts.join('\u0000')) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return h >>> 0;
}

function remember(key: number | null, bookmark: string) {
  if (key === null || !BOOKMARK.test(bookmark)) return;
  // Requests of one caller can finish out of order: a read that began on a replica must not
  // replace the bookmark of a write that finished before it.
  const kept = later(remembered.get(key), bookmark)!;
  remembered.delete(key);
  remembered.set(key, kept);
  if (remembered.size > REMEMBERED_CALLERS) remembered.delete(remembered.keys().next().value!);
}

/** The later of two bookmarks (they are ordered as strings). */
const later = (a: string | undefined, b: string | undefined) => (a && b ? (a > b ? a : b) : (a ?? b));

/**
 * Where a request's session starts: writes on the primary; reads after the later of the client's
 * bookmark and the one this isolate last answered the same caller, or anywhere. A write is any method
 * but GET and HEAD (a GET that records something, such as a token's last use, is forwarded to the
 * primary by D1 and stays sequentially consistent within the session).
 */
export function sessionStart(request: Request): string {
  if (request.method !== 'GET' && request.method !== 'HEAD') return 'first-primary';
  const sent = request.headers.get(BOOKMARK_HEADER)?.trim().toLowerCase();
  const key = callerKey(request);
  const bookmark = later(sent && BOOKMARK.test(sent) ? sent : undefined, key === null ? undefined : remembered.get(key));
  return bookmark ?? 'first-unconstrained';
}

/**
 * Runs one request in its own D1 session and answers the session's bookmark in `x-d1-bookmark`
 * (error responses included: a request can fail after it wrote, and a client that sends the bookmark
 * back must never be sent to older state than it has seen).
 */
export async function inSession(binding: D1Database, request: Request, handle: () => Promise<Response>): Promise<Response> {
  const start = sessionStart(request);
  const session = binding.withSession(start);
  const res = await current.run(session, handle);
  const bookmark = session.getBookmark() ?? (start.startsWith('first-') ? null : start);
  if (!bookmark) return res;
  remember(callerKey(request), bookmark);
  try {
    res.headers.set(BOOKMARK_HEADER, bookmark);
    return res;
  } catch {
    // Responses passed through from a binding (static assets) have immutable headers.
    const copy = new Response(res.body, res);
    copy.headers.set(BOOKMARK_HEADER, bookmark);
    return copy;
  }
}
