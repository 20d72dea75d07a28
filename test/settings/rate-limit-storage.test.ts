import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, runtime } from '../support';

// Changes no setting: the default user_status limit (240 per minute) is far from reached.
// On workerd the counters must live in the RATE_LIMITER Durable Object (one count for every
// isolate), so the test reads the object's own count after requests made through the Worker.
interface LimiterStub {
  peek(periodSeconds: number): Promise<{ count: number; resetAt: number }>;
}

async function durableCount(key: string, periodSeconds: number): Promise<number> {
  const { env } = (await import('cloudflare:workers' as string)) as { env: { RATE_LIMITER: DurableObjectNamespace } };
  const ns = env.RATE_LIMITER;
  const stub = ns.get(ns.idFromName(key)) as unknown as LimiterStub;
  return (await stub.peek(periodSeconds)).count;
}

describe('test isolation', () => {
  // Settings tests rely on this: every test file (workerd and Node alike) starts from a database
  // of its own, so a file changing instance settings cannot affect another file. Runs first here.
  it('starts this file with a fresh database holding only root', async () => {
    const res = await api('/users?per_page=1', { token: rootToken });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('1');
  });
});

describe('rate-limit counters', () => {
  it('count every request of a client once, in the shared store on Workers', async () => {
    const u = await createUser();
    // A fresh minute window, so all three requests land in one.
    const left = 60000 - (Date.now() % 60000);
    if (left < 4000) await new Promise((r) => setTimeout(r, left + 50));
    const ip = `203.0.113.${Math.floor(Math.random() * 250) + 1}-${Date.now()}`;
    for (let n = 0; n < 3; n++) expect((await api(`/users/${u.id}/status`, { headers: { 'X-Forwarded-For': ip } })).status).toBe(200);
    if (runtime === 'workers') {
      expect(await durableCount(`app:user_status:ip:${ip}`, 60)).toBe(3);
    } else {
      // Node counts in process memory: nothing to read from outside; the same requests still pass.
      expect((await api(`/users/${u.id}/status`, { headers: { 'X-Forwarded-For': ip } })).status).toBe(200);
    }
  });
});
