/** The in-process job runner has the Queue's semantics: at-least-once with retries, then dead letter. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jobHandlers, retryDelaySeconds } from '../../src/platform/jobs-consumer';
import { inProcessJobs } from '../../src/platform/jobs-in-process';

describe('in-process jobs', () => {
  afterEach(() => {
    delete jobHandlers['test.flaky'];
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

describe('queue retry backoff', () => {
  it('doubles per attempt and caps at five minutes', () => {
    expect([1, 2, 3, 8, 9, 20].map(retryDelaySeconds)).toEqual([2, 4, 8, 256, 300, 300]);
  });
});
