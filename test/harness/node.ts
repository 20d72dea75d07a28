/** Harness for Node: the same app over libSQL, one fresh database file per test file. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import type { Env } from '../../src/platform/env';
import { createNodeApp } from '../../src/node-app';
import { failOnSchemaViolation } from './schema-violation';
import { takeViolations, VIOLATION_HEADER } from '../../src/platform/response-check';
import { sql } from 'drizzle-orm';
import { sweep, sweepStorage } from './secret-sweep';

export const runtime = 'node' as const;
export const rootToken = DEV_ROOT_TOKEN;

const dir = mkdtempSync(join(tmpdir(), 'wfapi-test-'));
const env: Env = { PASSWORD_HASH_ITERATIONS: '1000' };
const created = createNodeApp({
  databaseUrl: `file:${join(dir, 'test.db')}`,
  blobRoot: join(dir, 'blobs'),
  migrationsFolder: join(import.meta.dirname, '../../drizzle'),
  env,
});

/** The blob store's folder of this file's app (for tests that check what is stored). */
export const harnessBlobRoot = join(dir, 'blobs');

/** The app this file's requests go to (for tests that look at its storage). */
export const harnessApp = () => created;

sweepStorage(async (q) => (await created).db.all(sql.raw(q)));

/** Runs SQL on this file's storage directly: a write made by "another isolate", bypassing this app's caches. */
export async function storageSql(query: string): Promise<unknown[]> {
  return (await created).db.all(sql.raw(query));
}

export async function fetchApi(path: string, init?: RequestInit): Promise<Response> {
  const { app } = await created;
  const url = path.startsWith('http') ? path : `http://localhost${path}`;
  sweep.recordRequest(init);
  const res = await app.fetch(new Request(url, init));
  await sweep.recordResponse(init?.method ?? 'GET', url, res, init);
  // Reported here, at the request; node-setup.ts reports what other apps of a test recorded.
  if (res.headers.has(VIOLATION_HEADER)) takeViolations();
  return failOnSchemaViolation(res);
}

/** Delivers a job message as the Queue would (again): for tests of at-least-once delivery. */
export async function sendJob(message: { type: string; id: string; [k: string]: unknown }): Promise<void> {
  await (await created).jobs.send(message);
}
