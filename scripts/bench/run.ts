/**
 * `npm run bench [-- options]`: seeds the dataset (cached while seed code and migrations are
 * unchanged), then for each runtime starts the server, measures the bare route and every scenario in
 * two modes (closed-loop capacity; open loop at a fixed rate), stops the server, and writes
 * scripts/bench/results/latest.jsonl and latest.md (also printed).
 *
 * Options: --quick (dataset S, 3 s per measurement), --dataset M|S, --runtimes node,workerd,
 * --only user,issue,…, --seconds N (capacity), --fixed-seconds N, --rate N (default 200),
 * --conns N (default 50), --runs N (capacity runs, median), --warmup N, --dir PATH,
 * --src head (benchmark a `git archive HEAD` copy instead of the working tree), --readme (copy
 * the table into README's performance section).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLOOR_PATH } from './floor';
import { closedLoop, openLoop, type RunResult, type Sample } from './load';
import { renderMarkdown, type Mode, type ResultLine } from './report';
import { workerdCpuMicros } from './proc-cpu';
import { RUNNER_INFO, scenarios, type Scenario } from './scenarios';
import { diffStats, type ServerStats } from './server-stats';
import { freshenRunnerContacts } from './runner-fleet';
import { DATASETS, seed, type Manifest } from './seed';
import { byKind, median, summarize } from './stats';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const opt = (name: string, dflt: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1] : dflt;
};
const quick = flag('quick');
const cfg = {
  dataset: opt('dataset', quick ? 'S' : 'M'),
  runtimes: opt('runtimes', 'node,workerd').split(','),
  only: opt('only', '') ? opt('only', '').split(',') : null,
  seconds: Number(opt('seconds', quick ? '3' : '10')),
  fixedSeconds: Number(opt('fixed-seconds', quick ? '3' : '20')),
  serialSeconds: Number(opt('serial-seconds', quick ? '2' : '5')),
  warmup: Number(opt('warmup', quick ? '1' : '3')),
  rate: Number(opt('rate', '200')),
  conns: Number(opt('conns', '50')),
  runs: Number(opt('runs', '1')),
  dir: opt('dir', '/tmp/workflow-api-bench'),
  src: opt('src', 'worktree'),
};
const spec = DATASETS[cfg.dataset];
if (!spec) throw new Error(`unknown dataset ${cfg.dataset} (M or S)`);
const log = (s: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}`);

// ---------------------------------------------------------------------------------------------
// Source tree and dataset

const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8' }).stdout.trim();
const head = git('rev-parse', '--short', 'HEAD');
const dirty = cfg.src === 'worktree' && git('status', '--porcelain', '--', 'src', 'drizzle') !== '';
const sha = head + (dirty ? '+dirty' : '');

/** `--src head`: a clean copy of the committed tree (other people's uncommitted edits stay out), harness from the working tree. */
function sourceTree(): string {
  if (cfg.src !== 'head') return repo;
  const tree = join(cfg.dir, `src-${head}`);
  if (!existsSync(join(tree, 'package.json'))) {
    mkdirSync(tree, { recursive: true });
    const tar = spawnSync('sh', ['-c', `git archive HEAD | tar -x -C '${tree}'`], { cwd: repo, stdio: 'inherit' });
    if (tar.status !== 0) throw new Error('git archive failed');
    symlinkSync(join(repo, 'node_modules'), join(tree, 'node_modules'));
  }
  mkdirSync(join(tree, 'scripts/bench'), { recursive: true });
  for (const f of readdirSync(join(repo, 'scripts/bench'))) if (f.endsWith('.ts')) copyFileSync(join(repo, 'scripts/bench', f), join(tree, 'scripts/bench', f));
  return tree;
}

