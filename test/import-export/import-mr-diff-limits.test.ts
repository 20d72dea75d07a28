/**
 * diff_max_patch_bytes on merge request diffs stored from an archive (import-diffs.ts,
 * merge-requests/changes-routes.ts): the import keeps a patch under the limit in force, and the readers
 * prune one that reaches the limit in force when they read (`diff: ""`, `too_large: true`).
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique, withSettings } from '../support';
import { TREE } from './fixture-checks';
import { uploadImport, waitForImport } from './import-support';
import { tarGz } from './tar-builder';

/** The fixture with the first file of the first merge request that has files given `patch` as its diff. */
function archiveWith(patch: string) {
  const lines = TREE['tree/project/merge_requests.ndjson'].split('\n').filter((l) => l.trim());
  const at = lines.findIndex((l) => JSON.parse(l).merge_request_diff?.merge_request_diff_files?.length);
  const mr = JSON.parse(lines[at]);
  const file = [...mr.merge_request_diff.merge_request_diff_files].sort((a: any, b: any) => a.relative_order - b.relative_order)[0];
  Object.assign(file, { utf8_diff: patch, diff: patch, too_large: false });
  lines[at] = JSON.stringify(mr);
  const tree: Record<string, string> = { ...TREE, 'tree/project/merge_requests.ndjson': `${lines.join('\n')}\n` };
  const names = Object.keys(tree).sort();
  return { iid: mr.iid as number, path: file.new_path as string, archive: tarGz([{ name: './', type: '5' }, { name: './tree/', type: '5' }, { name: './tree/project/', type: '5' }, ...names.map((n) => ({ name: `./${n}`, body: tree[n] }))]) };
}

describe('diff_max_patch_bytes on archive-stored merge request diffs', () => {
  it('keeps a patch under the limit at import and prunes it when a lower limit is in force on reading', async () => {
    // About 250,000 bytes: past the default 204,800, under 300,000.
    const patch = `@@ -0,0 +1,2500 @@\n${`+${'p'.repeat(98)}\n`.repeat(2500)}`;
    const { iid, path, archive } = archiveWith(patch);
    const user = await createUser();
    const read = async (project: number) => {
      const [changes, diffs] = await Promise.all([
        api(`/projects/${project}/merge_requests/${iid}/changes`, { token: user.token }),
        api(`/projects/${project}/merge_requests/${iid}/diffs?per_page=100`, { token: user.token }),
      ]);
      expect([changes.status, diffs.status]).toEqual([200, 200]);
      const pick = (list: any[]) => list.filter((d) => d.new_path === path).map((d) => [d.diff.length, d.too_large]);
      return { changes: pick(changes.body.changes), diffs: pick(diffs.body) };
    };

    // Imported under the default limit: stored too large, with no text.
    const low = await uploadImport(user.token, await archive, { path: unique('dl') });
    expect((await waitForImport(user.token, low.body.id)).body.import_status).toBe('finished');
    expect(await read(low.body.id)).toEqual({ changes: [[0, true]], diffs: [[0, true]] });

    let high = 0;
    await withSettings({ diff_max_patch_bytes: 300000 }, async () => {
      const res = await uploadImport(user.token, await archive, { path: unique('dh') });
      expect((await waitForImport(user.token, res.body.id)).body.import_status).toBe('finished');
      high = res.body.id;
      // /diffs is expanded; /changes is not and collapses a patch of a tenth of the limit, unless it is the only file.
      const got = await read(high);
      expect(got.diffs).toEqual([[patch.length, false]]);
      expect(got.changes[0][1]).toBe(false);
      // A pruned patch stays pruned: the earlier import kept no text.
      expect((await read(low.body.id)).diffs).toEqual([[0, true]]);
    });

    // The default again: the stored patch is pruned on reading.
    expect(await read(high)).toEqual({ changes: [[0, true]], diffs: [[0, true]] });
  });
});
