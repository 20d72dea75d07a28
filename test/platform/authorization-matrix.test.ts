/**
 * Issue 12: the authorization matrix, generated from the route table. Every route the server
 * declares (GET /-/openapi.json lists them on both runtimes) must have a row in
 * authorization-matrix.ts, and every row a route; each row is then called by anonymous, a signed-in
 * non-member, the five membership levels of a private group/project, and the administrator.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, type ApiResponse } from '../support';
import { adminOnly, type Cell, EXPECTATIONS, ROLES, type Role, type Row, UNDOCUMENTED } from './authorization-matrix';
import { buildWorld, callerToken, containerNotFound, freshParams, ok, param, png, routeKeys, tokens, world } from './route-world';

beforeAll(buildWorld, 60_000);


function verdict(cell: Cell, res: ApiResponse, nf: string | undefined): string | null {
  const message = (res.body as { message?: unknown } | null)?.message;
  const got = `${res.status} ${res.text.slice(0, 120)}`;
  if (res.status >= 500) return `server error ${got}`;
  if (cell === 'ok') {
    if (res.status === 401 || res.status === 403 || (res.status === 404 && nf !== undefined && message === nf)) return `refused: ${got}`;
    return null;
  }
  const [status, text] =
    cell === 'unauth' ? [401, '401 Unauthorized'] : cell === 'forbidden' ? [403, '403 Forbidden'] : cell === 'nf' ? [404, nf] : cell;
  if (res.status !== status || (text !== undefined && message !== text)) return `${got} (expected ${status}${text ? ` ${text}` : ''})`;
  return null;
}

async function runCell(key: string, row: Row, role: Role, missing: Record<string, number>): Promise<string | null> {
  const [method, path] = key.split(' ');
  const fresh = { ...(await freshParams(row)), ...missing };
  const url = path.replace(/:([A-Za-z_]+)/g, (_, name: string) => encodeURIComponent(String(fresh[name] ?? param(path, method, name, row))));
  const token = await callerToken(role, path);
  const body = method === 'GET' || row.upload ? undefined : typeof row.body === 'function' ? row.body() : (row.body ?? {});
  // The documentation's routes are asked with HEAD (the same route and guards): their megabytes of
  // body, eight times over, would only slow the harness's secret sweep down.
  const verb = UNDOCUMENTED.includes(key) ? 'HEAD' : method;
  const res = await api(row.query ? `${url}?${row.query}` : url, { method: verb, token, body, multipart: row.upload ? png() : undefined });
  const problem = verdict(row.rule[role], res, containerNotFound(path));
  return problem && `${role}: ${problem}`;
}

/**
 * The row's cells. Reads, and any call on a resource that does not exist, change nothing and run
 * side by side; other calls run one column after the other, least privileged first.
 */
async function runRow(key: string, row: Row, missing: Record<string, number> = {}): Promise<string[]> {
  if (key.startsWith('GET ') || Object.keys(missing).length) {
    return (await Promise.all(ROLES.map((role) => runCell(key, row, role, missing)))).filter((p): p is string => p !== null);
  }
  const failures: string[] = [];
  for (const role of ROLES) {
    const problem = await runCell(key, row, role, missing);
    if (problem) failures.push(problem);
  }
  return failures;
}

// Reads first, then writes, then deletions, so that a consumed resource only affects its own row.
const order = (key: string) => (key.startsWith('GET ') ? 0 : key.startsWith('DELETE ') ? 2 : 1);
const ROWS = Object.entries(EXPECTATIONS).sort(([a], [b]) => order(a) - order(b));

describe('authorization matrix (private group and project)', () => {
  it('has exactly one row per route of the route table', async () => {
    const routes = await routeKeys();
    expect(routes.length).toBeGreaterThan(200);
    const rows = new Set(Object.keys(EXPECTATIONS));
    expect(routes.filter((r) => !rows.has(r)), 'routes without an expectation row').toEqual([]);
    expect([...rows].filter((r) => !routes.includes(r) && !UNDOCUMENTED.includes(r)), 'rows naming no route').toEqual([]);
    // The document's own routes exist too (their rows are checked below like the others).
    for (const key of UNDOCUMENTED) expect(rows.has(key), key).toBe(true);
  });

  for (const [key, row] of ROWS) {
    it(key, async () => {
      expect(await runRow(key, row)).toEqual([]);
    });
  }
});

