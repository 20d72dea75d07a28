/**
 * Rate-limit counters shared by every Workers isolate: one Durable Object per throttle key holds
 * fixed-window counts, so a limit of N is N across the whole deployment.
 */
import { DurableObject } from 'cloudflare:workers';
import type { RateLimiter, RateLimitResult } from '../lib/rate-limiter';

export class RateLimiterObject extends DurableObject {
  private windows = new Map<number, number>();

  async hit(periodSeconds: number): Promise<RateLimitResult> {
    const now = Date.now();
    const periodMs = periodSeconds * 1000;
    const resetAt = Math.floor(now / periodMs) * periodMs + periodMs;
    const count = (this.windows.get(resetAt) ?? 0) + 1;
    this.windows.set(resetAt, count);
    for (const k of this.windows.keys()) if (k < now) this.windows.delete(k);
    return { count, resetAt };
  }
}

export const durableRateLimiter = (ns: DurableObjectNamespace): RateLimiter => ({
  async hit(key, periodSeconds) {
    const stub = ns.get(ns.idFromName(key)) as unknown as DurableObjectStub<RateLimiterObject>;
    return (await stub.hit(periodSeconds)) as RateLimitResult;
  },
});
