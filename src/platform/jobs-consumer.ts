/**
 * Queue consumer: dispatches each message to its handler by `type`, acks per message and retries
 * with backoff. Handlers are idempotent (delivery is at least once). Import/export handlers register
 * here when those capabilities land.
 */
import type { Config } from './config';
import type { Db } from '../db/client';
import type { BlobStore } from './blobs';
import type { JobMessage, Jobs } from './jobs';

export interface JobDeps {
  db: Db;
  blobs: BlobStore;
  jobs: Jobs;
  config: Config;
}

export type JobHandler = (message: JobMessage, deps: JobDeps) => Promise<void>;

export const jobHandlers: Record<string, JobHandler> = {};

/**
 * What a job type does when its message has failed for the last time (the dead-letter path): e.g.
 * mark the import failed instead of leaving it `started` for ever. Called instead of a last retry.
 */
export const deadLetterHandlers: Record<string, JobHandler> = {};

/** Deliveries of one message: the first and wrangler.toml's `max_retries = 3`. */
export const MAX_ATTEMPTS = 4;

export async function deadLetter(message: JobMessage, deps: JobDeps, error: unknown): Promise<void> {
  console.error(JSON.stringify({ level: 'error', job: message?.type, id: message?.id, dead_letter: true, error: String(error) }));
  await deadLetterHandlers[message?.type]?.(message, deps);
}

export async function runJob(message: JobMessage, deps: JobDeps): Promise<void> {
  const handler = jobHandlers[message.type];
  if (!handler) throw new Error(`No handler for job type ${message.type}`);
  await handler(message, deps);
}

/** Exponential backoff per attempt (2, 4, 8 … seconds), capped at 5 minutes. */
export const retryDelaySeconds = (attempts: number) => Math.min(2 ** Math.max(attempts, 1), 300);

export async function handleJobBatch(batch: MessageBatch<unknown>, deps: JobDeps): Promise<void> {
  for (const msg of batch.messages) {
    try {
      await runJob(msg.body as JobMessage, deps);
      msg.ack();
    } catch (err) {
      if (msg.attempts >= MAX_ATTEMPTS && deadLetterHandlers[(msg.body as JobMessage)?.type]) {
        await deadLetter(msg.body as JobMessage, deps, err).then(
          () => msg.ack(),
          () => msg.retry({ delaySeconds: retryDelaySeconds(msg.attempts) }),
        );
        continue;
      }
      console.error(JSON.stringify({ level: 'error', job: (msg.body as JobMessage)?.type, attempts: msg.attempts, error: String(err) }));
      msg.retry({ delaySeconds: retryDelaySeconds(msg.attempts) });
    }
  }
}
