/**
 * An exported project.bundle written into another project with bundle-import.ts: the commits, files
 * and branches APIs then answer as for the original. Runs in a job of the app (the in-process runner
 * hands it the app's storage), as the import consumer would.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { harnessApp } from '../harness/node';
import { readBundle } from '../../src/import-export/bundle-read';
import { importBundle } from '../../src/import-export/bundle-import';
import { jobHandlers } from '../../src/platform/jobs-consumer';
import { api, createUser, unique } from '../support';
import { download, untar, waitForExport } from './export-support';

afterAll(() => {
  delete jobHandlers['test.bundle-import'];
});

describe('importBundle', () => {
  it('writes an exported history into an empty project: the same commits, stats, files and branches', async () => {
    const u = await createUser();
    const t = u.token;
    const a = (await api('/projects', { token: t, body: { name: unique('src') } })).body;
    const commit = (body: Record<string, unknown>) => api(`/projects/${a.id}/repository/commits`, { token: t, body });
    expect((await commit({ branch: 'main', commit_message: 'Initial\n\nbody', actions: [
      { action: 'create', file_path: 'README.md', content: 'one\n' },
      { action: 'create', file_path: 'src/deep/x.ts', content: 'export {};\n' },
      { action: 'create', file_path: 'bin/run', content: '#!/bin/sh\n', execute_filemode: true },
    ] })).status).toBe(201);
    expect((await commit({ branch: 'feature', start_branch: 'main', commit_message: 'Feature', actions: [{ action: 'update', file_path: 'README.md', content: 'one\ntwo\n' }, { action: 'create', file_path: 'img.bin', content: 'AAEC/w==', encoding: 'base64' }] })).status).toBe(201);
    expect((await commit({ branch: 'main', commit_message: 'Main again', actions: [{ action: 'delete', file_path: 'src/deep/x.ts' }] })).status).toBe(201);
    expect((await api(`/projects/${a.id}/export`, { method: 'POST', token: t })).status).toBe(202);
    await waitForExport(a.id, t);
    const files = await untar(await (await download(a.id, t)).arrayBuffer());
    const bundle = readBundle(files.get('./project.bundle')!);

    const b = (await api('/projects', { token: t, body: { name: unique('dst') } })).body;
    let head: string | null = null;
    jobHandlers['test.bundle-import'] = async (_m, deps) => {
      head = await importBundle(deps.db, deps.blobs, b.id, bundle);
      // Run twice, as a redelivered message would: nothing is written twice.
      await importBundle(deps.db, deps.blobs, b.id, bundle);
    };
    const { jobs } = await harnessApp();
    await jobs.send({ type: 'test.bundle-import', id: unique('j') });
    await jobs.idle();
    expect(head).toBe('main');

    for (const path of ['/repository/commits?ref_name=main&with_stats=true', '/repository/commits?ref_name=feature&with_stats=true', '/repository/commits?all=true']) {
      const [x, y] = await Promise.all([api(`/projects/${a.id}${path}`, { token: t }), api(`/projects/${b.id}${path}`, { token: t })]);
      expect(y.status).toBe(200);
      const strip = (list: Record<string, unknown>[]) => list.map(({ web_url: _w, project_id: _p, ...rest }) => rest);
      expect(strip(y.body)).toEqual(strip(x.body));
    }
    const branchesOf = async (id: number) => (await api(`/projects/${id}/repository/branches`, { token: t })).body.map((br: { name: string; commit: { id: string } }) => [br.name, br.commit.id]);
    expect(await branchesOf(b.id)).toEqual(await branchesOf(a.id));
    for (const [path, ref] of [['README.md', 'feature'], ['bin/run', 'main'], ['img.bin', 'feature']]) {
      const [x, y] = await Promise.all([api(`/projects/${a.id}/repository/files/${encodeURIComponent(path)}?ref=${ref}`, { token: t }), api(`/projects/${b.id}/repository/files/${encodeURIComponent(path)}?ref=${ref}`, { token: t })]);
      expect(y.status).toBe(200);
      expect([y.body.content, y.body.blob_id, y.body.execute_filemode]).toEqual([x.body.content, x.body.blob_id, x.body.execute_filemode]);
    }
  });
});

describe('importBundle refuses what the repository model cannot hold', () => {
  it('a submodule, before writing anything', async () => {
    const { execFileSync } = await import('node:child_process');
    const { mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'bundle-tz-'));
    const env = { ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'C', GIT_COMMITTER_EMAIL: 'c@example.com', GIT_AUTHOR_DATE: '2024-01-01T10:00:00+00:00', GIT_COMMITTER_DATE: '2024-01-01T10:00:00+00:00' };
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(dir, 'a.txt'), 'a\n');
    git('add', '.');
    git('update-index', '--add', '--cacheinfo', `160000,${'2'.repeat(40)},sub`);
    git('commit', '-q', '-m', 'with a submodule');
    git('bundle', 'create', '-q', 'b.bundle', '--all');
    const bundle = readBundle(new Uint8Array(readFileSync(join(dir, 'b.bundle'))));
    // No storage is touched before the refusal: none is given.
    await expect(importBundle(null as never, null as never, 1, bundle)).rejects.toThrow('The repository holds a submodule (mode 160000), which this server cannot hold');
  });
});
