/**
 * The 401/403/404 matrix: every project, group and member endpoint against every role, over
 * private, internal and public groups and projects. State is built through the API.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const ROLES = ['anonymous', 'nonmember', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin'] as const;
type Role = (typeof ROLES)[number];
const LEVEL: Record<string, number> = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 };
const VIS = ['private', 'internal', 'public'] as const;
type Vis = (typeof VIS)[number];

const tokens: Record<Role, string | null> = {} as never;
const ids: Record<Role, number> = {} as never;
const groups: Record<Vis, { id: number; path: string }> = {} as never;
const projects: Record<Vis, { id: number }> = {} as never;

const member = (r: Role) => r in LEVEL;
const atLeast = (r: Role, n: number) => r === 'admin' || (member(r) && LEVEL[r] >= n);
/** Readable: admin, members, internal for signed-in, public for all. */
const canRead = (r: Role, v: Vis) => r === 'admin' || member(r) || v === 'public' || (v === 'internal' && r !== 'anonymous');

const NF_PROJECT = { message: '404 Project Not Found' };
const NF_GROUP = { message: '404 Group Not Found' };
const UNAUTH = { message: '401 Unauthorized' };
const FORBIDDEN = { message: '403 Forbidden' };

interface Case {
  name: string;
  method: string;
  path: (v: Vis) => string;
  body?: (r: Role) => Record<string, unknown>;
  /** Expected status and body for a role and visibility. */
  expect: (r: Role, v: Vis) => [number, unknown?];
}

/** A write: 401 anonymous, 404 when unreadable, 403 below `min`, else `ok`. */
const write = (min: number, nf: unknown, ok: number) => (r: Role, v: Vis): [number, unknown?] =>
  r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, nf] : atLeast(r, min) ? [ok] : [403, FORBIDDEN];
const read = (nf: unknown) => (r: Role, v: Vis): [number, unknown?] => (canRead(r, v) ? [200] : [404, nf]);
/** members.rb runs `authenticate!` for every route, reads included. */
const signedInRead = (nf: unknown) => (r: Role, v: Vis): [number, unknown?] => (r === 'anonymous' ? [401, UNAUTH] : read(nf)(r, v));

const CASES: Case[] = [
  { name: 'GET project', method: 'GET', path: (v) => `/projects/${projects[v].id}`, expect: read(NF_PROJECT) },
  { name: 'GET project members', method: 'GET', path: (v) => `/projects/${projects[v].id}/members`, expect: signedInRead(NF_PROJECT) },
  { name: 'GET project members/all', method: 'GET', path: (v) => `/projects/${projects[v].id}/members/all`, expect: signedInRead(NF_PROJECT) },
  { name: 'PUT project', method: 'PUT', path: (v) => `/projects/${projects[v].id}`, body: () => ({ description: unique('d') }), expect: write(40, NF_PROJECT, 200) },
  {
    name: 'DELETE project (refusals only)',
    method: 'DELETE',
    path: (v) => `/projects/${projects[v].id}`,
    expect: (r, v) => (r === 'owner' || r === 'admin' ? [-1] : write(50, NF_PROJECT, 202)(r, v)),
  },
  {
    name: 'POST project member',
    method: 'POST',
    path: (v) => `/projects/${projects[v].id}/members`,
    body: () => ({ user_id: 0, access_level: 30 }),
    expect: write(40, NF_PROJECT, 201),
  },
  { name: 'GET group', method: 'GET', path: (v) => `/groups/${groups[v].id}`, expect: read(NF_GROUP) },
  { name: 'GET group by path', method: 'GET', path: (v) => `/groups/${encodeURIComponent(groups[v].path)}`, expect: read(NF_GROUP) },
  { name: 'GET group members', method: 'GET', path: (v) => `/groups/${groups[v].id}/members`, expect: signedInRead(NF_GROUP) },
  { name: 'GET subgroups', method: 'GET', path: (v) => `/groups/${groups[v].id}/subgroups`, expect: read(NF_GROUP) },
  { name: 'GET descendant groups', method: 'GET', path: (v) => `/groups/${groups[v].id}/descendant_groups`, expect: read(NF_GROUP) },
  { name: 'GET group projects', method: 'GET', path: (v) => `/groups/${groups[v].id}/projects`, expect: read(NF_GROUP) },
  { name: 'PUT group', method: 'PUT', path: (v) => `/groups/${groups[v].id}`, body: () => ({ description: unique('d') }), expect: write(50, NF_GROUP, 200) },
  {
    name: 'DELETE group (refusals only)',
    method: 'DELETE',
    path: (v) => `/groups/${groups[v].id}`,
    expect: (r, v) => (r === 'owner' || r === 'admin' ? [-1] : write(50, NF_GROUP, 202)(r, v)),
  },
  {
    name: 'PUT group member (the guest, unchanged level)',
    method: 'PUT',
    path: (v) => `/groups/${groups[v].id}/members/${ids.guest}`,
    body: () => ({ access_level: 10 }),
    expect: (r, v) => (r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_GROUP] : atLeast(r, 50) ? [200] : [403, FORBIDDEN]),
  },
  {
    name: 'DELETE group member that does not exist',
    method: 'DELETE',
    path: (v) => `/groups/${groups[v].id}/members/999999999`,
    // members.rb finds the membership before Members::DestroyService authorizes.
    expect: (r, v) => (r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_GROUP] : [404, { message: '404 Not found' }]),
  },
  {
    name: 'DELETE project member who is only an inherited member (404 Not found)',
    method: 'DELETE',
    path: (v) => `/projects/${projects[v].id}/members/${ids.developer}`,
    expect: (r, v) => (r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : [404, { message: '404 Not found' }]),
  },
  { name: 'POST group member', method: 'POST', path: (v) => `/groups/${groups[v].id}/members`, body: () => ({ user_id: 0, access_level: 30 }), expect: write(50, NF_GROUP, 201) },
  {
    name: 'POST subgroup',
    method: 'POST',
    path: () => '/groups',
    body: () => ({ name: 'x', path: unique('sg'), parent_id: 0 }),
    // subgroup_creation_level maintainer (the default); the subgroup's visibility is the default, private.
    expect: (r, v) => (r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_GROUP] : atLeast(r, 40) ? [201] : [403, FORBIDDEN]),
  },
];

