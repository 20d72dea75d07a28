import { describe, expect, it } from 'vitest';
import { encodeRequest, ResponseParser } from '../../scripts/bench/load';
import { ms, ratio, renderGitlabTable, renderNotes, renderRuntimeTable, type ResultLine } from '../../scripts/bench/report';
import { median, percentile, summarize } from '../../scripts/bench/stats';

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
      line('user', 'capacity', { rps: 2000, ratio: 0.1, p50_ms: 5, p50_ratio: 5, p99_ms: 9, p99_ratio: 3, sql_per_req: 5 }),
      line('user', 'fixed', { rps: 150, p50_ms: 2, p50_ratio: 2, p90_ms: 4, p90_ratio: 2, p99_ms: 6, p99_ratio: 2 }),
      line('issue', 'capacity', { status: 'missing (404)', rps: null }),
      line('issue', 'fixed', { status: 'missing (404)', rps: null }),
    ];
    const md = renderRuntimeTable(lines, 'node');
    expect(md).toContain('| bare | 20000 | 1.00 | 3.00 | 0.500 | 1.00 | 2.00 | 3.00 | 0/0, 0/0, 0/0 | — |');
    expect(md).toContain('| user | 2000 (0.10×) | 5.00 (5.00×) | 9.00 (3.00×) | 2.00 (4.00×) | 2.00 (2.00×) ⚠ 150 req/s achieved | 4.00 (2.00×) | 6.00 (2.00×) | 0/0, 0/0, 0/0 | 5.0 |');
    expect(md).toContain('| issue | missing (404) |');
    const g = renderGitlabTable(lines);
    // The fixed-rate run got 150 of 200 req/s answered: the p90 says so.
    expect(g).toContain('| user | api_v4_user | 49.5 / 32.7 / 56.8 ms | 200 ms | 4.00 ms (⚠ 150 req/s achieved) | — |');
    expect(g).toContain('| issue | api_v4_projects_issues_issue | 254 / 172 / 293 ms | 2600 ms | missing (404) | — |');
  });

  it('lists what scenarios checked after their runs', () => {
    expect(renderNotes([line('user', 'fixed', {})])).toBe('');
    const md = renderNotes([line('user', 'capacity', {}), line('approve', 'fixed', { runtime: 'workerd', notes: 'final state after 10 writes: 0 of those differ' })]);
    expect(md).toBe('Checks and notes:\n\n- workerd, approve (fixed): final state after 10 writes: 0 of those differ');
  });
});
