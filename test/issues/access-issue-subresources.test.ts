/**
 * The 401/403/404 matrix for issue sub-resources (time tracking, to-dos, participants, merge
 * request lists, user agent details, metric images) against every role over private, internal and
 * public projects. State is built through the API.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, unique } from '../support';

const ROLES = ['anonymous', 'nonmember', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin'] as const;
type Role = (typeof ROLES)[number];
const LEVEL: Record<string, number> = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 };
const VIS = ['private', 'internal', 'public'] as const;
type Vis = (typeof VIS)[number];

const tokens: Record<Role, string | null> = {} as never;
const projects: Record<Vis, { id: number; issue: number; incident: number; confidential: number }> = {} as never;

const member = (r: Role) => r in LEVEL;
const atLeast = (r: Role, n: number) => r === 'admin' || (member(r) && LEVEL[r] >= n);
const canRead = (r: Role, v: Vis) => r === 'admin' || member(r) || v === 'public' || (v === 'internal' && r !== 'anonymous');

const NF_PROJECT = { message: '404 Project Not Found' };
const NF = { message: '404 Not found' };
const UNAUTH = { message: '401 Unauthorized' };
const FORBIDDEN = { message: '403 Forbidden' };
const NOT_ALLOWED = { message: 'Not allowed!' };

type Expect = [number, unknown?];
interface Case {
  name: string;
  method: string;
  path: (v: Vis) => string;
  body?: () => Record<string, unknown> | FormData;
  expect: (r: Role, v: Vis) => Expect;
}

const read = (r: Role, v: Vis): Expect => (canRead(r, v) ? [200] : [404, NF_PROJECT]);
/** admin_issue writes: 401 anonymous, 404 unreadable, 403 below planner, else `ok`. */
const adminIssue = (ok: number) => (r: Role, v: Vis): Expect =>
  r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : atLeast(r, 15) ? [ok] : [403, FORBIDDEN];
/** Metric image writes need membership: administrators outside the project are refused too. */
const metricWrite = (ok: number, refused: unknown) => (r: Role, v: Vis): Expect =>
  r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : member(r) && LEVEL[r] >= 15 ? [ok] : [403, refused];

const png = () => {
  const form = new FormData();
  form.append('file', new File([new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10])], 'm.png', { type: 'image/png' }));
  return form;
};
const issuePath = (v: Vis, sub: string, which: 'issue' | 'incident' | 'confidential' = 'issue') => `/projects/${projects[v].id}/issues/${projects[v][which]}${sub}`;
/** Per-visibility image ids the PUT/DELETE rows act on (one fresh image per request). */
const images: Record<string, number> = {};

const CASES: Case[] = [
  { name: 'GET time_stats', method: 'GET', path: (v) => issuePath(v, '/time_stats'), expect: read },
  {
    name: 'GET time_stats of a confidential issue',
    method: 'GET',
    path: (v) => issuePath(v, '/time_stats', 'confidential'),
    expect: (r, v) => (!canRead(r, v) ? [404, NF_PROJECT] : r === 'admin' || atLeast(r, 15) ? [200] : [404, NF]),
  },
  { name: 'POST time_estimate', method: 'POST', path: (v) => issuePath(v, '/time_estimate'), body: () => ({ duration: '1h' }), expect: adminIssue(200) },
  { name: 'POST reset_time_estimate', method: 'POST', path: (v) => issuePath(v, '/reset_time_estimate'), expect: adminIssue(200) },
  { name: 'POST add_spent_time', method: 'POST', path: (v) => issuePath(v, '/add_spent_time'), body: () => ({ duration: '1m' }), expect: adminIssue(201) },
  { name: 'POST reset_spent_time', method: 'POST', path: (v) => issuePath(v, '/reset_spent_time'), expect: adminIssue(200) },
  {
    name: 'POST todo',
    method: 'POST',
    path: (v) => issuePath(v, '/todo'),
    expect: (r, v) => (r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : [201]),
  },
  { name: 'GET participants', method: 'GET', path: (v) => issuePath(v, '/participants'), expect: read },
  { name: 'GET related_merge_requests', method: 'GET', path: (v) => issuePath(v, '/related_merge_requests'), expect: read },
  { name: 'GET closed_by', method: 'GET', path: (v) => issuePath(v, '/closed_by'), expect: read },
  {
    name: 'GET user_agent_detail',
    method: 'GET',
    path: (v) => issuePath(v, '/user_agent_detail'),
    expect: (r) => (r === 'anonymous' ? [401, UNAUTH] : r === 'admin' ? [-1] : [403, FORBIDDEN]),
  },
  { name: 'GET metric_images', method: 'GET', path: (v) => issuePath(v, '/metric_images', 'incident'), expect: read },
  { name: 'POST metric_images', method: 'POST', path: (v) => issuePath(v, '/metric_images', 'incident'), body: png, expect: metricWrite(201, NOT_ALLOWED) },
  {
    name: 'PUT metric image',
    method: 'PUT',
    path: (v) => issuePath(v, `/metric_images/${images[v]}`, 'incident'),
    body: () => ({ url_text: unique('t') }),
    expect: metricWrite(200, FORBIDDEN),
  },
  { name: 'DELETE metric image', method: 'DELETE', path: (v) => issuePath(v, `/metric_images/${images[v]}`, 'incident'), expect: metricWrite(204, FORBIDDEN) },
];

beforeAll(async () => {
  const users = await Promise.all(ROLES.map((r) => (r === 'anonymous' ? null : r === 'admin' ? createUser({ admin: true }) : createUser())));
  ROLES.forEach((r, i) => (tokens[r] = users[i]?.token ?? null));
  const owner = users[ROLES.indexOf('owner')]!;
  const path = unique('g');
  const group = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'public' } });
  expect(group.status).toBe(201);
  for (const v of VIS) {
    const p = await api('/projects', { token: owner.token, body: { name: unique('p'), namespace_id: group.body.id, visibility: v } });
    expect(p.status).toBe(201);
    for (const r of ['guest', 'reporter', 'developer', 'maintainer'] as const) {
      const m = await api(`/projects/${p.body.id}/members`, { token: owner.token, body: { user_id: users[ROLES.indexOf(r)]!.id, access_level: LEVEL[r] } });
      expect(m.status).toBe(201);
    }
    const mk = async (extra: Record<string, unknown>) => {
      const res = await api(`/projects/${p.body.id}/issues`, { token: owner.token, body: { title: unique('t'), ...extra } });
      expect(res.status).toBe(201);
      return res.body.iid as number;
    };
    projects[v] = { id: p.body.id, issue: await mk({}), incident: await mk({ issue_type: 'incident' }), confidential: await mk({ confidential: true }) };
  }
});

describe('issue sub-resources access matrix', () => {
  for (const c of CASES)
    for (const v of VIS)
      for (const r of ROLES)
        it(`${c.name} on ${v} as ${r}`, async () => {
          const [status, body] = c.expect(r, v);
          if (c.path(v).includes('/metric_images/')) {
            const img = await api(`/projects/${projects[v].id}/issues/${projects[v].incident}/metric_images`, { token: tokens.owner!, multipart: png() });
            expect(img.status).toBe(201);
            images[v] = img.body.id;
          }
          const payload = c.body?.();
          const res = await api(c.path(v), {
            method: c.method,
            token: tokens[r],
            ...(payload instanceof FormData ? { multipart: payload } : payload ? { body: payload } : {}),
          });
          if (status === -1) {
            expect(res.status).toBeLessThan(500);
            return;
          }
          expect(res.status).toBe(status);
          if (body !== undefined) expect(res.body).toEqual(body);
        });
});