async function dataset(tree: string): Promise<{ file: string; manifest: Manifest }> {
  const dir = join(cfg.dir, spec.id);
  const hash = createHash('sha256');
  for (const f of ['scripts/bench/seed.ts', 'scripts/bench/seed-merge-requests.ts', 'scripts/bench/seed-deployments.ts', 'scripts/bench/rng.ts', 'drizzle/meta/_journal.json']) hash.update(readFileSync(join(tree, f)));
  hash.update(JSON.stringify(spec));
  const key = hash.digest('hex').slice(0, 16);
  const keyFile = join(dir, 'seed.key');
  if (existsSync(keyFile) && readFileSync(keyFile, 'utf8') === key && existsSync(join(dir, 'bench.db'))) {
    log(`dataset ${spec.id}: reusing ${dir}/bench.db`);
    return { file: join(dir, 'bench.db'), manifest: JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) };
  }
  log(`dataset ${spec.id}: seeding…`);
  const cwd = process.cwd();
  process.chdir(tree); // migrations are read from ./drizzle
  const manifest = await seed(spec, dir, log);
  process.chdir(cwd);
  writeFileSync(keyFile, key);
  return { file: join(dir, 'bench.db'), manifest };
}

// ---------------------------------------------------------------------------------------------
// Servers

interface Server {
  port: number;
  version: string;
  /** The server's own counters (server-stats.ts); null when it cannot be asked. */
  stats(): Promise<ServerStats | null>;
  stop(): Promise<void>;
}

/**
 * Starts a server script under this Node (npm run gives Node 22), waits for `READY <port|url>`. The
 * Node server is compiled first (scripts/build-node.mjs), as `npm run start:node` runs the product:
 * its memory and start-up are measured without tsx's loader. The workerd launcher runs under tsx.
 */
function startServer(tree: string, script: string, env: Record<string, string>, opts: { compile?: boolean } = {}): Promise<{ child: ChildProcess; port: number }> {
  let args = ['--import', 'tsx', script];
  if (opts.compile) {
    const out = join('dist', `${basename(script, '.ts')}.mjs`);
    const built = spawnSync(process.execPath, [join(repo, 'scripts/build-node.mjs'), script, out], { cwd: tree, stdio: ['ignore', 'ignore', 'inherit'] });
    if (built.status !== 0) throw new Error(`building ${script} failed`);
    args = [out];
  }
  const child = spawn(process.execPath, args, {
    cwd: tree,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => (err = (err + d).slice(-4000)));
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start in 120 s\n${err}`)), 120_000);
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /READY (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveStart({ child, port: Number(m[1].match(/(\d+)\/?$/)![1]) });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}\n${err}`));
    });
  });
}

function stopper(child: ChildProcess) {
  return () =>
    new Promise<void>((done) => {
      if (child.exitCode != null) return done();
      child.removeAllListeners('exit');
      child.once('exit', () => done());
      child.kill('SIGTERM');
      setTimeout(() => child.exitCode == null && child.kill('SIGKILL'), 10_000).unref();
    });
}

// Search is rate-limited to 30 requests a minute per user by default (GitLab's search_rate_limit):
// the benchmark measures the server, so that limit is lifted the way an operator would, by RATE_LIMITS.
// REPORT_ROUND_TRIPS puts each response's round trips in a header, so a mix can be broken down per kind.
const BENCH_ENV = { RATE_LIMITS: JSON.stringify({ search_rate_limit: 0, search_rate_limit_unauthenticated: 0 }), REPORT_ROUND_TRIPS: 'true' };

async function startNode(tree: string, db: string): Promise<Server> {
  const dir = join(cfg.dir, 'node');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  copyFileSync(db, join(dir, 'bench.db'));
  const { child, port } = await startServer(tree, 'scripts/bench/node-server.ts', { ...BENCH_ENV, DATABASE_URL: `file:${join(dir, 'bench.db')}`, BLOB_ROOT: join(dir, 'blobs'), PORT: '0' }, { compile: true });
  return { port, version: `Node ${process.version}, src/node-server.ts on @hono/node-server, libsql file client (src/db/libsql-file.ts, cached statements)`, stats: () => benchStats(port), stop: stopper(child) };
}

