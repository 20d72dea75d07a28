/** Result records (one JSON line each) and their Markdown rendering (pure; test/bench/bench-stats.node.test.ts). */
import { serverLine } from './server-stats';
import { renderTargets } from './targets';

/** capacity: closed loop on many connections; serial: one connection (service time, unloaded); fixed: open loop at a rate. */
export type Mode = 'capacity' | 'serial' | 'fixed';

export interface ResultLine {
  sha: string;
  runtime: 'node' | 'workerd';
  runtime_version: string;
  cpu: string;
  dataset: string;
  scenario: string;
  title: string;
  mode: Mode;
  tool: string;
  /** ok, or why there is no measurement: `missing (404)`, `error 500`, … */
  status: string;
  conns: number | null;
  offered_rps: number | null;
  rps: number | null;
  p50_ms: number | null;
  p90_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
  requests: number;
  non2xx: number;
  /** Non-2xx responses by status. */
  non2xx_statuses?: Record<string, number>;
  /** One non-2xx response: status line and the start of its body. */
  error_sample?: string;
  errors: number;
  /** The bare route in the same run and mode: its req/s and latencies, and ours as ratios to them. */
  bare_rps: number | null;
  ratio: number | null;
  p50_ratio: number | null;
  p90_ratio: number | null;
  p99_ratio: number | null;
  /**
   * The server's own counters over this run (server-stats.ts; warm-up included): storage round trips,
   * SQL statements (a batch counts each) and CPU ms per request, and the totals behind them.
   */
  rt_per_req?: number | null;
  sql_per_req?: number | null;
  cpu_ms_per_req?: number | null;
  server?: { requests: number; round_trips: number; statements: number; cpu_ms: number | null };
  /** Per request kind inside a mix: count, p50, p99 (ms), round trips per request (X-Storage-Round-Trips). */
  kinds?: Record<string, { count: number; p50_ms: number; p99_ms: number; rt_per_req?: number }>;
  notes?: string;
}

const num = (v: number | null | undefined, digits: number) => (v == null || !Number.isFinite(v) ? '—' : v.toFixed(digits));

/** Milliseconds with sensible precision: 0.412, 3.41, 41.2, 412. */
export function ms(v: number | null | undefined): string {
  if (v == null || !Number.isFinite(v)) return '—';
  return v < 1 ? v.toFixed(3) : v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0);
}

/** A ratio to the bare route: `0.12×` for throughput, `3.4×` for latency. */
export function ratio(v: number | null | undefined): string {
  if (v == null || !Number.isFinite(v)) return '—';
  return `${v < 0.1 ? v.toFixed(3) : v < 10 ? v.toFixed(2) : v.toFixed(0)}×`;
}

const withRatio = (value: string, r: number | null | undefined, isBare: boolean) => (isBare || value === '—' ? value : `${value} (${ratio(r)})`);