beforeAll(async () => {
  const users = await Promise.all(['nonmember', 'guest', 'reporter', 'developer', 'maintainer', 'owner'].map(() => createUser()));
  tokens.anonymous = null;
  tokens.admin = rootToken;
  ids.admin = 1;
  ['nonmember', 'guest', 'reporter', 'developer', 'maintainer', 'owner'].forEach((r, i) => {
    tokens[r as Role] = users[i].token;
    ids[r as Role] = users[i].id;
  });
  for (const v of VIS) {
    const path = unique(`acc${v}`);
    const g = await api('/groups', { token: tokens.owner, body: { name: path, path, visibility: v } });
    groups[v] = { id: g.body.id, path };
    for (const r of ['guest', 'reporter', 'developer', 'maintainer'] as const) {
      const m = await api(`/groups/${g.body.id}/members`, { token: tokens.owner, body: { user_id: ids[r], access_level: LEVEL[r] } });
      if (m.status !== 201) throw new Error(m.text);
    }
    const p = await api('/projects', { token: tokens.owner, body: { path: 'proj', namespace_id: g.body.id, visibility: v } });
    if (p.status !== 201) throw new Error(p.text);
    projects[v] = { id: p.body.id };
  }
});

describe('access matrix', () => {
  for (const cs of CASES) {
    it(cs.name, async () => {
      const failures: string[] = [];
      for (const v of VIS) {
        for (const r of ROLES) {
          const [status, body] = cs.expect(r, v);
          if (status === -1) continue;
          let payload = cs.body?.(r);
          if (payload && 'user_id' in payload) payload = { ...payload, user_id: (await createUser()).id };
          if (payload && 'parent_id' in payload) payload = { ...payload, parent_id: groups[v].id };
          const res = await api(cs.path(v), { method: cs.method, token: tokens[r], body: payload });
          if (res.status !== status || (body !== undefined && JSON.stringify(res.body) !== JSON.stringify(body)))
            failures.push(`${r}/${v}: ${res.status} ${res.text.slice(0, 80)} (expected ${status} ${body ? JSON.stringify(body) : ''})`);
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it('lists only what the caller may read, with matching totals', async () => {
    for (const r of ROLES) {
      const res = await api(`/projects?search=proj&per_page=100`, { token: tokens[r] });
      const seen = new Set(res.body.map((p: any) => p.id));
      for (const v of VIS) expect([r, v, seen.has(projects[v].id)]).toEqual([r, v, canRead(r, v)]);
      const groupsRes = await api(`/groups?all_available=true&per_page=100&search=acc`, { token: tokens[r] });
      const gseen = new Set(groupsRes.body.map((g: any) => g.id));
      for (const v of VIS) expect([r, v, gseen.has(groups[v].id)]).toEqual([r, v, canRead(r, v)]);
    }
  });

  it('an external user does not see internal projects or groups', async () => {
    const ext = await createUser({ attrs: { external: true } });
    expect((await api(`/projects/${projects.internal.id}`, { token: ext.token })).body).toEqual(NF_PROJECT);
    expect((await api(`/groups/${groups.internal.id}`, { token: ext.token })).body).toEqual(NF_GROUP);
    expect((await api(`/projects/${projects.public.id}`, { token: ext.token })).status).toBe(200);
  });

  it('namespaces: a member sees the group namespace, others get 404; anonymous 401', async () => {
    expect((await api(`/namespaces/${groups.private.id}`, { token: tokens.guest })).status).toBe(200);
    expect((await api(`/namespaces/${groups.private.id}`, { token: tokens.nonmember })).body).toEqual({ message: '404 Namespace Not Found' });
    expect((await api(`/namespaces/${groups.private.id}`)).status).toBe(401);
    expect((await api('/namespaces')).status).toBe(401);
  });
});
