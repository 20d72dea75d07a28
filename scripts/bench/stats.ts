/** Latency summaries (pure; test/bench/bench-stats.node.test.ts). */
import type { Sample } from './load';

export interface Summary {
  count: number;
  /** Completed requests per second of wall time. */
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/**
 * Nearest-rank percentile of an ascending array: the smallest value with at least p of the samples
 * at or below it (wrk and k6 report the same definition). NaN for no samples.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (!n) return NaN;
  const rank = Math.ceil(p * n);
  return sorted[Math.min(n - 1, Math.max(0, rank - 1))];
}

export function summarize(latenciesMs: number[], elapsedMs: number): Summary {
  const sorted = Float64Array.from(latenciesMs).sort();
  return {
    count: sorted.length,
    rps: elapsedMs > 0 ? (sorted.length * 1000) / elapsedMs : 0,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
  };
}

/** Median of a few runs' values (capacity is the median of `--runs` closed-loop runs, performance.md 4.1). */
export function median(values: number[]): number {
  if (!values.length) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const round3 = (v: number) => (Number.isFinite(v) ? Math.round(v * 1000) / 1000 : v);

/** Per request kind inside a mix: count, p50, p99, and round trips per request from the responses' header. */
export function byKind(samples: Sample[]) {
  const by = new Map<string, Sample[]>();
  for (const s of samples) if (s.kind) (by.get(s.kind) ?? by.set(s.kind, []).get(s.kind)!).push(s);
  if (!by.size) return undefined;
  return Object.fromEntries([...by].map(([k, v]) => {
    const sum = summarize(v.map((x) => x.ms), 1);
    const counted = v.filter((x) => x.roundTrips !== undefined);
    const rt = counted.length ? round3(counted.reduce((n, x) => n + x.roundTrips!, 0) / counted.length) : undefined;
    return [k, { count: sum.count, p50_ms: round3(sum.p50), p99_ms: round3(sum.p99), ...(rt === undefined ? {} : { rt_per_req: rt }) }];
  }));
}
