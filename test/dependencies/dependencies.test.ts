/**
 * GET /projects/:id/dependencies over HTTP (ee/lib/api/dependencies.rb; reference 7.1): lockfiles are
 * committed through the commits API, the scanner keeps the list current in the push's batch, and
 * real OSV advisories (loaded with the statements scripts/advisories-load.ts runs) flag the
 * versions in their ranges, for developers only.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { advisoryStatements } from '../../src/dependencies/advisories';
import { storageSql } from '#harness';
import { api, createUser, rootToken, type TestUser, unique } from '../support';
import lodashAdvisory from './fixtures/GHSA-35jh-r3h4-6jhm.json';
import minimistAdvisory from './fixtures/GHSA-xvch-5gv4-984h.json';
import { PACKAGE_LOCK_V3, PNPM_V9, YARN_V1 } from './lockfiles';

const trips = (res: { headers: Headers }) => Number(res.headers.get('x-storage-round-trips'));

let owner: TestUser;
let reporter: TestUser;
let developer: TestUser;
let guest: TestUser;
let outsider: TestUser;
let pid: number;

const commit = (actions: Record<string, unknown>[], branch = 'main') => api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch, commit_message: unique('deps'), actions } });
const list = (query = '', token = developer.token) => api(`/projects/${pid}/dependencies${query}`, { token });
const brief = (rows: { name: string; version: string; package_manager: string; dependency_file_path: string }[]) => rows.map((d) => `${d.dependency_file_path} ${d.package_manager} ${d.name}@${d.version}`);

/** package-lock.json v3 pinning lodash at `version` (the fixture pins 4.17.21). */
const lockWithLodash = (version: string) => PACKAGE_LOCK_V3.replace('"version": "4.17.21"', `"version": "${version}"`);

