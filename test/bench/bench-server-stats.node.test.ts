import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchNodeFetch, STATS_PATH } from '../../scripts/bench/node-bench';
import { descendants, procCpuMicros } from '../../scripts/bench/proc-cpu';
import { diffStats, type ServerStats } from '../../scripts/bench/server-stats';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';

describe('bench stats endpoint on Node', () => {
  it("answers requests served, the product meter's round trips and statements, and the process's CPU", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-bench-stats-'));
    const fetch = await benchNodeFetch({
      databaseUrl: `file:${join(dir, 'bench.db')}`,
      blobRoot: join(dir, 'blobs'),
      migrationsFolder: join(import.meta.dirname, '../../drizzle'),
      env: { PASSWORD_HASH_ITERATIONS: '1000', REPORT_ROUND_TRIPS: 'true' },
    });
    const stats = async () => (await (await fetch(new Request(`http://localhost${STATS_PATH}`))).json()) as ServerStats;
    const start = await stats();
    expect(start.requests).toBe(0);
    // Migrations and the bootstrap went through the same metered client.
    expect(start.roundTrips).toBeGreaterThan(0);
    expect(start.cpuMicros).toBeGreaterThan(0);

    const headers = { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN };
    let sent = 0;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(new Request('http://localhost/api/v4/user', { headers }));
      expect(res.status).toBe(200);
      sent += Number(res.headers.get('x-storage-round-trips'));
    }
    const created = await fetch(new Request('http://localhost/api/v4/projects', { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'bench-stats' }) }));
    expect(created.status).toBe(201);
    sent += Number(created.headers.get('x-storage-round-trips'));
    // The floor route is a request too (no storage); the stats endpoint itself is not counted.
    expect((await fetch(new Request('http://localhost/__bench/hello'))).status).toBe(200);
    const end = await stats();

    const d = diffStats(start, end)!;
    expect(d.requests).toBe(5);
    expect(sent).toBeGreaterThan(3);
    expect(d.roundTrips).toBe(sent);
    // The write sends a batch: more statements than round trips.
    expect(d.statements).toBeGreaterThan(d.roundTrips);
    expect(d.cpuMs).toBeGreaterThan(0);
    expect((await stats()).requests).toBe(5);
  });
});

describe('bench per-request figures', () => {
  const at = (requests: number, roundTrips: number, statements: number, cpuMicros: number | null): ServerStats => ({ requests, roundTrips, statements, cpuMicros });

  it('diffs two readings of the counters', () => {
    expect(diffStats(at(10, 100, 150, 5_000), at(30, 140, 230, 25_000))).toEqual({ requests: 20, roundTrips: 40, statements: 80, cpuMs: 20 });
    expect(diffStats(at(10, 100, 150, null), at(30, 140, 230, 25_000))?.cpuMs).toBeNull();
    // Nothing served in between, or a reading missing: no figures rather than a division by zero.
    expect(diffStats(at(10, 100, 150, 5_000), at(10, 100, 150, 6_000))).toBeNull();
    expect(diffStats(null, at(10, 100, 150, 6_000))).toBeNull();
  });
});

describe('CPU from /proc (how workerd is measured)', () => {
  it("reads a process's utime + stime: the same CPU time the process itself counts", () => {
    const cpu = () => {
      const u = process.cpuUsage();
      return u.user + u.system;
    };
    const before = procCpuMicros(process.pid)!;
    const own = cpu();
    // Busy until the process has used 150 ms of CPU by its own count (wall time would vary with the machine's load).
    let x = 0;
    while (cpu() - own < 150_000) x += Math.sqrt(x + 1);
    const after = procCpuMicros(process.pid)!;
    const ownDelta = cpu() - own;
    expect(x).toBeGreaterThan(0);
    expect(before).toBeGreaterThan(0);
    // Clock ticks are 10 ms, and each reading may round down by one.
    expect(Math.abs(after - before - ownDelta)).toBeLessThanOrEqual(25_000);
    expect(procCpuMicros(2 ** 30)).toBeNull();
  });

  it('finds the processes a spawned process started, by command name', async () => {
    // sh starts sleep as its child (two commands, so sh does not exec it in place).
    const child = spawn('sh', ['-c', 'sleep 30; true'], { stdio: 'ignore' });
    try {
      let found: { pid: number; comm: string }[] = [];
      for (let i = 0; i < 50 && !found.length; i++) {
        await new Promise((r) => setTimeout(r, 20));
        found = descendants(process.pid).filter((p) => p.comm === 'sleep');
      }
      expect(found).toHaveLength(1);
      expect(descendants(child.pid!).map((p) => p.comm)).toEqual(['sleep']);
      expect(procCpuMicros(found[0].pid)).toBeGreaterThanOrEqual(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
