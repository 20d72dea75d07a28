/** Merge requests without a repository behind them: validation, empty lists, access to the lists. */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let guest: TestUser;
let reporter: TestUser;
let outsider: TestUser;
let priv: { id: number; path_with_namespace: string };
let pub: { id: number };

beforeAll(async () => {
  [owner, guest, reporter, outsider] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
  const a = await api('/projects', { token: owner.token, body: { name: unique('mrp'), visibility: 'private' } });
  expect(a.status).toBe(201);
  priv = a.body;
  const b = await api('/projects', { token: owner.token, body: { name: unique('mrq'), visibility: 'public' } });
  expect(b.status).toBe(201);
  pub = b.body;
  for (const [u, level] of [[guest, 10], [reporter, 20]] as const) {
    const m = await api(`/projects/${priv.id}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } });
    expect(m.status).toBe(201);
  }
});

describe('POST /projects/:id/merge_requests validation', () => {
  it('requires title, source_branch and target_branch (Grape 400)', async () => {
    const res = await api(`/projects/${priv.id}/merge_requests`, { token: owner.token, body: { title: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'source_branch is missing, target_branch is missing' });
  });

  it('refuses the same source and target branch with 422', async () => {
    const res = await api(`/projects/${priv.id}/merge_requests`, { token: owner.token, body: { title: 'x', source_branch: 'main', target_branch: 'main' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: ["You can't use same project/branch for source and target"] });
  });

  it('refuses a blank title and invalid branch names with 400', async () => {
    const blank = await api(`/projects/${priv.id}/merge_requests`, { token: owner.token, body: { title: ' ', source_branch: 'a', target_branch: 'b' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ message: { title: ["can't be blank"] } });
    const bad = await api(`/projects/${priv.id}/merge_requests`, { token: owner.token, body: { title: 'x', source_branch: 'a..b', target_branch: 'b' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: { source_branch: ['is invalid'] } });
  });

  it('refuses branches that do not exist with 422 and writes nothing', async () => {
    const res = await api(`/projects/${priv.id}/merge_requests`, { token: owner.token, body: { title: 'x', source_branch: 'nope', target_branch: 'main' } });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('Source branch "nope" does not exist');
    const list = await api(`/projects/${priv.id}/merge_requests`, { token: owner.token });
    expect(list.body).toEqual([]);
  });

  it('needs Developer: 403 for a reporter, 404 for a non-member of a private project, 401 anonymous', async () => {
    const body = { title: 'x', source_branch: 'a', target_branch: 'b' };
    expect((await api(`/projects/${priv.id}/merge_requests`, { token: reporter.token, body })).status).toBe(403);
    const hidden = await api(`/projects/${priv.id}/merge_requests`, { token: outsider.token, body });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Project Not Found' });
    expect((await api(`/projects/${pub.id}/merge_requests`, { token: outsider.token, body })).status).toBe(403);
    expect((await api(`/projects/${pub.id}/merge_requests`, { body })).status).toBe(401);
  });
});

describe('merge request lists', () => {
  it('project list: empty page with headers for a reporter; 403 for a guest of a private project; 404 for outsiders', async () => {
    const res = await api(`/projects/${priv.id}/merge_requests`, { token: reporter.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.get('x-total')).toBe('0');
    expect(res.headers.get('x-page')).toBe('1');
    const g = await api(`/projects/${priv.id}/merge_requests`, { token: guest.token });
    expect(g.status).toBe(403);
    expect(g.body).toEqual({ message: '403 Forbidden' });
    expect((await api(`/projects/${priv.id}/merge_requests`, { token: outsider.token })).status).toBe(404);
    expect((await api(`/projects/${priv.id}/merge_requests`)).status).toBe(404);
    expect((await api(`/projects/${pub.id}/merge_requests`)).status).toBe(200);
  });

  it('/merge_requests needs sign-in unless scope=all; validates its enums', async () => {
    const anon = await api('/merge_requests');
    expect(anon.status).toBe(401);
    expect((await api('/merge_requests?scope=all')).status).toBe(200);
    const bad = await api('/merge_requests?state=nope', { token: owner.token });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'state does not have a valid value' });
    const excl = await api('/merge_requests?author_id=1&author_username=root', { token: owner.token });
    expect(excl.status).toBe(400);
    expect(excl.body).toEqual({ error: 'author_id, author_username are mutually exclusive' });
  });

  it('a missing merge request is 404 Not found, a guest of a private project gets 404 for a missing one too', async () => {
    const res = await api(`/projects/${priv.id}/merge_requests/999`, { token: owner.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Not found' });
  });
});