async function startWorkerd(tree: string, db: string): Promise<Server> {
  const dir = join(cfg.dir, 'workerd');
  mkdirSync(dir, { recursive: true });
  const { child, port } = await startServer(tree, 'scripts/bench/workerd-server.ts', { BENCH_DB: db, BENCH_DIR: dir, BENCH_BINDINGS: JSON.stringify(BENCH_ENV), PORT: '0' });
  const mfVersion = JSON.parse(readFileSync(join(tree, 'node_modules/miniflare/package.json'), 'utf8')).version;
  // The Worker counts its requests and round trips; its CPU is the workerd process's, read from /proc.
  const stats = async () => {
    const s = await benchStats(port);
    return s && { ...s, cpuMicros: workerdCpuMicros(child.pid!) };
  };
  if ((await stats())?.cpuMicros == null) log('workerd: no workerd process found under the server; CPU will not be reported');
  return { port, version: `workerd via Miniflare ${mfVersion} API, local D1`, stats, stop: stopper(child) };
}

// ---------------------------------------------------------------------------------------------
// Measurement

/** One request before measuring: a route that does not exist yet is reported, not measured. */
async function probe(port: number, s: Scenario): Promise<string> {
  const r = s.next();
  try {
    const res = await fetch(`http://127.0.0.1:${port}${r.path}`, {
      method: r.method,
      headers: { ...r.headers, ...(r.body ? { 'Content-Type': 'application/json' } : {}) },
      body: r.body ? JSON.stringify(r.body) : undefined,
    });
    const text = await res.text();
    r.onDone?.(res.status);
    if (res.ok) return 'ok';
    // GitLab's catch-all (app.ts notFound): the route is not there.
    if (res.status === 404 && text.includes('"error":"404 Not Found"')) return 'missing (404)';
    // Another method exists on the path (e.g. the list before creation lands): Grape's 405.
    if (res.status === 405) return 'missing (405)';
    log(`  ${s.id}: ${res.status} ${text.slice(0, 200)}`);
    return `error ${res.status}`;
  } catch (e) {
    r.onDone?.(null);
    return `error ${(e as Error).message}`;
  }
}

/**
 * After an overloaded run the server may still be working through requests whose sockets the client
 * closed; wait until the bare route answers quickly three times in a row (at most 30 s) so that work
 * does not land in the next measurement.
 */
async function settle(port: number) {
  const until = Date.now() + 30_000;
  let quick = 0;
  while (quick < 3 && Date.now() < until) {
    const t = performance.now();
    try {
      await (await fetch(`http://127.0.0.1:${port}${FLOOR_PATH}`)).text();
    } catch {
      // server busy or restarting its listener: count as slow
    }
    quick = performance.now() - t < 20 ? quick + 1 : 0;
    if (quick < 3) await new Promise((r) => setTimeout(r, 100));
  }
}

/** Non-2xx responses by status, e.g. {"500": 3}; undefined when all succeeded. */
function statusCounts(samples: Sample[]): Record<string, number> | undefined {
  const out: Record<string, number> = {};
  for (const s of samples) if (s.status < 200 || s.status >= 300) out[s.status] = (out[s.status] ?? 0) + 1;
  return Object.keys(out).length ? out : undefined;
}

