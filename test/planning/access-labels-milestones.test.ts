/**
 * The 401/403/404 matrix for labels and milestones: every endpoint against anonymous, non-member,
 * guest, planner, reporter, developer, maintainer, owner and administrator, over private, internal
 * and public groups and projects. Both APIs run `authenticate!` (reads too); managing needs
 * `admin_label` / `admin_milestone` (planner or above).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const ROLES = ['anonymous', 'nonmember', 'guest', 'planner', 'reporter', 'developer', 'maintainer', 'owner', 'admin'] as const;
type Role = (typeof ROLES)[number];
const LEVEL: Record<string, number> = { guest: 10, planner: 15, reporter: 20, developer: 30, maintainer: 40, owner: 50 };
const VIS = ['private', 'internal', 'public'] as const;
type Vis = (typeof VIS)[number];

const tokens: Record<Role, string | null> = {} as never;
const ids: Record<Role, number> = {} as never;
const groups: Record<Vis, { id: number }> = {} as never;
const projects: Record<Vis, { id: number }> = {} as never;
const projectLabels: Record<Vis, number> = {} as never;
const groupLabels: Record<Vis, number> = {} as never;
const projectMilestones: Record<Vis, number> = {} as never;
const groupMilestones: Record<Vis, number> = {} as never;

const member = (r: Role) => r in LEVEL;
const atLeast = (r: Role, n: number) => r === 'admin' || (member(r) && LEVEL[r] >= n);
const canRead = (r: Role, v: Vis) => r === 'admin' || member(r) || v === 'public' || (v === 'internal' && r !== 'anonymous');

const NF_PROJECT = { message: '404 Project Not Found' };
const NF_GROUP = { message: '404 Group Not Found' };
const UNAUTH = { message: '401 Unauthorized' };
const FORBIDDEN = { message: '403 Forbidden' };

interface Case {
  name: string;
  method: string;
  /** May create a fresh resource (as root) for the call. */
  path: (v: Vis) => string | Promise<string>;
  body?: () => Record<string, unknown>;
  expect: (r: Role, v: Vis) => [number, unknown?];
}

const read = (nf: unknown) => (r: Role, v: Vis): [number, unknown?] => (r === 'anonymous' ? [401, UNAUTH] : canRead(r, v) ? [200] : [404, nf]);
const write = (nf: unknown, ok: number) => (r: Role, v: Vis): [number, unknown?] =>
  r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, nf] : atLeast(r, 15) ? [ok] : [403, FORBIDDEN];

const freshProjectLabel = async (v: Vis) => (await api(`/projects/${projects[v].id}/labels`, { token: rootToken, body: { name: unique('fl'), color: '#000000' } })).body.id;
const freshGroupLabel = async (v: Vis) => (await api(`/groups/${groups[v].id}/labels`, { token: rootToken, body: { name: unique('fg'), color: '#000000' } })).body.id;
const freshMilestone = async (kind: 'projects' | 'groups', id: number) => (await api(`/${kind}/${id}/milestones`, { token: rootToken, body: { title: unique('fm') } })).body.id;

