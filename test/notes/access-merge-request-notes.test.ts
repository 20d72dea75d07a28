/**
 * The 401/403/404 matrix of merge request notes and award emoji: every role over private, internal
 * and public projects. notes.rb and award_emoji.rb run `authenticate!`; reading needs
 * read_merge_request (Reporter on a private project). A merge request the caller may not read is
 * `404 Not found` for notes (MergeRequestsFinder) and `404 Award Emoji Not Found` for awards
 * (can_read_awardable?); deleting an award checks only its owner (401 otherwise).
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
const world: Record<Vis, { project: number; iid: number; note: number; award: number; noteAward: number }> = {} as never;

const member = (r: Role) => r in LEVEL;
const atLeast = (r: Role, n: number) => r === 'admin' || (member(r) && LEVEL[r] >= n);
const canRead = (r: Role, v: Vis) => r === 'admin' || member(r) || v === 'public' || (v === 'internal' && r !== 'anonymous');
const readsMr = (r: Role, v: Vis) => canRead(r, v) && (v !== 'private' || atLeast(r, 20));

const NF_PROJECT = { message: '404 Project Not Found' };
const NF = { message: '404 Not found' };
const NF_AWARD = { message: '404 Award Emoji Not Found' };
const UNAUTH = { message: '401 Unauthorized' };
const FORBIDDEN = { message: '403 Forbidden' };
const EMOJI: Record<Role, string> = { anonymous: 'tada', nonmember: 'rocket', guest: 'heart', planner: 'eyes', reporter: 'fire', developer: 'star', maintainer: 'bulb', owner: 'clap', admin: 'smile' };

interface Case {
  name: string;
  method: string;
  path: (v: Vis) => string;
  body?: (r: Role) => Record<string, unknown>;
  expect: (r: Role, v: Vis) => [number, unknown?];
}

const mr = (v: Vis) => `/projects/${world[v].project}/merge_requests/${world[v].iid}`;
const notesCase = (ok: number) => (r: Role, v: Vis): [number, unknown?] => (r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : !readsMr(r, v) ? [404, NF] : [ok]);
const awardsCase = (ok: number) => (r: Role, v: Vis): [number, unknown?] => (r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : !readsMr(r, v) ? [404, NF_AWARD] : [ok]);
/** The owner's award: its owner and administrators may delete it (not run here), everyone else who reaches it gets 401. */
const deleteOwnersAward = (r: Role, v: Vis): [number, unknown?] => (r === 'owner' || r === 'admin' ? [-1] : r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : [401, UNAUTH]);

