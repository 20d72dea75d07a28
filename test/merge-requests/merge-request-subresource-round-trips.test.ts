/**
 * Issue 13: a merge request's sub-resources (commits, changes, diffs, raw diffs, versions,
 * participants, reviewers, closing and related issues) and an issue's related merge requests answer
 * in at most 2 storage round trips with the caller cached, whatever the page size, on lists that are
 * not empty. The range's commits and manifests are kept per isolate by sha: a push makes new shas,
 * and the answers follow it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

const trips = (res: { headers: Headers }) => {
  // No read is sent twice in one request either.
  expect(res.headers.get('x-storage-repeated-reads')).toBe('0');
  return Number(res.headers.get('x-storage-round-trips'));
};

let owner: TestUser;
let dev: TestUser;
let reporter: TestUser;
let outsider: TestUser;
let pid: number;
let mr: number;
let other: number;
const issues: number[] = [];

async function commit(branch: string, file: string, content = 'x\n') {
  const res = await api(`/projects/${pid}/repository/commits`, { token: owner.token, body: { branch, commit_message: `add ${file}`, actions: [{ action: 'create', file_path: file, content }] } });
  expect(res.status, res.text).toBe(201);
}

/** The caller cached, a first call (it may fill the isolate's sha caches), then the measured one. */
async function measured(url: string, token: string) {
  await api('/user', { token });
  await api(url, { token });
  return api(url, { token });
}

beforeAll(async () => {
  [owner, dev, reporter, outsider] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
  const path = unique('g');
  const group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'private' } })).body;
  pid = (await api('/projects', { token: owner.token, body: { path: 'p', namespace_id: group.id, visibility: 'private' } })).body.id;
  for (const [u, level] of [[dev, 30], [reporter, 20]] as const) expect((await api(`/projects/${pid}/members`, { token: owner.token, body: { user_id: u.id, access_level: level } })).status).toBe(201);
  await commit('main', 'README.md');
  for (const b of ['feature', 'other']) expect((await api(`/projects/${pid}/repository/branches`, { token: owner.token, body: { branch: b, ref: 'main' } })).status).toBe(201);
  await commit('feature', 'a.txt', 'a\n');
  await commit('feature', 'b.txt', 'b\n');
  await commit('other', 'c.txt');
  for (const title of ['one', 'two', 'three']) issues.push((await api(`/projects/${pid}/issues`, { token: owner.token, body: { title } })).body.iid);
  const description = `Closes #${issues[0]} and closes #${issues[1]}, see #${issues[2]}. cc @${reporter.username} @${outsider.username}`;
  const created = await api(`/projects/${pid}/merge_requests`, { token: owner.token, body: { title: 'feature', source_branch: 'feature', target_branch: 'main', description, assignee_ids: [dev.id], reviewer_ids: [dev.id, owner.id] } });
  expect(created.status, created.text).toBe(201);
  mr = created.body.iid;
  other = (await api(`/projects/${pid}/merge_requests`, { token: dev.token, body: { title: 'other', source_branch: 'other', target_branch: 'main', description: `Closes #${issues[0]}` } })).body.iid;
  expect((await api(`/projects/${pid}/merge_requests/${mr}/notes`, { token: dev.token, body: { body: 'looks good' } })).status).toBe(201);
}, 60_000);

