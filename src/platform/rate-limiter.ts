/**
 * The `RateLimiter` port: fixed-window counters keyed by throttle name and subject.
 * Node uses the in-process adapter below; Workers use a Durable Object (storage/rate-limiter-do.ts)
 * so every isolate sees the same counts.
 */
export interface RateLimitResult {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Epoch milliseconds when the window ends. */
  resetAt: number;
}

export interface RateLimiter {
  hit(key: string, periodSeconds: number): Promise<RateLimitResult>;
}

/** Counts in this process's memory; fine for a single Node process. */
export function memoryRateLimiter(): RateLimiter {
  const windows = new Map<string, RateLimitResult>();
  return {
    async hit(key, periodSeconds) {
      const now = Date.now();
      const periodMs = periodSeconds * 1000;
      const windowEnd = Math.floor(now / periodMs) * periodMs + periodMs;
      const fullKey = `${key}:${windowEnd}`;
      const current = windows.get(fullKey) ?? { count: 0, resetAt: windowEnd };
      current.count += 1;
      windows.set(fullKey, current);
      if (windows.size > 10_000) {
        for (const [k, v] of windows) if (v.resetAt <= now) windows.delete(k);
      }
      return { ...current };
    },
  };
}
