/** The split export on Node: the same code on the in-process runner, parts and archive on the filesystem. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { harnessBlobRoot } from '../harness/node';
import { describe, it } from 'vitest';
import { splitExportChecks } from './export-split-checks';

describe('project export split across messages (Node, in-process runner)', () => {
  it('writes the same archive as one message, shows started throughout, deletes its parts, ignores redelivery', async () => {
    await splitExportChecks({
      exists: async (key) => existsSync(join(harnessBlobRoot, key)),
      read: async (key) => new Uint8Array(readFileSync(join(harnessBlobRoot, key))).buffer,
    });
  }, 120_000);
});
