/**
 * The diff limits of the application settings (diff_max_patch_bytes, diff_max_lines, diff_max_files) as
 * every diff reader applies them: the commit diff, compare, and a merge request's changes, diffs and
 * versions (lib/gitlab/git/diff.rb too_large?, lib/gitlab/git/diff_collection.rb). The settings only go
 * up from GitLab's defaults (their validations), so each test shows the default limit, raises it with
 * PUT /application/settings and sees the effect, then restores it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, withSettings } from '../support';
import { type Setup, setupFor } from './diff-limits-support';

let owner: TestUser;
let setup: (files: Record<string, string>) => Promise<Setup>;

beforeAll(async () => {
  owner = await createUser();
  setup = setupFor(owner);
});

/** Every reader's files, by path: [diff length, too_large, collapsed], and the overflow flags. */
async function readAll(s: Setup) {
  const get = async (path: string) => {
    const res = await api(`/projects/${s.project}${path}`, { token: owner.token });
    expect(res.status).toBe(200);
    return res.body;
  };
  const shape = (diffs: { new_path: string; diff: string; too_large: boolean; collapsed: boolean }[]) => Object.fromEntries(diffs.map((d) => [d.new_path, [d.diff.length, d.too_large, d.collapsed]]));
  const mr = `/merge_requests/${s.iid}`;
  const [commitDiff, compare, changes, rawChanges, diffs, version] = await Promise.all([
    get(`/repository/commits/${s.sha}/diff`),
    get('/repository/compare?from=main&to=topic'),
    get(`${mr}/changes`),
    get(`${mr}/changes?access_raw_diffs=true`),
    get(`${mr}/diffs`),
    get(`${mr}/versions/${s.version}`),
  ]);
  return {
    commitDiff: shape(commitDiff),
    compare: shape(compare.diffs),
    compareTimeout: compare.compare_timeout,
    changes: shape(changes.changes),
    overflow: changes.overflow,
    rawChanges: shape(rawChanges.changes),
    rawOverflow: rawChanges.overflow,
    diffs: shape(diffs),
    version: shape(version.diffs),
  };
}

describe('diff_max_patch_bytes', () => {
  it('prunes a patch that reaches it to "" with too_large everywhere; raised, the patch is shown (collapsed where GitLab does not expand)', async () => {
    // 2,100 lines of 100 bytes: a patch of about 212,000 bytes, past the default 204,800.
    const big = `${'y'.repeat(99)}\n`.repeat(2100);
    const s = await setup({ 'big.txt': big, 'small.txt': 'hi\n' });
    const small = ['@@ -0,0 +1 @@\n+hi\n'.length, false, false];
    const tooLarge = [0, true, false];
    const before = await readAll(s);
    for (const reader of [before.commitDiff, before.compare, before.changes, before.rawChanges, before.diffs, before.version]) expect(reader).toEqual({ 'big.txt': tooLarge, 'small.txt': small });
    expect([before.compareTimeout, before.overflow, before.rawOverflow]).toEqual([false, false, false]);

    await withSettings({ diff_max_patch_bytes: 300000 }, async () => {
      const after = await readAll(s);
      const whole = after.commitDiff['big.txt'];
      expect(whole[0]).toBeGreaterThan(204800);
      expect(whole.slice(1)).toEqual([false, false]);
      // Expanded readers: the commit diff, the merge request's diffs and versions, and changes with access_raw_diffs.
      for (const reader of [after.commitDiff, after.rawChanges, after.diffs, after.version]) expect(reader).toEqual({ 'big.txt': whole, 'small.txt': small });
      // Compare and changes read not expanded: a patch of a tenth of the limit or more collapses.
      for (const reader of [after.compare, after.changes]) expect(reader).toEqual({ 'big.txt': [0, false, true], 'small.txt': small });
    });

    // Restored: too large again.
    expect((await readAll(s)).commitDiff['big.txt']).toEqual(tooLarge);
  });
});

describe('diff_max_lines', () => {
  it('stops the collection at the file that reaches it (overflow, compare_timeout); access_raw_diffs lifts it; raised, every file is back', async () => {
    // 50,000 lines: with its hunk header the patch has 50,001 lines, reaching the default 50,000.
    const s = await setup({ 'a.txt': 'a\n', 'lines.txt': 'x\n'.repeat(50000) });
    const a = ['@@ -0,0 +1 @@\n+a\n'.length, false, false];
    const before = await readAll(s);
    for (const reader of [before.commitDiff, before.compare, before.changes, before.diffs, before.version]) expect(reader).toEqual({ 'a.txt': a });
    expect([before.compareTimeout, before.overflow]).toEqual([true, true]);
    expect(Object.keys(before.rawChanges)).toEqual(['a.txt', 'lines.txt']);
    expect(before.rawChanges['lines.txt'][0]).toBeGreaterThan(150000);
    expect(before.rawOverflow).toBe(false);

    await withSettings({ diff_max_lines: 100000 }, async () => {
      const after = await readAll(s);
      for (const reader of [after.commitDiff, after.diffs, after.version, after.rawChanges]) expect(reader).toEqual(before.rawChanges);
      // Not expanded, the 150 KB patch collapses (a tenth of diff_max_patch_bytes), but it is listed.
      for (const reader of [after.compare, after.changes]) expect(reader).toEqual({ 'a.txt': a, 'lines.txt': [0, false, true] });
      expect([after.compareTimeout, after.overflow]).toEqual([false, false]);
    });
  });
});
