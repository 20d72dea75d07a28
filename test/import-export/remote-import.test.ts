/** POST /projects/remote-import's refusals that need no server, on both runtimes (the network part is remote-import.node.test.ts). */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

describe('POST /projects/remote-import', () => {
  it('refuses http and local addresses with GitLab messages before any request, and needs the gitlab_project import source', async () => {
    const user = await createUser();
    const remote = (url: string) => api('/projects/remote-import', { token: user.token, body: { url, path: unique('remote') } });
    expect((await remote('http://example.com/export.tar.gz')).body).toEqual({ message: 'File url is blocked: Only allowed schemes are https' });
    expect((await remote('https://127.0.0.1/export.tar.gz')).body).toEqual({ message: 'File url is blocked: Requests to localhost are not allowed' });
    expect((await remote('https://192.168.0.10/export.tar.gz')).body).toEqual({ message: 'File url is blocked: Requests to the local network are not allowed' });
    expect((await api('/projects/remote-import', { token: user.token, body: { url: 'https://example.com/x.tar.gz' } })).body).toEqual({ error: 'path is missing' });
    const sources = (await api('/application/settings', { token: rootToken })).body.import_sources;
    expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { import_sources: sources.filter((s: string) => s !== 'gitlab_project') } })).status).toBe(200);
    try {
      const res = await remote('https://example.com/export.tar.gz');
      expect([res.status, res.body]).toEqual([403, { message: '403 Forbidden' }]);
    } finally {
      await api('/application/settings', { method: 'PUT', token: rootToken, body: { import_sources: sources } });
    }
    // Nothing was created by any of them.
    expect((await api('/projects?owned=true', { token: user.token })).body).toEqual([]);
  });

  it('answers 404 while the import_project_from_remote_file flag is off, and the checks again once it is deleted (on by default)', async () => {
    const user = await createUser();
    const remote = () => api('/projects/remote-import', { token: user.token, body: { url: 'http://example.com/export.tar.gz', path: unique('remote') } });
    expect((await api('/features/import_project_from_remote_file', { method: 'POST', token: rootToken, body: { value: 'false' } })).status).toBe(201);
    try {
      const res = await remote();
      expect([res.status, res.body]).toEqual([404, { message: '404 Not Found' }]);
    } finally {
      expect((await api('/features/import_project_from_remote_file', { method: 'DELETE', token: rootToken })).status).toBe(204);
    }
    const res = await remote();
    expect([res.status, res.body]).toEqual([400, { message: 'File url is blocked: Only allowed schemes are https' }]);
  });
});