/** The server's requests, round trips, statements and (Node) CPU since it started: `GET /__bench/stats` of node-bench.ts and worker.ts. */
async function benchStats(port: number): Promise<ServerStats | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/__bench/stats`);
    return res.ok ? ((await res.json()) as ServerStats) : null;
  } catch {
    return null;
  }
}

const round = (v: number) => (Number.isFinite(v) ? Math.round(v * 1000) / 1000 : v);

async function measure(port: number, s: Scenario, mode: Mode): Promise<{ result: RunResult; runs: RunResult[] }> {
  if (mode === 'fixed') {
    const result = await openLoop(port, s.next, cfg.rate, cfg.fixedSeconds);
    return { result, runs: [result] };
  }
  if (mode === 'serial') {
    const result = await closedLoop(port, s.next, 1, cfg.serialSeconds);
    return { result, runs: [result] };
  }
  const runs: RunResult[] = [];
  for (let i = 0; i < cfg.runs; i++) runs.push(await closedLoop(port, s.next, cfg.conns, cfg.seconds, i === 0 ? cfg.warmup : 0));
  // The median run by throughput stands for all (performance.md 4.1: 3 runs, median).
  const sorted = [...runs].sort((a, b) => a.samples.length / a.elapsedMs - b.samples.length / b.elapsedMs);
  return { result: sorted[Math.floor((sorted.length - 1) / 2)], runs };
}

async function runRuntime(runtime: 'node' | 'workerd', server: Server, manifest: Manifest, out: ResultLine[]) {
  const list = scenarios(manifest).filter((s) => !cfg.only || s.id === 'bare' || cfg.only.includes(s.id));
  list.sort((a, b) => Number(!!a.writes) - Number(!!b.writes));
  const bare: Partial<Record<Mode, ResultLine>> = {};
  const prepNotes = new Map<string, string>();
  for (const s of list) {
    const status = await probe(server.port, s);
    if (status === 'ok' && s.prepare) {
      const prepared = await s.prepare(server.port, { cpuMs: async () => { const c = (await server.stats())?.cpuMicros; return c == null ? null : c / 1000; } });
      log(`  ${runtime} ${s.id}: ${prepared}`);
      prepNotes.set(s.id, prepared);
    }
    for (const mode of ['capacity', 'serial', 'fixed'] as Mode[]) {
      const base: ResultLine = {
        sha,
        runtime,
        runtime_version: server.version,
        cpu: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`,
        dataset: spec.id,
        scenario: s.id,
        title: s.title,
        mode,
        tool: 'scripts/bench/load.ts',
        status,
        conns: mode === 'capacity' ? cfg.conns : mode === 'serial' ? 1 : null,
        offered_rps: mode === 'fixed' ? cfg.rate : null,
        rps: null,
        p50_ms: null,
        p90_ms: null,
        p99_ms: null,
        max_ms: null,
        requests: 0,
        non2xx: 0,
        errors: 0,
        bare_rps: null,
        ratio: null,
        p50_ratio: null,
        p90_ratio: null,
        p99_ratio: null,
      };
      if (status !== 'ok') {
        out.push(base);
        continue;
      }
      const before = await server.stats();
      const { result, runs } = await measure(server.port, s, mode);
      // Read before settling, so the settling requests stay out; warm-up requests are in both counts.
      const served = diffStats(before, await server.stats());
      await settle(server.port);
      const sum = summarize(result.samples.map((x) => x.ms), result.elapsedMs);
      const b = bare[mode];
      const line: ResultLine = {
        ...base,
        rps: round(sum.rps),
        p50_ms: round(sum.p50),
        p90_ms: round(sum.p90),
        p99_ms: round(sum.p99),
        max_ms: round(sum.max),
        requests: sum.count,
        non2xx: result.samples.filter((x) => x.status < 200 || x.status >= 300).length,
        non2xx_statuses: statusCounts(result.samples),
        errors: result.errors,
        bare_rps: b?.rps ?? null,
        ratio: b?.rps ? round(sum.rps / b.rps) : null,
        p50_ratio: b?.p50_ms ? round(sum.p50 / b.p50_ms) : null,
        p90_ratio: b?.p90_ms ? round(sum.p90 / b.p90_ms) : null,
        p99_ratio: b?.p99_ms ? round(sum.p99 / b.p99_ms) : null,
        rt_per_req: served ? round(served.roundTrips / served.requests) : null,
        sql_per_req: served ? round(served.statements / served.requests) : null,
        cpu_ms_per_req: served?.cpuMs != null ? round(served.cpuMs / served.requests) : null,
        server: served ? { requests: served.requests, round_trips: served.roundTrips, statements: served.statements, cpu_ms: served.cpuMs == null ? null : round(served.cpuMs) } : undefined,
        kinds: byKind(result.samples),
        error_sample: result.errorSample,
        notes: [runs.length > 1 ? `median of ${runs.length} runs: ${runs.map((x) => Math.round((x.samples.length * 1000) / x.elapsedMs)).join(', ')} req/s` : '', mode === 'capacity' ? (prepNotes.get(s.id) ?? '') : ''].filter(Boolean).join('; ') || undefined,
      };
      if (s.id === 'bare') bare[mode] = line;
      out.push(line);
      log(`  ${runtime} ${s.id} ${mode}: ${line.rps?.toFixed(0)} req/s p50 ${line.p50_ms} p90 ${line.p90_ms} p99 ${line.p99_ms} ms, non-2xx ${line.non2xx}${line.non2xx_statuses ? ' ' + JSON.stringify(line.non2xx_statuses) : ''}, errors ${line.errors}${line.error_sample ? ` (e.g. ${line.error_sample})` : ''}, rt/req ${line.rt_per_req ?? '—'}, SQL/req ${line.sql_per_req ?? '—'}, cpu ms/req ${line.cpu_ms_per_req ?? '—'}`);
    }
    if (status !== 'ok') log(`  ${runtime} ${s.id}: ${status}`);
    else if (s.verify) {
      const verdict = await s.verify(server.port);
      log(`  ${runtime} ${s.id}: ${verdict}`);
      const last = out[out.length - 1];
      last.notes = last.notes ? `${last.notes}; ${verdict}` : verdict;
    }
  }
}

