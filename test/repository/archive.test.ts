/** Repository archives (repositories.rb `archive`, Workhorse sendarchive), unpacked from the bytes served. */
import { unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { readTar } from '../../src/platform/tar-read';
import { api, createUser, fetchApi, unique, type TestUser } from '../support';

let owner: TestUser;
let reporter: TestUser;
let outsider: TestUser;

interface Repo {
  id: number;
  path: string;
  main: string;
  feature: string;
}

async function newRepo(): Promise<Repo> {
  const res = await api('/projects', { token: owner.token, body: { name: unique('arch'), visibility: 'private' } });
  expect(res.status).toBe(201);
  expect((await api(`/projects/${res.body.id}/members`, { token: owner.token, body: { user_id: reporter.id, access_level: 20 } })).status).toBe(201);
  const big = 'x'.repeat(70_000) + '\n';
  const first = await api(`/projects/${res.body.id}/repository/commits`, {
    token: owner.token,
    body: {
      branch: 'main',
      commit_message: 'files',
      actions: [
        { action: 'create', file_path: 'README.md', content: 'hello\n' },
        { action: 'create', file_path: 'bin/run.sh', content: '#!/bin/sh\necho run\n', execute_filemode: true },
        { action: 'create', file_path: 'src/lib/a.ts', content: 'export const a = 1;\n' },
        { action: 'create', file_path: 'src/big.txt', content: big },
        { action: 'create', file_path: 'empty.txt', content: '' },
      ],
    },
  });
  expect(first.status).toBe(201);
  const second = await api(`/projects/${res.body.id}/repository/commits`, {
    token: owner.token,
    body: { branch: 'feature/x', start_branch: 'main', commit_message: 'more', actions: [{ action: 'create', file_path: 'src/lib/b.ts', content: 'b\n' }] },
  });
  expect(second.status).toBe(201);
  return { id: res.body.id, path: res.body.path, main: first.body.id, feature: second.body.id };
}

async function download(path: string, token: string | null = reporter.token) {
  const res = await fetchApi(`/api/v4${path}`, { headers: token ? { 'PRIVATE-TOKEN': token } : {} });
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

const streamOf = (bytes: Uint8Array) => new ReadableStream<Uint8Array>({ start: (ctl) => (ctl.enqueue(bytes), ctl.close()) });

/** The members of a tar, with their text (files) and their mode from the raw header. */
async function untar(bytes: Uint8Array) {
  const out = new Map<string, string | null>();
  // The reader drops a directory's trailing slash; it is put back to compare with the names written.
  for await (const m of readTar(streamOf(bytes))) out.set(m.type === 'directory' ? `${m.name}/` : m.name, m.type === 'directory' ? null : await new Response(m.body).text());
  return out;
}

/** The octal mode of a member, read from its ustar header. */
function tarMode(bytes: Uint8Array, name: string): string {
  const dec = new TextDecoder();
  for (let at = 0; at + 512 <= bytes.length; at += 512) {
    const header = bytes.subarray(at, at + 512);
    if (dec.decode(header.subarray(0, 100)).replace(/\0.*$/s, '') === name) return dec.decode(header.subarray(100, 107));
  }
  return 'missing';
}

const gunzip = async (bytes: Uint8Array) => new Uint8Array(await new Response(streamOf(bytes).pipeThrough(new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>)).arrayBuffer());

beforeAll(async () => {
  [owner, reporter, outsider] = await Promise.all([createUser(), createUser(), createUser()]);
});

describe('GET /projects/:id/repository/archive', () => {
  it("serves the default branch as tar.gz under GitLab's <project>-<ref>-<sha>/ prefix and file name", async () => {
    const r = await newRepo();
    const { res, bytes } = await download(`/projects/${r.id}/repository/archive`);
    expect(res.status).toBe(200);
    const prefix = `${r.path}-main-${r.main}`;
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${prefix}.tar.gz"`);
    const tar = await gunzip(bytes);
    const members = await untar(tar);
    expect([...members.keys()]).toEqual([
      `${prefix}/`,
      `${prefix}/README.md`,
      `${prefix}/bin/`,
      `${prefix}/bin/run.sh`,
      `${prefix}/empty.txt`,
      `${prefix}/src/`,
      `${prefix}/src/big.txt`,
      `${prefix}/src/lib/`,
      `${prefix}/src/lib/a.ts`,
    ]);
    expect(members.get(`${prefix}/README.md`)).toBe('hello\n');
    expect(members.get(`${prefix}/src/big.txt`)).toHaveLength(70_001);
    expect(members.get(`${prefix}/empty.txt`)).toBe('');
    // git archive's modes (umask 002): executables 0775, other files 0664.
    expect(tarMode(tar, `${prefix}/bin/run.sh`)).toBe('0000775');
    expect(tarMode(tar, `${prefix}/README.md`)).toBe('0000664');
    // The commit id in the pax global header, as `git get-tar-commit-id` reads it.
    expect(new TextDecoder().decode(tar.subarray(512, 1024))).toContain(`comment=${r.main}`);
  });

  it('serves zip (archive.zip and format=zip) with a branch, tag or sha, a path and exclude_paths', async () => {
    const r = await newRepo();
    expect((await api(`/projects/${r.id}/repository/tags`, { token: owner.token, body: { tag_name: 'v1.0', ref: 'feature/x' } })).status).toBe(201);
    const { res, bytes } = await download(`/projects/${r.id}/repository/archive.zip?sha=feature/x`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const prefix = `${r.path}-feature-x-${r.feature}`;
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${prefix}.zip"`);
    const files = unzipSync(bytes);
    expect(new TextDecoder().decode(files[`${prefix}/src/lib/b.ts`])).toBe('b\n');
    expect(files[`${prefix}/src/big.txt`]).toHaveLength(70_001);
    expect(Object.keys(files)).toContain(`${prefix}/src/lib/`);

    const byTag = await download(`/projects/${r.id}/repository/archive?format=zip&sha=v1.0&path=src/lib&exclude_paths=src/lib/a.ts`);
    const tagPrefix = `${r.path}-v1.0-${r.feature}-src-lib`;
    expect(byTag.res.headers.get('content-disposition')).toBe(`attachment; filename="${tagPrefix}.zip"`);
    expect(Object.keys(unzipSync(byTag.bytes)).sort()).toEqual([`${tagPrefix}/`, `${tagPrefix}/src/`, `${tagPrefix}/src/lib/`, `${tagPrefix}/src/lib/b.ts`]);

    const bySha = await download(`/projects/${r.id}/repository/archive.tar?sha=${r.main}`);
    expect(bySha.res.headers.get('content-disposition')).toBe(`attachment; filename="${r.path}-${r.main}-${r.main}.tar"`);
    expect((await untar(bySha.bytes)).get(`${r.path}-${r.main}-${r.main}/README.md`)).toBe('hello\n');
  });

  it('answers 404 File for an unknown ref or path, 406 for bzip2, 404 for other extensions and to outsiders', async () => {
    const r = await newRepo();
    for (const q of ['?sha=nope', '?path=missing']) {
      const res = await api(`/projects/${r.id}/repository/archive${q}`, { token: reporter.token });
      expect(res.status, q).toBe(404);
      expect(res.body).toEqual({ message: '404 File Not Found' });
    }
    const bz = await api(`/projects/${r.id}/repository/archive.tar.bz2`, { token: reporter.token });
    expect(bz.status).toBe(406);
    expect((await api(`/projects/${r.id}/repository/archive.rar`, { token: reporter.token })).status).toBe(404);
    expect((await api(`/projects/${r.id}/repository/archive`, { token: outsider.token })).body).toEqual({ message: '404 Project Not Found' });
  });

  it('limits a user to 5 archives of a project a minute (project_repositories_archive)', async () => {
    const r = await newRepo();
    const user = await createUser();
    expect((await api(`/projects/${r.id}/members`, { token: owner.token, body: { user_id: user.id, access_level: 20 } })).status).toBe(201);
    for (let i = 0; i < 5; i++) expect((await download(`/projects/${r.id}/repository/archive.tar`, user.token)).res.status).toBe(200);
    const limited = await api(`/projects/${r.id}/repository/archive.tar`, { token: user.token });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: { error: 'This archive has been requested too many times. Try again later.' } });
    // Another user of the same project is counted apart.
    expect((await download(`/projects/${r.id}/repository/archive.tar`)).res.status).toBe(200);
  });
});