beforeAll(async () => {
  [owner, reporter, developer, guest, outsider] = await Promise.all([createUser(), createUser(), createUser(), createUser(), createUser()]);
  const project = await api('/projects', { token: owner.token, body: { name: unique('deps'), visibility: 'private' } });
  pid = project.body.id;
  for (const [u, level] of [
    [reporter, 20],
    [developer, 30],
    [guest, 10],
  ] as const)
    expect((await api(`/projects/${pid}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
  for (const statement of advisoryStatements([lodashAdvisory, minimistAdvisory])) await storageSql(statement);
  const first = await commit([
    { action: 'create', file_path: 'package-lock.json', content: lockWithLodash('4.17.20') },
    { action: 'create', file_path: 'web/yarn.lock', content: YARN_V1 },
    { action: 'create', file_path: 'README.md', content: '# deps\n' },
  ]);
  expect(first.status).toBe(201);
});

describe('the dependency list', () => {
  it('lists every lockfile of the default branch in file order, each package once', async () => {
    const res = await list('?per_page=100', reporter.token);
    expect(res.status).toBe(200);
    expect(brief(res.body)).toEqual([
      'package-lock.json npm @types/node@20.11.5',
      'package-lock.json npm lodash@4.17.20',
      'package-lock.json npm minimist@1.2.8',
      'package-lock.json npm undici-types@5.26.5',
      'web/yarn.lock yarn @babel/helper-validator-identifier@7.22.20',
      'web/yarn.lock yarn lodash@4.17.21',
      'web/yarn.lock yarn minimist@0.2.1',
      'web/yarn.lock yarn minimist@1.2.8',
    ]);
    // A reporter may not read the security dashboard: the field is absent, not empty.
    for (const d of res.body) expect(Object.keys(d).sort()).toEqual(['dependency_file_path', 'name', 'package_manager', 'version']);
  });

  it('shows developers the advisories whose ranges hold the version, and only those', async () => {
    const res = await list('?per_page=100');
    expect(res.status).toBe(200);
    const flagged = Object.fromEntries(res.body.map((d: any) => [`${d.dependency_file_path} ${d.name}@${d.version}`, d.vulnerabilities.map((v: any) => ({ ...v, id: typeof v.id }))]));
    const lodash = { name: 'Command Injection in lodash', severity: 'high', url: 'https://nvd.nist.gov/vuln/detail/CVE-2021-23337', id: 'number' };
    const minimist = { name: 'Prototype Pollution in minimist', severity: 'critical', url: 'https://nvd.nist.gov/vuln/detail/CVE-2021-44906', id: 'number' };
    // Administrators read every security dashboard.
    const asAdmin = await list('?per_page=100', rootToken);
    expect(asAdmin.body.map((d: any) => d.vulnerabilities.length)).toEqual(res.body.map((d: any) => d.vulnerabilities.length));
    expect(flagged).toEqual({
      'package-lock.json @types/node@20.11.5': [],
      'package-lock.json lodash@4.17.20': [lodash],
      'package-lock.json minimist@1.2.8': [],
      'package-lock.json undici-types@5.26.5': [],
      'web/yarn.lock @babel/helper-validator-identifier@7.22.20': [],
      'web/yarn.lock lodash@4.17.21': [],
      'web/yarn.lock minimist@0.2.1': [minimist],
      'web/yarn.lock minimist@1.2.8': [],
    });
  });

  it('filters by package manager, as an array or comma-separated, and refuses unknown ones', async () => {
    expect(brief((await list('?package_manager=yarn')).body).every((d) => d.startsWith('web/yarn.lock yarn'))).toBe(true);
    expect((await list('?package_manager[]=yarn')).body).toHaveLength(4);
    expect((await list('?package_manager[]=npm&package_manager[]=pnpm')).body).toHaveLength(4);
    expect((await list('?package_manager=npm,yarn')).body).toHaveLength(8);
    expect((await list('?package_manager=bundler')).body).toEqual([]);
    for (const bad of ['?package_manager=npmx', '?package_manager=npm,cargo', '?package_manager[]=Yarn'])
      expect(await list(bad)).toMatchObject({ status: 400, body: { error: 'package_manager does not have a valid value' } });
  });

  it('paginates 20 per page by default, with the usual headers', async () => {
    const res = await list('?per_page=3&page=2');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(3);
    expect(res.headers.get('x-total')).toBe('8');
    expect(res.headers.get('x-total-pages')).toBe('3');
    expect(res.headers.get('x-next-page')).toBe('3');
    expect(res.headers.get('x-prev-page')).toBe('1');
    expect(brief(res.body)[0]).toBe('package-lock.json npm undici-types@5.26.5');
    expect((await list('')).headers.get('x-per-page')).toBe('20');
  });

  it('answers 401, 404 and 403 in the reference order', async () => {
    expect(await api(`/projects/${pid}/dependencies`)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    // authenticate! comes before the parameters are validated.
    expect(await api(`/projects/${pid}/dependencies?package_manager=nope`)).toMatchObject({ status: 401 });
    expect(await list('', outsider.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await api('/projects/999999999/dependencies', { token: developer.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    // A guest of a private project may not download its code.
    expect(await list('', guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });
});

describe('the scanner', () => {
  it('re-reads the lockfiles when a push to the default branch changes one, in the commit round trips', async () => {
    const res = await commit([{ action: 'update', file_path: 'package-lock.json', content: lockWithLodash('4.17.21') }]);
    expect(res.status).toBe(201);
    expect(trips(res)).toBeLessThanOrEqual(2);
    const after = (await list('?per_page=100')).body;
    // The unchanged yarn.lock is read back from the blob store; the fixed lodash is no longer flagged.
    expect(after).toHaveLength(8);
    const lodash = after.find((d: any) => d.dependency_file_path === 'package-lock.json' && d.name === 'lodash');
    expect(lodash).toMatchObject({ version: '4.17.21', vulnerabilities: [] });
  });

  it('ignores pushes to other branches and pushes that change no lockfile', async () => {
    const before = (await list('?per_page=100')).body;
    expect((await commit([{ action: 'delete', file_path: 'web/yarn.lock' }], 'feature')).status).toBe(400);
    expect((await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: 'feature', ref: 'main' } })).status).toBe(201);
    expect((await commit([{ action: 'delete', file_path: 'web/yarn.lock' }, { action: 'create', file_path: 'pnpm-lock.yaml', content: PNPM_V9 }], 'feature')).status).toBe(201);
    const readme = await commit([{ action: 'update', file_path: 'README.md', content: '# deps, again\n' }]);
    expect(readme.status).toBe(201);
    expect(trips(readme)).toBeLessThanOrEqual(2);
    expect((await list('?per_page=100')).body).toEqual(before);
  });

  it('drops a deleted lockfile, adds a new one, and reads a broken one as nothing without failing the push', async () => {
    const res = await commit([
      { action: 'delete', file_path: 'web/yarn.lock' },
      { action: 'create', file_path: 'tools/pnpm-lock.yaml', content: PNPM_V9 },
      { action: 'create', file_path: 'broken/package-lock.json', content: '{"lockfileVersion": 3, "packages": {' },
    ]);
    expect(res.status).toBe(201);
    expect(brief((await list('?per_page=100')).body)).toEqual([
      'package-lock.json npm @types/node@20.11.5',
      'package-lock.json npm lodash@4.17.21',
      'package-lock.json npm minimist@1.2.8',
      'package-lock.json npm undici-types@5.26.5',
      'tools/pnpm-lock.yaml pnpm @babel/core@7.24.0',
      'tools/pnpm-lock.yaml pnpm is-even@1.0.0',
      'tools/pnpm-lock.yaml pnpm minimist@1.2.8',
    ]);
    expect(brief((await list('?package_manager=pnpm')).body)).toHaveLength(3);
  });

  it('writes a large lockfile in the same round trips (its rows in a few JSON statements, in order)', async () => {
    const p = await api('/projects', { token: owner.token, body: { name: unique('bigdeps'), visibility: 'private' } });
    const packages: Record<string, unknown> = { '': { name: 'big' } };
    // About 900 KB of rows: more than one insert statement's share (scanner.ts MAX_JSON_CHARS).
    for (let i = 0; i < 9000; i++) packages[`node_modules/@big/package-number-${String(i).padStart(5, '0')}`] = { version: `1.${i % 7}.${i}` };
    const res = await api(`/projects/${p.body.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'big', actions: [{ action: 'create', file_path: 'package-lock.json', content: JSON.stringify({ lockfileVersion: 3, packages }) }] },
    });
    expect(res.status).toBe(201);
    expect(trips(res)).toBeLessThanOrEqual(2);
    const last = await api(`/projects/${p.body.id}/dependencies?per_page=100&page=90`, { token: owner.token });
    expect(last.headers.get('x-total')).toBe('9000');
    expect(last.body.map((d: any) => d.name)).toEqual(Array.from({ length: 100 }, (_, i) => `@big/package-number-0${8900 + i}`));
    expect(last.body[99]).toEqual({ name: '@big/package-number-08999', version: '1.4.8999', package_manager: 'npm', dependency_file_path: 'package-lock.json', vulnerabilities: [] });
  });

  it('goes with a deleted project', async () => {
    const p = await api('/projects', { token: owner.token, body: { name: unique('gone'), visibility: 'private' } });
    await api(`/projects/${p.body.id}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'yarn.lock', content: YARN_V1 }] } });
    const count = async () => (await storageSql(`SELECT (SELECT count(*) FROM project_dependencies WHERE project_id = ${p.body.id}) + (SELECT count(*) FROM project_dependency_files WHERE project_id = ${p.body.id}) AS n`)) as { n: number }[];
    expect(Number((await count())[0].n)).toBe(5);
    expect((await api(`/projects/${p.body.id}`, { method: 'DELETE', token: owner.token })).status).toBe(202);
    expect(Number((await count())[0].n)).toBe(0);
  });

  it('starts empty for a project without lockfiles', async () => {
    const p = await api('/projects', { token: owner.token, body: { name: unique('nodeps'), visibility: 'private' } });
    expect((await api(`/projects/${p.body.id}/dependencies`, { token: owner.token })).body).toEqual([]);
    await api(`/projects/${p.body.id}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] } });
    expect(await api(`/projects/${p.body.id}/dependencies`, { token: owner.token })).toMatchObject({ status: 200, body: [] });
  });
});

