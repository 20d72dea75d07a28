/**
 * The dependency list follows the default branch when it changes without a push: another branch made
 * the default (PUT /projects/:id default_branch, read again in the update's batch, its reads in the
 * batch that finds the project) and a project imported with its repository (read at the end of the
 * import's repository step; projects/default-branch-hooks.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';
import { download, waitForExport } from '../import-export/export-support';
import { uploadImport, waitForImport } from '../import-export/import-support';
import { PACKAGE_LOCK_V3, YARN_V1 } from './lockfiles';

let owner: TestUser;

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));
const deps = async (pid: number) => {
  const res = await api(`/projects/${pid}/dependencies?per_page=100`, { token: owner.token });
  expect(res.status).toBe(200);
  return (res.body as { name: string; version: string; dependency_file_path: string }[]).map((d) => `${d.dependency_file_path} ${d.name}@${d.version}`);
};
const commit = async (pid: number, branch: string, actions: Record<string, unknown>[], start?: string) => {
  const res = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch, start_branch: start, commit_message: unique('c'), actions } });
  expect(res.status).toBe(201);
};
const create = (file_path: string, content: string) => ({ action: 'create', file_path, content });

const NPM = ['package-lock.json @types/node@20.11.5', 'package-lock.json lodash@4.17.21', 'package-lock.json minimist@1.2.8', 'package-lock.json undici-types@5.26.5'];

beforeAll(async () => {
  owner = await createUser();
});

describe('a new default branch', () => {
  it('replaces the list with the lockfiles of the new default, in the update batch', async () => {
    const p = await api('/projects', { token: owner.token, body: { name: unique('defb'), visibility: 'private' } });
    const pid = p.body.id as number;
    await commit(pid, 'main', [create('web/yarn.lock', YARN_V1)]);
    await commit(pid, 'next', [create('package-lock.json', PACKAGE_LOCK_V3), { action: 'delete', file_path: 'web/yarn.lock' }], 'main');
    expect(await deps(pid)).toHaveLength(4);
    expect((await deps(pid)).every((d) => d.startsWith('web/yarn.lock '))).toBe(true);

    await api('/user', { token: owner.token });
    const res = await api(`/projects/${pid}`, { method: 'PUT', token: owner.token, body: { default_branch: 'next' } });
    expect(res.status).toBe(200);
    expect(res.body.default_branch).toBe('next');
    // The batch that finds the project (with the scanner's reads), then the update with the new list.
    expect(trips(res)).toBeLessThanOrEqual(2);
    expect(await deps(pid)).toEqual(NPM);

    // Setting it again changes nothing; a push to the old default no longer touches the list.
    expect((await api(`/projects/${pid}`, { method: 'PUT', token: owner.token, body: { default_branch: 'next', description: 'same' } })).status).toBe(200);
    await commit(pid, 'main', [{ action: 'delete', file_path: 'web/yarn.lock' }]);
    expect(await deps(pid)).toEqual(NPM);

    // Back to main (no lockfile left there): the list empties.
    expect((await api(`/projects/${pid}`, { method: 'PUT', token: owner.token, body: { default_branch: 'main' } })).status).toBe(200);
    expect(await deps(pid)).toEqual([]);
  });

  it('other updates read nothing more', async () => {
    const p = await api('/projects', { token: owner.token, body: { name: unique('defc'), visibility: 'private' } });
    await commit(p.body.id, 'main', [create('package-lock.json', PACKAGE_LOCK_V3)]);
    await api('/user', { token: owner.token });
    const res = await api(`/projects/${p.body.id}`, { method: 'PUT', token: owner.token, body: { description: 'words' } });
    expect(res.status).toBe(200);
    expect(trips(res)).toBeLessThanOrEqual(2);
    expect(await deps(p.body.id)).toEqual(NPM);
  });
});

describe('an imported project', () => {
  it('lists the dependencies of its repository once the import finished', async () => {
    const src = (await api('/projects', { token: owner.token, body: { name: unique('dep-src') } })).body;
    await commit(src.id, 'main', [create('package-lock.json', PACKAGE_LOCK_V3), create('README.md', '# x\n')]);
    expect((await api(`/projects/${src.id}/export`, { method: 'POST', token: owner.token })).status).toBe(202);
    await waitForExport(src.id, owner.token);
    const archive = new Uint8Array(await (await download(src.id, owner.token)).arrayBuffer());
    const up = await uploadImport(owner.token, archive, { path: unique('dep-dst') });
    expect(up.status).toBe(201);
    const done = await waitForImport(owner.token, up.body.id);
    expect([done.body.import_status, done.body.failed_relations]).toEqual(['finished', []]);
    expect((await api(`/projects/${up.body.id}`, { token: owner.token })).body.default_branch).toBe('main');
    expect(await deps(up.body.id)).toEqual(NPM);
  });
});
