import { describe, expect, it } from 'vitest';
import { encodeRequest, ResponseParser } from '../../scripts/bench/load';
import { ms, ratio, renderGitlabTable, renderMarkdown, renderMixTable, renderNotes, renderRuntimeTable, renderServerTotals, type ResultLine } from '../../scripts/bench/report';
import { checkTargets, renderTargets } from '../../scripts/bench/targets';
import { byKind, median, percentile, summarize } from '../../scripts/bench/stats';

describe('bench stats', () => {
  it('percentile is nearest-rank', () => {
    const xs = Float64Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(xs, 0.5)).toBe(50);
    expect(percentile(xs, 0.9)).toBe(90);
    expect(percentile(xs, 0.99)).toBe(99);
    expect(percentile(xs, 1)).toBe(100);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.5)).toBeNaN();
    expect(percentile([1, 2, 3], 0.5)).toBe(2);
  });

  it('summarize sorts, counts and turns elapsed time into req/s', () => {
    const s = summarize([5, 1, 3, 2, 4], 2000);
    expect(s).toEqual({ count: 5, rps: 2.5, p50: 3, p90: 5, p99: 5, max: 5 });
  });

  it('breaks a mix down per kind, with round trips from the responses that reported them', () => {
    const samples = [
      { ms: 1, status: 201, kind: 'approve', roundTrips: 3 },
      { ms: 3, status: 201, kind: 'approve', roundTrips: 2 },
      { ms: 2, status: 200, kind: 'approvals', roundTrips: 1 },
      { ms: 5, status: 404, kind: 'unapprove' },
      { ms: 7, status: 200 },
    ];
    expect(byKind(samples)).toEqual({
      approve: { count: 2, p50_ms: 1, p99_ms: 3, rt_per_req: 2.5 },
      approvals: { count: 1, p50_ms: 2, p99_ms: 2, rt_per_req: 1 },
      unapprove: { count: 1, p50_ms: 5, p99_ms: 5 },
    });
    expect(byKind([{ ms: 1, status: 200 }])).toBeUndefined();
  });

  it('median of an odd and an even number of runs', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });
});

describe('bench HTTP parser', () => {
  it('completes Content-Length responses split across chunks, several per chunk', () => {
    const p = new ResponseParser();
    const one = 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello';
    const two = 'HTTP/1.1 404 Not Found\r\ncontent-length: 2\r\n\r\n{}';
    expect(p.lastError).toBeNull();
    expect(p.push(Buffer.from(one.slice(0, 10)))).toEqual([]);
    expect(p.push(Buffer.from(one.slice(10, 40)))).toEqual([]);
    expect(p.push(Buffer.from(one.slice(40) + two))).toEqual([200, 404]);
    expect(p.lastError).toBe('HTTP/1.1 404 Not Found {}');
  });

  it('completes chunked responses', () => {
    const p = new ResponseParser();
    const res = 'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3\r\nabc\r\n0\r\n\r\n';
    expect(p.push(Buffer.from(res.slice(0, 60)))).toEqual([]);
    expect(p.push(Buffer.from(res.slice(60)))).toEqual([201]);
    expect(p.push(Buffer.from('HTTP/1.1 204 No Content\r\n\r\n'))).toEqual([204]);
  });

  it("reads each response's X-Storage-Round-Trips", () => {
    const p = new ResponseParser();
    const a = 'HTTP/1.1 200 OK\r\nX-Storage-Round-Trips: 2\r\nContent-Length: 2\r\n\r\n{}';
    const b = 'HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\nx-storage-round-trips: 13\r\n\r\n2\r\n{}\r\n0\r\n\r\n';
    const c = 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n';
    expect(p.answers(Buffer.from(a + b + c))).toEqual([{ status: 200, roundTrips: 2 }, { status: 201, roundTrips: 13 }, { status: 200 }]);
  });

  it('encodes a JSON request with its length', () => {
    const text = encodeRequest('127.0.0.1:1', { method: 'POST', path: '/x', headers: { 'PRIVATE-TOKEN': 't' }, body: { a: 'é' } }).toString();
    expect(text).toContain('POST /x HTTP/1.1\r\nHost: 127.0.0.1:1\r\n');
    expect(text).toContain('PRIVATE-TOKEN: t\r\n');
    expect(text).toContain('Content-Length: 10\r\n\r\n{"a":"é"}');
  });
});

