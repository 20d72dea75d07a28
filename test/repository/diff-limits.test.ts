/**
 * The diff limits of the application settings (diff_max_patch_bytes, diff_max_lines, diff_max_files) as
 * every diff reader applies them: the commit diff, compare, and a merge request's changes, diffs and
 * versions (lib/gitlab/git/diff.rb too_large?, lib/gitlab/git/diff_collection.rb). The settings only go
 * up from GitLab's defaults (their validations), so each test shows the default limit, raises it with
 * PUT /application/settings and sees the effect, then restores it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

let owner: TestUser;

beforeAll(async () => {
  owner = await createUser();
});

async function withSettings(changes: Record<string, unknown>, body: () => Promise<void>) {
  const before = (await api('/application/settings', { token: rootToken })).body;
  const put = await api('/application/settings', { method: 'PUT', token: rootToken, body: changes });
  expect(put.status).toBe(200);
  try {
    await body();
  } finally {
    const restore = Object.fromEntries(Object.keys(changes).map((k) => [k, before[k]]));
    expect((await api('/application/settings', { method: 'PUT', token: rootToken, body: restore })).status).toBe(200);
  }
}

interface Setup {
  project: number;
  sha: string;
  iid: number;
  version: number;
}

/** A project whose `main` has one file, a branch that adds `files` in one commit, and a merge request of it. */
async function setup(files: Record<string, string>): Promise<Setup> {
  const p = await api('/projects', { token: owner.token, body: { name: unique('difflim') } });
  expect(p.status).toBe(201);
  const project = p.body.id as number;
  const first = await api(`/projects/${project}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'seed', actions: [{ action: 'create', file_path: 'seed.txt', content: 'seed\n' }] } });
  expect(first.status).toBe(201);
  const actions = Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content }));
  const second = await api(`/projects/${project}/repository/commits`, { token: owner.token, body: { branch: 'topic', start_branch: 'main', commit_message: 'big', actions } });
  expect(second.status).toBe(201);
  const mr = await api(`/projects/${project}/merge_requests`, { token: owner.token, body: { source_branch: 'topic', target_branch: 'main', title: 'limits' } });
  expect(mr.status).toBe(201);
  const versions = await api(`/projects/${project}/merge_requests/${mr.body.iid}/versions`, { token: owner.token });
  expect(versions.status).toBe(200);
  return { project, sha: second.body.id, iid: mr.body.iid, version: versions.body[0].id };
}

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

describe('diff_max_files', () => {
  it('stops the collection after it (overflow, real_size and changes_count `N+`); raised, a new version holds every file', async () => {
    const files = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${String(i).padStart(4, '0')}.txt`, `${i}\n`]));
    const s = await setup(files);
    const mr = `/projects/${s.project}/merge_requests/${s.iid}`;
    const read = async (path: string) => (await api(path, { token: owner.token })).body;
    const [entity, changes, version, raw] = await Promise.all([read(mr), read(`${mr}/changes`), read(`${mr}/versions/${s.version}`), read(`${mr}/changes?access_raw_diffs=true`)]);
    expect(entity.changes_count).toBe('1000+');
    expect([version.state, version.real_size, version.diffs.length]).toEqual(['overflow', '1000+', 1000]);
    expect([changes.overflow, changes.changes.length]).toEqual([true, 1000]);
    // Not expanded, the files past the safe limit (a tenth of diff_max_files) collapse.
    expect(changes.changes.slice(0, 100).every((d: { collapsed: boolean; diff: string }) => !d.collapsed && d.diff)).toBe(true);
    expect(changes.changes.slice(100).every((d: { collapsed: boolean; diff: string }) => d.collapsed && d.diff === '')).toBe(true);
    expect([raw.overflow, raw.changes.length]).toEqual([false, 1001]);
    const commitDiff = await api(`/projects/${s.project}/repository/commits/${s.sha}/diff?per_page=100&page=11`, { token: owner.token });
    expect([commitDiff.headers.get('x-total'), commitDiff.body.length]).toEqual(['1000', 0]);

    await withSettings({ diff_max_files: 1100 }, async () => {
      expect((await read(mr)).changes_count).toBe('1001');
      const after = await read(`${mr}/changes`);
      expect([after.overflow, after.changes.length]).toEqual([false, 1001]);
      // A new version (a push to the source branch) is collected under the raised limit.
      const push = await api(`/projects/${s.project}/repository/commits`, { token: owner.token, body: { branch: 'topic', commit_message: 'more', actions: [{ action: 'create', file_path: 'zz.txt', content: 'z\n' }] } });
      expect(push.status).toBe(201);
      const [newest] = await read(`${mr}/versions`);
      expect([newest.state, newest.real_size]).toEqual(['collected', '1002']);
      const diffs = await api(`${mr}/diffs?per_page=100&page=11`, { token: owner.token });
      expect([diffs.headers.get('x-total'), diffs.body.length]).toEqual(['1002', 2]);
    });
  });
});
