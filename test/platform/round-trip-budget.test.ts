/**
 * Issue 13: the round-trip budget (../shared/DESIGN.md "Data access: round trips are the cost"),
 * walked over the whole route table. Every route of /-/openapi.json is called once as the matrix's
 * most natural caller (the owner of the private project, else the administrator) with the matrix's
 * request, and its storage round trips are read from `X-Storage-Round-Trips` (counted at the Db
 * port's driver, db/round-trips.ts): a GET may take 2 once the caller is cached (3 on its first
 * call), a write 3, the caller cached (a request with its token goes first). Routes not there yet are listed with their count in round-trip-debt.ts; the list
 * may only shrink: a listed route that now fits must leave it, and none may take more than listed.
 * A list is also asked for a page of one row and of a hundred: both must cost the same. And no call
 * may send the same read twice with no write between (`X-Storage-Repeated-Reads`; the routes that
 * still do are listed in repeated-reads-debt.ts, which may only shrink).
 *
 * `ROUND_TRIP_REPORT=<file>` writes every route's counts there as JSON (to rewrite the debt list).
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support';
import { EXPECTATIONS, type Role, type Row, UNDOCUMENTED } from './authorization-matrix';
import { buildWorld, callerToken, freshParams, param, png, routeKeys } from './route-world';
import { PAGE_SIZE_DEBT, ROUND_TRIP_DEBT } from './round-trip-debt';
import { REPEATED_READS_DEBT } from './repeated-reads-debt';

/** A read once the caller is cached, a read's first call, a write. */
export const BUDGET = { read: 2, coldRead: 3, write: 3 } as const;

beforeAll(buildWorld, 60_000);

const roundTrips = (res: { headers: Headers }) => {
  const v = res.headers.get('x-storage-round-trips');
  if (v === null) throw new Error('no X-Storage-Round-Trips header: REPORT_ROUND_TRIPS is not on');
  return Number(v);
};

/** The matrix's most natural caller for a row: the project's owner where allowed, else the administrator. */
function callerOf(row: Row): Role {
  const order: Role[] = ['owner', 'admin', 'maintainer', 'developer', 'reporter', 'guest', 'nonMember', 'anonymous'];
  return order.find((r) => row.rule[r] === 'ok') ?? 'owner';
}

interface Measured {
  status: number;
  /** A GET's first and second call; a write's only call. */
  first: number;
  second?: number;
  /** A list's round trips for a page of one row and for a page of up to 100 (with their lengths). */
  pages?: { one: number; hundred: number; rows: number };
  /** The most reads any of its calls sent twice with no write between (`X-Storage-Repeated-Reads`). */
  repeated: number;
}

const repeatedReads = (...responses: { headers: Headers }[]) =>
  Math.max(
    ...responses.map((r) => {
      const v = r.headers.get('x-storage-repeated-reads');
      if (v === null) throw new Error('no X-Storage-Repeated-Reads header: REPORT_REPEATED_READS is not on');
      return Number(v);
    }),
  );

async function measure(key: string, row: Row): Promise<Measured> {
  const [method, path] = key.split(' ');
  const fresh = await freshParams(row);
  const url = path.replace(/:([A-Za-z_]+)/g, (_, name: string) => encodeURIComponent(String(fresh[name] ?? param(path, method, name, row))));
  const token = await callerToken(callerOf(row), path);
  const body = method === 'GET' || row.upload ? undefined : typeof row.body === 'function' ? row.body() : (row.body ?? {});
  // The documentation's own routes are asked with HEAD, as in the matrix (no storage either way).
  const verb = UNDOCUMENTED.includes(key) ? 'HEAD' : method;
  const call = () => api(row.query ? `${url}?${row.query}` : url, { method: verb, token, body, multipart: row.upload ? png() : undefined });
  // The caller is cached per isolate for 10 s (users/caller-cache.ts): a request with the same token
  // first, so every route is measured with its caller cached, however slow the run between routes.
  if (token) await api('/user', { token });
  const res = await call();
  if (method !== 'GET') return { status: res.status, first: roundTrips(res), repeated: repeatedReads(res) };
  if (token) await api('/user', { token });
  const again = await call();
  const m: Measured = { status: again.status, first: roundTrips(res), second: roundTrips(again), repeated: repeatedReads(res, again) };
  if (Array.isArray(again.body) && again.body.length > 1) {
    // A list: the same request for one row and for a hundred must cost the same ("whatever the page size").
    const sep = row.query ? '&' : '?';
    // Each page call re-warms the caller first: on a loaded machine the calls before it may outlast the cache's 10 s.
    const page = async (n: number) => {
      if (token) await api('/user', { token });
      return api(`${url}${row.query ? `?${row.query}` : ''}${sep}per_page=${n}`, { token });
    };
    const one = await page(1);
    const hundred = await page(100);
    m.pages = { one: roundTrips(one), hundred: roundTrips(hundred), rows: Array.isArray(hundred.body) ? hundred.body.length : 0 };
    m.repeated = Math.max(m.repeated, repeatedReads(one, hundred));
  }
  return m;
}

