/**
 * Hostile and broken archives: each ends `failed` with a clear import_error (or a failed line in
 * failed_relations), writes nothing outside the new project, and the server keeps answering.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';
import { type BuildMember, exportTree, gzip, tar, tarGz } from './tar-builder';
import { uploadImport, waitForImport } from './import-support';

async function importArchive(archive: Uint8Array) {
  const user = await createUser();
  const res = await uploadImport(user.token, archive, { path: unique('imp') });
  expect(res.status).toBe(201);
  const done = await waitForImport(user.token, res.body.id);
  return { user, id: res.body.id as number, status: done.body };
}

const withMember = (m: BuildMember) => tarGz([...exportTree({ relations: { issues: [{ iid: 1, title: 'Should not land', author_id: 1 }] } }), m]);

describe('import of hostile archives', () => {
  it.each([
    ['a `..` member', { name: './tree/../../escape', body: 'x' }, "Archive member path contains '..'"],
    ['an absolute member name', { name: '/etc/passwd', body: 'x' }, 'Archive member has an absolute or invalid path'],
    ['a symbolic link', { name: './tree/project/notes.ndjson', type: '2', linkname: '/etc/passwd' }, 'Archive contains a symbolic link'],
    ['a hard link', { name: './tree/project/hard.ndjson', type: '1', linkname: 'VERSION' }, 'Archive contains a hard link'],
    ['a device file', { name: './dev', type: '3' }, 'Archive contains a device or fifo'],
  ] as [string, BuildMember, string][])('fails on %s, writing nothing', async (_, member, message) => {
    const { user, id, status } = await importArchive(await withMember(member));
    expect(status).toMatchObject({ import_status: 'failed', import_error: message });
    expect((await api(`/projects/${id}/issues`, { token: user.token })).body).toEqual([]);
  });

  it('fails on a version other than 0.2.4 with GitLab message, and on a malformed VERSION', async () => {
    const old = await importArchive(await tarGz(exportTree({ version: '0.2.3', relations: { labels: [{ title: 'x', color: '#000000' }] } })));
    expect(old.status).toMatchObject({ import_status: 'failed', import_error: 'Import version mismatch: Required 0.2.4 but was 0.2.3' });
    expect((await api(`/projects/${old.id}/labels`, { token: old.user.token })).body).toEqual([]);
    const bad = await importArchive(await tarGz(exportTree({ version: 'not-a-version' })));
    expect(bad.status).toMatchObject({ import_status: 'failed', import_error: 'Incorrect VERSION format' });
    // Below Maintainer the error itself is not shown (newer GitLab's read_import_error).
    const guest = await createUser();
    expect((await api(`/projects/${bad.id}/members`, { token: bad.user.token, body: { user_id: guest.id, access_level: 10 } })).status).toBe(201);
    const seen = await api(`/projects/${bad.id}/import`, { token: guest.token });
    expect(seen.body).toMatchObject({ import_status: 'failed', import_error: 'Ask a maintainer to check the import status for more details.' });
  });

  it('fails on data that is not a gzip archive, a missing tree and a malformed project.json', async () => {
    expect((await importArchive(new TextEncoder().encode('just some text'))).status).toMatchObject({ import_status: 'failed', import_error: 'Unable to decompress the archive' });
    expect((await importArchive(await tarGz([{ name: './VERSION', body: '0.2.4' }]))).status).toMatchObject({ import_status: 'failed', import_error: 'Project tree is missing from the archive' });
    const broken = await tarGz([{ name: './VERSION', body: '0.2.4' }, { name: './tree/project.json', body: '{"description": "unterminated' }]);
    expect((await importArchive(broken)).status).toMatchObject({ import_status: 'failed', import_error: 'Error parsing project.json: malformed JSON' });
  });

  it('stops a gzip bomb at max_decompressed_archive_size', async () => {
    const bomb = await gzip(tar([...exportTree(), { name: './zeros', body: new Uint8Array(3 << 20) }]));
    expect(bomb.byteLength).toBeLessThan(64 * 1024);
    try {
      expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: { max_decompressed_archive_size: 1 } })).body.max_decompressed_archive_size).toBe(1);
      const { status } = await importArchive(bomb);
      expect(status).toMatchObject({ import_status: 'failed', import_error: 'Decompressed archive size validation failed.' });
    } finally {
      await api('/application/settings', { method: 'PUT', token: rootToken, body: { max_decompressed_archive_size: 25600 } });
    }
  });

  it('fails only the malformed, oversized or invalid line of a relation, with its relation_name and line_number', async () => {
    const lines = [JSON.stringify({ iid: 1, title: 'Good one' }), '{"iid": 2, "title": ', 'x'.repeat(17 * 1024 * 1024), JSON.stringify({ iid: 4, title: '' }), JSON.stringify({ iid: 5, title: 'Good two' })];
    const { user, id, status } = await importArchive(await tarGz(exportTree({ relations: { issues: lines.join('\n') + '\n' } })));
    expect(status.import_status).toBe('finished');
    expect(status.import_error).toBeNull();
    const failed = status.failed_relations.map((f: any) => [f.relation_name, f.line_number, f.exception_class, f.exception_message, f.source]);
    expect(failed).toEqual([
      ['issues', 3, 'ActiveRecord::RecordInvalid', "Validation failed: Title can't be blank", 'process_relation_item!'],
      ['issues', 2, 'Gitlab::ImportExport::Error', 'Line exceeds the maximum size', 'process_relation_item!'],
      ['issues', 1, 'JSON::ParserError', 'Malformed JSON', 'process_relation_item!'],
    ]);
    // Never the archive's content in the messages.
    expect(JSON.stringify(status)).not.toContain('xxxx');
    const issues = await api(`/projects/${id}/issues`, { token: user.token });
    expect(issues.body.map((i: any) => i.title).sort()).toEqual(['Good one', 'Good two']);
  });

  it('ignores ids that point at other projects: rows land in the new project only', async () => {
    const victim = await createUser();
    const vp = await api('/projects', { token: victim.token, body: { name: unique('victim') } });
    const vIssue = await api(`/projects/${vp.body.id}/issues`, { token: victim.token, body: { title: 'Victim issue' } });
    const vLabel = await api(`/projects/${vp.body.id}/labels`, { token: victim.token, body: { name: 'victim-label', color: '#123456' } });
    const hostile = {
      id: vIssue.body.id,
      iid: vIssue.body.iid,
      project_id: vp.body.id,
      title: 'Hostile',
      author_id: victim.id,
      milestone_id: 1,
      notes: [{ note: 'injected', noteable_id: vIssue.body.id, noteable_type: 'Issue', project_id: vp.body.id, author_id: victim.id }],
      label_links: [{ label_id: vLabel.body.id, target_id: vIssue.body.id, label: { id: vLabel.body.id, title: 'victim-label', color: '#654321', project_id: vp.body.id } }],
    };
    const { user, id, status } = await importArchive(await tarGz(exportTree({ relations: { issues: [hostile] } })));
    expect(status.import_status).toBe('finished');
    const imported = await api(`/projects/${id}/issues/${vIssue.body.iid}`, { token: user.token });
    expect(imported.body).toMatchObject({ project_id: id, title: 'Hostile', author: { id: user.id }, labels: ['victim-label'] });
    expect(imported.body.id).not.toBe(vIssue.body.id);
    // The victim's project is untouched.
    expect((await api(`/projects/${vp.body.id}/issues/${vIssue.body.iid}/notes`, { token: victim.token })).body).toEqual([]);
    const vLabels = await api(`/projects/${vp.body.id}/labels`, { token: victim.token });
    expect(vLabels.body.map((l: any) => [l.name, l.color])).toEqual([['victim-label', '#123456']]);
    expect((await api(`/projects/${vp.body.id}/issues`, { token: victim.token })).body.map((i: any) => i.title)).toEqual(['Victim issue']);
    // And the server is healthy.
    expect((await api('/user', { token: user.token })).status).toBe(200);
  });
});
