/** The dead-letter path on Node: an import job that fails on every delivery leaves the import failed. */
import { sendJob, storageSql } from '#harness';
import { expect, it } from 'vitest';
import { api, createUser, unique } from '../support';
import { exportTree, tarGz } from './tar-builder';
import { uploadImport, waitForImport } from './import-support';

it('marks the import failed after the last retry of a job that keeps failing', async () => {
  const user = await createUser();
  const res = await uploadImport(user.token, await tarGz(exportTree()), { path: unique('dl') });
  expect((await waitForImport(user.token, res.body.id)).body.import_status).toBe('finished');
  // A stored progress the job cannot read: every delivery throws.
  await storageSql(`UPDATE project_import_states SET status = 'started', blob_key = 'imports/x/archive.tar.gz', progress = '{broken' WHERE project_id = ${res.body.id}`);
  await sendJob({ type: 'project_import', id: `dl:${res.body.id}`, projectId: res.body.id });
  const done = await waitForImport(user.token, res.body.id, 10_000);
  expect(done.body).toMatchObject({ import_status: 'failed', import_error: 'The import job failed after repeated errors' });
  expect((await api(`/projects/${res.body.id}`, { token: user.token })).status).toBe(200);
});
