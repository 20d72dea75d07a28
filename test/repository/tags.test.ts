/** Tags (lib/api/tags.rb) and protected tags (protected_tags.rb), written and read through the API. */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let maintainer: TestUser;
let developer: TestUser;
let reporter: TestUser;

async function newProject() {
  const res = await api('/projects', { token: owner.token, body: { name: unique('tags'), visibility: 'private' } });
  expect(res.status).toBe(201);
  const project = res.body as { id: number; path_with_namespace: string };
  for (const [u, level] of [[maintainer, 40], [developer, 30], [reporter, 20]] as const) {
    expect((await api(`/projects/${project.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
  }
  return project;
}

async function commit(projectId: number, branch: string, message: string, files: Record<string, string>, start?: string): Promise<string> {
  const actions = Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content }));
  const res = await api(`/projects/${projectId}/repository/commits`, { token: owner.token, body: { branch, commit_message: message, actions, ...(start ? { start_branch: start } : {}) } });
  expect(res.status).toBe(201);
  return res.body.id;
}

const tag = (projectId: number, token: string, body: Record<string, unknown>) => api(`/projects/${projectId}/repository/tags`, { token, body });

beforeAll(async () => {
  [owner, maintainer, developer, reporter] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
});

describe('POST /projects/:id/repository/tags', () => {
  it('creates a lightweight tag on a branch and an annotated one on a sha, in GitLab entity shape', async () => {
    const p = await newProject();
    const first = await commit(p.id, 'main', 'First', { 'a.txt': 'a\n' });
    const light = await tag(p.id, developer.token, { tag_name: 'v1.0.0', ref: 'main' });
    expect(light.status).toBe(201);
    expect(Object.keys(light.body)).toEqual(['name', 'message', 'target', 'commit', 'release', 'protected', 'created_at']);
    expect(light.body).toMatchObject({ name: 'v1.0.0', message: null, target: first, release: null, protected: false, created_at: null });
    expect(light.body.commit).toMatchObject({ id: first, title: 'First' });

    const annotated = await tag(p.id, developer.token, { tag_name: 'v1.1.0', ref: first.slice(0, 10), message: '  Release 1.1.0\n' });
    expect(annotated.status).toBe(201);
    expect(annotated.body.message).toBe('Release 1.1.0');
    // The target of an annotated tag is its tag object, not the commit.
    expect(annotated.body.target).toMatch(/^[0-9a-f]{40}$/);
    expect(annotated.body.target).not.toBe(first);
    expect(annotated.body.commit.id).toBe(first);
    expect(annotated.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000\+00:00$/);

    const got = await api(`/projects/${p.id}/repository/tags/v1.1.0`, { token: reporter.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(annotated.body);
  });

  it("answers GitLab's errors: invalid name, unknown target, existing tag, default branch name, sha-like name", async () => {
    const p = await newProject();
    await commit(p.id, 'main', 'First', { 'a.txt': 'a\n' });
    expect((await tag(p.id, developer.token, { tag_name: 'v1', ref: 'main' })).status).toBe(201);
    const cases: [Record<string, unknown>, string][] = [
      [{ tag_name: 'bad..name', ref: 'main' }, 'Tag name invalid'],
      [{ tag_name: 'refs/tags/v2', ref: 'main' }, 'Tag name invalid'],
      [{ tag_name: 'v2', ref: 'nope' }, 'Target nope is invalid'],
      [{ tag_name: 'v2', ref: '' }, 'Target is empty'],
      [{ tag_name: 'v1', ref: 'main' }, 'Tag v1 already exists'],
      [{ tag_name: 'main', ref: 'main' }, 'You cannot use default branch name to create a tag'],
      [{ tag_name: 'a'.repeat(40), ref: 'main' }, 'You cannot create a tag with a SHA-1 or SHA-256 tag name.'],
    ];
    for (const [body, message] of cases) {
      const res = await tag(p.id, developer.token, body);
      expect(res.status, message).toBe(400);
      expect(res.body).toEqual({ message });
    }
    expect((await tag(p.id, developer.token, { ref: 'main' })).body).toEqual({ error: 'tag_name is missing' });
    expect((await tag(p.id, reporter.token, { tag_name: 'v3', ref: 'main' })).status).toBe(403);
    const list = await api(`/projects/${p.id}/repository/tags`, { token: reporter.token });
    expect(list.body.map((t: { name: string }) => t.name)).toEqual(['v1']);
  });

  it('lets refs name tags: commits of a tag, a tag made from a tag', async () => {
    const p = await newProject();
    const first = await commit(p.id, 'main', 'First', { 'a.txt': 'a\n' });
    expect((await tag(p.id, developer.token, { tag_name: 'base', ref: 'main', message: 'annotated' })).status).toBe(201);
    await commit(p.id, 'main', 'Second', { 'b.txt': 'b\n' });
    const fromTag = await tag(p.id, developer.token, { tag_name: 'again', ref: 'base' });
    expect(fromTag.status).toBe(201);
    expect(fromTag.body.target).toBe(first);
    const log = await api(`/projects/${p.id}/repository/commits?ref_name=base`, { token: reporter.token });
    expect(log.status).toBe(200);
    expect(log.body.map((c: { id: string }) => c.id)).toEqual([first]);
  });
});

describe('GET /projects/:id/repository/tags', () => {
  it('searches with ^ and $, orders by name, version and update time, and pages', async () => {
    const p = await newProject();
    await commit(p.id, 'main', 'First', { 'a.txt': 'a\n' });
    for (const name of ['v1.10.0', 'v1.2.0', 'v1.9.0', 'release-1', 'x-v1']) expect((await tag(p.id, developer.token, { tag_name: name, ref: 'main' })).status).toBe(201);
    const names = async (q: string) => {
      const res = await api(`/projects/${p.id}/repository/tags?${q}`, { token: reporter.token });
      expect(res.status).toBe(200);
      return res.body.map((t: { name: string }) => t.name);
    };
    expect(await names('order_by=name&sort=asc')).toEqual(['release-1', 'v1.10.0', 'v1.2.0', 'v1.9.0', 'x-v1']);
    expect(await names('order_by=version&sort=asc&search=^v1')).toEqual(['v1.2.0', 'v1.9.0', 'v1.10.0']);
    expect(await names('order_by=version&search=^v')).toEqual(['v1.10.0', 'v1.9.0', 'v1.2.0']);
    expect(await names('order_by=name&sort=asc&search=V1')).toEqual(['v1.10.0', 'v1.2.0', 'v1.9.0', 'x-v1']);
    expect(await names('order_by=name&sort=asc&search=1$')).toEqual(['release-1', 'x-v1']);
    const page = await api(`/projects/${p.id}/repository/tags?order_by=name&sort=desc&per_page=2&page=2`, { token: reporter.token });
    expect(page.body.map((t: { name: string }) => t.name)).toEqual(['v1.2.0', 'v1.10.0']);
    expect(page.headers.get('x-total')).toBe('5');
    expect(page.headers.get('x-total-pages')).toBe('3');
    // Keyset pages (pagination=keyset): after the tag page_token names, a next link while pages are full.
    const k1 = await api(`/projects/${p.id}/repository/tags?pagination=keyset&order_by=name&sort=asc&per_page=2`, { token: reporter.token });
    expect(k1.body.map((t: { name: string }) => t.name)).toEqual(['release-1', 'v1.10.0']);
    expect(k1.headers.get('x-total')).toBeNull();
    const next = /<([^>]+)>; rel="next"/.exec(k1.headers.get('link') ?? '')?.[1];
    expect(next).toContain('page_token=v1.10.0');
    const k2 = await api(next!.slice(next!.indexOf('/api/v4')), { token: reporter.token });
    expect(k2.body.map((t: { name: string }) => t.name)).toEqual(['v1.2.0', 'v1.9.0']);
    const k3 = await api(`/projects/${p.id}/repository/tags?pagination=keyset&order_by=name&sort=asc&per_page=2&page_token=v1.9.0`, { token: reporter.token });
    expect(k3.body.map((t: { name: string }) => t.name)).toEqual(['x-v1']);
    expect(k3.headers.get('link')).toBeNull();
    const bad = await api(`/projects/${p.id}/repository/tags?pagination=keyset&page_token=nope`, { token: reporter.token });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ message: 'Invalid page token: nope' });
    // A search longer than D1's 50-byte LIKE pattern limit is an ordinary search.
    expect(await names(`search=${'v1'.repeat(40)}`)).toEqual([]);
    expect((await api(`/projects/${p.id}/repository/tags?order_by=date`, { token: reporter.token })).body).toEqual({ error: 'order_by does not have a valid value' });
  });

  it('orders by update time: the tagger date of an annotated tag, else the commit date', async () => {
    const p = await newProject();
    await commit(p.id, 'main', 'First', { 'a.txt': 'a\n' });
    expect((await tag(p.id, developer.token, { tag_name: 'b-light', ref: 'main' })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await tag(p.id, developer.token, { tag_name: 'a-annotated', ref: 'main', message: 'later' })).status).toBe(201);
    const res = await api(`/projects/${p.id}/repository/tags`, { token: reporter.token });
    expect(res.body.map((t: { name: string }) => t.name)).toEqual(['a-annotated', 'b-light']);
    const asc = await api(`/projects/${p.id}/repository/tags?sort=asc`, { token: reporter.token });
    expect(asc.body.map((t: { name: string }) => t.name)).toEqual(['b-light', 'a-annotated']);
  });
});

describe('DELETE /projects/:id/repository/tags/:tag_name', () => {
  it('deletes a tag (204), then 404; a reporter may not', async () => {
    const p = await newProject();
    await commit(p.id, 'main', 'First', { 'a.txt': 'a\n' });
    expect((await tag(p.id, developer.token, { tag_name: 'rel/1.0', ref: 'main' })).status).toBe(201);
    const path = `/projects/${p.id}/repository/tags/${encodeURIComponent('rel/1.0')}`;
    expect((await api(path, { token: reporter.token, method: 'DELETE' })).status).toBe(403);
    expect((await api(path, { token: reporter.token })).body.name).toBe('rel/1.0');
    expect((await api(path, { token: developer.token, method: 'DELETE' })).status).toBe(204);
    const again = await api(path, { token: developer.token, method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: '404 Tag Not Found' });
    expect((await api(path, { token: reporter.token })).body).toEqual({ message: '404 Tag Not Found' });
  });
});

describe('GET /projects/:id/repository/tags/:tag_name/signature', () => {
  it('answers 404 Signature for an unsigned tag, 404 Tag for a missing one, and needs read access to the code', async () => {
    const p = await newProject();
    await commit(p.id, 'main', 'First', { 'a.txt': 'a\n' });
    expect((await tag(p.id, developer.token, { tag_name: 'rel/1.0', ref: 'main' })).status).toBe(201);
    expect((await tag(p.id, developer.token, { tag_name: 'v2', ref: 'main', message: 'annotated, not signed' })).status).toBe(201);
    const signature = (name: string, token = reporter.token) => api(`/projects/${p.id}/repository/tags/${encodeURIComponent(name)}/signature`, { token });
    for (const name of ['rel/1.0', 'v2']) {
      const res = await signature(name);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: '404 Signature Not Found' });
    }
    const missing = await signature('v3');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Tag Not Found' });
    // A private project's code is for reporters and above (read_code); outsiders do not see the project.
    const guest = await createUser();
    expect((await api(`/projects/${p.id}/members`, { token: owner.token, body: { user_id: guest.id, access_level: 10 } })).status).toBe(201);
    expect((await signature('v2', guest.token)).status).toBe(403);
    const outsider = await signature('v2', (await createUser()).token);
    expect(outsider.status).toBe(404);
    expect(outsider.body).toEqual({ message: '404 Project Not Found' });
  });
});
