/**
 * GET /projects/:id of an imported project reads its import (Entities::Project): `import_status` for
 * anyone who sees the project, `import_type` and `import_error` for those who may administer it; a
 * project never imported answers `none` and null.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';
import { exportTree, tarGz } from './tar-builder';
import { uploadImport, waitForImport } from './import-support';

describe('GET /projects/:id of an imported project', () => {
  it('shows the import status, type and error (the last two to maintainers and above)', async () => {
    const owner = await createUser();
    const ok = await uploadImport(owner.token, await tarGz(exportTree({ project: { description: 'x', visibility_level: 20 } })), { path: unique('st-ok') });
    expect((await waitForImport(owner.token, ok.body.id)).body.import_status).toBe('finished');
    const bad = await uploadImport(owner.token, await tarGz(exportTree({ version: '0.1.0' })), { path: unique('st-bad') });
    expect((await waitForImport(owner.token, bad.body.id)).body.import_status).toBe('failed');
    const plain = (await api('/projects', { token: owner.token, body: { name: unique('st-plain') } })).body;

    const get = async (id: number, token = owner.token) => {
      const res = await api(`/projects/${id}`, { token });
      expect(res.status).toBe(200);
      return [res.body.import_status, res.body.import_type, res.body.import_error];
    };
    expect(await get(ok.body.id)).toEqual(['finished', 'gitlab_project', null]);
    expect(await get(bad.body.id)).toEqual(['failed', 'gitlab_project', 'Import version mismatch: Required 0.2.4 but was 0.1.0']);
    expect(await get(plain.id)).toEqual(['none', null, null]);
    // A stranger sees the public project's status, not how it was imported nor why it failed.
    const other = await createUser();
    const seen = (await api(`/projects/${ok.body.id}`, { token: other.token })).body;
    expect(seen.import_status).toBe('finished');
    expect('import_type' in seen || 'import_error' in seen).toBe(false);
  });
});