// ---------------------------------------------------------------------------------------------

const t0 = Date.now();
const loadBefore = loadavg()[0];
const tree = sourceTree();
const { file, manifest } = await dataset(tree);
const lines: ResultLine[] = [];
for (const runtime of cfg.runtimes as ('node' | 'workerd')[]) {
  log(`${runtime}: starting`);
  if (!cfg.only || cfg.only.includes('runner')) log(`${runtime}: ${freshenRunnerContacts(file, RUNNER_INFO)} runners last contacted a minute ago`);
  const server = runtime === 'node' ? await startNode(tree, file) : await startWorkerd(tree, file);
  try {
    await runRuntime(runtime, server, manifest, lines);
  } finally {
    await server.stop();
  }
}

const resultsDir = join(repo, 'scripts/bench/results');
mkdirSync(resultsDir, { recursive: true });
const command = `npm run bench${argv.length ? ' -- ' + argv.join(' ') : ''}`;
const md = renderMarkdown(lines, {
  date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
  sha,
  dataset: `${spec.id} (${Object.entries(manifest.counts).map(([k, v]) => `${v.toLocaleString('en')} ${k}`).join(', ')})`,
  command,
  cpu: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`,
  seed: `${(manifest.seedMs / 1000).toFixed(1)} s`,
  load: `${loadBefore.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at end (1-minute load average; above ~1 other work shared the cores)`,
  minutes: (Date.now() - t0) / 60_000,
});
writeFileSync(join(resultsDir, 'latest.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
writeFileSync(join(resultsDir, 'latest.md'), md);
console.log(md);
log(`done in ${Math.round((Date.now() - t0) / 1000)} s; results in scripts/bench/results/latest.{jsonl,md}`);

if (flag('readme')) {
  const readme = join(repo, 'README.md');
  const text = readFileSync(readme, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) log('README.md has no bench markers; not updated');
  else writeFileSync(readme, text.slice(0, a + start.length) + '\n' + md + '\n' + text.slice(b));
}
