/**
 * `search=` on the merge request lists through the trigram full-text index
 * (drizzle/0017_merge_requests_search.sql, issuables/trigram-search.ts): Gitlab::SQL::Pattern
 * semantics (words of 3+ characters as case-insensitive substrings, all in one column; quoted
 * phrases; a query of only short words equals a whole column), `in=`, hostile input, and the
 * index following every write through its triggers. Runs on D1 and libSQL.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

/** search_rate_limit allows 30 searches a minute per user: spread them over fresh readers. */
const readers: TestUser[] = [];
let used = 0;
async function reader(): Promise<TestUser> {
  if (!readers.length || used >= 25) {
    readers.unshift(await createUser());
    used = 0;
  }
  used++;
  return readers[0];
}

let owner: TestUser;
let group: { id: number };
let project: { id: number };
let branch = 0;

/** A merge request from a fresh branch (one open merge request per source/target pair). */
async function newMr(body: Record<string, unknown>) {
  const source = `s${++branch}`;
  const b = await api(`/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch: source, ref: 'main' } });
  expect(b.status, b.text).toBe(201);
  const res = await api(`/projects/${project.id}/merge_requests`, { token: owner.token, body: { source_branch: source, target_branch: 'main', ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number; iid: number };
}

/** Ids of the project's list (or `path`) for `search`, newest first, plus X-Total. */
async function search(q: string, path = `/projects/${project.id}/merge_requests`) {
  const res = await api(`${path}${path.includes('?') ? '&' : '?'}per_page=100&search=${encodeURIComponent(q)}`, { token: (await reader()).token });
  expect(res.status, `${q}: ${res.text}`).toBe(200);
  return { ids: (res.body as { id: number }[]).map((m) => m.id), total: res.headers.get('x-total') };
}

beforeAll(async () => {
  owner = await createUser();
  const g = await api('/groups', { token: owner.token, body: { name: unique('g'), path: unique('g'), visibility: 'public' } });
  expect(g.status, g.text).toBe(201);
  group = g.body;
  const p = await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.id, visibility: 'public' } });
  expect(p.status, p.text).toBe(201);
  project = p.body;
  const c = await api(`/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'README', content: 'r' }] },
  });
  expect(c.status, c.text).toBe(201);
});

