/**
 * Access matrix of the protected branches API: 8 roles x 3 project visibilities.
 * Reads need `read_code` (reporters in private projects; anyone who can read a public or internal
 * project), writes need `admin_project` (maintainer+) and, with Premium's unprotection restrictions
 * (tests run as ultimate), passing the rule's unprotect levels: the default "Maintainers" level is
 * a membership check, so an administrator who is no member of the project is refused (403), as
 * ProtectedRefAccess#check_access does in GitLab.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const ROLES = ['anonymous', 'nonmember', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin'] as const;
type Role = (typeof ROLES)[number];
const LEVEL: Record<string, number> = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 };
const VIS = ['private', 'internal', 'public'] as const;
type Vis = (typeof VIS)[number];

const tokens = {} as Record<Role, string | null>;
const ids = {} as Record<Role, number>;
const projects = {} as Record<Vis, number>;

const member = (r: Role) => r in LEVEL;
const canRead = (r: Role, v: Vis) => r === 'admin' || member(r) || v === 'public' || (v === 'internal' && r !== 'anonymous');
const readCode = (r: Role, v: Vis) => r === 'admin' || (v === 'private' ? member(r) && LEVEL[r] >= 20 : canRead(r, v));
const maintainerPlus = (r: Role) => member(r) && LEVEL[r] >= 40;

const NF_PROJECT = { message: '404 Project Not Found' };
const FORBIDDEN = { message: '403 Forbidden' };
const UNAUTH = { message: '401 Unauthorized' };

const read = (r: Role, v: Vis): [number, unknown?] => (!canRead(r, v) ? [404, NF_PROJECT] : readCode(r, v) ? [200] : [403, FORBIDDEN]);
const write = (ok: number) => (r: Role, v: Vis): [number, unknown?] =>
  r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : maintainerPlus(r) ? [ok] : [403, FORBIDDEN];

beforeAll(async () => {
  const names = ['nonmember', 'guest', 'reporter', 'developer', 'maintainer', 'owner'] as const;
  const users = await Promise.all(names.map(() => createUser()));
  tokens.anonymous = null;
  tokens.admin = rootToken;
  ids.admin = 1;
  names.forEach((r, i) => {
    tokens[r] = users[i].token;
    ids[r] = users[i].id;
  });
  for (const v of VIS) {
    const path = unique(`pbacc${v}`);
    const g = await api('/groups', { token: tokens.owner, body: { name: path, path, visibility: v } });
    if (g.status !== 201) throw new Error(g.text);
    for (const r of ['guest', 'reporter', 'developer', 'maintainer'] as const) {
      const m = await api(`/groups/${g.body.id}/members`, { token: tokens.owner, body: { user_id: ids[r], access_level: LEVEL[r] } });
      if (m.status !== 201) throw new Error(m.text);
    }
    const p = await api('/projects', { token: tokens.owner, body: { path: 'proj', namespace_id: g.body.id, visibility: v } });
    if (p.status !== 201) throw new Error(p.text);
    projects[v] = p.body.id;
    const b = await api(`/projects/${p.body.id}/protected_branches`, { token: tokens.owner, body: { name: 'main' } });
    if (b.status !== 201) throw new Error(b.text);
  }
});

async function matrix(run: (r: Role, v: Vis) => Promise<{ status: number; body: unknown; text: string }>, expected: (r: Role, v: Vis) => [number, unknown?]) {
  const failures: string[] = [];
  for (const v of VIS)
    for (const r of ROLES) {
      const [status, body] = expected(r, v);
      const res = await run(r, v);
      if (res.status !== status || (body !== undefined && JSON.stringify(res.body) !== JSON.stringify(body)))
        failures.push(`${r}/${v}: ${res.status} ${res.text.slice(0, 80)} (expected ${status} ${body ? JSON.stringify(body) : ''})`);
    }
  return failures;
}

describe('protected branches access matrix', () => {
  it('GET /projects/:id/protected_branches', async () => {
    expect(await matrix((r, v) => api(`/projects/${projects[v]}/protected_branches`, { token: tokens[r] }), read)).toEqual([]);
  });

  it('GET /projects/:id/protected_branches/:name', async () => {
    expect(await matrix((r, v) => api(`/projects/${projects[v]}/protected_branches/main`, { token: tokens[r] }), read)).toEqual([]);
  });

  it('POST /projects/:id/protected_branches', async () => {
    const expected = (r: Role, v: Vis): [number, unknown?] => (r === 'admin' ? [403, FORBIDDEN] : write(201)(r, v));
    expect(await matrix((r, v) => api(`/projects/${projects[v]}/protected_branches`, { token: tokens[r], body: { name: unique(`b-${r}-`) } }), expected)).toEqual([]);
  });

  it('PATCH /projects/:id/protected_branches/:name', async () => {
    const expected = (r: Role, v: Vis): [number, unknown?] => (r === 'admin' ? [403, FORBIDDEN] : write(200)(r, v));
    expect(
      await matrix((r, v) => api(`/projects/${projects[v]}/protected_branches/main`, { method: 'PATCH', token: tokens[r], body: { allow_force_push: r === 'owner' } }), expected),
    ).toEqual([]);
  });

  it('DELETE /projects/:id/protected_branches/:name', async () => {
    const expected = (r: Role, v: Vis): [number, unknown?] => (r === 'admin' ? [403, FORBIDDEN] : write(204)(r, v));
    const run = async (r: Role, v: Vis) => {
      const name = unique(`d-${r}-`);
      const made = await api(`/projects/${projects[v]}/protected_branches`, { token: tokens.owner, body: { name } });
      if (made.status !== 201) throw new Error(made.text);
      return api(`/projects/${projects[v]}/protected_branches/${name}`, { method: 'DELETE', token: tokens[r] });
    };
    expect(await matrix(run, expected)).toEqual([]);
  });

  it('an administrator who is a maintainer of the project, or passes an Instance admins level, may write', async () => {
    const name = unique('adm');
    const made = await api(`/projects/${projects.private}/protected_branches`, { token: tokens.owner, body: { name, allowed_to_unprotect: [{ access_level: 60 }] } });
    expect(made.status).toBe(403); // the owner could not unprotect it afterwards
    const ok = await api(`/projects/${projects.private}/protected_branches`, { token: tokens.owner, body: { name, allowed_to_unprotect: [{ access_level: 60 }, { access_level: 40 }] } });
    expect(ok.status).toBe(201);
    expect((await api(`/projects/${projects.private}/protected_branches/${name}`, { method: 'DELETE', token: rootToken })).status).toBe(204);
  });
});
