/**
 * POST /projects/import into a group needs `import_projects` there (GroupPolicy: maintainer and
 * create_projects), so a group that follows the instance's default_project_creation refuses its
 * maintainers while that setting is 0 (no one). Changed through PUT /application/settings, restored.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';
import { exportTree, tarGz } from './tar-builder';
import { uploadImport } from './import-support';

describe('default_project_creation and imports', () => {
  it('refuses a group maintainer while no one may create projects, and accepts them again after', async () => {
    const [owner, maintainer] = await Promise.all([createUser(), createUser()]);
    const path = unique('ipc');
    const g = await api('/groups', { token: owner.token, body: { name: path, path } });
    expect(g.status).toBe(201);
    expect((await api(`/groups/${g.body.id}/members`, { token: owner.token, body: { user_id: maintainer.id, access_level: 40 } })).status).toBe(201);
    const archive = await tarGz(exportTree());
    const before = (await api('/application/settings', { token: rootToken })).body.default_project_creation;
    expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { default_project_creation: 0 } })).status).toBe(200);
    try {
      const refused = await uploadImport(maintainer.token, archive, { path: unique('p'), namespace: String(g.body.id) });
      expect([refused.status, refused.body]).toEqual([400, { message: 'Namespace is not valid' }]);
    } finally {
      await api('/application/settings', { method: 'PUT', token: rootToken, body: { default_project_creation: before } });
    }
    const ok = await uploadImport(maintainer.token, archive, { path: unique('p'), namespace: String(g.body.id) });
    expect(ok.status).toBe(201);
  });
});
