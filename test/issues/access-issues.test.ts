/**
 * The 401/403/404 matrix of the single-issue endpoints: every role (the author and the assignee of a
 * confidential issue are guests) over private, internal and public projects. State through the API.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const ROLES = ['anonymous', 'nonmember', 'guest', 'author', 'assignee', 'reporter', 'developer', 'maintainer', 'owner', 'admin'] as const;
type Role = (typeof ROLES)[number];
const LEVEL: Record<string, number> = { guest: 10, author: 10, assignee: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 };
const VIS = ['private', 'internal', 'public'] as const;
type Vis = (typeof VIS)[number];

const tokens: Record<Role, string | null> = {} as never;
const ids: Record<Role, number> = {} as never;
const projects: Record<Vis, { id: number; open: { id: number; iid: number }; secret: { id: number; iid: number } }> = {} as never;

const member = (r: Role) => r in LEVEL;
const atLeast = (r: Role, n: number) => r === 'admin' || (member(r) && LEVEL[r] >= n);
const canRead = (r: Role, v: Vis) => r === 'admin' || member(r) || v === 'public' || (v === 'internal' && r !== 'anonymous');
const readsSecret = (r: Role) => r === 'author' || r === 'assignee' || atLeast(r, 15);

const NF_PROJECT = { message: '404 Project Not Found' };
const NF = { message: '404 Not found' };
const UNAUTH = { message: '401 Unauthorized' };
const FORBIDDEN = { message: '403 Forbidden' };

interface Case {
  name: string;
  method: string;
  path: (v: Vis) => string;
  body?: () => Record<string, unknown>;
  expect: (r: Role, v: Vis) => [number, unknown?];
}

const CASES: Case[] = [
  { name: 'GET issue', method: 'GET', path: (v) => `/projects/${projects[v].id}/issues/${projects[v].open.iid}`, expect: (r, v) => (canRead(r, v) ? [200] : [404, NF_PROJECT]) },
  {
    name: 'GET confidential issue',
    method: 'GET',
    path: (v) => `/projects/${projects[v].id}/issues/${projects[v].secret.iid}`,
    expect: (r, v) => (!canRead(r, v) ? [404, NF_PROJECT] : readsSecret(r) ? [200] : [404, NF]),
  },
  {
    name: 'POST issue',
    method: 'POST',
    path: (v) => `/projects/${projects[v].id}/issues`,
    body: () => ({ title: unique('t') }),
    expect: (r, v) => (r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : [201]),
  },
  {
    name: 'PUT issue (author or reporter and above)',
    method: 'PUT',
    path: (v) => `/projects/${projects[v].id}/issues/${projects[v].open.iid}`,
    body: () => ({ title: unique('t') }),
    expect: (r, v) => (r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : r === 'author' || atLeast(r, 15) ? [200] : [403, FORBIDDEN]),
  },
  {
    name: 'PUT confidential issue',
    method: 'PUT',
    path: (v) => `/projects/${projects[v].id}/issues/${projects[v].secret.iid}`,
    body: () => ({ description: unique('d') }),
    expect: (r, v) =>
      r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : !readsSecret(r) ? [404, NF] : r === 'author' || atLeast(r, 15) ? [200] : [403, FORBIDDEN],
  },
  {
    name: 'DELETE issue (refusals only)',
    method: 'DELETE',
    path: (v) => `/projects/${projects[v].id}/issues/${projects[v].open.iid}`,
    expect: (r, v) => (r === 'owner' || r === 'admin' ? [-1] : r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : [403, FORBIDDEN]),
  },
  {
    name: 'GET /issues/:id (administrators)',
    method: 'GET',
    path: (v) => `/issues/${projects[v].secret.id}`,
    expect: (r) => (r === 'anonymous' ? [401, UNAUTH] : r === 'admin' ? [200] : [403, FORBIDDEN]),
  },
];

beforeAll(async () => {
  const named = ROLES.filter((r) => r !== 'anonymous' && r !== 'admin');
  const users = await Promise.all(named.map(() => createUser()));
  tokens.anonymous = null;
  tokens.admin = rootToken;
  ids.admin = 1;
  named.forEach((r, i) => {
    tokens[r] = users[i].token;
    ids[r] = users[i].id;
  });
  for (const v of VIS) {
    const path = unique(`iacc${v}`);
    const g = await api('/groups', { token: tokens.owner, body: { name: path, path, visibility: v } });
    for (const r of ['guest', 'author', 'assignee', 'reporter', 'developer', 'maintainer'] as const) {
      const m = await api(`/groups/${g.body.id}/members`, { token: tokens.owner, body: { user_id: ids[r], access_level: LEVEL[r] } });
      if (m.status !== 201) throw new Error(m.text);
    }
    const p = await api('/projects', { token: tokens.owner, body: { path: 'proj', namespace_id: g.body.id, visibility: v } });
    if (p.status !== 201) throw new Error(p.text);
    const open = await api(`/projects/${p.body.id}/issues`, { token: tokens.author, body: { title: 'open' } });
    // The confidential issue is the `author` role's; a guest cannot assign, so the owner assigns afterwards.
    const authored = await api(`/projects/${p.body.id}/issues`, { token: tokens.author, body: { title: 'secret', confidential: true } });
    await api(`/projects/${p.body.id}/issues/${authored.body.iid}`, { method: 'PUT', token: tokens.owner, body: { assignee_ids: [ids.assignee] } });
    if (open.status !== 201 || authored.status !== 201) throw new Error('setup');
    projects[v] = { id: p.body.id, open: open.body, secret: authored.body };
  }
});

describe('issue access matrix', () => {
  for (const cs of CASES) {
    it(cs.name, async () => {
      const failures: string[] = [];
      for (const v of VIS) {
        for (const r of ROLES) {
          const [status, body] = cs.expect(r, v);
          if (status === -1) continue;
          const res = await api(cs.path(v), { method: cs.method, token: tokens[r], body: cs.body?.() });
          if (res.status !== status || (body !== undefined && JSON.stringify(res.body) !== JSON.stringify(body)))
            failures.push(`${r}/${v}: ${res.status} ${res.text.slice(0, 80)} (expected ${status} ${body ? JSON.stringify(body) : ''})`);
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it('the confidential issue stays readable to its assignee and author only among guests', async () => {
    const v = 'private';
    const path = `/projects/${projects[v].id}/issues/${projects[v].secret.iid}`;
    expect((await api(path, { token: tokens.assignee })).body.assignees.map((a: { id: number }) => a.id)).toEqual([ids.assignee]);
    expect((await api(path, { token: tokens.author })).body.author.id).toBe(ids.author);
    expect((await api(path, { token: tokens.guest })).status).toBe(404);
  });
});