const CASES: Case[] = [
  { name: 'GET project labels', method: 'GET', path: (v) => `/projects/${projects[v].id}/labels`, expect: read(NF_PROJECT) },
  { name: 'GET project label', method: 'GET', path: (v) => `/projects/${projects[v].id}/labels/${projectLabels[v]}`, expect: read(NF_PROJECT) },
  { name: 'POST project label', method: 'POST', path: (v) => `/projects/${projects[v].id}/labels`, body: () => ({ name: unique('l'), color: '#123456' }), expect: write(NF_PROJECT, 201) },
  { name: 'PUT project label', method: 'PUT', path: (v) => `/projects/${projects[v].id}/labels/${projectLabels[v]}`, body: () => ({ description: unique('d') }), expect: write(NF_PROJECT, 200) },
  { name: 'DELETE project label', method: 'DELETE', path: async (v) => `/projects/${projects[v].id}/labels/${await freshProjectLabel(v)}`, expect: write(NF_PROJECT, 204) },
  {
    name: 'PUT project label promote',
    method: 'PUT',
    path: async (v) => `/projects/${projects[v].id}/labels/${await freshProjectLabel(v)}/promote`,
    // Group-level admin_label; every member here is a group member, so the levels match the project's.
    expect: write(NF_PROJECT, 200),
  },
  { name: 'POST project label subscribe', method: 'POST', path: async (v) => `/projects/${projects[v].id}/labels/${await freshProjectLabel(v)}/subscribe`, expect: (r, v) => (read(NF_PROJECT)(r, v)[0] === 200 ? [201] : read(NF_PROJECT)(r, v)) },
  { name: 'GET group labels', method: 'GET', path: (v) => `/groups/${groups[v].id}/labels`, expect: read(NF_GROUP) },
  { name: 'GET group label', method: 'GET', path: (v) => `/groups/${groups[v].id}/labels/${groupLabels[v]}`, expect: read(NF_GROUP) },
  { name: 'POST group label', method: 'POST', path: (v) => `/groups/${groups[v].id}/labels`, body: () => ({ name: unique('gl'), color: '#123456' }), expect: write(NF_GROUP, 201) },
  { name: 'PUT group label', method: 'PUT', path: (v) => `/groups/${groups[v].id}/labels/${groupLabels[v]}`, body: () => ({ description: unique('d') }), expect: write(NF_GROUP, 200) },
  { name: 'DELETE group label', method: 'DELETE', path: async (v) => `/groups/${groups[v].id}/labels/${await freshGroupLabel(v)}`, expect: write(NF_GROUP, 204) },
  { name: 'POST group label subscribe', method: 'POST', path: async (v) => `/groups/${groups[v].id}/labels/${await freshGroupLabel(v)}/subscribe`, expect: (r, v) => (read(NF_GROUP)(r, v)[0] === 200 ? [201] : read(NF_GROUP)(r, v)) },

  { name: 'GET project milestones', method: 'GET', path: (v) => `/projects/${projects[v].id}/milestones`, expect: read(NF_PROJECT) },
  { name: 'GET project milestone', method: 'GET', path: (v) => `/projects/${projects[v].id}/milestones/${projectMilestones[v]}`, expect: read(NF_PROJECT) },
  { name: 'GET project milestone issues', method: 'GET', path: (v) => `/projects/${projects[v].id}/milestones/${projectMilestones[v]}/issues`, expect: read(NF_PROJECT) },
  {
    name: 'POST project milestone promote',
    method: 'POST',
    path: async (v) => `/projects/${projects[v].id}/milestones/${await freshMilestone('projects', projects[v].id)}/promote`,
    expect: write(NF_PROJECT, 200),
  },
  { name: 'GET project milestone merge requests', method: 'GET', path: (v) => `/projects/${projects[v].id}/milestones/${projectMilestones[v]}/merge_requests`, expect: read(NF_PROJECT) },
  { name: 'POST project milestone', method: 'POST', path: (v) => `/projects/${projects[v].id}/milestones`, body: () => ({ title: unique('m') }), expect: write(NF_PROJECT, 201) },
  { name: 'PUT project milestone', method: 'PUT', path: (v) => `/projects/${projects[v].id}/milestones/${projectMilestones[v]}`, body: () => ({ description: unique('d') }), expect: write(NF_PROJECT, 200) },
  { name: 'DELETE project milestone', method: 'DELETE', path: async (v) => `/projects/${projects[v].id}/milestones/${await freshMilestone('projects', projects[v].id)}`, expect: write(NF_PROJECT, 204) },
  { name: 'GET group milestones', method: 'GET', path: (v) => `/groups/${groups[v].id}/milestones`, expect: read(NF_GROUP) },
  { name: 'GET group milestone', method: 'GET', path: (v) => `/groups/${groups[v].id}/milestones/${groupMilestones[v]}`, expect: read(NF_GROUP) },
  { name: 'GET group milestone issues', method: 'GET', path: (v) => `/groups/${groups[v].id}/milestones/${groupMilestones[v]}/issues`, expect: read(NF_GROUP) },
  { name: 'GET group milestone merge requests', method: 'GET', path: (v) => `/groups/${groups[v].id}/milestones/${groupMilestones[v]}/merge_requests`, expect: read(NF_GROUP) },
  { name: 'POST group milestone', method: 'POST', path: (v) => `/groups/${groups[v].id}/milestones`, body: () => ({ title: unique('gm') }), expect: write(NF_GROUP, 201) },
  { name: 'PUT group milestone', method: 'PUT', path: (v) => `/groups/${groups[v].id}/milestones/${groupMilestones[v]}`, body: () => ({ description: unique('d') }), expect: write(NF_GROUP, 200) },
  { name: 'DELETE group milestone', method: 'DELETE', path: async (v) => `/groups/${groups[v].id}/milestones/${await freshMilestone('groups', groups[v].id)}`, expect: write(NF_GROUP, 204) },
];

