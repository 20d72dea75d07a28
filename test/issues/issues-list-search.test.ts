/**
 * `search=` on the issue lists through the trigram full-text index (drizzle/0009_issues_search.sql,
 * services/issue-finder.ts searchSql): Gitlab::SQL::Pattern semantics (words of 3+ characters as
 * case-insensitive substrings, all in one column; quoted phrases; a query of only short words
 * equals a whole column), `in=`, and the index following every write through its triggers
 * (create, title/description edits, deletion). Runs on D1 and libSQL.
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
let project: { id: number };
let group: { id: number };

async function newIssue(body: Record<string, unknown>, projectId = project.id, token = owner.token) {
  const res = await api(`/projects/${projectId}/issues`, { token, body });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number; iid: number; title: string };
}

/** Ids of a public project's list for `search` (and more query), newest first, plus X-Total. */
async function search(q: string, opts: { path?: string; token?: string } = {}) {
  const path = opts.path ?? `/projects/${project.id}/issues`;
  const res = await api(`${path}${path.includes('?') ? '&' : '?'}per_page=100&search=${encodeURIComponent(q)}`, { token: opts.token ?? (await reader()).token });
  expect(res.status, `${q}: ${res.text}`).toBe(200);
  return { ids: (res.body as { id: number }[]).map((i) => i.id), total: res.headers.get('x-total') };
}

beforeAll(async () => {
  owner = await createUser();
  const g = await api('/groups', { token: owner.token, body: { name: unique('g'), path: unique('g'), visibility: 'public' } });
  expect(g.status, g.text).toBe(201);
  group = g.body;
  const p = await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.id, visibility: 'public' } });
  expect(p.status, p.text).toBe(201);
  project = p.body;
});

