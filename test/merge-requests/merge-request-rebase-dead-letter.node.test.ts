/** The dead-letter path of the queued rebase on Node: a job that fails on every delivery clears the mark with an error. */
import { sendJob, storageSql } from '#harness';
import { expect, it } from 'vitest';
import { api, createUser, unique } from '../support';
import { waitForRebase } from './rebase-support';

it('clears the rebase mark with merge_error after the last retry of a job that keeps failing', async () => {
  const user = await createUser();
  const p = await api('/projects', { token: user.token, body: { name: unique('rbdl') } });
  expect(p.status).toBe(201);
  const first = { commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] };
  expect((await api(`/projects/${p.body.id}/repository/commits`, { token: user.token, body: { branch: 'main', ...first } })).status).toBe(201);
  const branch = unique('feat');
  expect((await api(`/projects/${p.body.id}/repository/branches`, { token: user.token, body: { branch, ref: 'main' } })).status).toBe(201);
  const c = await api(`/projects/${p.body.id}/repository/commits`, { token: user.token, body: { branch, commit_message: 'x', actions: [{ action: 'create', file_path: 'x.txt', content: 'x' }] } });
  expect(c.status).toBe(201);
  const m = await api(`/projects/${p.body.id}/merge_requests`, { token: user.token, body: { source_branch: branch, target_branch: 'main', title: 'T' } });
  expect(m.status).toBe(201);
  const base = `/projects/${p.body.id}/merge_requests/${m.body.iid}`;
  const job = { type: 'merge_request_rebase', id: unique('merge_request_rebase:dl'), mergeRequestId: m.body.id, userId: user.id };
  // Every delivery throws: the storage refuses the job's own clearing of the mark (an up-to-date
  // branch: the job only clears it), not the dead-letter handler's, which sets merge_error.
  const trigger = `rebase_dl_${m.body.id}`;
  await storageSql(
    `CREATE TRIGGER ${trigger} BEFORE UPDATE OF rebase_jid ON merge_requests WHEN NEW.id = ${m.body.id} AND NEW.rebase_jid IS NULL AND NEW.merge_error IS NULL BEGIN SELECT RAISE(ABORT, 'refused'); END`,
  );
  await storageSql(`UPDATE merge_requests SET rebase_jid = '${job.id}' WHERE id = ${m.body.id}`);
  await sendJob(job);
  expect(await waitForRebase(base, user.token, 15_000)).toMatchObject({
    rebase_in_progress: false,
    merge_error: 'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.',
  });
  await storageSql(`DROP TRIGGER ${trigger}`);
});
