/**
 * `GET /merge_requests?scope=all` across projects: its page picks the matching ids first and reads
 * only their rows (finder.ts `idsFirst`). Every order gives the rows of the caller's readable
 * projects only, in the order of its keys, each page a slice of the whole list, the same total on
 * every page.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique, type TestUser } from '../support';

let owner: TestUser;
let dev: TestUser;
let stranger: TestUser;
/** Merge request ids the developer may read, and those it may not. */
const readable = new Set<number>();
const hidden = new Set<number>();

async function projectWith(token: string, visibility: string, titles: string[], into: Set<number>) {
  const p = await api('/projects', { token, body: { path: unique('mrall'), visibility } });
  expect(p.status).toBe(201);
  const pid = p.body.id;
  const init = await api(`/projects/${pid}/repository/commits`, { token, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'README', content: 'r' }] } });
  expect(init.status).toBe(201);
  const made: any[] = [];
  for (const [i, title] of titles.entries()) {
    const b = `topic-${i}`;
    expect((await api(`/projects/${pid}/repository/branches`, { token, body: { branch: b, ref: 'main' } })).status).toBe(201);
    expect((await api(`/projects/${pid}/repository/commits`, { token, body: { branch: b, commit_message: b, actions: [{ action: 'create', file_path: `${b}.txt`, content: b }] } })).status).toBe(201);
    const mr = await api(`/projects/${pid}/merge_requests`, { token, body: { source_branch: b, target_branch: 'main', title } });
    expect(mr.status).toBe(201);
    into.add(mr.body.id);
    made.push(mr.body);
  }
  return { pid, made };
}

beforeAll(async () => {
  [owner, dev, stranger] = await Promise.all([createUser(), createUser(), createUser()]);
  const pub = await projectWith(owner.token, 'public', ['Zeta', 'alpha', 'Mu'], readable);
  const member = await projectWith(owner.token, 'private', ['Beta', 'Omega'], readable);
  expect((await api(`/projects/${member.pid}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } })).status).toBe(201);
  await projectWith(stranger.token, 'private', ['Kappa', 'Lambda'], hidden);
  // A merged one (merged_at), an updated one (updated_at), a prioritised label (label_priority).
  expect((await api(`/projects/${pub.pid}/merge_requests/${pub.made[1].iid}/merge`, { method: 'PUT', token: owner.token })).status).toBe(200);
  const label = unique('lab');
  expect((await api(`/projects/${member.pid}/labels`, { token: owner.token, body: { name: label, color: '#ff0000', priority: 2 } })).status).toBe(201);
  expect((await api(`/projects/${member.pid}/merge_requests/${member.made[1].iid}`, { method: 'PUT', token: owner.token, body: { labels: label } })).status).toBe(200);
  expect((await api(`/projects/${pub.pid}/merge_requests/${pub.made[0].iid}`, { method: 'PUT', token: owner.token, body: { description: 'touched' } })).status).toBe(200);
});

const list = async (q: string) => {
  const res = await api(`/merge_requests?scope=all&${q}`, { token: dev.token });
  expect(res.status).toBe(200);
  return res;
};

/** The list's own keys in the order GitLab sorts them (ties broken by id in the same direction). */
const keyOf: Record<string, (m: any) => (string | number | null)[]> = {
  created_at: (m) => [m.created_at, m.id],
  updated_at: (m) => [m.updated_at, m.id],
  title: (m) => [m.title, m.id],
  merged_at: (m) => [m.merged_at, m.id],
  popularity: (m) => [m.upvotes, m.id],
};

function compare(a: (string | number | null)[], b: (string | number | null)[], dir: number) {
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    // merged_at sorts NULLs last in both directions.
    if (a[i] === null) return 1;
    if (b[i] === null) return -1;
    return (a[i]! < b[i]! ? -1 : 1) * dir;
  }
  return 0;
}

describe('GET /merge_requests?scope=all', () => {
  for (const order of ['created_at', 'updated_at', 'title', 'merged_at', 'popularity', 'label_priority', 'priority', 'milestone_due']) {
    for (const sort of ['desc', 'asc']) {
      it(`order_by=${order}&sort=${sort}: the readable rows in order, paged as slices with one total`, async () => {
        const all = await list(`order_by=${order}&sort=${sort}&per_page=100`);
        const ids = (all.body as any[]).map((m) => m.id);
        expect(new Set(ids)).toEqual(readable);
        expect(ids.some((id) => hidden.has(id))).toBe(false);
        expect(all.headers.get('x-total')).toBe(String(readable.size));
        const key = keyOf[order];
        if (key) expect(ids).toEqual([...(all.body as any[])].sort((a, b) => compare(key(a), key(b), sort === 'asc' ? 1 : -1)).map((m) => m.id));
        const paged: number[] = [];
        for (let page = 1; page <= 3; page++) {
          const res = await list(`order_by=${order}&sort=${sort}&per_page=2&page=${page}`);
          expect(res.headers.get('x-total')).toBe(String(readable.size));
          paged.push(...(res.body as any[]).map((m) => m.id));
        }
        expect(paged).toEqual(ids);
        // Past the end: no rows, the same total.
        const past = await list(`order_by=${order}&sort=${sort}&per_page=2&page=4`);
        expect([past.body, past.headers.get('x-total')]).toEqual([[], String(readable.size)]);
      });
    }
  }

  it('label_priority puts the prioritised label first in both directions', async () => {
    for (const sort of ['desc', 'asc']) {
      const first = (await list(`order_by=label_priority&sort=${sort}`)).body[0];
      expect(first.labels).toHaveLength(1);
    }
  });
});
