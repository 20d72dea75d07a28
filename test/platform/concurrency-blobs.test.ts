/**
 * Concurrent commits that store the same content (issue 12): every commit stores its files under
 * content-addressed blob keys, so twenty commits of one file to twenty branches write one key twenty
 * times at once. On Node's filesystem store the writers once shared a temporary file name and seven
 * of twenty answered 500 without their file.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

let owner: TestUser;

beforeAll(async () => {
  owner = await createUser();
});

describe('concurrent commits of identical content', () => {
  it('accepts 20 parallel commits of the same file to 20 branches, and every branch has the file', async () => {
    const p = await api('/projects', { token: owner.token, body: { name: unique('blobs'), visibility: 'private' } });
    expect(p.status).toBe(201);
    const pid = p.body.id;
    const base = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'base', actions: [{ action: 'create', file_path: 'README.md', content: 'base\n' }] } });
    expect(base.status).toBe(201);

    const content = `the same content in every branch ${unique('c')}\n`.repeat(200);
    const branches = Array.from({ length: 20 }, (_, i) => `same-${i}`);
    const started = Date.now();
    const results = await Promise.all(
      branches.map((branch) =>
        api(`/projects/${pid}/repository/commits`, {
          token: owner.token,
          body: { branch, start_branch: 'main', commit_message: `same content on ${branch}`, actions: [{ action: 'create', file_path: 'shared/data.txt', content }] },
        }),
      ),
    );
    const elapsed = Date.now() - started;
    expect(results.map((r) => r.status)).toEqual(branches.map(() => 201));
    expect(elapsed).toBeGreaterThan(0);

    const files = await Promise.all(branches.map((branch) => api(`/projects/${pid}/repository/files/shared%2Fdata.txt/raw?ref=${branch}`, { token: owner.token })));
    expect(files.map((f) => f.status)).toEqual(branches.map(() => 200));
    expect(files.every((f) => f.text === content)).toBe(true);
    const listed = await api(`/projects/${pid}/repository/branches?per_page=100`, { token: owner.token });
    expect(listed.body.map((b: { name: string }) => b.name).sort()).toEqual(['main', ...branches].sort());
  });
});