describe('the advisory store', () => {
  it('replaces a reloaded record in place, and drops a withdrawn one', async () => {
    const p = await api('/projects', { token: owner.token, body: { name: unique('adv'), visibility: 'private' } });
    await api(`/projects/${p.body.id}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'yarn.lock', content: YARN_V1 }] } });
    const flagged = async () =>
      ((await api(`/projects/${p.body.id}/dependencies`, { token: owner.token })).body as any[]).flatMap((d) => d.vulnerabilities.map((v: any) => `${d.name}@${d.version} ${v.id} ${v.severity}`));
    const [before] = await flagged();
    expect(before).toMatch(/^minimist@0\.2\.1 \d+ critical$/);
    // A newer revision of the record (its level changed): the same advisory, updated.
    for (const statement of advisoryStatements([{ ...minimistAdvisory, database_specific: { ...minimistAdvisory.database_specific, severity: 'HIGH' } }])) await storageSql(statement);
    expect(await flagged()).toEqual([before.replace('critical', 'high')]);
    for (const statement of advisoryStatements([{ ...minimistAdvisory, withdrawn: '2024-01-01T00:00:00Z' }])) await storageSql(statement);
    expect(await flagged()).toEqual([]);
    for (const statement of advisoryStatements([minimistAdvisory])) await storageSql(statement);
    expect(await flagged()).toHaveLength(1);
  });
});