/** One table per runtime: capacity and fixed-rate figures side by side, each with its ratio to the bare route. */
export function renderRuntimeTable(lines: ResultLine[], runtime: string): string {
  const rows = lines.filter((l) => l.runtime === runtime);
  if (!rows.length) return '';
  const ids = [...new Set(rows.map((l) => l.scenario))];
  const fixedRate = rows.find((l) => l.mode === 'fixed' && l.offered_rps)?.offered_rps ?? 200;
  const conns = rows.find((l) => l.mode === 'capacity' && l.conns)?.conns ?? 50;
  const head = [
    `| scenario | capacity req/s (× bare) | p50 ms | p99 ms | 1 connection: p50 ms | @${fixedRate} req/s: p50 ms | p90 ms | p99 ms | non-2xx / errors | rt/req | SQL/req | cpu ms/req |`,
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const body = ids.map((id) => {
    const cap = rows.find((l) => l.scenario === id && l.mode === 'capacity');
    const ser = rows.find((l) => l.scenario === id && l.mode === 'serial');
    const fix = rows.find((l) => l.scenario === id && l.mode === 'fixed');
    const any = cap ?? ser ?? fix!;
    if (any.status !== 'ok') return `| ${any.title} | ${any.status} | | | | | | | | | | |`;
    const srv = serverLine(rows, id);
    const bare = id === 'bare';
    const bad = [cap, ser, fix].map((l) => (l ? `${l.non2xx}/${l.errors}` : '—')).join(', ');
    return [
      '',
      any.title,
      cap ? withRatio(num(cap.rps, 0), cap.ratio, bare) : '—',
      cap ? withRatio(ms(cap.p50_ms), cap.p50_ratio, bare) : '—',
      cap ? withRatio(ms(cap.p99_ms), cap.p99_ratio, bare) : '—',
      ser ? withRatio(ms(ser.p50_ms), ser.p50_ratio, bare) : '—',
      fix ? withRatio(ms(fix.p50_ms), fix.p50_ratio, bare) + (fix.rps != null && fix.rps < 0.95 * fixedRate ? ` ⚠ ${num(fix.rps, 0)} req/s achieved` : '') : '—',
      fix ? withRatio(ms(fix.p90_ms), fix.p90_ratio, bare) : '—',
      fix ? withRatio(ms(fix.p99_ms), fix.p99_ratio, bare) : '—',
      bad,
      num(srv?.rt_per_req, 2),
      num(srv?.sql_per_req, 1),
      cpuMs(srv?.cpu_ms_per_req),
      '',
    ]
      .join(' | ')
      .trim();
  });
  const first = rows[0];
  return [
    `### ${runtime === 'node' ? 'Node' : 'workerd (Miniflare API, local D1)'}: ${first.runtime_version}`,
    '',
    `Capacity: closed loop, ${conns} connections. 1 connection: closed loop on one connection (the time one request takes on an idle server). Fixed rate: open loop at ${fixedRate} req/s, latency from the scheduled send time. Ratios in parentheses are to the bare route of the same run and mode (req/s: fraction of the bare route's; latency: multiple of it). ${SERVER_COLUMNS}`,
    '',
    ...head,
    ...body,
  ].join('\n');
}

/** What the rt/req, SQL/req and cpu ms/req columns are. */
export const SERVER_COLUMNS =
  "rt/req, SQL/req, cpu ms/req: the server's own counters over the capacity run (the 1-connection run's when there is none; warm-up included): storage round trips (one per statement sent alone or per batch; D1 calls on workerd, libSQL execute/batch on Node), SQL statements (a batch counts each), and CPU time of the server process (Node: process.cpuUsage() inside it; workerd: the workerd process's utime + stime from /proc) divided by the requests it served.";

/** CPU milliseconds: 0.412, 3.41, 41.2. */
const cpuMs = (v: number | null | undefined) => (v == null || !Number.isFinite(v) ? '—' : v < 10 ? v.toFixed(v < 1 ? 3 : 2) : v.toFixed(1));

/**
 * Per runtime, every measured run of every scenario (bare route excluded): requests the server served,
 * and round trips, statements and CPU per request. Runs that lost requests are left out: the server
 * counted those on arrival, but their work may have fallen after the reading.
 */
export function renderServerTotals(lines: ResultLine[]): string {
  const runtimes = [...new Set(lines.map((l) => l.runtime))];
  const body = runtimes.flatMap((rt) => {
    const served = lines.filter((l) => l.runtime === rt && l.scenario !== 'bare' && l.server && l.errors === 0).map((l) => l.server!);
    if (!served.length) return [];
    const requests = served.reduce((n, x) => n + x.requests, 0);
    const sum = (f: (x: NonNullable<ResultLine['server']>) => number) => served.reduce((n, x) => n + f(x), 0);
    const cpuKnown = served.every((x) => x.cpu_ms != null);
    return [`| ${rt} | ${requests} | ${num(sum((x) => x.round_trips) / requests, 2)} | ${num(sum((x) => x.statements) / requests, 2)} | ${cpuKnown ? cpuMs(sum((x) => x.cpu_ms!) / requests) : '—'} |`];
  });
  if (!body.length) return '';
  return [
    'Whole run, per runtime (every scenario and mode, bare route excluded, warm-up requests included, runs that lost requests left out):',
    '',
    '| runtime | requests | round trips/req | statements/req | CPU ms/req |',
    '|---|---|---|---|---|',
    ...body,
  ].join('\n');
}

/** p50/p99 and round trips per kind inside each mix (list filters, approvals) on one connection (no queueing), both runtimes side by side. */
export function renderMixTable(lines: ResultLine[]): string {
  const mixes = lines.filter((l) => l.kinds && l.mode === 'serial' && l.status === 'ok');
  if (!mixes.length) return '';
  const runtimes = [...new Set(mixes.map((l) => l.runtime))];
  const rows = [...new Set(mixes.flatMap((l) => Object.keys(l.kinds!).map((k) => `${l.scenario}\u0000${k}`)))];
  const head = `| mix | kind | ${runtimes.map((rt) => `${rt} p50 ms | ${rt} p99 ms | ${rt} rt/req`).join(' | ')} |`;
  const sep = `|---|---|${runtimes.map(() => '---|---|---').join('|')}|`;
  const body = rows.map((key) => {
    const [id, k] = key.split('\u0000');
    const cells = runtimes.map((rt) => {
      const x = mixes.find((l) => l.runtime === rt && l.scenario === id)?.kinds?.[k];
      return `${ms(x?.p50_ms)} | ${ms(x?.p99_ms)} | ${num(x?.rt_per_req, 2)}`;
    });
    return `| ${id} | ${k} | ${cells.join(' | ')} |`;
  });
  return ["Mixes, per kind of request (one connection: the cost of each without queueing; rt/req from each response's X-Storage-Round-Trips):", '', head, sep, ...body].join('\n');
}

/** GitLab's published GPT results at 200 RPS (10k reference architecture), performance.md 1.3. */
export const GITLAB: Record<string, { test: string; p90: string; threshold: string }> = {
  user: { test: 'api_v4_user', p90: '49.5 / 32.7 / 56.8 ms', threshold: '200 ms' },
  issue: { test: 'api_v4_projects_issues_issue', p90: '254 / 172 / 293 ms', threshold: '2600 ms' },
  list_default: { test: 'api_v4_projects_issues', p90: '238 / 196 / 229 ms', threshold: '1000 ms' },
  list_mix: { test: 'api_v4_projects_issues_search (search only)', p90: '9408 ms @38 req/s / failed (14779 ms @17.7 req/s) / —', threshold: '800 ms @30 req/s' },
  group_list: { test: 'api_v4_groups_issues', p90: '— (not in the published samples)', threshold: '8000 ms @40 req/s' },
  create: { test: 'scenario_api_new_issues', p90: '896 ms @2 req/s (14.1.0)', threshold: '2500 ms' },
  mr_list: { test: 'api_v4_projects_merge_requests', p90: '230 / 163 / 157 ms', threshold: '400 ms' },
  mr: { test: 'api_v4_projects_merge_requests_merge_request', p90: '349 / 76 / 368 ms', threshold: '3500 ms @100 req/s' },
};

/** What scenarios checked after their runs (Scenario.verify) and other per-line notes. */
export function renderNotes(lines: ResultLine[]): string {
  const noted = lines.filter((l) => l.notes);
  if (!noted.length) return '';
  return ['Checks and notes:', '', ...noted.map((l) => `- ${l.runtime}, ${l.title} (${l.mode}): ${l.notes}`)].join('\n');
}

/** Ours beside GitLab's: p90 at the fixed rate on both runtimes. */
export function renderGitlabTable(lines: ResultLine[]): string {
  const p90 = (rt: string, id: string) => {
    const l = lines.find((x) => x.runtime === rt && x.scenario === id && x.mode === 'fixed');
    if (!l) return '—';
    if (l.status !== 'ok') return l.status;
    // An overloaded open loop measures only what it got answered: say so beside the figure.
    const short = l.rps != null && l.offered_rps != null && l.rps < 0.95 * l.offered_rps;
    return `${ms(l.p90_ms)} ms${short ? ` (⚠ ${num(l.rps, 0)} req/s achieved)` : ''}`;
  };
  const head = [
    '| endpoint | GitLab GPT test | GitLab p90 @200 req/s (14.1 GCP / 13.9 AWS / 15.7 GCP) | GPT p90 threshold | ours p90 @200, Node | ours p90 @200, workerd |',
    '|---|---|---|---|---|---|',
  ];
  const ids = [...new Set(lines.map((l) => l.scenario))].filter((id) => id !== 'bare');
  const body = ids.map((id) => {
    const title = lines.find((l) => l.scenario === id)!.title;
    const g = GITLAB[id];
    return `| ${title} | ${g?.test ?? '—'} | ${g?.p90 ?? '—'} | ${g?.threshold ?? '—'} | ${p90('node', id)} | ${p90('workerd', id)} |`;
  });
  return [...head, ...body].join('\n');
}

export function renderMarkdown(
  lines: ResultLine[],
  meta: { date: string; sha: string; dataset: string; command: string; cpu: string; seed: string; load?: string; minutes?: number },
): string {
  return [
    `Benchmark of ${meta.sha} on ${meta.date}, dataset ${meta.dataset}; ${meta.cpu}; client and server on the same machine over 127.0.0.1.`,
    `Command: \`${meta.command}\`. Seed: ${meta.seed}.${meta.minutes != null ? ` Run time: ${meta.minutes.toFixed(1)} min.` : ''}${meta.load ? ` Load: ${meta.load}.` : ''}`,
    '',
    renderRuntimeTable(lines, 'node'),
    '',
    renderRuntimeTable(lines, 'workerd'),
    '',
    renderServerTotals(lines),
    '',
    renderMixTable(lines),
    '',
    '### Targets',
    '',
    renderTargets(lines),
    '',
    renderNotes(lines),
    '',
    '### Beside GitLab',
    '',
    renderGitlabTable(lines),
    '',
  ]
    .filter((s, i, a) => !(s === '' && a[i - 1] === ''))
    .join('\n');
}
