/** The split export on workerd: messages through the Queue binding, parts and archive in R2. */
import { env } from 'cloudflare:workers';
import { describe, it } from 'vitest';
import { deletedMidwayChecks, resumeChecks, splitExportChecks } from './export-split-checks';

const bucket = (env as unknown as { BLOBS: R2Bucket }).BLOBS;

describe('project export split across queue messages (workerd)', () => {
  it('writes the same archive as one message, shows started throughout, deletes its parts, ignores redelivery', async () => {
    await splitExportChecks({
      exists: async (key) => (await bucket.head(key)) !== null,
      read: async (key) => (await bucket.get(key))!.arrayBuffer(),
    });
  }, 120_000);

  it('resumes where a consumer that died mid-way stopped, with the same archive byte for byte', async () => {
    await resumeChecks({
      exists: async (key) => (await bucket.head(key)) !== null,
      read: async (key) => (await bucket.get(key))!.arrayBuffer(),
      write: async (key, bytes) => void (await bucket.put(key, bytes)),
    });
  }, 120_000);

  it('deletes the parts of an export whose project is deleted mid-way', async () => {
    await deletedMidwayChecks({
      exists: async (key) => (await bucket.head(key)) !== null,
      read: async (key) => (await bucket.get(key))!.arrayBuffer(),
      write: async (key, bytes) => void (await bucket.put(key, bytes)),
    });
  }, 60_000);
});
