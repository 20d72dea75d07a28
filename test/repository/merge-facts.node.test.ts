/**
 * Merge facts (merge base, conflict verdict, changed files) are functions of two shas: a cold Db
 * reads what every pair needs in ONE batch, a warm one reads nothing (repository/sha-cache.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import { expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';
import { schema, type Db } from '../../src/db/client';
import { mergeFacts } from '../../src/repository/repository';

it('reads every pair cold in one batch, then nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-merge-facts-'));
  const url = `file:${join(dir, 'db.sqlite')}`;
  const { app } = await createNodeApp({ databaseUrl: url, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000' } });
  const call = async (path: string, body: unknown) =>
    (await (await app.fetch(new Request(`http://localhost/api/v4${path}`, { method: 'POST', headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN, 'Content-Type': 'application/json' }, body: JSON.stringify(body) }))).json()) as any;
  const pid = (await call('/projects', { name: 'facts' })).id;
  const commit = (branch: string, file: string, content: string) => call(`/projects/${pid}/repository/commits`, { branch, commit_message: file, actions: [{ action: 'create', file_path: file, content }] });
  await commit('main', 'README.md', 'x\n');
  for (const b of ['a', 'b']) await call(`/projects/${pid}/repository/branches`, { branch: b, ref: 'main' });
  const a = (await commit('a', 'same.txt', 'from a\n')).id;
  const b = (await commit('b', 'other.txt', 'from b\n')).id;
  const main = (await commit('main', 'same.txt', 'from main\n')).id;

  const client = createClient({ url });
  let trips = 0;
  const batch = client.batch.bind(client);
  const execute = client.execute.bind(client);
  client.batch = ((...args: Parameters<typeof batch>) => (trips++, batch(...args))) as typeof client.batch;
  client.execute = ((...args: Parameters<typeof execute>) => (trips++, execute(...args))) as typeof client.execute;
  const db = drizzle(client, { schema }) as unknown as Db;
  const pairs = [
    { projectId: pid, targetHead: main, head: a },
    { projectId: pid, targetHead: main, head: b },
  ];
  const cold = await mergeFacts(db, pairs);
  expect(trips).toBe(1);
  // `a` added the file main added differently: a conflict; `b` merges cleanly. Each changed one file.
  expect(cold.map((f) => [f.hasCommits, f.conflict, f.changes])).toEqual([
    [true, true, 1],
    [true, false, 1],
  ]);
  expect(await mergeFacts(db, pairs)).toEqual(cold);
  expect(trips).toBe(1);
});
