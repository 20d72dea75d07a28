/**
 * Who sees what in the issue lists: private projects and confidential issues never appear for
 * callers who may not read them, through any list, filter, X-Total or Link header; authors and
 * assignees see their own confidential issues; Planner and above, and administrators, see all
 * (Issues::ConfidentialityFilter, read_confidential_issues). State is built through the API.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const ROLES = ['anonymous', 'nonmember', 'guest', 'planner', 'reporter', 'author', 'assignee', 'admin'] as const;
type Role = (typeof ROLES)[number];
const MEMBER_LEVEL: Partial<Record<Role, number>> = { guest: 10, planner: 15, reporter: 20, author: 10, assignee: 10 };
const PROJECTS = ['private', 'internal', 'public', 'featurePrivate'] as const;
type Kind = (typeof PROJECTS)[number];

const tokens: Record<Role, string | null> = {} as never;
const userIds: Record<Role, number> = {} as never;
let group: { id: number };
let label: string;
const projects: Record<Kind, { id: number }> = {} as never;
/** Per project: an open public issue, a confidential one by `author`, a confidential one assigned to `assignee`. */
const issues: Record<Kind, { open: number; byAuthor: number; assigned: number }> = {} as never;
const byId = new Map<number, { kind: Kind; which: 'open' | 'byAuthor' | 'assigned' }>();

const isMember = (r: Role) => r in MEMBER_LEVEL;
const canReadProject = (r: Role, k: Kind) =>
  r === 'admin' || isMember(r) || k === 'public' || k === 'featurePrivate' || (k === 'internal' && r !== 'anonymous');
/** issues_access_level=private: members and administrators only. */
const canReadIssues = (r: Role, k: Kind) => canReadProject(r, k) && (k !== 'featurePrivate' || r === 'admin' || isMember(r));
const canSee = (r: Role, k: Kind, which: 'open' | 'byAuthor' | 'assigned') => {
  if (!canReadIssues(r, k)) return false;
  if (which === 'open') return true;
  if (r === 'admin' || (MEMBER_LEVEL[r] ?? 0) >= 15) return true;
  return (which === 'byAuthor' && r === 'author') || (which === 'assigned' && r === 'assignee');
};
const visible = (r: Role, kinds: readonly Kind[] = PROJECTS) =>
  kinds.flatMap((k) => (['open', 'byAuthor', 'assigned'] as const).filter((w) => canSee(r, k, w)).map((w) => issues[k][w])).sort((a, b) => a - b);
const ids = (body: { id: number }[]) => body.map((i) => i.id).sort((a, b) => a - b);

beforeAll(async () => {
  label = unique('leak');
  for (const r of ROLES) {
    if (r === 'anonymous') {
      tokens[r] = null;
      continue;
    }
    const u = await createUser({ admin: r === 'admin' });
    tokens[r] = u.token;
    userIds[r] = u.id;
  }
  const path = unique('g');
  const g = await api('/groups', { token: rootToken, body: { name: path, path, visibility: 'public' } });
  expect(g.status).toBe(201);
  group = g.body;
  for (const r of ROLES) {
    const level = MEMBER_LEVEL[r];
    if (level) expect((await api(`/groups/${group.id}/members`, { token: rootToken, body: { user_id: userIds[r], access_level: level } })).status).toBe(201);
  }
  for (const k of PROJECTS) {
    const body: Record<string, unknown> = { name: unique('p'), namespace_id: group.id, visibility: k === 'featurePrivate' ? 'public' : k };
    if (k === 'featurePrivate') body.issues_access_level = 'private';
    const p = await api('/projects', { token: rootToken, body });
    expect(p.status, p.text).toBe(201);
    projects[k] = p.body;
    const create = async (token: string, extra: Record<string, unknown>) => {
      const res = await api(`/projects/${p.body.id}/issues`, { token, body: { title: unique('t'), labels: label, ...extra } });
      expect(res.status, res.text).toBe(201);
      return res.body.id as number;
    };
    issues[k] = {
      open: await create(rootToken, {}),
      byAuthor: await create(tokens.author!, { confidential: true, title: `secret ${label} author` }),
      assigned: await create(rootToken, { confidential: true, assignee_ids: [userIds.assignee], title: `secret ${label} assigned` }),
    };
    for (const w of ['open', 'byAuthor', 'assigned'] as const) byId.set(issues[k][w], { kind: k, which: w });
  }
});

