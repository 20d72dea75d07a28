/**
 * The export archive checked with the real tools: the system `tar` extracts it, `git bundle verify`
 * accepts project.bundle and `git clone` of it shows the commit ids the API reports.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { TarWriter } from '../../src/platform/tar-write';
import { api, createUser, unique, type TestUser } from '../support';
import { download, waitForExport } from './export-support';

let owner: TestUser;
beforeAll(async () => {
  owner = await createUser();
});

const run = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: cwd } });

describe('export archive', () => {
  it('extracts with tar; project.bundle verifies and clones with the commit ids of the API', async () => {
    const p = (await api('/projects', { token: owner.token, body: { name: unique('bundle') } })).body;
    const commit = (body: Record<string, unknown>) => api(`/projects/${p.id}/repository/commits`, { token: owner.token, body });
    expect((await commit({ branch: 'main', commit_message: 'Initial\n\nbody', actions: [
      { action: 'create', file_path: 'README.md', content: 'hello\n' },
      { action: 'create', file_path: 'src/deep/a.ts', content: 'export const a = 1;\n' },
      { action: 'create', file_path: 'bin/run', content: '#!/bin/sh\necho hi\n', execute_filemode: true },
    ] })).status).toBe(201);
    expect((await commit({ branch: 'main', commit_message: 'Second', actions: [{ action: 'update', file_path: 'README.md', content: 'hello again\n' }] })).status).toBe(201);
    expect((await commit({ branch: 'feature', start_branch: 'main', commit_message: 'Feature work', actions: [
      { action: 'create', file_path: 'src/b.ts', content: 'export const b = 2;\n' },
      { action: 'create', file_path: 'image.bin', content: Buffer.from([0, 1, 2, 255, 254]).toString('base64'), encoding: 'base64' },
    ] })).status).toBe(201);
    expect((await commit({ branch: 'main', commit_message: 'Third on main', actions: [{ action: 'delete', file_path: 'src/deep/a.ts' }] })).status).toBe(201);

    expect((await api(`/projects/${p.id}/export`, { method: 'POST', token: owner.token })).status).toBe(202);
    await waitForExport(p.id, owner.token);
    const res = await download(p.id, owner.token);
    expect(res.status).toBe(200);
    const dir = mkdtempSync(join(tmpdir(), 'export-'));
    writeFileSync(join(dir, 'export.tar.gz'), Buffer.from(await res.arrayBuffer()));
    const out = join(dir, 'out');
    run('mkdir', [out], dir);
    run('tar', ['-xzf', join(dir, 'export.tar.gz'), '-C', out], dir);
    const listing = run('tar', ['-tzf', join(dir, 'export.tar.gz')], dir).split('\n').filter(Boolean);
    expect(listing).toEqual(expect.arrayContaining(['./', './VERSION', './tree/', './tree/project.json', './tree/project/', './tree/project/issues.ndjson', './project.bundle']));
    expect(readFileSync(join(out, 'VERSION'), 'utf8')).toBe('0.2.4\n');

    const bundle = join(out, 'project.bundle');
    expect(readFileSync(bundle).subarray(0, 16).toString()).toBe('# v2 git bundle\n');
    // `git bundle verify` runs inside a repository: an empty one has none of the prerequisites, and needs none.
    run('git', ['init', '-q', join(dir, 'empty')], dir);
    expect(run('git', ['bundle', 'verify', bundle], join(dir, 'empty'))).toMatch(/records a complete history/);
    run('git', ['clone', '-q', bundle, join(dir, 'clone')], dir);
    const clone = join(dir, 'clone');
    run('git', ['fsck', '--full', '--strict'], clone);
    for (const branch of ['main', 'feature']) {
      const apiCommits = (await api(`/projects/${p.id}/repository/commits?ref_name=${branch}&per_page=100`, { token: owner.token })).body.map((c: { id: string }) => c.id);
      expect(run('git', ['log', '--format=%H', `origin/${branch}`], clone).trim().split('\n')).toEqual(apiCommits);
    }
    // The checkout is the default branch's tree, modes included.
    expect(readFileSync(join(clone, 'README.md'), 'utf8')).toBe('hello again\n');
    expect(existsSync(join(clone, 'src/deep/a.ts'))).toBe(false);
    expect(statSync(join(clone, 'bin/run')).mode & 0o111).not.toBe(0);
    run('git', ['checkout', '-q', 'feature'], clone);
    expect([...readFileSync(join(clone, 'image.bin'))]).toEqual([0, 1, 2, 255, 254]);
  });

  it('writes names over 100 bytes through pax records that tar reads back', async () => {
    const chunks: Uint8Array[] = [];
    const tar = new TarWriter((c) => void chunks.push(c));
    const long = `./${'d'.repeat(60)}/${'e'.repeat(60)}/${'f'.repeat(70)}.ndjson`;
    await tar.directory({ name: './', mtime: Date.now() });
    await tar.file({ name: long, mtime: Date.now() }, '{"a":1}\n');
    await tar.file({ name: './short', mtime: Date.now() }, new Uint8Array(513).fill(7));
    await tar.end();
    const dir = mkdtempSync(join(tmpdir(), 'tar-'));
    writeFileSync(join(dir, 'a.tar'), Buffer.concat(chunks));
    expect(run('tar', ['-tf', 'a.tar'], dir).split('\n').filter(Boolean)).toEqual(['./', long, './short']);
    run('tar', ['-xf', 'a.tar'], dir);
    expect(readFileSync(join(dir, long), 'utf8')).toBe('{"a":1}\n');
    expect(readFileSync(join(dir, 'short')).length).toBe(513);
  });
});
