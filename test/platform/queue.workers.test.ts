/** The Queue consumer inside workerd: per-message ack, retry with backoff, dispatch by type. */
import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import worker from '../../src';
import { jobHandlers } from '../../src/platform/jobs-consumer';

describe('queue consumer', () => {
  afterEach(() => {
    delete jobHandlers['test.ok'];
    delete jobHandlers['test.flaky'];
  });

  it('acks handled messages one by one and retries a failing one with backoff', async () => {
    const seen: string[] = [];
    jobHandlers['test.ok'] = async (m) => void seen.push(m.id);
    jobHandlers['test.flaky'] = async () => {
      throw new Error('temporary');
    };
    const batch = createMessageBatch('workflow-api-jobs', [
      { id: 'm1', timestamp: new Date(), attempts: 1, body: { type: 'test.ok', id: 'a' } },
      { id: 'm2', timestamp: new Date(), attempts: 3, body: { type: 'test.flaky', id: 'b' } },
      { id: 'm3', timestamp: new Date(), attempts: 1, body: { type: 'unknown.type', id: 'c' } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env as never, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(seen).toEqual(['a']);
    expect(result.explicitAcks).toEqual(['m1']);
    expect(result.retryMessages.map((r) => r.msgId).sort()).toEqual(['m2', 'm3']);
    expect(result.ackAll).toBe(false);
  });
});
