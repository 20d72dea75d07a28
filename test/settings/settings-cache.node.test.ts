/**
 * Settings read outside a request (a queued job: the export upload's outbound URL guard) come from
 * storage, not from the isolate's copy: there is no round trip of a request to carry the version
 * check, so the copy could be older than the job.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { createNodeApp } from '../../src/node-app';
import { ensureSettingsRow, loadSettings } from '../../src/settings/settings';

it('a read outside a request sees a change made elsewhere, stamp or not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-settings-'));
  const { db } = await createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000' } });
  await ensureSettingsRow(db);
  expect((await loadSettings(db)).allow_local_requests_from_web_hooks_and_services).toBe(false);
  // Another isolate turns the setting on (written straight to storage: this Db's copy is not dropped).
  await db.run(sql.raw(`UPDATE application_settings SET data = json_set(data, '$.allow_local_requests_from_web_hooks_and_services', json('true')) WHERE id = 1`));
  expect((await loadSettings(db)).allow_local_requests_from_web_hooks_and_services).toBe(true);
});
