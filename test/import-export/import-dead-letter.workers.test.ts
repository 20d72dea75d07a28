/** The dead-letter path in workerd: the last delivery of a failing import message marks the import failed and is acked. */
import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { storageSql } from '#harness';
import { expect, it } from 'vitest';
import worker from '../../src';
import { createUser, unique } from '../support';
import { exportTree, tarGz } from './tar-builder';
import { uploadImport, waitForImport } from './import-support';

it('retries a failing import message, then on its last attempt marks the import failed and acks it', async () => {
  const user = await createUser();
  const res = await uploadImport(user.token, await tarGz(exportTree()), { path: unique('dl') });
  expect((await waitForImport(user.token, res.body.id)).body.import_status).toBe('finished');
  await storageSql(`UPDATE project_import_states SET status = 'started', blob_key = 'imports/x/archive.tar.gz', progress = '{broken' WHERE project_id = ${res.body.id}`);
  const body = { type: 'project_import', id: `dl:${res.body.id}`, projectId: res.body.id };
  const batch = createMessageBatch('workflow-api-jobs', [
    { id: 'early', timestamp: new Date(), attempts: 1, body },
    { id: 'last', timestamp: new Date(), attempts: 4, body },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env as never, ctx);
  const result = await getQueueResult(batch, ctx);
  expect(result.retryMessages.map((r) => r.msgId)).toEqual(['early']);
  expect(result.explicitAcks).toEqual(['last']);
  const [row] = (await storageSql(`SELECT status, last_error FROM project_import_states WHERE project_id = ${res.body.id}`)) as { status: string; last_error: string }[];
  expect(row).toEqual({ status: 'failed', last_error: 'The import job failed after repeated errors' });
});
