/**
 * The `Jobs` port: a Cloudflare Queue on Workers, an in-process runner on Node. Delivery is at
 * least once on both, so every handler must be idempotent.
 */
export interface JobMessage {
  type: string;
  /** Idempotency key: handlers use it to recognise a redelivery. */
  id: string;
  [k: string]: unknown;
}

export interface Jobs {
  send(message: JobMessage): Promise<void>;
}

export const queueJobs = (queue: Queue): Jobs => ({
  async send(message) {
    await queue.send(message);
  },
});
