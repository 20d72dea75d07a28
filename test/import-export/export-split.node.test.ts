/** The split export on Node: the same code on the in-process runner, parts and archive on the filesystem. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { harnessBlobRoot } from '../harness/node';
import { describe, it } from 'vitest';
import { deletedMidwayChecks, resumeChecks, splitExportChecks } from './export-split-checks';

describe('project export split across messages (Node, in-process runner)', () => {
  it('writes the same archive as one message, shows started throughout, deletes its parts, ignores redelivery', async () => {
    await splitExportChecks({
      exists: async (key) => existsSync(join(harnessBlobRoot, key)),
      read: async (key) => new Uint8Array(readFileSync(join(harnessBlobRoot, key))).buffer,
    });
  }, 120_000);

  it('resumes where a consumer that died mid-way stopped, with the same archive byte for byte', async () => {
    await resumeChecks({
      exists: async (key) => existsSync(join(harnessBlobRoot, key)),
      read: async (key) => new Uint8Array(readFileSync(join(harnessBlobRoot, key))).buffer,
      write: async (key, bytes) => {
        mkdirSync(dirname(join(harnessBlobRoot, key)), { recursive: true });
        writeFileSync(join(harnessBlobRoot, key), bytes);
      },
    });
  }, 120_000);

  it('deletes the parts of an export whose project is deleted mid-way', async () => {
    await deletedMidwayChecks({
      exists: async (key) => existsSync(join(harnessBlobRoot, key)),
      read: async (key) => new Uint8Array(readFileSync(join(harnessBlobRoot, key))).buffer,
      write: async (key, bytes) => {
        mkdirSync(dirname(join(harnessBlobRoot, key)), { recursive: true });
        writeFileSync(join(harnessBlobRoot, key), bytes);
      },
    });
  }, 60_000);
});
