/**
 * Project Markdown uploads: POST /projects/:id/uploads and the download by secret, and their way
 * through an export archive (`uploads/<secret>/<filename>`) into an imported project, where the
 * links of imported descriptions and notes resolve; an archive never reaches another project's files.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, fetchApi, rootToken, unique } from '../support';
import { download, untar, waitForExport } from './export-support';
import { uploadImport, waitForImport } from './import-support';
import { fixtureArchive, TREE } from './fixture-checks';
import { tarGz } from './tar-builder';

async function upload(projectId: number, token: string, name: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
  return api(`/projects/${projectId}/uploads`, { token, multipart: form });
}

async function fetchUpload(projectId: number, url: string, token: string) {
  return fetchApi(`/api/v4/projects/${projectId}${url}`, { headers: { 'PRIVATE-TOKEN': token } });
}

const bytesOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());

describe('project uploads', () => {
  it('stores a file for Markdown and serves it back by secret and filename', async () => {
    const owner = await createUser();
    const p = (await api('/projects', { token: owner.token, body: { name: unique('up') } })).body;
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const res = await upload(p.id, owner.token, 'my shot.png', png);
    expect(res.status).toBe(201);
    const secret = /^\/uploads\/([0-9a-f]{32})\/my_shot\.png$/.exec(res.body.url)?.[1];
    expect(secret).toBeDefined();
    expect(res.body).toEqual({ id: expect.any(Number), alt: 'my_shot', url: `/uploads/${secret}/my_shot.png`, full_path: `/-/project/${p.id}/uploads/${secret}/my_shot.png`, markdown: `![my_shot](/uploads/${secret}/my_shot.png)` });
    expect((await upload(p.id, owner.token, 'notes.txt', new Uint8Array([1]))).body.markdown).toMatch(/^\[notes\.txt\]\(\/uploads\/[0-9a-f]{32}\/notes\.txt\)$/);
    const got = await fetchUpload(p.id, res.body.url, owner.token);
    expect([got.status, got.headers.get('content-type'), got.headers.get('content-disposition')]).toEqual([200, 'application/octet-stream', 'attachment; filename="my_shot.png"']);
    expect(await bytesOf(got)).toEqual(png);
    // Another secret, a traversal, another project: not found.
    expect((await fetchUpload(p.id, `/uploads/${'0'.repeat(32)}/my_shot.png`, owner.token)).status).toBe(404);
    expect((await fetchUpload(p.id, `/uploads/${secret}/..%2F..%2Fetc`, owner.token)).status).toBe(404);
    const other = (await api('/projects', { token: owner.token, body: { name: unique('up') } })).body;
    expect((await fetchUpload(other.id, res.body.url, owner.token)).status).toBe(404);
  });

  it('refuses a file over max_attachment_size with a 413, and takes one at the limit', async () => {
    const owner = await createUser();
    const p = (await api('/projects', { token: owner.token, body: { name: unique('up') } })).body;
    expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { max_attachment_size: 1 } })).status).toBe(200);
    try {
      const res = await upload(p.id, owner.token, 'big.bin', new Uint8Array(1024 * 1024 + 1));
      expect([res.status, res.body]).toEqual([413, { message: '413 Request Entity Too Large' }]);
      expect((await upload(p.id, owner.token, 'small.bin', new Uint8Array(1024 * 1024))).status).toBe(201);
    } finally {
      await api('/application/settings', { method: 'PUT', token: rootToken, body: { max_attachment_size: 100 } });
    }
  });

  it('exports uploads as uploads/<secret>/<filename>, and an import restores them so the links resolve', async () => {
    const owner = await createUser();
    const p = (await api('/projects', { token: owner.token, body: { name: unique('up') } })).body;
    const data = new TextEncoder().encode('attached log\n');
    const up = (await upload(p.id, owner.token, 'build.log', data)).body;
    const issue = (await api(`/projects/${p.id}/issues`, { token: owner.token, body: { title: 'with file', description: `see ${up.markdown}` } })).body;
    expect((await api(`/projects/${p.id}/issues/${issue.iid}/notes`, { token: owner.token, body: { body: `again ${up.markdown}` } })).status).toBe(201);
    expect((await api(`/projects/${p.id}/export`, { method: 'POST', token: owner.token })).status).toBe(202);
    await waitForExport(p.id, owner.token);
    const gz = await (await download(p.id, owner.token)).arrayBuffer();
    const files = await untar(gz);
    expect(files.get(`.${up.url}`)).toEqual(data);

    const res = await uploadImport(owner.token, new Uint8Array(gz), { path: unique('copy') });
    expect(res.status).toBe(201);
    expect((await waitForImport(owner.token, res.body.id)).body).toMatchObject({ import_status: 'finished', failed_relations: [] });
    const copy = res.body.id;
    const imported = (await api(`/projects/${copy}/issues/${issue.iid}`, { token: owner.token })).body;
    expect(imported.description).toBe(`see ${up.markdown}`);
    const notes = (await api(`/projects/${copy}/issues/${issue.iid}/notes`, { token: owner.token })).body;
    // (Followed by GitLab's "*By … (imported from GitLab)*" line: the author's email is not public, so not matched.)
    expect(notes.filter((n: { body: string }) => n.body.startsWith(`again ${up.markdown}`))).toHaveLength(1);
    // The link of the imported description resolves in the new project, to the same bytes.
    const link = /\((\/uploads\/[^)]+)\)/.exec(imported.description)![1];
    expect(await bytesOf(await fetchUpload(copy, link, owner.token))).toEqual(data);
    // The new project's copy is its own: deleting the source project leaves it.
    expect((await api(`/projects/${p.id}`, { method: 'DELETE', token: owner.token })).status).toBe(202);
    expect(await bytesOf(await fetchUpload(copy, link, owner.token))).toEqual(data);
  });

  it("never writes into another project's upload with the same secret, and refuses names that are not <secret>/<file>", async () => {
    const victim = await createUser();
    const vp = (await api('/projects', { token: victim.token, body: { name: unique('victim') } })).body;
    const original = new TextEncoder().encode('the victim file');
    const up = (await upload(vp.id, victim.token, 'report.pdf', original)).body;
    const secret = up.url.split('/')[2];

    const attacker = await createUser();
    const base = await fixtureArchive();
    expect(base.byteLength).toBeGreaterThan(0);
    const names = Object.keys(TREE).sort();
    const archive = await tarGz([
      ...names.map((n) => ({ name: `./${n}`, body: TREE[n] })),
      { name: `./uploads/${secret}/report.pdf`, body: 'replaced by the attacker' },
      { name: './uploads/not-a-secret/x.txt', body: 'x' },
    ]);
    const res = await uploadImport(attacker.token, archive, { path: unique('attack') });
    expect(res.status).toBe(201);
    const done = (await waitForImport(attacker.token, res.body.id)).body;
    expect(done.import_status).toBe('finished');
    expect(done.failed_relations.map((f: { relation_name: string }) => f.relation_name)).toEqual(['uploads']);
    // The victim's file is unchanged; the attacker's project has its own file under that secret.
    expect(await bytesOf(await fetchUpload(vp.id, up.url, victim.token))).toEqual(original);
    expect(new TextDecoder().decode(await bytesOf(await fetchUpload(res.body.id, up.url, attacker.token)))).toBe('replaced by the attacker');
  });
});