describe('matching', () => {
  let tag: string;
  let crash: { id: number };
  let reverse: { id: number };
  let split: { id: number };
  let umlaut: { id: number };
  let exact: { id: number };
  let longer: { id: number };
  beforeAll(async () => {
    tag = unique('zq').toLowerCase();
    crash = await newIssue({ title: `Crash on START ${tag}`, description: 'Cold cache makes the worker fall over' });
    reverse = await newIssue({ title: `start on crash ${tag}` });
    split = await newIssue({ title: `alphaword ${tag}`, description: `betaword ${tag}` });
    umlaut = await newIssue({ title: `ÄRGER im Büro ${tag}`, description: 'ΣΟΦΊΑ' });
    exact = await newIssue({ title: 'Q Z' });
    longer = await newIssue({ title: 'q z y' });
  });

  it('every word of 3+ characters is a case-insensitive substring (also inside words)', async () => {
    expect(await search(`rash ${tag}`)).toEqual({ ids: [reverse.id, crash.id], total: '2' });
    expect(await search(`CRASH ${tag.toUpperCase()}`)).toEqual({ ids: [reverse.id, crash.id], total: '2' });
    // `on` is shorter than 3 characters and ignored next to longer words.
    expect((await search(`on START ${tag}`)).ids).toEqual([reverse.id, crash.id]);
    expect((await search(`crash ${tag} nowhere`)).ids).toEqual([]);
  });

  it('non-ASCII letters fold case like ILIKE', async () => {
    expect((await search(`ärger ${tag}`)).ids).toEqual([umlaut.id]);
    expect((await search('büro ärger ' + tag.toUpperCase())).ids).toEqual([umlaut.id]);
    expect((await search('σοφία')).ids).toEqual([umlaut.id]);
  });

  it('a quoted phrase matches only as written, in order', async () => {
    expect((await search(`"crash on start" ${tag}`)).ids).toEqual([crash.id]);
    expect((await search(`"start on crash" ${tag}`)).ids).toEqual([reverse.id]);
    expect((await search(`"on crash start" ${tag}`)).ids).toEqual([]);
  });

  it('all words must be in the same column (title OR description), and in= picks the columns', async () => {
    expect((await search(`alphaword ${tag}`)).ids).toEqual([split.id]);
    expect((await search(`alphaword betaword`)).ids).toEqual([]);
    expect((await search(`cold cache`)).ids).toEqual([crash.id]);
    const byTitle = `/projects/${project.id}/issues?in=title`;
    const byDescription = `/projects/${project.id}/issues?in=description`;
    expect((await search('cold cache', { path: byTitle })).ids).toEqual([]);
    expect((await search('cold cache', { path: byDescription })).ids).toEqual([crash.id]);
    expect((await search('betaword', { path: byTitle })).ids).toEqual([]);
    expect((await search(`alphaword ${tag}`, { path: byDescription })).ids).toEqual([]);
    expect((await search(`alphaword ${tag}`, { path: `/projects/${project.id}/issues?in=title,description` })).ids).toEqual([split.id]);
  });

  it('a query of only short words must equal a whole column, case-insensitively', async () => {
    expect(await search('q z')).toEqual({ ids: [exact.id], total: '1' });
    expect((await search('Q  z')).ids).toEqual([exact.id]);
    expect((await search('q z y')).ids).toEqual([longer.id]);
    expect((await search('z y')).ids).toEqual([]);
  });

  it('FTS5 syntax and LIKE wildcards in the query are literal text, never an error', async () => {
    for (const q of ['NEAR(crash start)', 'title:crash', 'crash*', '"unbalanced', 'a"b"c', '^start', '%%%', '___', '{title}: x', '(((', ')))', '-crash', '+start', 'tab\tted', '\ud83d\ude00\ud83d\ude00\ud83d\ude00']) {
      expect((await search(q)).ids, q).toEqual([]);
    }
    // OR is a short word like any other, not an operator.
    expect((await search(`crash OR start ${tag}`)).ids).toEqual([reverse.id, crash.id]);
    const odd = await newIssue({ title: `odd ${tag} a"b"c NEAR(x) 100%_done` });
    expect((await search('a"b"c')).ids).toEqual([odd.id]);
    expect((await search('NEAR(x)')).ids).toEqual([odd.id]);
    expect((await search('100%_done')).ids).toEqual([odd.id]);
    // Gitlab::Middleware::HandleNullBytes: a NUL byte in a parameter is a 400 (JSON here, platform/limits.ts).
    for (const q of ['nul\u0000byte', '\u0000\u0000\u0000']) {
      const res = await api(`/projects/${project.id}/issues?search=${encodeURIComponent(q)}`, { token: owner.token });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'search contains a null byte' });
    }
    // Hundreds of words: one bound parameter, a deep FTS5 expression, still 200.
    const many = Array.from({ length: 400 }, (_, i) => `w${i}x`).join(' ');
    expect((await search(many)).ids).toEqual([]);
  });

  it('the group list and /issues?scope=all search through the same index', async () => {
    expect((await search(`"crash on start" ${tag}`, { path: `/groups/${group.id}/issues` })).ids).toEqual([crash.id]);
    expect((await search(`crash ${tag}`, { path: '/issues?scope=all' })).ids).toEqual([reverse.id, crash.id]);
    expect((await search(`crash ${tag}`, { path: `/groups/${group.id}/issues?in=title&state=opened` })).total).toBe('2');
  });
});

describe('round trips', () => {
  it('a project list search costs no round trip of its own (the index probe rides with the project lookup)', async () => {
    const p = await api('/projects', { token: owner.token, body: { name: unique('p'), visibility: 'public' } });
    expect(p.status, p.text).toBe(201);
    const word = unique('probe');
    await newIssue({ title: `${word} one` }, p.body.id);
    const token = (await reader()).token;
    const trips = async (q: string, expected: number) => {
      const res = await api(`/projects/${p.body.id}/issues${q}`, { token });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toHaveLength(expected);
      return Number(res.headers.get('x-storage-round-trips'));
    };
    await trips('', 1); // the caller's first request warms its cache
    const plain = await trips('', 1);
    expect(plain).toBeGreaterThan(0);
    expect(await trips(`?search=${word}`, 1)).toBe(plain);
    expect(await trips(`?search=${word}&in=title`, 1)).toBe(plain);
    // Anonymous callers too (on D1 the batched lookup once lost the project: findReadableProjectWith).
    const anonymous = await api(`/projects/${p.body.id}/issues?search=${word}`);
    expect(anonymous.status, anonymous.text).toBe(200);
    expect(anonymous.body).toHaveLength(1);
  });
});