describe('GET /projects/:id/issues', () => {
  for (const r of ROLES) {
    it(`${r}: sees exactly the issues it may read, and X-Total/Link agree`, async () => {
      for (const k of PROJECTS) {
        const res = await api(`/projects/${projects[k].id}/issues?per_page=1`, { token: tokens[r] });
        if (!canReadProject(r, k)) {
          expect(res.status).toBe(404);
          expect(res.body).toEqual({ message: '404 Project Not Found' });
          continue;
        }
        expect(res.status).toBe(200);
        const expected = visible(r, [k]);
        expect(res.headers.get('x-total'), `${r} ${k}`).toBe(String(expected.length));
        expect(res.headers.get('link')).toContain(`page=${Math.max(expected.length, 1)}&per_page=1&sort=desc&state=all&with_labels_details=false>; rel="last"`);
        const all = await api(`/projects/${projects[k].id}/issues`, { token: tokens[r] });
        expect(ids(all.body), `${r} ${k}`).toEqual(expected);
      }
    });
  }
});

describe('GET /groups/:id/issues and GET /issues?scope=all', () => {
  for (const r of ROLES) {
    it(`${r}: only readable projects and permitted confidential issues`, async () => {
      const expected = visible(r);
      // The group holds only this file's projects.
      const g = await api(`/groups/${group.id}/issues?per_page=100`, { token: tokens[r] });
      expect(g.status).toBe(200);
      expect(ids(g.body)).toEqual(expected);
      expect(g.headers.get('x-total')).toBe(String(expected.length));
      // Instance-wide: root's labelled issues, and the author's (a guest cannot set labels).
      for (const [q, which] of [
        [`labels=${label}`, ['open', 'assigned']],
        [`author_id=${userIds.author}`, ['byAuthor']],
      ] as const) {
        const want = expected.filter((id) => (which as readonly string[]).includes(byId.get(id)!.which));
        const all = await api(`/issues?scope=all&${q}&per_page=100`, { token: tokens[r] });
        expect(all.status).toBe(200);
        expect(ids(all.body), `${r} ${q}`).toEqual(want);
        expect(all.headers.get('x-total')).toBe(String(want.length));
      }
    });
  }
});

describe('filters never reveal hidden issues', () => {
  for (const r of ROLES) {
    it(`${r}: confidential=true, iids, search and assignee filters`, async () => {
      const expected = visible(r).filter((id) => byId.get(id)!.which !== 'open');
      const conf = await api(`/groups/${group.id}/issues?confidential=true&per_page=100`, { token: tokens[r] });
      expect(ids(conf.body)).toEqual(expected);
      expect(conf.headers.get('x-total')).toBe(String(expected.length));
      const confAll = await api(`/issues?scope=all&labels=${label}&confidential=true&per_page=100`, { token: tokens[r] });
      expect(ids(confAll.body)).toEqual(expected.filter((id) => byId.get(id)!.which === 'assigned'));
      for (const k of PROJECTS) {
        if (!canReadProject(r, k)) continue;
        const res = await api(`/projects/${projects[k].id}/issues?iids=1,2,3&assignee_id=${userIds.assignee ?? 0}`, { token: tokens[r] });
        expect(ids(res.body)).toEqual(canSee(r, k, 'assigned') ? [issues[k].assigned] : []);
      }
      if (r !== 'anonymous') {
        const search = await api(`/groups/${group.id}/issues?search=${encodeURIComponent(`secret ${label}`)}&per_page=100`, { token: tokens[r] });
        expect(ids(search.body)).toEqual(expected);
      }
    });
  }

  it('created_by_me and assigned_to_me show the caller their own confidential issues', async () => {
    const mine = await api('/issues?per_page=100', { token: tokens.author });
    expect(ids(mine.body)).toEqual(PROJECTS.map((k) => issues[k].byAuthor).sort((a, b) => a - b));
    const assigned = await api(`/issues?scope=assigned_to_me&labels=${label}&per_page=100`, { token: tokens.assignee });
    expect(ids(assigned.body)).toEqual(PROJECTS.map((k) => issues[k].assigned).sort((a, b) => a - b));
  });

  it('a guest who stops being a member loses the private project', async () => {
    const res = await api(`/groups/${group.id}/members/${userIds.guest}`, { method: 'DELETE', token: rootToken });
    expect(res.status).toBe(204);
    const after = await api(`/groups/${group.id}/issues?per_page=100`, { token: tokens.guest });
    expect(ids(after.body)).toEqual([issues.internal.open, issues.public.open].sort((a, b) => a - b));
  });
});