/** What is over budget in a measurement, or null. */
function overBudget(key: string, m: Measured): string | null {
  if (key.startsWith('GET ')) {
    if (m.first > BUDGET.coldRead || (m.second ?? 0) > BUDGET.read) return `${m.first} then ${m.second} round trips (budget ${BUDGET.coldRead} then ${BUDGET.read})`;
    return null;
  }
  return m.first > BUDGET.write ? `${m.first} round trips (budget ${BUDGET.write})` : null;
}

const worst = (m: Measured) => Math.max(m.first, m.second ?? 0);

// Reads first, then writes, then deletions (as in the matrix), so a consumed resource only affects its own row.
const order = (key: string) => (key.startsWith('GET ') ? 0 : key.startsWith('DELETE ') ? 2 : 1);
const ROWS = Object.entries(EXPECTATIONS).sort(([a], [b]) => order(a) - order(b));
const report: Record<string, Measured> = {};

afterAll(() => {
  if (process.env.ROUND_TRIP_REPORT) writeFileSync(process.env.ROUND_TRIP_REPORT, JSON.stringify(report, null, 1));
});

describe('round-trip budget of every route', () => {
  it('walks the whole route table, and the debt list names only routes', async () => {
    const routes = new Set(await routeKeys());
    expect(routes.size).toBeGreaterThan(200);
    expect(Object.keys(ROUND_TRIP_DEBT).filter((k) => !routes.has(k) && !UNDOCUMENTED.includes(k))).toEqual([]);
    expect(Object.keys(REPEATED_READS_DEBT).filter((k) => !routes.has(k))).toEqual([]);
  });

  for (const [key, row] of ROWS) {
    it(key, async () => {
      const m = await measure(key, row);
      report[key] = m;
      expect(m.status, 'the representative request is no server error').toBeLessThan(500);
      if (m.pages) {
        // Per-row reads: a list whose cost grows with its page. Listed ones must stay listed until fixed.
        const grows = m.pages.hundred !== m.pages.one;
        if (PAGE_SIZE_DEBT.includes(key)) expect(grows, `${key} costs the same for any page size now: remove it from PAGE_SIZE_DEBT`).toBe(true);
        else expect(m.pages, `${key} costs more round trips for a longer page`).toMatchObject({ hundred: m.pages.one });
      }
      const repeats = REPEATED_READS_DEBT[key];
      if (repeats === undefined) expect(m.repeated, `${key} sends the same read twice`).toBe(0);
      else {
        expect(m.repeated, `${key} no longer repeats a read: remove it from repeated-reads-debt.ts`).toBeGreaterThan(0);
        expect(m.repeated, `${key} repeats more reads than its debt entry allows`).toBeLessThanOrEqual(repeats);
      }
      const over = overBudget(key, m);
      const debt = ROUND_TRIP_DEBT[key];
      if (debt === undefined) {
        expect(over, `${key} is over the round-trip budget`).toBeNull();
        return;
      }
      // A listed route that fits leaves the list; one that got worse is a regression.
      expect(over, `${key} is within budget now: remove it from round-trip-debt.ts`).not.toBeNull();
      expect(worst(m), `${key} takes more round trips than its debt entry allows`).toBeLessThanOrEqual(debt);
    });
  }
});