beforeAll(async () => {
  const named = ['nonmember', 'guest', 'planner', 'reporter', 'developer', 'maintainer', 'owner'] as const;
  const users = await Promise.all(named.map(() => createUser()));
  tokens.anonymous = null;
  tokens.admin = rootToken;
  ids.admin = 1;
  named.forEach((r, i) => {
    tokens[r] = users[i].token;
    ids[r] = users[i].id;
  });
  for (const v of VIS) {
    const path = unique(`alm${v}`);
    const g = await api('/groups', { token: tokens.owner, body: { name: path, path, visibility: v } });
    if (g.status !== 201) throw new Error(g.text);
    groups[v] = { id: g.body.id };
    for (const r of ['guest', 'planner', 'reporter', 'developer', 'maintainer'] as const) {
      const m = await api(`/groups/${g.body.id}/members`, { token: tokens.owner, body: { user_id: ids[r], access_level: LEVEL[r] } });
      if (m.status !== 201) throw new Error(m.text);
    }
    const p = await api('/projects', { token: tokens.owner, body: { path: 'proj', namespace_id: g.body.id, visibility: v } });
    if (p.status !== 201) throw new Error(p.text);
    projects[v] = { id: p.body.id };
    projectLabels[v] = await freshProjectLabel(v);
    groupLabels[v] = await freshGroupLabel(v);
    projectMilestones[v] = await freshMilestone('projects', p.body.id);
    groupMilestones[v] = await freshMilestone('groups', g.body.id);
  }
});

describe('labels and milestones access matrix', () => {
  for (const cs of CASES) {
    it(cs.name, async () => {
      const failures: string[] = [];
      for (const v of VIS) {
        for (const r of ROLES) {
          const [status, body] = cs.expect(r, v);
          const res = await api(await cs.path(v), { method: cs.method, token: tokens[r], body: cs.body?.() });
          if (res.status !== status || (body !== undefined && JSON.stringify(res.body) !== JSON.stringify(body)))
            failures.push(`${r}/${v}: ${res.status} ${res.text.slice(0, 80)} (expected ${status} ${body ? JSON.stringify(body) : ''})`);
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it('refused writes leave nothing behind', async () => {
    const name = unique('refused');
    for (const r of ['nonmember', 'guest'] as const) {
      await api(`/projects/${projects.public.id}/labels`, { token: tokens[r], body: { name, color: '#000000' } });
      await api(`/projects/${projects.public.id}/milestones`, { token: tokens[r], body: { title: name } });
    }
    expect((await api(`/projects/${projects.public.id}/labels/${name}`, { token: rootToken })).status).toBe(404);
    expect((await api(`/projects/${projects.public.id}/milestones?title=${name}`, { token: rootToken })).body).toEqual([]);
  });
});
