/**
 * Rate-limit counters shared by every Workers isolate: one Durable Object per throttle key holds
 * fixed-window counts, so a limit of N is N across the whole deployment.
 *
 * Counts live in the object's storage (not only in memory), so an object evicted in the middle
 * of a window comes back with the count it had; calls to one object are serialised by the
 * runtime's input gates, so get-then-put cannot lose an increment. An alarm at the end of the
 * latest window deletes the finished windows.
 */
import { DurableObject } from 'cloudflare:workers';
import type { RateLimiter, RateLimitResult } from './rate-limiter';

const windowKey = (resetAt: number) => `w:${String(resetAt).padStart(16, '0')}`;

export class RateLimiterObject extends DurableObject {
  async hit(periodSeconds: number, now = Date.now()): Promise<RateLimitResult> {
    const periodMs = Math.max(1, Math.floor(periodSeconds)) * 1000;
    const resetAt = Math.floor(now / periodMs) * periodMs + periodMs;
    const key = windowKey(resetAt);
    const count = ((await this.ctx.storage.get<number>(key)) ?? 0) + 1;
    await this.ctx.storage.put(key, count);
    if (count === 1) {
      const alarm = await this.ctx.storage.getAlarm();
      if (alarm == null || alarm < resetAt) await this.ctx.storage.setAlarm(resetAt);
    }
    return { count, resetAt };
  }

  /** Current count of the window containing `now`, without counting (tests and diagnostics). */
  async peek(periodSeconds: number, now = Date.now()): Promise<RateLimitResult> {
    const periodMs = Math.max(1, Math.floor(periodSeconds)) * 1000;
    const resetAt = Math.floor(now / periodMs) * periodMs + periodMs;
    return { count: (await this.ctx.storage.get<number>(windowKey(resetAt))) ?? 0, resetAt };
  }

  override async alarm(): Promise<void> {
    const finished = await this.ctx.storage.list<number>({ prefix: 'w:', end: windowKey(Date.now() + 1) });
    if (finished.size) await this.ctx.storage.delete([...finished.keys()]);
    const rest = await this.ctx.storage.list<number>({ prefix: 'w:', limit: 1 });
    for (const k of rest.keys()) await this.ctx.storage.setAlarm(Number(k.slice(2)));
  }
}

export const durableRateLimiter = (ns: DurableObjectNamespace): RateLimiter => ({
  async hit(key, periodSeconds) {
    const stub = ns.get(ns.idFromName(key)) as unknown as DurableObjectStub<RateLimiterObject>;
    return (await stub.hit(periodSeconds)) as RateLimitResult;
  },
});