describe('matching', () => {
  let tag: string;
  let crash: { id: number };
  let reverse: { id: number };
  let split: { id: number };
  let umlaut: { id: number };
  let exact: { id: number };
  beforeAll(async () => {
    tag = unique('mq').toLowerCase();
    crash = await newMr({ title: `Crash on START ${tag}`, description: 'Cold cache makes the worker fall over' });
    reverse = await newMr({ title: `start on crash ${tag}` });
    split = await newMr({ title: `alphaword ${tag}`, description: `betaword ${tag}` });
    umlaut = await newMr({ title: `ÄRGER im Büro ${tag}`, description: 'ΣΟΦΊΑ' });
    exact = await newMr({ title: 'Q Z' });
  });

  it('finds by title and by description, case-insensitively, every word of 3+ characters as a substring', async () => {
    expect(await search(`rash ${tag}`)).toEqual({ ids: [reverse.id, crash.id], total: '2' });
    expect((await search(`CRASH ${tag.toUpperCase()}`)).ids).toEqual([reverse.id, crash.id]);
    expect((await search('COLD cache')).ids).toEqual([crash.id]);
    // `on` is shorter than 3 characters and ignored next to longer words.
    expect((await search(`on START ${tag}`)).ids).toEqual([reverse.id, crash.id]);
    expect((await search(`crash ${tag} nowhere`)).ids).toEqual([]);
    expect((await search(`ärger ${tag}`)).ids).toEqual([umlaut.id]);
    expect((await search('σοφία')).ids).toEqual([umlaut.id]);
  });

  it('a quoted phrase matches only as written', async () => {
    expect((await search(`"crash on start" ${tag}`)).ids).toEqual([crash.id]);
    expect((await search(`"on crash start" ${tag}`)).ids).toEqual([]);
  });

  it('all words in one column, and in= picks the columns', async () => {
    expect((await search(`alphaword ${tag}`)).ids).toEqual([split.id]);
    expect((await search('alphaword betaword')).ids).toEqual([]);
    const byTitle = `/projects/${project.id}/merge_requests?in=title`;
    const byDescription = `/projects/${project.id}/merge_requests?in=description`;
    expect((await search('cold cache', byTitle)).ids).toEqual([]);
    expect((await search('cold cache', byDescription)).ids).toEqual([crash.id]);
    expect((await search(`alphaword ${tag}`, byDescription)).ids).toEqual([]);
    expect((await search(`alphaword ${tag}`, `/projects/${project.id}/merge_requests?in=title,description`)).ids).toEqual([split.id]);
  });

  it('a query of only short words must equal a whole column, case-insensitively', async () => {
    expect(await search('q z')).toEqual({ ids: [exact.id], total: '1' });
    expect((await search('Q  z')).ids).toEqual([exact.id]);
    expect((await search('z')).ids).toEqual([]);
  });

  it('FTS5 syntax and LIKE wildcards are literal text, never an error', async () => {
    for (const q of ['NEAR(crash start)', 'title:crash', 'crash*', '"unbalanced', '^start', '%%%', '{title}: x', '(((', '-crash', '\ud83d\ude00\ud83d\ude00\ud83d\ude00']) {
      expect((await search(q)).ids, q).toEqual([]);
    }
    const odd = await newMr({ title: `odd ${tag} a"b"c NEAR(x) 100%_done` });
    expect((await search('a"b"c')).ids).toEqual([odd.id]);
    expect((await search('NEAR(x)')).ids).toEqual([odd.id]);
    expect((await search('100%_done')).ids).toEqual([odd.id]);
    expect((await search('x'.repeat(4096))).ids).toEqual([]);
    expect((await search(Array.from({ length: 400 }, (_, i) => `w${i}x`).join(' '))).ids).toEqual([]);
  });

  it('searching costs no extra storage round trip (the index is read inside the list query)', async () => {
    const token = (await reader()).token;
    const trips = async (q: string) => {
      const res = await api(`/projects/${project.id}/merge_requests?per_page=100${q}`, { token });
      expect(res.status, res.text).toBe(200);
      return Number(res.headers.get('x-storage-round-trips'));
    };
    await trips(''); // the caller's first request warms its cache
    const plain = await trips('');
    expect(plain).toBeGreaterThan(0);
    expect(await trips(`&search=crash+${tag}`)).toBe(plain);
    expect(await trips('&search=q+z&in=title')).toBe(plain);
  });

  it('the group list and /merge_requests?scope=all search through the same index', async () => {
    expect((await search(`"crash on start" ${tag}`, `/groups/${group.id}/merge_requests`)).ids).toEqual([crash.id]);
    expect((await search(`crash ${tag}`, '/merge_requests?scope=all')).ids).toEqual([reverse.id, crash.id]);
  });
});

describe('the index follows writes', () => {
  it('an edited title or description is found by its new text, not its old one', async () => {
    const [oldTitle, newTitle, oldBody, newBody] = ['oldtitle', 'newtitle', 'oldbody', 'newbody'].map(unique);
    const mr = await newMr({ title: oldTitle, description: oldBody });
    expect((await search(oldTitle)).ids).toEqual([mr.id]);
    expect((await search(oldBody)).ids).toEqual([mr.id]);
    const put = await api(`/projects/${project.id}/merge_requests/${mr.iid}`, { method: 'PUT', token: owner.token, body: { title: newTitle, description: newBody } });
    expect(put.status, put.text).toBe(200);
    expect((await search(oldTitle)).ids).toEqual([]);
    expect((await search(oldBody)).ids).toEqual([]);
    expect((await search(newTitle)).ids).toEqual([mr.id]);
    expect((await search(newBody, `/projects/${project.id}/merge_requests?in=description`)).ids).toEqual([mr.id]);
    // A state change leaves the entry alone.
    const close = await api(`/projects/${project.id}/merge_requests/${mr.iid}`, { method: 'PUT', token: owner.token, body: { state_event: 'close' } });
    expect(close.status, close.text).toBe(200);
    expect((await search(newTitle)).ids).toEqual([mr.id]);
  });

  it('a deleted merge request is not found', async () => {
    const word = unique('gone');
    const mr = await newMr({ title: word });
    const kept = await newMr({ title: `${word} kept` });
    expect((await search(word)).ids).toEqual([kept.id, mr.id]);
    const del = await api(`/projects/${project.id}/merge_requests/${mr.iid}`, { method: 'DELETE', token: owner.token });
    expect(del.status, del.text).toBe(204);
    expect(await search(word)).toEqual({ ids: [kept.id], total: '1' });
  });
});
