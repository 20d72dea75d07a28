/**
 * The 401/403/404 matrix of notes, award emoji and epics: every role over private, internal and
 * public groups and projects. notes.rb and award_emoji.rb run `authenticate!`; epics read like groups.
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
const world: Record<Vis, { group: number; project: number; iid: number; note: number; epic: number }> = {} as never;

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
  path: (v: Vis) => string;
  body?: (r: Role) => Record<string, unknown>;
  expect: (r: Role, v: Vis) => [number, unknown?];
}

const signedInRead = (nf: unknown) => (r: Role, v: Vis): [number, unknown?] => (r === 'anonymous' ? [401, UNAUTH] : canRead(r, v) ? [200] : [404, nf]);
const signedInWrite = (nf: unknown, ok: number) => (r: Role, v: Vis): [number, unknown?] => (r === 'anonymous' ? [401, UNAUTH] : canRead(r, v) ? [ok] : [404, nf]);
const EMOJI: Record<Role, string> = { anonymous: 'tada', nonmember: 'rocket', guest: 'heart', planner: 'eyes', reporter: 'fire', developer: 'star', maintainer: 'bulb', owner: 'clap', admin: 'smile' };

const CASES: Case[] = [
  { name: 'GET issue notes', method: 'GET', path: (v) => `/projects/${world[v].project}/issues/${world[v].iid}/notes`, expect: signedInRead(NF_PROJECT) },
  { name: 'GET issue note', method: 'GET', path: (v) => `/projects/${world[v].project}/issues/${world[v].iid}/notes/${world[v].note}`, expect: signedInRead(NF_PROJECT) },
  { name: 'POST issue note', method: 'POST', path: (v) => `/projects/${world[v].project}/issues/${world[v].iid}/notes`, body: () => ({ body: unique('n') }), expect: signedInWrite(NF_PROJECT, 201) },
  {
    name: 'PUT issue note (the owner’s note: author, maintainers, admins)',
    method: 'PUT',
    path: (v) => `/projects/${world[v].project}/issues/${world[v].iid}/notes/${world[v].note}`,
    body: () => ({ body: unique('e') }),
    expect: (r, v) => (r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : atLeast(r, 40) ? [200] : [403, FORBIDDEN]),
  },
  { name: 'GET issue award emoji', method: 'GET', path: (v) => `/projects/${world[v].project}/issues/${world[v].iid}/award_emoji`, expect: signedInRead(NF_PROJECT) },
  {
    name: 'POST issue award emoji',
    method: 'POST',
    path: (v) => `/projects/${world[v].project}/issues/${world[v].iid}/award_emoji`,
    body: (r) => ({ name: EMOJI[r] }),
    expect: signedInWrite(NF_PROJECT, 201),
  },
  { name: 'GET group epics', method: 'GET', path: (v) => `/groups/${world[v].group}/epics`, expect: (r, v) => (canRead(r, v) ? [200] : [404, NF_GROUP]) },
  { name: 'GET group epic', method: 'GET', path: (v) => `/groups/${world[v].group}/epics/${world[v].epic}`, expect: (r, v) => (canRead(r, v) ? [200] : [404, NF_GROUP]) },
  {
    name: 'POST group epic (planner and above)',
    method: 'POST',
    path: (v) => `/groups/${world[v].group}/epics`,
    body: () => ({ title: unique('e') }),
    expect: (r, v) => (r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_GROUP] : atLeast(r, 15) ? [201] : [403, FORBIDDEN]),
  },
  {
    name: 'DELETE group epic (refusals only)',
    method: 'DELETE',
    path: (v) => `/groups/${world[v].group}/epics/${world[v].epic}`,
    expect: (r, v) => (r === 'owner' || r === 'admin' ? [-1] : r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_GROUP] : [403, FORBIDDEN]),
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
    const path = unique(`nacc${v}`);
    const g = await api('/groups', { token: tokens.owner, body: { name: path, path, visibility: v } });
    for (const r of ['guest', 'planner', 'reporter', 'developer', 'maintainer'] as const) {
      const m = await api(`/groups/${g.body.id}/members`, { token: tokens.owner, body: { user_id: ids[r], access_level: LEVEL[r] } });
      if (m.status !== 201) throw new Error(m.text);
    }
    const p = await api('/projects', { token: tokens.owner, body: { path: 'proj', namespace_id: g.body.id, visibility: v } });
    const issue = await api(`/projects/${p.body.id}/issues`, { token: tokens.owner, body: { title: 'open' } });
    const note = await api(`/projects/${p.body.id}/issues/${issue.body.iid}/notes`, { token: tokens.owner, body: { body: 'hello' } });
    const epic = await api(`/groups/${g.body.id}/epics`, { token: tokens.owner, body: { title: 'epic' } });
    if ([p, issue, note, epic].some((x) => x.status !== 201)) throw new Error('setup');
    world[v] = { group: g.body.id, project: p.body.id, iid: issue.body.iid, note: note.body.id, epic: epic.body.iid };
  }
});

describe('notes, award emoji and epics access matrix', () => {
  for (const cs of CASES) {
    it(cs.name, async () => {
      const failures: string[] = [];
      for (const v of VIS) {
        for (const r of ROLES) {
          const [status, body] = cs.expect(r, v);
          if (status === -1) continue;
          const res = await api(cs.path(v), { method: cs.method, token: tokens[r], body: cs.body?.(r) });
          if (res.status !== status || (body !== undefined && JSON.stringify(res.body) !== JSON.stringify(body)))
            failures.push(`${r}/${v}: ${res.status} ${res.text.slice(0, 80)} (expected ${status} ${body ? JSON.stringify(body) : ''})`);
        }
      }
      expect(failures).toEqual([]);
    });
  }
});
