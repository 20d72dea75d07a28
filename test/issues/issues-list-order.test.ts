/**
 * Order and pages of the many-project issue lists (/groups/:id/issues, /issues?scope=all) ordered
 * by created_at or updated_at: the page comes from a per-project union when that is smaller than
 * sorting every match (services/issue-finder.ts issueUnionPageQuery, early pages over few
 * projects) and from the plain sorted query otherwise (later pages); both must give GitLab's
 * order, `id DESC` breaking ties, and the same filters.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, type TestUser, unique } from '../support';

interface Issue {
  id: number;
  iid: number;
  project_id: number;
  state: string;
  confidential: boolean;
  created_at: string;
  updated_at: string;
}

let owner: TestUser;
let group: { id: number };
const projects: { id: number }[] = [];
const created: Issue[] = [];
// A window of created_at values no other test uses, so /issues?scope=all sees only these.
const base = Date.UTC(2001, 0, 1) + Math.floor(Math.random() * 1e6) * 60_000;
const window = `created_after=${new Date(base - 1000).toISOString()}&created_before=${new Date(base + 3_600_000).toISOString()}`;

const by = (key: 'created_at' | 'updated_at', dir: 'asc' | 'desc') => (a: Issue, b: Issue) => {
  const d = Date.parse(a[key]) - Date.parse(b[key]);
  return (dir === 'asc' ? d : -d) || b.id - a.id;
};

async function list(path: string, token = owner.token) {
  const res = await api(path, { token });
  expect(res.status, res.text).toBe(200);
  return { ids: (res.body as Issue[]).map((i) => i.id), total: res.headers.get('x-total'), next: res.headers.get('x-next-page') };
}

beforeAll(async () => {
  owner = await createUser();
  const g = await api('/groups', { token: owner.token, body: { name: unique('g'), path: unique('g'), visibility: 'private' } });
  expect(g.status, g.text).toBe(201);
  group = g.body;
  for (let i = 0; i < 3; i++) {
    const p = await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.id, visibility: 'private' } });
    expect(p.status, p.text).toBe(201);
    projects.push(p.body);
  }
  // 15 issues over 3 projects; created_at offsets repeat across and within projects (ties).
  const offsets = [0, 5, 5, 9, 0, 5, 7, 7, 1, 9, 9, 2, 5, 0, 3];
  for (const [k, off] of offsets.entries()) {
    const project = projects[(k * 7) % 3];
    const res = await api(`/projects/${project.id}/issues`, {
      token: owner.token,
      body: { title: `order ${k}`, created_at: new Date(base + off * 60_000).toISOString(), confidential: k % 5 === 0 },
    });
    expect(res.status, res.text).toBe(201);
    created.push(res.body);
  }
  // Closing and editing some moves their updated_at to now, in this order.
  for (const k of [3, 11, 0, 7]) {
    const issue = created[k];
    const res = await api(`/projects/${issue.project_id}/issues/${issue.iid}`, { method: 'PUT', token: owner.token, body: k % 2 ? { state_event: 'close' } : { title: `edited ${k}` } });
    expect(res.status, res.text).toBe(200);
    created[k] = res.body;
  }
});

describe('many-project lists keep their order on every page', () => {
  const variants: [string, string, (i: Issue) => boolean, (a: Issue, b: Issue) => number][] = [
    ['created_at desc', '', () => true, by('created_at', 'desc')],
    ['created_at asc', 'sort=asc', () => true, by('created_at', 'asc')],
    ['updated_at desc', 'order_by=updated_at', () => true, by('updated_at', 'desc')],
    ['updated_at asc', 'order_by=updated_at&sort=asc', () => true, by('updated_at', 'asc')],
    ['opened, created_at desc', 'state=opened', (i) => i.state === 'opened', by('created_at', 'desc')],
    ['closed, updated_at desc', 'state=closed&order_by=updated_at', (i) => i.state === 'closed', by('updated_at', 'desc')],
  ];
  for (const [name, query, keep, order] of variants) {
    it(`${name}: /groups/:id/issues and /issues?scope=all, every page size`, async () => {
      const expected = created.filter(keep).sort(order).map((i) => i.id);
      expect(expected.length).toBeGreaterThan(1);
      for (const path of [`/groups/${group.id}/issues?${query}`, `/issues?scope=all&${window}&${query}`]) {
        const all = await list(`${path}&per_page=100`);
        expect(all.ids, path).toEqual(expected);
        expect(all.total).toBe(String(expected.length));
        for (const perPage of [1, 2, 4]) {
          const pages: number[] = [];
          for (let page = 1; page <= Math.ceil(expected.length / perPage); page++) {
            const res = await list(`${path}&per_page=${perPage}&page=${page}`);
            expect(res.total).toBe(String(expected.length));
            expect(res.ids, `${path} per_page=${perPage} page=${page}`).toEqual(expected.slice((page - 1) * perPage, page * perPage));
            pages.push(...res.ids);
          }
          expect(pages).toEqual(expected);
        }
      }
    });
  }

  it('a reporter sees the same order; a guest does not see confidential issues on any page', async () => {
    const reporter = await createUser();
    const guest = await createUser();
    expect((await api(`/groups/${group.id}/members`, { token: owner.token, body: { user_id: reporter.id, access_level: 20 } })).status).toBe(201);
    expect((await api(`/groups/${group.id}/members`, { token: owner.token, body: { user_id: guest.id, access_level: 10 } })).status).toBe(201);
    const everything = created.slice().sort(by('created_at', 'desc')).map((i) => i.id);
    const visible = created.filter((i) => !i.confidential).sort(by('created_at', 'desc')).map((i) => i.id);
    expect(visible.length).toBeLessThan(everything.length);
    for (const [user, expected] of [
      [reporter, everything],
      [guest, visible],
    ] as const) {
      for (const path of [`/groups/${group.id}/issues`, `/issues?scope=all&${window}`]) {
        const pages: number[] = [];
        for (let page = 1; page <= Math.ceil(expected.length / 2); page++) {
          const res = await list(`${path}${path.includes('?') ? '&' : '?'}per_page=2&page=${page}`, user.token);
          expect(res.total).toBe(String(expected.length));
          pages.push(...res.ids);
        }
        expect(pages, path).toEqual(expected);
      }
    }
  });
});
