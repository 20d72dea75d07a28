/**
 * In-process job runner for Node, with the Queue's semantics: at-least-once delivery, per-message
 * retries with backoff, and a dead-letter log after the last attempt. Like a Queue consumer it
 * works through a bounded number of messages at a time, and it starts each one when no request is
 * being answered (or after QUIET_WAIT_MS under constant traffic): jobs share the event loop with
 * the requests here, and a request should not wait behind a webhook fan-out (request-gate.ts).
 */
import type { JobMessage, Jobs } from './jobs';
import { deadLetter, type JobDeps, runJob } from './jobs-consumer';
import { whenQuiet } from './request-gate';

/** Messages worked on at once. */
const CONCURRENCY = 4;
/** The longest a job waits for a moment without requests. */
const QUIET_WAIT_MS = 250;

export function inProcessJobs(getDeps: () => JobDeps, opts: { maxRetries?: number } = {}): Jobs & { idle(): Promise<void> } {
  const maxRetries = opts.maxRetries ?? 3;
  const pending = new Set<Promise<void>>();
  let running = 0;
  const slots: (() => void)[] = [];
  const slot = () => (running < CONCURRENCY ? (running++, Promise.resolve()) : new Promise<void>((r) => slots.push(r)));
  const release = () => {
    const next = slots.shift();
    if (next) next();
    else running--;
  };
  const attempt = async (message: JobMessage, attempts: number): Promise<void> => {
    await slot();
    try {
      await whenQuiet(QUIET_WAIT_MS);
      await runJob(message, getDeps());
    } catch (err) {
      release();
      if (attempts >= maxRetries) {
        await deadLetter(message, getDeps(), err).catch(() => undefined);
        return;
      }
      await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempts, 5000)));
      return attempt(message, attempts + 1);
    }
    release();
  };
  return {
    async send(message) {
      const p = new Promise<void>((r) => setTimeout(r, 0)).then(() => attempt(message, 1));
      pending.add(p);
      p.finally(() => pending.delete(p));
    },
    async idle() {
      while (pending.size) await Promise.all([...pending]);
    },
  };
}