describe('bench report', () => {
  const line = (scenario: string, mode: 'capacity' | 'serial' | 'fixed', extra: Partial<ResultLine>): ResultLine => ({
    sha: 'abc', runtime: 'node', runtime_version: 'Node v22', cpu: '2 × cpu', dataset: 'S', scenario, title: scenario, mode, tool: 't',
    status: 'ok', conns: mode === 'capacity' ? 50 : null, offered_rps: mode === 'fixed' ? 200 : null, rps: 100, p50_ms: 1, p90_ms: 2, p99_ms: 3,
    max_ms: 4, requests: 10, non2xx: 0, errors: 0, bare_rps: null, ratio: null, p50_ratio: null, p90_ratio: null, p99_ratio: null, ...extra,
  });

  /** What the server's counters said over a run of `requests` requests. */
  const served = (requests: number, rt: number, sql: number, cpu: number | null): Partial<ResultLine> => ({
    rt_per_req: rt,
    sql_per_req: sql,
    cpu_ms_per_req: cpu,
    server: { requests, round_trips: rt * requests, statements: sql * requests, cpu_ms: cpu == null ? null : cpu * requests },
  });

  it('formats milliseconds and ratios', () => {
    expect(ms(0.4123)).toBe('0.412');
    expect(ms(3.412)).toBe('3.41');
    expect(ms(41.23)).toBe('41.2');
    expect(ms(412.3)).toBe('412');
    expect(ms(null)).toBe('—');
    expect(ratio(0.0123)).toBe('0.012×');
    expect(ratio(3.41)).toBe('3.41×');
    expect(ratio(52.4)).toBe('52×');
  });

  it('renders every figure with its ratio to the bare route, and missing routes as such', () => {
    const lines = [
      line('bare', 'capacity', { rps: 20000 }),
      line('bare', 'serial', { rps: 2000, p50_ms: 0.5 }),
      line('bare', 'fixed', { rps: 200 }),
      line('user', 'serial', { rps: 500, p50_ms: 2, p50_ratio: 4 }),
      line('user', 'capacity', { rps: 2000, ratio: 0.1, p50_ms: 5, p50_ratio: 5, p99_ms: 9, p99_ratio: 3, ...served(20000, 2, 5, 0.9) }),
      line('user', 'fixed', { rps: 150, p50_ms: 2, p50_ratio: 2, p90_ms: 4, p90_ratio: 2, p99_ms: 6, p99_ratio: 2, ...served(450, 1.5, 4, 0.412) }),
      line('issue', 'capacity', { status: 'missing (404)', rps: null }),
      line('issue', 'fixed', { status: 'missing (404)', rps: null }),
    ];
    const md = renderRuntimeTable(lines, 'node');
    expect(md).toContain('| bare | 20000 | 1.00 | 3.00 | 0.500 | 1.00 | 2.00 | 3.00 | 0/0, 0/0, 0/0 | — | — | — |');
    // Server counters come from the capacity run.
    expect(md).toContain('| user | 2000 (0.10×) | 5.00 (5.00×) | 9.00 (3.00×) | 2.00 (4.00×) | 2.00 (2.00×) ⚠ 150 req/s achieved | 4.00 (2.00×) | 6.00 (2.00×) | 0/0, 0/0, 0/0 | 2.00 | 5.0 | 0.900 |');
    expect(md).toContain('| scenario | capacity req/s (× bare) | p50 ms | p99 ms | 1 connection: p50 ms | @200 req/s: p50 ms | p90 ms | p99 ms | non-2xx / errors | rt/req | SQL/req | cpu ms/req |');
    expect(md).toContain('| issue | missing (404) |');
    const g = renderGitlabTable(lines);
    // The fixed-rate run got 150 of 200 req/s answered: the p90 says so.
    expect(g).toContain('| user | api_v4_user | 49.5 / 32.7 / 56.8 ms | 200 ms | 4.00 ms (⚠ 150 req/s achieved) | — |');
    expect(g).toContain('| issue | api_v4_projects_issues_issue | 254 / 172 / 293 ms | 2600 ms | missing (404) | — |');
  });

  it('breaks the mixes down per kind with their round trips, both runtimes side by side', () => {
    const k = (p50: number, rt?: number) => ({ count: 10, p50_ms: p50, p99_ms: 2 * p50, ...(rt === undefined ? {} : { rt_per_req: rt }) });
    const md = renderMixTable([
      line('list_mix', 'serial', { kinds: { labels: k(4, 2), search: k(12, 3) } }),
      line('list_mix', 'serial', { runtime: 'workerd', kinds: { labels: k(9) } }),
      line('list_mix', 'capacity', { kinds: { labels: k(50, 2) } }),
    ]);
    expect(md).toContain('| mix | kind | node p50 ms | node p99 ms | node rt/req | workerd p50 ms | workerd p99 ms | workerd rt/req |');
    expect(md).toContain('| list_mix | labels | 4.00 | 8.00 | 2.00 | 9.00 | 18.0 | — |');
    expect(md).toContain('| list_mix | search | 12.0 | 24.0 | 3.00 | — | — | — |');
    // Two mixes on one runtime are rows, not a second set of columns.
    const two = renderMixTable([line('list_mix', 'serial', { kinds: { labels: k(4, 2) } }), line('approve', 'serial', { kinds: { approve: k(6, 3) } })]);
    expect(two).toContain('| mix | kind | node p50 ms | node p99 ms | node rt/req |\n');
    expect(two).toContain('| approve | approve | 6.00 | 12.0 | 3.00 |');
  });

  it('lists what scenarios checked after their runs', () => {
    expect(renderNotes([line('user', 'fixed', {})])).toBe('');
    const md = renderNotes([line('user', 'capacity', {}), line('approve', 'fixed', { runtime: 'workerd', notes: 'final state after 10 writes: 0 of those differ' })]);
    expect(md).toBe('Checks and notes:\n\n- workerd, approve (fixed): final state after 10 writes: 0 of those differ');
  });

  it("falls back to the 1-connection run's counters when there is no capacity run, never to the fixed-rate run's", () => {
    const md = renderRuntimeTable([line('issue', 'serial', served(300, 2, 7, 1.25)), line('issue', 'fixed', served(300, 1, 1, 1))], 'node');
    expect(md).toMatch(/\| issue \| .* \| 2\.00 \| 7\.0 \| 1\.25 \|$/m);
    // An overloaded fixed-rate run leaves work after the reading: its counters stand for nothing.
    expect(renderRuntimeTable([line('mr', 'fixed', served(300, 1, 1, 1))], 'node')).toMatch(/\| mr \| .* \| — \| — \| — \|$/m);
  });

  it('sums every run per runtime, without the bare route', () => {
    const lines = [
      line('bare', 'capacity', served(10000, 0, 0, 0.05)),
      line('user', 'capacity', served(1000, 2, 5, 1)),
      line('user', 'fixed', served(600, 1, 2, 0.5)),
      line('issue', 'serial', served(400, 3, 10, 3)),
      // Lost requests: left out.
      line('issue', 'fixed', { errors: 12, ...served(600, 1, 1, 0.1) }),
      line('user', 'capacity', { runtime: 'workerd', ...served(500, 1, 4, null) }),
    ];
    const md = renderServerTotals(lines);
    expect(md).toContain('| runtime | requests | round trips/req | statements/req | CPU ms/req |');
    // (2000 + 600 + 1200) / 2000 round trips, (5000 + 1200 + 4000) / 2000 statements, (1000 + 300 + 1200) / 2000 ms.
    expect(md).toContain('| node | 2000 | 1.90 | 5.10 | 1.25 |');
    // A runtime whose CPU was not read says so rather than averaging what it has.
    expect(md).toContain('| workerd | 500 | 1.00 | 4.00 | — |');
    expect(renderServerTotals([line('user', 'capacity', {})])).toBe('');
  });

  it("checks issue 13's targets against the run: met, missed, and not judged", () => {
    const wd = (scenario: string, mode: 'capacity' | 'serial' | 'fixed', extra: Partial<ResultLine>) => line(scenario, mode, { runtime: 'workerd', ...extra });
    // A scenario's capacity run (server counters) and its fixed-rate run (latency at 200 req/s; its counters are ignored).
    const run = (runtime: 'node' | 'workerd', scenario: string, counters: Partial<ResultLine>, fixed: Partial<ResultLine>) => [
      line(scenario, 'capacity', { runtime, ...counters }),
      line(scenario, 'fixed', { runtime, ...served(600, 99, 99, 99), ...fixed }),
    ];
    const lines = [
      ...run('node', 'bare', served(600, 0, 0, 0.05), {}),
      ...run('node', 'user', served(600, 1, 1, 0.44), { p90_ms: 3, rps: 199 }),
      ...run('node', 'issue', served(600, 2, 4, 1.2), { p90_ms: 30, rps: 200 }),
      ...run('node', 'create', { status: 'error 500', rps: null }, { status: 'error 500', rps: null }),
      ...run('workerd', 'user', served(600, 1, 1, 2), { p90_ms: 20, rps: 200 }),
      ...run('workerd', 'list_default', served(450, 2, 3, 2), { p90_ms: 40, rps: 150 }),
      wd('mr_list', 'capacity', served(900, 4, 80, 9)),
      ...run('workerd', 'create', served(300, 3, 6, 2), { p90_ms: 40, rps: 200 }),
      ...run('workerd', 'mr', served(300, 2, 6, 2), { p90_ms: 40, rps: 100, offered_rps: 100 }),
    ];
    const v = checkTargets(lines);
    const get = (runtime: string, scenario: string, target: RegExp) => v.find((x) => x.runtime === runtime && x.scenario === scenario && target.test(x.target));
    expect(get('node', 'user', /CPU/)).toMatchObject({ measured: '0.440 ms', met: true });
    expect(get('node', 'issue', /CPU/)).toMatchObject({ measured: '1.200 ms', met: false });
    expect(get('node', 'user', /holds/)).toMatchObject({ measured: '199 req/s, p90 3.0 ms', met: true });
    expect(get('node', 'issue', /holds/)).toMatchObject({ met: false });
    // A failed scenario is not judged; neither is one run at another rate.
    expect(get('node', 'create', /holds/)).toMatchObject({ measured: 'error 500', met: null });
    expect(get('workerd', 'mr', /hold/)).toMatchObject({ measured: 'run at 100 req/s, not 200', met: null });
    // Creation has a round-trip target on workerd, not a latency one.
    expect(get('workerd', 'create', /hold/)).toBeUndefined();
    expect(get('workerd', 'create', /round trips/)).toMatchObject({ measured: '3.00', met: true });
    expect(get('workerd', 'user', /round trip/)).toMatchObject({ measured: '1.00', met: true });
    expect(get('workerd', 'mr_list', /list/)).toMatchObject({ measured: '4.00', met: false });
    // 150 of 200 req/s is not holding the rate, whatever the p90.
    expect(get('workerd', 'list_default', /hold/)).toMatchObject({ measured: '150 req/s, p90 40.0 ms', met: false });
    // Scenarios the run did not measure are not listed; the bare route never is.
    expect(v.some((x) => x.scenario === 'approve' || x.scenario === 'bare')).toBe(false);
    const md = renderTargets(lines);
    expect(md).toContain('| `/user`: ≤ 0.45 CPU ms | node | user | 0.440 ms | ✓ |');
    expect(md).toContain('| every list: ≤ 2 round trips | workerd | mr_list | 4.00 | ✗ |');
    expect(md).toContain('| every scenario holds 200 req/s, p90 ≤ 25 ms | node | create | error 500 | — |');
    // node: 2 met, 2 missed, 1 not judged; workerd: 5 met, 2 missed, 1 not judged.
    expect(md).toMatch(/: 7 of 11 met \(2 could not be judged\)/);
    expect(renderTargets([line('bare', 'fixed', {})])).toBe('');
    // The approvals mix is judged on its writes' own round trips when the responses carried them.
    const approvals = (kinds: ResultLine['kinds']) => checkTargets([wd('approve', 'capacity', { kinds, ...served(600, 2.1, 5, 3) })]).find((x) => /round trips/.test(x.target));
    const k = (rt: number) => ({ count: 200, p50_ms: 5, p99_ms: 9, rt_per_req: rt });
    expect(approvals({ approve: k(3), unapprove: k(2), approvals: k(1) })).toMatchObject({ measured: 'approve 3.00, unapprove 2.00', met: true });
    expect(approvals({ approve: k(4), unapprove: k(2) })).toMatchObject({ met: false });
    // From every mode of the run, weighted by how many of each kind it answered (a capacity run of an overloaded server may have none).
    const modes = checkTargets([
      wd('approve', 'capacity', served(100, 30, 32, 25)),
      wd('approve', 'serial', { kinds: { approve: { count: 30, p50_ms: 5, p99_ms: 9, rt_per_req: 4 } } }),
      wd('approve', 'fixed', { kinds: { approve: { count: 10, p50_ms: 5, p99_ms: 9, rt_per_req: 2 } } }),
    ]).find((x) => /round trips/.test(x.target));
    expect(modes).toMatchObject({ measured: 'approve 3.50', met: false });
    // Without the header per kind, the whole mix's figure stands.
    expect(approvals({ approve: { count: 1, p50_ms: 1, p99_ms: 1 } })).toMatchObject({ measured: '2.10', met: true });
    expect(renderMarkdown(lines, { date: 'd', sha: 's', dataset: 'S', command: 'c', cpu: 'cpu', seed: '1 s' })).toContain('### Targets');
  });

  it("checks issue 14's runner targets: Node capacity against the bare route's, workerd round trips per poll and verify", () => {
    const kinds = (poll: number, verify: number) => ({ poll: { count: 900, p50_ms: 1, p99_ms: 2, rt_per_req: poll }, verify: { count: 100, p50_ms: 1, p99_ms: 2, rt_per_req: verify } });
    const judge = (ratio: number, poll: number) => {
      const v = checkTargets([
        line('runner', 'capacity', { rps: ratio * 10_000, bare_rps: 10_000, ratio }),
        line('runner', 'capacity', { runtime: 'workerd', kinds: kinds(poll, 0), ...served(1000, 2, 2, 1) }),
      ]);
      return [v.find((x) => /capacity/.test(x.target))!, v.find((x) => /0 round trips/.test(x.target))!];
    };
    const [capacity, trips] = judge(0.55, 0);
    expect(capacity).toMatchObject({ runtime: 'node', scenario: 'runner', measured: '5500 req/s, 55 % of 10000', met: true });
    expect(trips).toMatchObject({ runtime: 'workerd', scenario: 'runner', measured: 'poll 0.00, verify 0.00', met: true });
    // A settings refresh every 10 s is 0.00 per poll at the table's precision; a read every hundred polls is not.
    expect(judge(0.55, 0.001)[1]).toMatchObject({ measured: 'poll 0.00, verify 0.00', met: true });
    const [slow, costly] = judge(0.3, 0.01);
    expect(slow.met).toBe(false);
    expect(costly).toMatchObject({ measured: 'poll 0.01, verify 0.00', met: false });
    // No bare route in the run: not judged.
    expect(checkTargets([line('runner', 'capacity', {})]).find((x) => /capacity/.test(x.target))).toMatchObject({ met: null });
  });
});
