/** A refused upload to POST /projects/import leaves nothing in the blob store (the file part is stored as it arrives, import-routes.ts). */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { harnessBlobRoot } from '../harness/node';
import { api, createUser, rootToken, unique } from '../support';
import { exportTree, tarGz } from './tar-builder';
import { uploadImport } from './import-support';

/** Every file under the store's imports/ folder (temporary files included). */
function storedImports(): string[] {
  const walk = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)])) : []);
  return [...walk(join(harnessBlobRoot, 'imports')), ...walk(join(harnessBlobRoot, '.tmp'))];
}

describe('POST /projects/import refused uploads', () => {
  it('stores nothing for an upload over max_import_size, a bad token, a taken path or a missing path', async () => {
    const user = await createUser();
    const archive = await tarGz(exportTree());
    const taken = await api('/projects', { token: user.token, body: { name: unique('t') } });
    try {
      expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { max_import_size: 1 } })).status).toBe(200);
      const big = new Uint8Array(1024 * 1024 + 1);
      expect((await uploadImport(user.token, big, { path: unique('p') })).status).toBe(413);
      expect((await uploadImport('not-a-token', archive, { path: unique('p') })).status).toBe(401);
      expect((await uploadImport(user.token, archive, { path: taken.body.path })).body).toEqual({ message: 'Name has already been taken' });
      expect((await uploadImport(user.token, archive, {})).body).toEqual({ error: 'path is missing' });
      expect(storedImports()).toEqual([]);
      // The same upload that is accepted is stored (the check above would see it).
      expect((await uploadImport(user.token, archive, { path: unique('p') })).status).toBe(201);
      expect(storedImports().length).toBeGreaterThan(0);
    } finally {
      await api('/application/settings', { method: 'PUT', token: rootToken, body: { max_import_size: 0 } });
    }
  });
});
