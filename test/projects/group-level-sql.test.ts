/**
 * The caller's level in a group, computed in SQL over a one-table select of groups (Drizzle leaves
 * the outer column unqualified there, where it would bind to the sub-select's own table: issue 13's
 * one-statement group lookup met this). A membership of one group must not count in another.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';

describe('group levels in SQL', () => {
  it('GET /groups?min_access_level lists only the groups the caller is a member of', async () => {
    const [owner, member, other] = await Promise.all([createUser(), createUser(), createUser()]);
    const mine = unique('gl');
    const theirs = unique('gl');
    const g1 = (await api('/groups', { token: owner.token, body: { name: mine, path: mine, visibility: 'public' } })).body;
    const g2 = (await api('/groups', { token: other.token, body: { name: theirs, path: theirs, visibility: 'public' } })).body;
    expect((await api(`/groups/${g1.id}/members`, { token: owner.token, body: { user_id: member.id, access_level: 10 } })).status).toBe(201);
    const res = await api(`/groups?min_access_level=10&search=gl`, { token: member.token });
    expect(res.status).toBe(200);
    const ids = res.body.map((g: { id: number }) => g.id);
    expect(ids).toContain(g1.id);
    expect(ids).not.toContain(g2.id);
  });

  it('a member of one private group cannot read or change another', async () => {
    const [owner, member, other] = await Promise.all([createUser(), createUser(), createUser()]);
    const a = unique('gp');
    const b = unique('gp');
    const g1 = (await api('/groups', { token: owner.token, body: { name: a, path: a, visibility: 'private' } })).body;
    const g2 = (await api('/groups', { token: other.token, body: { name: b, path: b, visibility: 'private' } })).body;
    expect((await api(`/groups/${g1.id}/members`, { token: owner.token, body: { user_id: member.id, access_level: 50 } })).status).toBe(201);
    expect((await api(`/groups/${g1.id}`, { token: member.token })).status).toBe(200);
    const read = await api(`/groups/${g2.id}`, { token: member.token });
    expect([read.status, read.body.message]).toEqual([404, '404 Group Not Found']);
    const write = await api(`/groups/${g2.id}`, { method: 'PUT', token: member.token, body: { description: 'x' } });
    expect(write.status).toBe(404);
    expect((await api(`/groups/${g2.id}`, { token: other.token })).body.description).not.toBe('x');
  });

  it('GET /groups and GET /projects list no private group or project of others to a member of another group', async () => {
    const [owner, member, other] = await Promise.all([createUser(), createUser(), createUser()]);
    const a = unique('gv');
    const b = unique('gv');
    const g1 = (await api('/groups', { token: owner.token, body: { name: a, path: a, visibility: 'private' } })).body;
    const g2 = (await api('/groups', { token: other.token, body: { name: b, path: b, visibility: 'private' } })).body;
    const hidden = (await api('/projects', { token: other.token, body: { path: 'hidden', namespace_id: g2.id, visibility: 'private' } })).body;
    expect((await api(`/groups/${g1.id}/members`, { token: owner.token, body: { user_id: member.id, access_level: 30 } })).status).toBe(201);
    const groups = await api('/groups?search=gv&per_page=100', { token: member.token });
    expect(groups.body.map((g: { id: number }) => g.id)).toContain(g1.id);
    expect(groups.body.map((g: { id: number }) => g.id)).not.toContain(g2.id);
    const projects = await api('/projects?search=hidden&per_page=100', { token: member.token });
    expect(projects.body.map((p: { id: number }) => p.id)).not.toContain(hidden.id);
  });
});
