/** The merge base of refs (repositories.rb merge_base) and the refs containing a commit (commits.rb commits/:sha/refs). */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let reporter: TestUser;
let outsider: TestUser;

async function newProject() {
  const res = await api('/projects', { token: owner.token, body: { name: unique('refs'), visibility: 'private' } });
  expect(res.status).toBe(201);
  expect((await api(`/projects/${res.body.id}/members`, { token: owner.token, body: { user_id: reporter.id, access_level: 20 } })).status).toBe(201);
  return res.body as { id: number };
}

async function commit(projectId: number, branch: string, file: string, start?: string): Promise<string> {
  const res = await api(`/projects/${projectId}/repository/commits`, {
    token: owner.token,
    body: { branch, commit_message: `add ${file}`, actions: [{ action: 'create', file_path: file, content: `${file}\n` }], ...(start ? { start_branch: start } : {}) },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

/**
 *   root -- m1 (main)
 *       \-- a1 (feature-a, tag ta)
 *       \-- b1 -- b2 (feature-b)
 * with tag `t-root` on root.
 */
async function history() {
  const p = await newProject();
  const root = await commit(p.id, 'main', 'root.txt');
  const a1 = await commit(p.id, 'feature-a', 'a.txt', 'main');
  const b1 = await commit(p.id, 'feature-b', 'b.txt', 'main');
  const b2 = await commit(p.id, 'feature-b', 'b2.txt');
  const m1 = await commit(p.id, 'main', 'm.txt');
  for (const [tag_name, ref] of [['t-root', root], ['ta', 'feature-a']]) expect((await api(`/projects/${p.id}/repository/tags`, { token: owner.token, body: { tag_name, ref } })).status).toBe(201);
  return { p, root, a1, b1, b2, m1 };
}

beforeAll(async () => {
  [owner, reporter, outsider] = await Promise.all([createUser(), createUser(), createUser()]);
});

describe('GET /projects/:id/repository/merge_base', () => {
  it('finds the common ancestor of two or more refs (branches, tags, shas)', async () => {
    const h = await history();
    const base = await api(`/projects/${h.p.id}/repository/merge_base?refs[]=feature-a&refs[]=feature-b`, { token: reporter.token });
    expect(base.status).toBe(200);
    expect(base.body.id).toBe(h.root);
    expect(base.body.title).toBe('add root.txt');
    // A branch against its own ancestor: the ancestor; refs given comma-separated.
    expect((await api(`/projects/${h.p.id}/repository/merge_base?refs=feature-b,${h.b1.slice(0, 8)}`, { token: reporter.token })).body.id).toBe(h.b1);
    // More than two refs, a tag among them.
    expect((await api(`/projects/${h.p.id}/repository/merge_base?refs[]=ta&refs[]=feature-b&refs[]=main`, { token: reporter.token })).body.id).toBe(h.root);
    // As `git merge-base A B C`: A against a merge of B and C, not the ancestor common to all three (root).
    expect((await api(`/projects/${h.p.id}/repository/merge_base?refs[]=feature-b&refs[]=ta&refs[]=${h.b1}`, { token: reporter.token })).body.id).toBe(h.b1);
  });

  it("answers GitLab's 400 bodies, and 404 to those who may not see the project", async () => {
    const h = await history();
    const one = await api(`/projects/${h.p.id}/repository/merge_base?refs[]=main`, { token: reporter.token });
    expect(one.status).toBe(400);
    expect(one.body).toEqual({ message: 'Provide at least 2 refs' });
    expect((await api(`/projects/${h.p.id}/repository/merge_base?refs[]=main&refs[]=nope`, { token: reporter.token })).body).toEqual({ message: 'Could not find ref: nope' });
    expect((await api(`/projects/${h.p.id}/repository/merge_base?refs[]=x&refs[]=main&refs[]=y`, { token: reporter.token })).body).toEqual({ message: 'Could not find refs: x, y' });
    expect((await api(`/projects/${h.p.id}/repository/merge_base`, { token: reporter.token })).body).toEqual({ error: 'refs is missing' });
    expect((await api(`/projects/${h.p.id}/repository/merge_base?refs[]=main&refs[]=ta`, { token: outsider.token })).status).toBe(404);
  });
});

describe('GET /projects/:id/repository/commits/:sha/refs', () => {
  it('lists the branches, then the tags, whose history contains the commit, by type and paged', async () => {
    const h = await history();
    const all = await api(`/projects/${h.p.id}/repository/commits/${h.root}/refs`, { token: reporter.token });
    expect(all.status).toBe(200);
    expect(all.body).toEqual([
      { type: 'branch', name: 'feature-a' },
      { type: 'branch', name: 'feature-b' },
      { type: 'branch', name: 'main' },
      { type: 'tag', name: 't-root' },
      { type: 'tag', name: 'ta' },
    ]);
    expect(all.headers.get('x-total')).toBe('5');
    expect((await api(`/projects/${h.p.id}/repository/commits/${h.b1}/refs`, { token: reporter.token })).body).toEqual([{ type: 'branch', name: 'feature-b' }]);
    expect((await api(`/projects/${h.p.id}/repository/commits/ta/refs?type=tag`, { token: reporter.token })).body).toEqual([{ type: 'tag', name: 'ta' }]);
    expect((await api(`/projects/${h.p.id}/repository/commits/${h.root}/refs?type=branch&per_page=2&page=2`, { token: reporter.token })).body).toEqual([{ type: 'branch', name: 'main' }]);
    const missing = await api(`/projects/${h.p.id}/repository/commits/${'0'.repeat(40)}/refs`, { token: reporter.token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Commit Not Found' });
    expect((await api(`/projects/${h.p.id}/repository/commits/${h.root}/refs?type=note`, { token: reporter.token })).body).toEqual({ error: 'type does not have a valid value' });
  });
});
