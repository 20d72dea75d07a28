/**
 * In-process job runner for Node, with the Queue's semantics: at-least-once delivery, per-message
 * retries with backoff, and a dead-letter log after the last attempt.
 */
import type { JobMessage, Jobs } from './jobs';
import { deadLetter, type JobDeps, runJob } from './jobs-consumer';

export function inProcessJobs(getDeps: () => JobDeps, opts: { maxRetries?: number } = {}): Jobs & { idle(): Promise<void> } {
  const maxRetries = opts.maxRetries ?? 3;
  const pending = new Set<Promise<void>>();
  const attempt = async (message: JobMessage, attempts: number): Promise<void> => {
    try {
      await runJob(message, getDeps());
    } catch (err) {
      if (attempts >= maxRetries) {
        await deadLetter(message, getDeps(), err).catch(() => undefined);
        return;
      }
      await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempts, 5000)));
      return attempt(message, attempts + 1);
    }
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
