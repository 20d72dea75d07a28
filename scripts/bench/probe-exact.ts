// scratch (not committed): serial requests per scenario, rt histogram and the requests above the mode
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { scenarios } from './scenarios';
const dir = process.env.PDIR!;
const manifest = JSON.parse(readFileSync(`${dir}/M/manifest.json`, 'utf8'));
const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/workerd-server.ts'], {
  env: { ...process.env, WRANGLER_SEND_METRICS: 'false', BENCH_DB: `${dir}/M/bench.db`, BENCH_DIR: `${dir}/probe-workerd`, BENCH_BINDINGS: JSON.stringify({ REPORT_ROUND_TRIPS: 'true', RATE_LIMITS: JSON.stringify({ search_rate_limit: 0 }) }), PORT: '0' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const port = await new Promise<number>((ok) => { let out = ''; child.stdout!.on('data', (d) => { out += d; const m = /READY (\S+)/.exec(out); if (m) ok(Number(m[1].match(/(\d+)\/?$/)![1])); }); });
const only = (process.env.ONLY ?? 'user,list_default,mr_list,approve').split(',');
const seconds = Number(process.env.SECS ?? 25);
for (const s of scenarios(manifest).filter((x) => only.includes(x.id))) {
  const t0 = Date.now();
  const hist = new Map<string, number>();
  const odd: string[] = [];
  const rows: { t: number; rt: number; path: string; method: string; status: number }[] = [];
  while (Date.now() - t0 < seconds * 1000) {
    const r = s.next();
    const res = await fetch(`http://127.0.0.1:${port}${r.path}`, { method: r.method, headers: { ...r.headers, ...(r.body ? { 'Content-Type': 'application/json' } : {}) }, body: r.body ? JSON.stringify(r.body) : undefined });
    await res.text();
    r.onDone?.(res.status);
    const rt = Number(res.headers.get('x-storage-round-trips'));
    const k = `${r.kind ?? r.method} ${res.status} rt=${rt}`;
    hist.set(k, (hist.get(k) ?? 0) + 1);
    rows.push({ t: Date.now() - t0, rt, path: r.path, method: r.method, status: res.status });
  }
  console.log(`== ${s.id}: ${rows.length} requests, rt/req ${(rows.reduce((a, b) => a + b.rt, 0) / rows.length).toFixed(3)}`);
  for (const [k, v] of [...hist].sort()) console.log(`  ${k}: ${v}`);
  const byKind = new Map<string, number>();
  for (const [k, v] of hist) { const kk = k.replace(/ rt=\d+$/, ''); if ((byKind.get(kk) ?? 0) < v) byKind.set(kk, v); }
  for (const x of rows) { const mode = [...hist].filter(([k]) => k.startsWith(`${x.method === 'GET' && s.id==='approve' && x.path.endsWith('approvals') ? 'approvals' : x.method}`)).sort((a, b) => b[1] - a[1])[0]; }
  const modeRt = Math.min(...rows.map((x) => x.rt));
  for (const x of rows.filter((x) => x.rt > modeRt).slice(0, 40)) odd.push(`  t=${x.t}ms rt=${x.rt} ${x.method} ${x.status} ${x.path}`);
  console.log(odd.join('\n'));
}
child.kill('SIGTERM');
process.exit(0);