const CASES: Case[] = [
  { name: 'GET merge request notes', method: 'GET', path: (v) => `${mr(v)}/notes`, expect: notesCase(200) },
  { name: 'GET merge request note', method: 'GET', path: (v) => `${mr(v)}/notes/${world[v].note}`, expect: notesCase(200) },
  { name: 'POST merge request note', method: 'POST', path: (v) => `${mr(v)}/notes`, body: () => ({ body: unique('n') }), expect: notesCase(201) },
  {
    name: 'PUT merge request note (the owner’s note: author, maintainers, admins)',
    method: 'PUT',
    path: (v) => `${mr(v)}/notes/${world[v].note}`,
    body: () => ({ body: unique('e') }),
    expect: (r, v) => (r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : !readsMr(r, v) ? [404, NF] : atLeast(r, 40) ? [200] : [403, FORBIDDEN]),
  },
  {
    name: 'DELETE merge request note (refusals only)',
    method: 'DELETE',
    path: (v) => `${mr(v)}/notes/${world[v].note}`,
    expect: (r, v) =>
      atLeast(r, 40) ? [-1] : r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : !readsMr(r, v) ? [404, NF] : [403, FORBIDDEN],
  },
  { name: 'GET merge request award emoji', method: 'GET', path: (v) => `${mr(v)}/award_emoji`, expect: awardsCase(200) },
  { name: 'GET merge request award', method: 'GET', path: (v) => `${mr(v)}/award_emoji/${world[v].award}`, expect: awardsCase(200) },
  { name: 'POST merge request award emoji', method: 'POST', path: (v) => `${mr(v)}/award_emoji`, body: (r) => ({ name: EMOJI[r] }), expect: awardsCase(201) },
  { name: 'DELETE merge request award (the owner’s)', method: 'DELETE', path: (v) => `${mr(v)}/award_emoji/${world[v].award}`, expect: deleteOwnersAward },
  { name: 'GET merge request note award emoji', method: 'GET', path: (v) => `${mr(v)}/notes/${world[v].note}/award_emoji`, expect: awardsCase(200) },
  { name: 'GET merge request note award', method: 'GET', path: (v) => `${mr(v)}/notes/${world[v].note}/award_emoji/${world[v].noteAward}`, expect: awardsCase(200) },
  {
    name: 'POST merge request note award emoji',
    method: 'POST',
    path: (v) => `${mr(v)}/notes/${world[v].note}/award_emoji`,
    body: (r) => ({ name: EMOJI[r] }),
    expect: awardsCase(201),
  },
  { name: 'DELETE merge request note award (the owner’s)', method: 'DELETE', path: (v) => `${mr(v)}/notes/${world[v].note}/award_emoji/${world[v].noteAward}`, expect: deleteOwnersAward },
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
    const path = unique(`mrnacc${v}`);
    const g = await api('/groups', { token: tokens.owner, body: { name: path, path, visibility: v } });
    if (g.status !== 201) throw new Error(g.text);
    for (const r of ['guest', 'planner', 'reporter', 'developer', 'maintainer'] as const) {
      const m = await api(`/groups/${g.body.id}/members`, { token: tokens.owner, body: { user_id: ids[r], access_level: LEVEL[r] } });
      if (m.status !== 201) throw new Error(m.text);
    }
    const p = await api('/projects', { token: tokens.owner, body: { path: 'proj', namespace_id: g.body.id, visibility: v } });
    if (p.status !== 201) throw new Error(p.text);
    const pid = p.body.id;
    const steps = [
      await api(`/projects/${pid}/repository/commits`, { token: tokens.owner, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'README.md', content: 'x' }] } }),
      await api(`/projects/${pid}/repository/branches`, { token: tokens.owner, body: { branch: 'feature', ref: 'main' } }),
      await api(`/projects/${pid}/repository/commits`, { token: tokens.owner, body: { branch: 'feature', commit_message: 'f', actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }] } }),
    ];
    const created = await api(`/projects/${pid}/merge_requests`, { token: tokens.developer, body: { title: 'open', source_branch: 'feature', target_branch: 'main' } });
    const base = `/projects/${pid}/merge_requests/${created.body.iid}`;
    const note = await api(`${base}/notes`, { token: tokens.owner, body: { body: 'hello' } });
    const award = await api(`${base}/award_emoji`, { token: tokens.owner, body: { name: 'thumbsup' } });
    const noteAward = await api(`${base}/notes/${note.body.id}/award_emoji`, { token: tokens.owner, body: { name: 'thumbsup' } });
    const all = [...steps, created, note, award, noteAward];
    if (all.some((x) => x.status !== 201)) throw new Error(`setup: ${all.map((x) => `${x.status} ${x.text.slice(0, 60)}`).join('; ')}`);
    world[v] = { project: pid, iid: created.body.iid, note: note.body.id, award: award.body.id, noteAward: noteAward.body.id };
  }
});

describe('merge request notes and award emoji access matrix', () => {
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

  it('the refused deletes left the owner’s note and awards in place', async () => {
    for (const v of VIS) {
      expect((await api(`${mr(v)}/notes/${world[v].note}`, { token: tokens.owner })).status).toBe(200);
      expect((await api(`${mr(v)}/award_emoji/${world[v].award}`, { token: tokens.owner })).body.name).toBe('thumbsup');
      expect((await api(`${mr(v)}/notes/${world[v].note}/award_emoji/${world[v].noteAward}`, { token: tokens.owner })).body.name).toBe('thumbsup');
      // No role awards thumbsup/thumbsdown in the matrix: the owner's vote is the only one.
      expect((await api(mr(v), { token: tokens.owner })).body).toMatchObject({ upvotes: 1, downvotes: 0 });
    }
  });
});
