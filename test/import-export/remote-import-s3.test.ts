/**
 * POST /projects/remote-import-s3 on both runtimes, up to the point where a request would leave the
 * server: the flag's 404, Grape's missing parameters, RemoteFileS3's presence checks and the region
 * check. The signed requests themselves are tested on Node (remote-import-s3.node.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const body = (extra: Record<string, unknown> = {}) => ({ region: 'eu-west-1', bucket_name: 'exports', file_key: 'export.tar.gz', access_key_id: 'AKIAEXAMPLE', secret_access_key: 'secret', path: unique('s3'), ...extra });

describe('POST /projects/remote-import-s3 before any request to S3', () => {
  it("is a 404 while its flag is off, then refuses GitLab's way", async () => {
    const user = await createUser();
    const post = (b: Record<string, unknown>) => api('/projects/remote-import-s3', { token: user.token, body: b });
    expect(await post(body())).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    // project_import allows 6 a minute per user; this test makes more.
    const limit = (await api('/application/settings', { token: rootToken })).body.project_import_limit;
    expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { project_import_limit: 1000 } })).status).toBe(200);
    expect((await api('/features/import_project_from_remote_file_s3', { token: rootToken, body: { value: true } })).status).toBe(201);
    try {
      const { file_key: _k, ...noKey } = body();
      expect(await post(noKey)).toMatchObject({ status: 400, body: { error: 'file_key is missing' } });
      const cases: [Record<string, unknown>, string][] = [
        [{ region: '' }, "Region can't be blank"],
        [{ bucket_name: '' }, "Bucket name can't be blank"],
        [{ file_key: '' }, "File key can't be blank"],
        [{ access_key_id: '' }, "Access key can't be blank"],
        [{ secret_access_key: '' }, "Secret access key can't be blank"],
        // A region is a host label: anything else could steer the request to another host.
        [{ region: 'attacker.example/x?' }, "Failed to open 'export.tar.gz' in 'exports': Invalid `:region` option was provided."],
      ];
      for (const [extra, message] of cases) {
        const res = await post(body(extra));
        expect([extra, res.status, res.body]).toEqual([extra, 400, { message }]);
      }
      expect((await api('/projects?owned=true', { token: user.token })).body).toEqual([]);
    } finally {
      await api('/application/settings', { method: 'PUT', token: rootToken, body: { project_import_limit: limit } });
      expect((await api('/features/import_project_from_remote_file_s3', { method: 'DELETE', token: rootToken })).status).toBe(204);
    }
  });

  it("spends the project_import limit (shared with remote-import) only once past the flag, as GitLab's route body does", async () => {
    const user = await createUser();
    const post = (b: Record<string, unknown>) => api('/projects/remote-import-s3', { token: user.token, body: b });
    const limit = (await api('/application/settings', { token: rootToken })).body.project_import_limit;
    expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { project_import_limit: 1 } })).status).toBe(200);
    try {
      // Flag off: 404s, none counted.
      for (let i = 0; i < 3; i++) expect((await post(body())).status).toBe(404);
      expect((await api('/features/import_project_from_remote_file_s3', { token: rootToken, body: { value: true } })).status).toBe(201);
      try {
        expect(await post(body({ region: '' }))).toMatchObject({ status: 400, body: { message: "Region can't be blank" } });
        const tooMany = { status: 429, body: { message: { error: 'This endpoint has been requested too many times. Try again later.' } } };
        expect(await post(body({ region: '' }))).toMatchObject(tooMany);
        expect(await api('/projects/remote-import', { token: user.token, body: { url: 'https://example.com/export.tar.gz', path: unique('r') } })).toMatchObject(tooMany);
      } finally {
        expect((await api('/features/import_project_from_remote_file_s3', { method: 'DELETE', token: rootToken })).status).toBe(204);
      }
    } finally {
      await api('/application/settings', { method: 'PUT', token: rootToken, body: { project_import_limit: limit } });
    }
  });
});
