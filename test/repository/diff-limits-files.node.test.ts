/**
 * diff_max_files (diff-limits.test.ts has the other diff limits): a collection of 1,001 files. Node
 * only: diffing a thousand files reads two thousand blobs per request, longer than a test's time in
 * workerd's local object store; the code path is the one diff-limits.test.ts runs on both runtimes.
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
