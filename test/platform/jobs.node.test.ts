/** The in-process job runner has the Queue's semantics: at-least-once with retries, then dead letter. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jobHandlers, retryDelaySeconds } from '../../src/platform/jobs-consumer';
import { inProcessJobs } from '../../src/platform/jobs-in-process';
import { requestStarted, requestsInFlight, whenQuiet } from '../../src/platform/request-gate';

describe('in-process jobs', () => {
  afterEach(() => {
    delete jobHandlers['test.flaky'];
    delete jobHandlers['test.slow'];
    vi.restoreAllMocks();
  });

  it('retries a failing job until it succeeds', async () => {
    let calls = 0;
    jobHandlers['test.flaky'] = async () => {
      calls += 1;
      if (calls < 3) throw new Error('temporary');
    };
    const jobs = inProcessJobs(() => ({}) as never, { maxRetries: 3 });
    await jobs.send({ type: 'test.flaky', id: 'x' });
    await jobs.idle();
    expect(calls).toBe(3);
  });

  it('gives up after the last attempt and logs a dead letter', async () => {
    let calls = 0;
    jobHandlers['test.flaky'] = async () => {
      calls += 1;
      throw new Error('permanent');
    };
    const logged: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((l: unknown) => void logged.push(String(l)));
    const jobs = inProcessJobs(() => ({}) as never, { maxRetries: 2 });
    await jobs.send({ type: 'test.flaky', id: 'y' });
    await jobs.idle();
    expect(calls).toBe(2);
    expect(JSON.parse(logged[0])).toMatchObject({ job: 'test.flaky', id: 'y', dead_letter: true });
  });
});

describe('jobs yield to requests (Node shares one event loop)', () => {
  it('works on at most four messages at once, as a Queue consumer takes a bounded batch', async () => {
    let now = 0;
    let most = 0;
    jobHandlers['test.slow'] = async () => {
      most = Math.max(most, ++now);
      await new Promise((r) => setTimeout(r, 20));
      now--;
    };
    const jobs = inProcessJobs(() => ({}) as never);
    for (let i = 0; i < 12; i++) await jobs.send({ type: 'test.slow', id: `s${i}` });
    await jobs.idle();
    expect(most).toBe(4);
  });

  it('starts a job once no request is in flight, or after a bound under constant traffic', async () => {
    const started: number[] = [];
    jobHandlers['test.slow'] = async () => void started.push(Date.now());
    const jobs = inProcessJobs(() => ({}) as never);
    const finish = requestStarted();
    expect(requestsInFlight()).toBe(1);
    const t0 = Date.now();
    await jobs.send({ type: 'test.slow', id: 'q1' });
    await new Promise((r) => setTimeout(r, 60));
    // A request is being answered: the job waits.
    expect(started).toEqual([]);
    finish();
    finish(); // a second call changes nothing
    expect(requestsInFlight()).toBe(0);
    await jobs.idle();
    expect(started).toHaveLength(1);
    expect(started[0] - t0).toBeGreaterThanOrEqual(55);

    // A server that is never quiet still runs its jobs, after the bound.
    const busy = requestStarted();
    const t1 = Date.now();
    await jobs.send({ type: 'test.slow', id: 'q2' });
    await jobs.idle();
    expect(started[1] - t1).toBeGreaterThanOrEqual(200);
    expect(started[1] - t1).toBeLessThan(2000);
    busy();
    // Nothing in flight: no wait at all.
    const t2 = Date.now();
    await whenQuiet(10_000);
    expect(Date.now() - t2).toBeLessThan(50);
  });
});

describe('queue retry backoff', () => {
  it('doubles per attempt and caps at five minutes', () => {
    expect([1, 2, 3, 8, 9, 20].map(retryDelaySeconds)).toEqual([2, 4, 8, 256, 300, 300]);
  });
});
