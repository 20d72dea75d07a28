/**
 * Issue 13's targets, checked against a run's result lines (pure; test/bench/bench-stats.node.test.ts):
 * round trips per request on workerd, Node CPU per request, and holding the fixed rate with a p90
 * bound. Only scenarios the run measured on the target's runtime are listed; one that failed or was
 * run at another rate is shown as not judged, never as met.
 */
import type { ResultLine } from './report';
import { serverLine } from './server-stats';

type Metric = 'rt' | 'cpu' | 'hold' | 'ratio';
interface Target {
  label: string;
  runtime: 'node' | 'workerd';
  metric: Metric;
  /** Round trips, CPU ms or p90 ms at most; for `ratio`, the capacity run's fraction of the bare route's req/s at least. */
  max: number;
  /** Scenario ids; null: every scenario but the bare route. */
  scenarios: string[] | null;
  /** Round trips: the kinds of a mix the target is about, judged from their responses' headers when the run has them. */
  kinds?: string[];
}

const RATE = 200;
const LISTS = ['list_default', 'list_big', 'list_mix', 'group_list', 'all_admin', 'all_member', 'mr_list', 'mr_group_list', 'mr_all_member', 'deployments'];

export const TARGETS: Target[] = [
  { label: '`/user`: 1 round trip', runtime: 'workerd', metric: 'rt', max: 1, scenarios: ['user'] },
  { label: 'single issue, single MR: ≤ 2 round trips', runtime: 'workerd', metric: 'rt', max: 2, scenarios: ['issue', 'mr'] },
  { label: 'every list: ≤ 2 round trips', runtime: 'workerd', metric: 'rt', max: 2, scenarios: LISTS },
  { label: 'approve/unapprove, create issue: ≤ 3 round trips', runtime: 'workerd', metric: 'rt', max: 3, scenarios: ['approve', 'create'], kinds: ['approve', 'unapprove'] },
  { label: '`/user`: ≤ 0.45 CPU ms', runtime: 'node', metric: 'cpu', max: 0.45, scenarios: ['user'] },
  { label: 'single issue: ≤ 1.1 CPU ms', runtime: 'node', metric: 'cpu', max: 1.1, scenarios: ['issue'] },
  { label: 'project issue list: ≤ 2.5 CPU ms', runtime: 'node', metric: 'cpu', max: 2.5, scenarios: ['list_default'] },
  { label: 'MR list: ≤ 3.5 CPU ms', runtime: 'node', metric: 'cpu', max: 3.5, scenarios: ['mr_list'] },
  { label: 'approve/unapprove: ≤ 2.7 CPU ms', runtime: 'node', metric: 'cpu', max: 2.7, scenarios: ['approve'] },
  { label: `every scenario holds ${RATE} req/s, p90 ≤ 25 ms`, runtime: 'node', metric: 'hold', max: 25, scenarios: null },
  { label: `\`/user\`, single issue, single MR, project issue list hold ${RATE} req/s, p90 ≤ 50 ms`, runtime: 'workerd', metric: 'hold', max: 50, scenarios: ['user', 'issue', 'mr', 'list_default'] },
  // Issue 14: a fleet's polls are the steadiest load; a known runner's poll and verify touch no storage.
  { label: 'runner polls: ≥ 50 % of the bare route\'s capacity', runtime: 'node', metric: 'ratio', max: 0.5, scenarios: ['runner'] },
  // 0.00 at the table's precision: the isolate's runner change-log check (one statement every 10 s,
  // src/ci/runner-changes.ts) is the only read left; a known runner's poll reads no settings.
  { label: 'cached runner poll and verify: 0 round trips (rt/req 0.00)', runtime: 'workerd', metric: 'rt', max: 0.005, scenarios: ['runner'], kinds: ['poll', 'verify'] },
];

export interface Verdict {
  target: string;
  runtime: string;
  scenario: string;
  title: string;
  measured: string;
  /** true: met; false: missed; null: not measured in this run. */
  met: boolean | null;
}

/** Round trips per request of one kind of a mix over all of a scenario's runs (weighted by their counts); undefined when no response reported them. */
function kindRoundTrips(rows: ResultLine[], kind: string): number | undefined {
  const seen = rows.map((l) => l.kinds?.[kind]).filter((k) => k?.rt_per_req != null && k.count > 0);
  if (!seen.length) return undefined;
  const n = seen.reduce((a, k) => a + k!.count, 0);
  return seen.reduce((a, k) => a + k!.rt_per_req! * k!.count, 0) / n;
}