describe('the index follows writes', () => {
  it('an edited title or description is found by its new text, not its old one', async () => {
    const oldTitle = unique('oldtitle');
    const newTitle = unique('newtitle');
    const oldBody = unique('oldbody');
    const newBody = unique('newbody');
    const issue = await newIssue({ title: oldTitle, description: oldBody });
    expect((await search(oldTitle)).ids).toEqual([issue.id]);
    expect((await search(oldBody)).ids).toEqual([issue.id]);

    const put = await api(`/projects/${project.id}/issues/${issue.iid}`, { method: 'PUT', token: owner.token, body: { title: newTitle } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.title).toBe(newTitle);
    expect((await search(oldTitle)).ids).toEqual([]);
    expect((await search(newTitle)).ids).toEqual([issue.id]);
    expect((await search(oldBody)).ids).toEqual([issue.id]);

    const desc = await api(`/projects/${project.id}/issues/${issue.iid}`, { method: 'PUT', token: owner.token, body: { description: newBody } });
    expect(desc.status, desc.text).toBe(200);
    expect((await search(oldBody)).ids).toEqual([]);
    expect((await search(newBody)).ids).toEqual([issue.id]);
    expect((await search(newTitle)).ids).toEqual([issue.id]);

    // Other updates (state) leave the entry alone; a cleared description is no longer found.
    const close = await api(`/projects/${project.id}/issues/${issue.iid}`, { method: 'PUT', token: owner.token, body: { state_event: 'close' } });
    expect(close.status, close.text).toBe(200);
    expect((await search(newBody)).ids).toEqual([issue.id]);
    const cleared = await api(`/projects/${project.id}/issues/${issue.iid}`, { method: 'PUT', token: owner.token, body: { description: '' } });
    expect(cleared.status, cleared.text).toBe(200);
    expect((await search(newBody)).ids).toEqual([]);
    expect((await search(newTitle)).ids).toEqual([issue.id]);
  });

  it('a deleted issue is not found', async () => {
    const word = unique('gone');
    const issue = await newIssue({ title: word });
    const kept = await newIssue({ title: `${word} kept` });
    expect((await search(word)).ids).toEqual([kept.id, issue.id]);
    const del = await api(`/projects/${project.id}/issues/${issue.iid}`, { method: 'DELETE', token: owner.token });
    expect(del.status, del.text).toBe(204);
    expect(await search(word)).toEqual({ ids: [kept.id], total: '1' });
    expect((await api(`/projects/${project.id}/issues/${issue.iid}`, { token: owner.token })).status).toBe(404);
  });
});

describe('confidential issues', () => {
  it('are not leaked through search results or counts', async () => {
    const word = unique('secret');
    const open = await newIssue({ title: `${word} public` });
    const hidden = await newIssue({ title: `${word} hidden`, confidential: true });
    const stranger = await createUser();
    const paths = [`/projects/${project.id}/issues`, `/groups/${group.id}/issues`, '/issues?scope=all'];
    for (const path of paths) {
      expect(await search(word, { path, token: stranger.token }), path).toEqual({ ids: [open.id], total: '1' });
    }
    expect(await search(word, { token: owner.token })).toEqual({ ids: [hidden.id, open.id], total: '2' });
    expect(await search(`${word} hidden`, { path: `/groups/${group.id}/issues`, token: stranger.token })).toEqual({ ids: [], total: '0' });
  });
});