describe('merge request sub-resources within 2 round trips', () => {
  it('commits, diffs, changes, raw diffs and versions, and they follow a push', async () => {
    const base = `/projects/${pid}/merge_requests/${mr}`;
    const commits = await measured(`${base}/commits`, owner.token);
    expect(commits.body.map((c: { title: string }) => c.title)).toEqual(['add b.txt', 'add a.txt']);
    expect(trips(commits)).toBeLessThanOrEqual(2);
    const diffs = await measured(`${base}/diffs`, owner.token);
    expect(diffs.body.map((d: { new_path: string }) => d.new_path)).toEqual(['a.txt', 'b.txt']);
    expect(diffs.body[0].diff).toBe('@@ -0,0 +1 @@\n+a\n');
    expect(trips(diffs)).toBeLessThanOrEqual(2);
    const second = await api(`${base}/diffs?per_page=1&page=2`, { token: owner.token });
    expect(second.body.map((d: { new_path: string }) => d.new_path)).toEqual(['b.txt']);
    expect(second.headers.get('x-total')).toBe('2');
    expect(second.body[0].diff).toBe('@@ -0,0 +1 @@\n+b\n');
    const changes = await measured(`${base}/changes`, owner.token);
    expect(changes.body.changes.map((d: { new_path: string }) => d.new_path)).toEqual(['a.txt', 'b.txt']);
    expect(changes.body.changes_count).toBe('2');
    expect(trips(changes)).toBeLessThanOrEqual(2);
    const raw = await measured(`${base}/raw_diffs`, owner.token);
    expect(raw.text).toContain('diff --git a/a.txt b/a.txt');
    expect(raw.text).toContain('diff --git a/b.txt b/b.txt');
    expect(trips(raw)).toBeLessThanOrEqual(2);
    const versions = await measured(`${base}/versions`, owner.token);
    expect(versions.body).toHaveLength(1);
    expect(trips(versions)).toBeLessThanOrEqual(2);
    const version = await measured(`${base}/versions/${versions.body[0].id}`, owner.token);
    expect(version.body.commits).toHaveLength(2);
    expect(version.body.diffs.map((d: { new_path: string }) => d.new_path)).toEqual(['a.txt', 'b.txt']);
    expect(trips(version)).toBeLessThanOrEqual(2);

    // A push moves the source head: new shas, new answers (a cold read of them still within 3).
    await commit('feature', 'c2.txt');
    await api('/user', { token: owner.token });
    const after = await api(`${base}/commits`, { token: owner.token });
    expect(after.body).toHaveLength(3);
    expect(trips(after)).toBeLessThanOrEqual(3);
    expect((await api(`${base}/diffs`, { token: owner.token })).body.map((d: { new_path: string }) => d.new_path)).toEqual(['a.txt', 'b.txt', 'c2.txt']);
    expect((await api(`${base}/changes`, { token: owner.token })).body.changes).toHaveLength(3);
    const newest = await api(`${base}/versions`, { token: owner.token });
    expect(newest.body).toHaveLength(2);
    expect(newest.headers.get('x-total')).toBe('2');
    const older = await api(`${base}/versions?per_page=1&page=2`, { token: owner.token });
    expect(older.body.map((v: { id: number }) => v.id)).toEqual([newest.body[1].id]);
    expect(older.headers.get('x-prev-page')).toBe('1');
    expect(older.headers.get('x-total-pages')).toBe('2');
    expect((await api(`${base}/versions/${newest.body[0].id}`, { token: owner.token })).body.commits).toHaveLength(3);
    expect((await api(`${base}/raw_diffs`, { token: owner.token })).text).toContain('b/c2.txt');
  });

  it('participants, reviewers, closing and related issues, and an issue\'s merge requests: the same for any page size', async () => {
    const base = `/projects/${pid}/merge_requests/${mr}`;
    // The issue's merge requests: the approval state of the page (approvals/state-loader.ts
    // primeApprovalReads) is still read apart from the batch, four round trips of its own.
    const budget = (url: string) => (url.endsWith('related_merge_requests') ? 1 + 4 : 2);
    const lists: [string, (body: any[]) => void][] = [
      // The author, the commenter and assignee, the reviewers, then those mentioned who may read it (not the outsider).
      [`${base}/participants`, (b) => expect(b.map((u) => u.id)).toEqual([owner.id, dev.id, reporter.id])],
      [`${base}/reviewers`, (b) => expect(b.map((r) => r.user.id)).toEqual([dev.id, owner.id])],
      [`${base}/closes_issues`, (b) => expect(b.map((i) => i.iid)).toEqual([issues[0], issues[1]])],
      [`${base}/related_issues`, (b) => expect(b.map((i) => i.iid)).toEqual(issues)],
      [`/projects/${pid}/issues/${issues[0]}/related_merge_requests`, (b) => expect(b.map((m) => m.iid)).toEqual([mr, other])],
    ];
    for (const [url, check] of lists) {
      const all = await measured(url, owner.token);
      expect(all.status, url).toBe(200);
      check(all.body);
      expect(trips(all), url).toBeLessThanOrEqual(budget(url));
      const one = await api(`${url}?per_page=1`, { token: owner.token });
      const hundred = await api(`${url}?per_page=100`, { token: owner.token });
      expect(one.body, url).toHaveLength(1);
      expect(trips(hundred), url).toBe(trips(one));
    }
  });
  it('closing and related issues of another project: confidential ones only for who may read them (assignee, level)', async () => {
    // A public project's merge request closes issues of another public project where the reader is no member.
    const reader = await createUser();
    const path = unique('pub');
    const group = (await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'public' } })).body;
    const mk = async (name: string) => (await api('/projects', { token: owner.token, body: { path: name, namespace_id: group.id, visibility: 'public' } })).body;
    const [a, b] = [await mk('a'), await mk('b')];
    const issue = async (body: Record<string, unknown>) => (await api(`/projects/${b.id}/issues`, { token: owner.token, body })).body.iid as number;
    const open = await issue({ title: 'open' });
    const mine = await issue({ title: 'assigned', confidential: true, assignee_ids: [reader.id] });
    const hidden = await issue({ title: 'hidden', confidential: true });
    expect((await api(`/projects/${a.id}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'r', content: 'r' }] } })).status).toBe(201);
    expect((await api(`/projects/${a.id}/repository/branches`, { token: owner.token, body: { branch: 'f', ref: 'main' } })).status).toBe(201);
    expect((await api(`/projects/${a.id}/repository/commits`, { token: owner.token, body: { branch: 'f', commit_message: 'f', actions: [{ action: 'create', file_path: 'f', content: 'f' }] } })).status).toBe(201);
    const ref = `${path}/b`;
    const description = `Closes ${ref}#${open}, ${ref}#${mine} and ${ref}#${hidden}`;
    const created = await api(`/projects/${a.id}/merge_requests`, { token: owner.token, body: { title: 'x', source_branch: 'f', target_branch: 'main', description } });
    expect(created.status, created.text).toBe(201);
    for (const sub of ['closes_issues', 'related_issues']) {
      const url = `/projects/${a.id}/merge_requests/${created.body.iid}/${sub}`;
      expect((await api(url, { token: owner.token })).body.map((i: { iid: number }) => i.iid)).toEqual([open, mine, hidden]);
      const seen = await measured(url, reader.token);
      expect(seen.body.map((i: { iid: number }) => i.iid)).toEqual([open, mine]);
      expect(trips(seen)).toBeLessThanOrEqual(2);
    }
  });
});