function judge(t: Target, rows: ResultLine[], id: string): Pick<Verdict, 'measured' | 'met'> {
  if (t.metric === 'hold') {
    const l = rows.find((x) => x.scenario === id && x.mode === 'fixed');
    if (!l || l.status !== 'ok' || l.rps == null || l.p90_ms == null) return { measured: l?.status ?? 'not run', met: null };
    if ((l.offered_rps ?? 0) < RATE) return { measured: `run at ${l.offered_rps} req/s, not ${RATE}`, met: null };
    // Held: at least 95 % of the offered rate answered, no request lost, and the p90 within the bound.
    const held = l.rps >= 0.95 * l.offered_rps! && l.errors === 0;
    return { measured: `${Math.round(l.rps)} req/s, p90 ${l.p90_ms.toFixed(1)} ms${l.errors ? `, ${l.errors} errors` : ''}`, met: held && l.p90_ms <= t.max };
  }
  if (t.metric === 'ratio') {
    const l = rows.find((x) => x.scenario === id && x.mode === 'capacity');
    if (!l || l.status !== 'ok' || l.ratio == null) return { measured: l?.status ?? 'not run', met: null };
    return { measured: `${Math.round(l.rps!)} req/s, ${(l.ratio * 100).toFixed(0)} % of ${Math.round(l.bare_rps!)}`, met: l.ratio >= t.max };
  }
  // A mix judged on the kinds the target names (approve and unapprove, not the GETs mixed in), from
  // their responses' headers in every mode of the run (each header is exact, whatever the load).
  const perKind = t.metric === 'rt' && t.kinds ? t.kinds.map((k) => [k, kindRoundTrips(rows.filter((x) => x.scenario === id), k)] as const).filter(([, v]) => v != null) : [];
  if (perKind.length) {
    const worst = Math.max(...perKind.map(([, v]) => v!));
    return { measured: perKind.map(([k, v]) => `${k} ${v!.toFixed(2)}`).join(', '), met: worst <= t.max };
  }
  const l = serverLine(rows, id);
  const v = t.metric === 'rt' ? l?.rt_per_req : l?.cpu_ms_per_req;
  if (v == null) return { measured: l ? 'not counted' : 'not run', met: null };
  return { measured: t.metric === 'rt' ? v.toFixed(2) : `${v.toFixed(3)} ms`, met: v <= t.max };
}

export function checkTargets(lines: ResultLine[]): Verdict[] {
  return TARGETS.flatMap((t) => {
    const rows = lines.filter((l) => l.runtime === t.runtime);
    const ran = new Set(rows.map((l) => l.scenario));
    const ids = (t.scenarios ?? [...new Set(lines.map((l) => l.scenario))].filter((id) => id !== 'bare')).filter((id) => ran.has(id));
    return ids.map((id) => ({
      target: t.label,
      runtime: t.runtime,
      scenario: id,
      title: lines.find((l) => l.scenario === id)?.title ?? id,
      ...judge(t, rows, id),
    }));
  });
}

export function renderTargets(lines: ResultLine[]): string {
  const verdicts = checkTargets(lines);
  if (!verdicts.length) return '';
  const mark = (m: boolean | null) => (m === null ? '—' : m ? '✓' : '✗');
  const met = verdicts.filter((v) => v.met).length;
  const judged = verdicts.filter((v) => v.met !== null).length;
  return [
    `Issue 13 targets, for the scenarios and runtimes of this run: ${met} of ${judged} met${judged < verdicts.length ? ` (${verdicts.length - judged} could not be judged)` : ''}. Round trips and CPU per request as in the rt/req and cpu ms/req columns (the approvals scenario's round trips per kind, approve and unapprove, from each response's \`X-Storage-Round-Trips\`; its CPU includes the 30 % \`GET …/approvals\` mixed in). "Holds": at least 95 % of the rate answered and no request lost.`,
    '',
    '| target | runtime | scenario | measured | met |',
    '|---|---|---|---|---|',
    ...verdicts.map((v) => `| ${v.target} | ${v.runtime} | ${v.title} | ${v.measured} | ${mark(v.met)} |`),
  ].join('\n');
}
