/**
 * The import/export rate-limit settings, changed through PUT /application/settings (each an
 * ApplicationRateLimiter threshold per minute): project_export_limit (POST export, per user),
 * project_download_export_limit (downloads, per user and namespace) and project_import_limit
 * (POST /projects/import, per user). Restored after the test: the suite shares one instance.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';
import { download, waitForExport } from './export-support';
import { exportTree, tarGz } from './tar-builder';
import { uploadImport } from './import-support';

const tooMany = { message: { error: 'This endpoint has been requested too many times. Try again later.' } };
const KEYS = ['project_export_limit', 'project_download_export_limit', 'project_import_limit'];

describe('import/export rate-limit settings', () => {
  it('apply the stored thresholds to exports, downloads and imports', async () => {
    const before = (await api('/application/settings', { token: rootToken })).body;
    const put = await api('/application/settings', { method: 'PUT', token: rootToken, body: { project_export_limit: 1, project_download_export_limit: 3, project_import_limit: 1 } });
    expect(put.status).toBe(200);
    expect(KEYS.map((k) => put.body[k])).toEqual([1, 3, 1]);
    try {
      const user = await createUser();
      const p = await api('/projects', { token: user.token, body: { name: unique('rls') } });
      expect((await api(`/projects/${p.body.id}/export`, { method: 'POST', token: user.token })).status).toBe(202);
      const second = await api(`/projects/${p.body.id}/export`, { method: 'POST', token: user.token });
      expect([second.status, second.body]).toEqual([429, tooMany]);
      await waitForExport(p.body.id, user.token);
      // Three downloads a minute instead of GitLab's default one, then 429.
      for (let k = 0; k < 3; k++) {
        const res = await download(p.body.id, user.token);
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }
      const fourth = await download(p.body.id, user.token);
      expect([fourth.status, await fourth.json()]).toEqual([429, tooMany]);

      const archive = await tarGz(exportTree());
      // A refused upload counts too (the throttle comes before the upload's own checks).
      expect((await uploadImport(user.token, archive, { path: unique('p') }, 'x.zip')).status).toBe(422);
      const imp = await uploadImport(user.token, archive, { path: unique('p') });
      expect([imp.status, imp.body]).toEqual([429, tooMany]);
    } finally {
      await api('/application/settings', { method: 'PUT', token: rootToken, body: Object.fromEntries(KEYS.map((k) => [k, before[k]])) });
    }
  });
});
