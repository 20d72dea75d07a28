/**
 * The project_export job on the Queue, delivered by hand: a redelivered message of a finished export
 * changes nothing, and one whose consumer died half-way (`started`) writes the archive again.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src';
import { storageSql } from '#harness';
import { api, createUser, unique } from '../support';
import { waitForExport } from './export-support';

async function deliver(jid: string) {
  const batch = createMessageBatch('workflow-api-jobs', [{ id: `m-${jid}`, timestamp: new Date(), attempts: 2, body: { type: 'project_export', id: jid } }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env as never, ctx);
  return getQueueResult(batch, ctx);
}

type Row = { jid: string; status: string; blob_key: string | null };

describe('project_export messages', () => {
  it('are idempotent once finished and resume an export whose consumer died', async () => {
    const u = await createUser();
    const p = (await api('/projects', { token: u.token, body: { name: unique('q') } })).body;
    expect((await api(`/projects/${p.id}/export`, { method: 'POST', token: u.token })).status).toBe(202);
    await waitForExport(p.id, u.token);
    const [done] = (await storageSql(`SELECT jid, status, blob_key FROM project_export_jobs WHERE project_id = ${p.id}`)) as Row[];
    expect(done).toMatchObject({ status: 'finished' });

    const again = await deliver(done.jid);
    expect(again.explicitAcks).toEqual([`m-${done.jid}`]);
    expect(await storageSql(`SELECT jid, status, blob_key FROM project_export_jobs WHERE project_id = ${p.id}`)).toEqual([done]);

    // A consumer that died after `started`: the redelivered message writes the archive anew.
    await storageSql(`UPDATE project_export_jobs SET status = 'started', blob_key = NULL WHERE jid = '${done.jid}'`);
    expect((await api(`/projects/${p.id}/export`, { token: u.token })).body.export_status).toBe('started');
    expect((await deliver(done.jid)).explicitAcks).toEqual([`m-${done.jid}`]);
    const [resumed] = (await storageSql(`SELECT jid, status, blob_key FROM project_export_jobs WHERE project_id = ${p.id}`)) as Row[];
    expect(resumed.status).toBe('finished');
    expect(resumed.blob_key).toMatch(new RegExp(`^exports/${p.id}/[0-9a-f]{32}/.+_export\\.tar\\.gz$`));
    expect((await api(`/projects/${p.id}/export/download`, { token: u.token })).status).toBe(200);
  });
});
