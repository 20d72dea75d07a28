/**
 * Issue 12: a property-based fuzz of every route of the route table, as an administrator, a plain
 * user and anonymously, against the Node app on a real libSQL file. Requests are derived from each
 * route's declared parameters and mutated (test/fuzz/arbitraries.ts); every response must pass
 * test/fuzz/checks.ts (no 5xx, declared status and schema via ajv over /-/openapi.json, GitLab's error
 * shapes, JSON content type, under 2 s). The server must still answer quickly afterwards.
 *
 * `npm test` runs a fixed seed and a few runs per route and caller; `npm run fuzz` runs many more
 * with a random seed, printed for replay: `FUZZ_SEED=<seed> FUZZ_RUNS=<n> npm run fuzz`
 * (add `-t '<test name>'` to replay one route).
 */
import { fc, it } from '@fast-check/vitest';
import { beforeAll, describe, expect } from 'vitest';
import type { RouteRecord } from '../../src/platform/router';
import { startFuzzApp } from './app';
import { type Caller, requestArb, toRequest } from './arbitraries';
import { responseChecker, SLOW_MS } from './checks';
import { buildWorld, type World } from './world';
import { createThenRead } from './sequences';

const LONG = process.env.FUZZ_LONG === '1';
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : LONG ? Math.floor(Math.random() * 2 ** 31) : 20260412;
const RUNS = Number(process.env.FUZZ_RUNS ?? (LONG ? 150 : 40));
const CALLERS: Caller[] = ['admin', 'user', 'anonymous'];

const app = await startFuzzApp();
// Instance-wide settings go to an app of their own: a fuzzed throttle or admin-mode setting would
// otherwise answer 429 or 403 to every route after it, and hide what the fuzzer is looking for.
const settingsApp = await startFuzzApp();
const doc = JSON.parse((await app.send('/-/openapi.json')).text);
const check = responseChecker(doc);
console.log(`fuzz: seed ${SEED}, ${RUNS} runs per route and caller, ${app.routes.length} routes (replay: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS})`);

let world: World;
let settingsTokens: Record<Caller, string | null>;
beforeAll(async () => {
  world = await buildWorld(app);
  const u = await settingsApp.call('POST', '/users', world.tokens.admin, { email: 'settings@example.com', name: 'S', username: 'settingsuser', password: 'Pw-settings-long1', skip_confirmation: true });
  const t = await settingsApp.call('POST', `/users/${u.id}/personal_access_tokens`, world.tokens.admin, { name: 's', scopes: ['api'] });
  settingsTokens = { admin: world.tokens.admin, user: t.token, anonymous: null };
}, 120_000);

/** Routes that revoke the token they are called with: each run gets a fresh one. */
const REVOKES_OWN_TOKEN = new Set(['DELETE /api/v4/personal_access_tokens/self', 'POST /api/v4/personal_access_tokens/self/rotate']);

/**
 * Writes that use up their fixture (merging, promoting, renaming, archiving, blocking, rotating, transferring)
 * go after the other writes, and deletions last, deepest path first, so a deleted project does
 * not turn every later request about its issues into a 404.
 */
const LATE = /\/(merge|rebase|promote|rotate|block|ban|deactivate|reject|revoke|sign_out|transfer)$|^PUT \/api\/v4\/(projects|groups|users)\/:id$/;
function rank(r: RouteRecord): number {
  const key = `${r.method} ${r.path}`;
  if (r.method === 'GET') return 0;
  if (r.method === 'DELETE') return 3;
  return LATE.test(key) || LATE.test(r.path) ? 2 : 1;
}
const depth = (r: RouteRecord) => r.path.split('/').length;
const ordered = [...app.routes].sort((a, b) => rank(a) - rank(b) || (rank(a) === 3 ? depth(b) - depth(a) : 0));

/** A stable per-test seed from the run's seed and the test's name. */
function seedFor(name: string): number {
  let h = 2166136261;
  for (const ch of name) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return (SEED ^ h) | 0;
}

