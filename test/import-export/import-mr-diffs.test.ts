/**
 * Merge request diffs from the archive: the fixture has no project.bundle, so its merge requests'
 * commits are not in the imported repository; their changes, diffs and commits come from the
 * archive's merge_request_diff (files and commits), as GitLab shows them from its stored diff.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';
import { fixtureArchive, TREE } from './fixture-checks';
import { uploadImport, waitForImport } from './import-support';
import { download, waitForExport } from './export-support';

const archiveMrs = () =>
  TREE['tree/project/merge_requests.ndjson']
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

describe('merge request diffs from the archive', () => {
  it('answers /changes, /diffs and /commits with the files and commits the archive holds', async () => {
    const xMrs = archiveMrs();
    // The fixture has what the checks need: several versions with files and commits, one empty.
    const withFiles = xMrs.filter((m) => m.merge_request_diff?.merge_request_diff_files?.length);
    expect(withFiles.length).toBeGreaterThan(5);
    expect(withFiles.some((m) => m.merge_request_diff.merge_request_diff_files.length >= 15)).toBe(true);
    expect(Object.keys(TREE).some((n) => n.endsWith('.bundle'))).toBe(false);

    const user = await createUser();
    const res = await uploadImport(user.token, await fixtureArchive(), { path: unique('diffs') });
    expect(res.status).toBe(201);
    expect((await waitForImport(user.token, res.body.id)).body.import_status).toBe('finished');
    const id = res.body.id;
    for (const x of xMrs) {
      const files = (x.merge_request_diff?.merge_request_diff_files ?? []).sort((a: any, b: any) => a.relative_order - b.relative_order);
      const commits = (x.merge_request_diff?.merge_request_diff_commits ?? []).sort((a: any, b: any) => a.relative_order - b.relative_order);
      const expected = files.map((f: any) => ({
        diff: f.utf8_diff,
        collapsed: false,
        too_large: !!f.too_large,
        new_path: f.new_path,
        old_path: f.old_path,
        a_mode: f.a_mode,
        b_mode: f.b_mode,
        new_file: !!f.new_file,
        renamed_file: !!f.renamed_file,
        deleted_file: !!f.deleted_file,
        generated_file: false,
      }));
      const changes = await api(`/projects/${id}/merge_requests/${x.iid}/changes`, { token: user.token });
      expect([x.iid, changes.status]).toEqual([x.iid, 200]);
      expect([x.iid, changes.body.changes]).toEqual([x.iid, expected]);
      const diffs = await api(`/projects/${id}/merge_requests/${x.iid}/diffs?per_page=100`, { token: user.token });
      expect([x.iid, diffs.body]).toEqual([x.iid, expected]);
      // unidiff=true: git's file lines before the stored hunks (Gitlab::Git::Diff#unidiff), as for a repository's diffs.
      const unified = expected.map((d: any) => ({ ...d, diff: d.diff ? `--- ${d.new_file ? '/dev/null' : `a/${d.old_path}`}\n+++ ${d.deleted_file ? '/dev/null' : `b/${d.new_path}`}\n${d.diff}` : d.diff }));
      expect([x.iid, (await api(`/projects/${id}/merge_requests/${x.iid}/changes?unidiff=true`, { token: user.token })).body.changes]).toEqual([x.iid, unified]);
      expect([x.iid, (await api(`/projects/${id}/merge_requests/${x.iid}/diffs?per_page=100&unidiff=true`, { token: user.token })).body]).toEqual([x.iid, unified]);
      const got = await api(`/projects/${id}/merge_requests/${x.iid}/commits?per_page=100`, { token: user.token });
      expect([x.iid, got.body.map((c: any) => [c.id, c.message, c.author_email, c.authored_date.slice(0, 19)])]).toEqual([
        x.iid,
        commits.map((c: any) => [c.sha, c.message, c.author_email, new Date(c.authored_date).toISOString().slice(0, 19)]),
      ]);
    }
    // The fixture's versions hold new, changed and deleted files: each kind of file line was checked.
    const allFiles = withFiles.flatMap((m) => m.merge_request_diff.merge_request_diff_files);
    expect([allFiles.some((f: any) => f.new_file), allFiles.some((f: any) => !f.new_file && !f.deleted_file)]).toEqual([true, true]);
    // Paged like any list: the first two files of the largest version, with GitLab's headers.
    const big = withFiles.sort((a, b) => b.merge_request_diff.merge_request_diff_files.length - a.merge_request_diff.merge_request_diff_files.length)[0];
    const page = await api(`/projects/${id}/merge_requests/${big.iid}/diffs?per_page=2`, { token: user.token });
    expect(page.body.map((d: any) => d.new_path)).toEqual(big.merge_request_diff.merge_request_diff_files.slice(0, 2).map((f: any) => f.new_path));
    expect(page.headers.get('x-total')).toBe(String(big.merge_request_diff.merge_request_diff_files.length));

    // Exported again, the stored diffs go with their merge requests: a second import answers the same.
    expect((await api(`/projects/${id}/export`, { method: 'POST', token: user.token })).status).toBe(202);
    await waitForExport(id, user.token);
    const again = await uploadImport(user.token, new Uint8Array(await (await download(id, user.token)).arrayBuffer()), { path: unique('diffs2') });
    expect((await waitForImport(user.token, again.body.id)).body.import_status).toBe('finished');
    for (const x of xMrs) {
      const path = (pid: number, what: string) => `/projects/${pid}/merge_requests/${x.iid}/${what}?per_page=100`;
      for (const what of ['diffs', 'commits']) expect([x.iid, what, (await api(path(again.body.id, what), { token: user.token })).body]).toEqual([x.iid, what, (await api(path(id, what), { token: user.token })).body.map((e: any) => (what === 'commits' ? { ...e, web_url: expect.any(String) } : e))]);
    }
  });
});
