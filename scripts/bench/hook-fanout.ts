/**
 * Issue 18 bench line: one issue update in a project with 20 webhooks. The write records ONE outbox
 * row in its own batch whatever the number of hooks (hooks/outbox.ts), and the fan-out to the hooks
 * happens on the Queue afterwards, so the update's latency and round trips must match those of the
 * same update without hooks. `prepare` measures both (the answer's X-Storage-Round-Trips) before
 * the measured updates, with a receiver on 127.0.0.1 and local hook requests allowed; `verify`
 * counts what the receiver got.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Scenario } from './scenarios';
import type { Manifest } from './seed';

export const FANOUT_HOOKS = 20;

export function hookFanoutScenario(m: Manifest): Scenario {
  const admin = { 'PRIVATE-TOKEN': m.rootToken, 'Content-Type': 'application/json' };
  const project = m.memberProjects.filter((p) => p.issues > 0 && p.id !== m.bigProjectId)[0] ?? m.memberProjects[0];
  let iid = 1;
  let n = 0;
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.end('ok');
    });
  });
  const update = () => ({ method: 'PUT' as const, path: `/api/v4/projects/${project.id}/issues/${iid}`, headers: { 'PRIVATE-TOKEN': m.rootToken }, body: { title: `Fan-out ${++n}` } });
  return {
    id: 'hook_fanout',
    title: `issue update with ${FANOUT_HOOKS} webhooks \`PUT /projects/:id/issues/:iid\``,
    writes: true,
    next: update,
    async prepare(port) {
      const api = (path: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers: { ...admin, ...(init.headers ?? {}) } });
      const [first] = (await (await api(`/api/v4/projects/${project.id}/issues?per_page=1&sort=asc`)).json()) as { iid: number }[];
      iid = first?.iid ?? 1;
      const sample = async () => {
        const out: { ms: number; trips: number }[] = [];
        for (let i = 0; i < 10; i++) {
          const r = update();
          const t = performance.now();
          const res = await api(r.path, { method: 'PUT', body: JSON.stringify(r.body) });
          await res.arrayBuffer();
          out.push({ ms: performance.now() - t, trips: Number(res.headers.get('x-storage-round-trips') ?? NaN) });
        }
        out.sort((a, b) => a.ms - b.ms);
        return { median: out[5].ms, trips: [...new Set(out.map((o) => o.trips))].join('/') };
      };
      const without = await sample();
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      server.unref();
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      await api('/api/v4/application/settings', { method: 'PUT', body: JSON.stringify({ allow_local_requests_from_web_hooks_and_services: true }) });
      for (let i = 0; i < FANOUT_HOOKS; i++) {
        const res = await api(`/api/v4/projects/${project.id}/hooks`, { method: 'POST', body: JSON.stringify({ url: `${url}/${i}`, push_events: false, issues_events: true }) });
        if (res.status !== 201) throw new Error(`hook_fanout: creating hook ${i}: ${res.status} ${await res.text()}`);
      }
      const withHooks = await sample();
      return `update without hooks: median ${without.median.toFixed(2)} ms, ${without.trips} round trips; with ${FANOUT_HOOKS} hooks: median ${withHooks.median.toFixed(2)} ms, ${withHooks.trips} round trips`;
    },
    async verify() {
      // Deliveries are asynchronous: give the consumers a moment before counting.
      await new Promise((r) => setTimeout(r, 2000));
      return `${n} updates (prepare's 10 with hooks included); the receiver got ${received} deliveries (${FANOUT_HOOKS} per update once the Queue drains)`;
    },
  };
}