const runtimeStats = { requests: 0, slowest: 0, byStatus: new Map<number, number>(), succeeded: new Set<string>(), lastRefusal: new Map<string, string>() };

describe(`fuzz every route (seed ${SEED})`, () => {
  for (const route of ordered) {
    const key = `${route.method} ${route.path}`;
    const target = route.path === '/api/v4/application/settings' ? settingsApp : app;
    for (const caller of CALLERS) {
      const name = `${caller} ${key}`;
      it.prop([requestArb(route, () => world)], { seed: seedFor(name), numRuns: RUNS })(
        name,
        async (req) => {
          const tokens = target === settingsApp ? settingsTokens : { ...world.tokens, anonymous: null };
          const token = caller !== 'anonymous' && REVOKES_OWN_TOKEN.has(key) ? await world.freshToken(caller) : tokens[caller];
          const { url, init } = toRequest(route, req, token);
          const sent = await target.send(url, init);
          runtimeStats.requests++;
          runtimeStats.slowest = Math.max(runtimeStats.slowest, sent.ms);
          runtimeStats.byStatus.set(sent.status, (runtimeStats.byStatus.get(sent.status) ?? 0) + 1);
          if (sent.status < 300) runtimeStats.succeeded.add(key);
          else if (caller === 'admin') runtimeStats.lastRefusal.set(key, `${sent.status} ${sent.text.slice(0, 120)}`);
          const problems = check(route, sent, init.method!);
          if (problems.length) {
            const shown = url.length > 300 ? `${url.slice(0, 300)}…` : url;
            throw new Error(`${caller} ${init.method} ${shown}\n  -> ${sent.status} ${sent.text.slice(0, 300)}\n  ${problems.join('\n  ')}`);
          }
        },
        LONG ? 600_000 : 60_000,
      );
    }
  }
});

describe('create-then-read sequences', () => {
  it.prop([createThenRead.arbitrary(() => world)], { seed: seedFor('sequences'), numRuns: LONG ? 100 : 5 })(
    'what a fuzzed create returns is what a read and a list return, and every response is declared',
    async (steps) => {
      await createThenRead.run(app, world, check, steps);
    },
    LONG ? 600_000 : 60_000,
  );
});

describe('after the fuzz', () => {
  it('the server is still healthy and fast', async () => {
    const statuses = Object.fromEntries([...runtimeStats.byStatus.entries()].sort(([a], [b]) => a - b));
    console.log(`fuzz: ${runtimeStats.requests} requests, slowest ${Math.round(runtimeStats.slowest)} ms, statuses ${JSON.stringify(statuses)}`);
    // Routes no request got a success from: where the fixtures or the arbitraries could reach deeper.
    const never = ordered.map((r) => `${r.method} ${r.path}`).filter((k) => !runtimeStats.succeeded.has(k));
    console.log(`fuzz: ${ordered.length - never.length} of ${ordered.length} routes answered a success at least once${LONG || process.env.FUZZ_REPORT ? `; never:\n  ${never.map((k) => `${k}  (admin, last: ${runtimeStats.lastRefusal.get(k)})`).join('\n  ')}` : ''}`);
    for (const [token, path] of [
      [world.tokens.admin, '/api/v4/user'],
      [world.tokens.user, '/api/v4/user'],
      [null, '/api/v4/projects'],
      [world.tokens.admin, '/api/v4/users?per_page=100'],
    ] as const) {
      const sent = await app.send(path, { headers: token ? { 'PRIVATE-TOKEN': token } : {} });
      expect(sent.status, `${path}: ${sent.text.slice(0, 200)}`).toBe(200);
      expect(sent.ms).toBeLessThan(SLOW_MS);
      expect(check(app.routes.find((r) => r.method === 'GET' && r.path === path.split('?')[0])!, sent)).toEqual([]);
    }
    expect(runtimeStats.byStatus.get(500) ?? 0).toBe(0);
  });
});

// fast-check's own defaults for anything not set per property.
fc.configureGlobal({ endOnFailure: !LONG });
