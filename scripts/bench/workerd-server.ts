/**
 * workerd runtime for the benchmark through the Miniflare API (not `wrangler dev`, whose proxy worker
 * caps throughput: performance.md 3.1). The Worker is bundled by `wrangler deploy --dry-run` from
 * scripts/bench/worker.ts with the project's wrangler.toml; bindings come from the same file.
 *
 * D1 data: Miniflare keeps a local D1 database as one SQLite file under its persistence path. A first
 * start creates that file; it is then replaced by a copy of the seeded database (the same bytes the
 * Node run starts from) and Miniflare is started again. Loading 100k issues through the D1 binding
 * in batches works too but takes minutes; the copy takes a second.
 * Prints `READY <url>`. `BENCH_DB=… BENCH_DIR=… tsx scripts/bench/workerd-server.ts`
 */
import { Miniflare, convertV4MiniflareOptions } from 'miniflare';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';

const dbFile = process.env.BENCH_DB!;
const dir = process.env.BENCH_DIR!;
const buildDir = join(dir, 'build');
const persist = join(dir, 'persist');

const build = spawnSync('npx', ['--no-install', 'wrangler', 'deploy', '--dry-run', '--outdir', buildDir, 'scripts/bench/worker.ts'], {
  env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  encoding: 'utf8',
});
if (build.status !== 0) {
  console.error(build.stdout, build.stderr);
  process.exit(1);
}

// The bundle is one module, so wrangler's module rules are not needed (Miniflare 5 rejects them).
const { modulesRules: _rules, ...workerOptions } = unstable_getMiniflareWorkerOptions('wrangler.toml').workerOptions;
const options = () =>
  convertV4MiniflareOptions({
    ...(workerOptions as Record<string, unknown>),
    modules: true,
    // Module names are paths relative to rootPath and may not climb out of it.
    rootPath: buildDir,
    scriptPath: join(buildDir, 'worker.js'),
    bindings: { ...(workerOptions.bindings as Record<string, unknown>), ...JSON.parse(process.env.BENCH_BINDINGS ?? '{}') },
    resourcePersistencePath: persist,
    host: '127.0.0.1',
    port: Number(process.env.PORT ?? 0),
  } as never);

rmSync(persist, { recursive: true, force: true });
mkdirSync(persist, { recursive: true });
let mf = new Miniflare(options());
await mf.ready;
await (await mf.getD1Database('DB')).prepare('SELECT 1').first();
await mf.dispose();
const d1Dir = join(persist, 'd1', 'miniflare-D1DatabaseObject');
const file = readdirSync(d1Dir).find((n) => n.endsWith('.sqlite') && n !== 'metadata.sqlite');
if (!file) throw new Error(`no D1 database file under ${d1Dir}`);
for (const suffix of ['-wal', '-shm']) rmSync(join(d1Dir, file + suffix), { force: true });
copyFileSync(dbFile, join(d1Dir, file));

mf = new Miniflare(options());
const url = await mf.ready;
console.log(`READY ${url.href}`);
const stop = () => mf.dispose().finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