/** Refusals that come before any lookup keep their cell when the user does not exist; everything else meets the 404. */
const beforeLookup = (cell: Cell) =>
  cell === 'unauth' || cell === 'forbidden' || (Array.isArray(cell) && (cell[0] === 401 || String(cell[1] ?? '').startsWith('403 Forbidden')));
const USER_ROWS = ROWS.filter(([key]) => /^[A-Z]+ \/api\/v4\/users\/:(id|user_id|id_or_username)(\/|$)/.test(key));

describe('authorization matrix: a user who does not exist', () => {
  // §7: admin-only user endpoints answer 401/403 "before existence"; public ones (keys, gpg_keys,
  // status) answer `404 User Not Found` for a missing user.
  for (const [key, row] of USER_ROWS) {
    it(key, async () => {
      const rule = row.missing ?? (Object.fromEntries(ROLES.map((r) => [r, beforeLookup(row.rule[r]) ? row.rule[r] : [404, '404 User Not Found']])) as Row['rule']);
      const name = /:(id_or_username|user_id|id)\b/.exec(key)![1];
      expect(await runRow(key, { ...row, rule, fresh: undefined }, { [name]: 999999999 })).toEqual([]);
    });
  }
});

const CONTAINER_ROWS = ROWS.filter(([key]) => /^[A-Z]+ \/api\/v4\/(projects|groups)\/:id(\/|$)/.test(key));

describe('authorization matrix: a project or group that does not exist', () => {
  // Everyone meets the container's 404 (find_project! / find_group!), administrators included;
  // only what runs before the lookup keeps its cell: `authenticate!` (anonymous 401) and
  // `authenticated_as_admin!` on the admin-only rows.
  for (const [key, row] of CONTAINER_ROWS) {
    it(key, async () => {
      const admin = row.rule === adminOnly;
      const rule = row.missing ?? (Object.fromEntries(ROLES.map((r) => [r, (r === 'anonymous' && row.rule[r] === 'unauth') || (admin && r !== 'admin') ? row.rule[r] : 'nf'])) as Row['rule']);
      expect(await runRow(key, { ...row, rule, fresh: undefined }, { id: 999999999 })).toEqual([]);
    });
  }
});

const MEMBER_COLUMNS = ['guest', 'reporter', 'developer', 'maintainer', 'owner'] as const;

/**
 * A read of the private project or group, once both are public (every feature at its default
 * "everyone with access"): what a guest or reporter may read there, anyone may read now (GitLab lifts
 * the private-only restrictions on guests: merge requests, code); reads kept for developers and
 * above stay theirs, and callers who are no member now get 403 instead of the hidden container's
 * 404. `authenticate!` still answers anonymous callers 401.
 */
function publicRule(rule: Row['rule']): Row['rule'] {
  if (rule === adminOnly) return rule;
  const first = MEMBER_COLUMNS.find((r) => rule[r] === 'ok');
  const anonymous = rule.anonymous === 'unauth' ? 'unauth' : undefined;
  if (first === 'guest' || first === 'reporter') return { ...(Object.fromEntries(ROLES.map((r) => [r, 'ok'])) as Row['rule']), anonymous: anonymous ?? 'ok' };
  return { ...rule, nonMember: 'forbidden', anonymous: anonymous ?? 'forbidden' };
}

const PUBLIC_READS = ROWS.filter(([key]) => /^GET \/api\/v4\/(projects|groups)\/:id(\/|$)/.test(key));

describe('authorization matrix: the same reads once the group and project are public', () => {
  beforeAll(async () => {
    ok('public group', await api(`/groups/${world.groupId}`, { method: 'PUT', token: tokens.owner, body: { visibility: 'public' } }), 200);
    ok('public project', await api(`/projects/${world.projectId}`, { method: 'PUT', token: tokens.owner, body: { visibility: 'public' } }), 200);
  });

  for (const [key, row] of PUBLIC_READS) {
    it(key, async () => {
      expect(await runRow(key, { ...row, rule: row.publicRule ?? publicRule(row.rule) })).toEqual([]);
    });
  }
});
