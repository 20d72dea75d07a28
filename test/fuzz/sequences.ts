/**
 * Create-then-read sequences: create a record with fuzzed fields, then read it back, find it in its
 * list, and check that every response is declared and that the read and the list show what the create
 * answered (the stored record is the one the client was told about, whatever its fields held).
 */
import { fc } from '@fast-check/vitest';
import type { FuzzApp } from './app';
import { encodeSegment } from './arbitraries';
import type { responseChecker } from './checks';
import type { World } from './world';

type Check = ReturnType<typeof responseChecker>;
type Json = Record<string, any>;

/** Text a client might store: ordinary words, unicode, controls, NUL, lone surrogates, long text. */
const text = fc.oneof(
  { arbitrary: fc.string({ minLength: 1, maxLength: 30 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }), weight: 2 },
  { arbitrary: fc.constantFrom(' padded ', 'a\u0000b', '\u0001\u007f', '\ud800x', '%_*', "O'Brien \"quoted\"", 'x'.repeat(300), 'y'.repeat(10_000), '#1 !1 &1 ~1 @root'), weight: 2 },
);
const slug = fc.stringMatching(/^[a-z][a-z0-9_.-]{0,20}$/).map((s) => `${s}${Math.random().toString(36).slice(2, 6)}`);
const day = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));

interface Kind {
  name: string;
  fields: fc.Arbitrary<Json>;
  /** Route path (for the checker) and URL of the create. */
  create: (w: World) => { route: string; url: string; method?: string };
  read: (w: World, created: Json) => { route: string; url: string };
  list: (w: World, created: Json) => { route: string; url: string };
  /** Fields the read must repeat exactly as the create answered them. */
  same: string[];
}

const project = (w: World) => decodeURIComponent(w.segments.project[0]);
const group = (w: World) => decodeURIComponent(w.segments.group[0]);
const issueIid = (w: World) => decodeURIComponent(w.segments.issueIid[0]);

const KINDS: Kind[] = [
  {
    name: 'issue',
    fields: fc.record({ title: text, description: fc.option(text, { nil: undefined }), labels: fc.option(fc.array(text, { maxLength: 2 }).map((xs) => xs.join(',')), { nil: undefined }), due_date: fc.option(day, { nil: undefined }), confidential: fc.boolean() }, { requiredKeys: ['title'] }),
    create: (w) => ({ route: '/api/v4/projects/:id/issues', url: `/api/v4/projects/${project(w)}/issues` }),
    read: (w, c) => ({ route: '/api/v4/projects/:id/issues/:issue_iid', url: `/api/v4/projects/${project(w)}/issues/${c.iid}` }),
    list: (w, c) => ({ route: '/api/v4/projects/:id/issues', url: `/api/v4/projects/${project(w)}/issues?iids[]=${c.iid}` }),
    same: ['id', 'iid', 'title', 'description', 'labels', 'due_date', 'confidential'],
  },
  {
    name: 'label',
    fields: fc.record({ name: text, color: fc.constantFrom('#ff0000', 'red', '#FFF', 'not-a-color'), description: fc.option(text, { nil: undefined }) }),
    create: (w) => ({ route: '/api/v4/projects/:id/labels', url: `/api/v4/projects/${project(w)}/labels` }),
    read: (w, c) => ({ route: '/api/v4/projects/:id/labels/:name', url: `/api/v4/projects/${project(w)}/labels/${c.id}` }),
    list: (w) => ({ route: '/api/v4/projects/:id/labels', url: `/api/v4/projects/${project(w)}/labels?per_page=100` }),
    same: ['id', 'name', 'color', 'description'],
  },
  {
    name: 'milestone',
    fields: fc.record({ title: text, description: fc.option(text, { nil: undefined }), start_date: fc.option(day, { nil: undefined }), due_date: fc.option(day, { nil: undefined }) }, { requiredKeys: ['title'] }),
    create: (w) => ({ route: '/api/v4/projects/:id/milestones', url: `/api/v4/projects/${project(w)}/milestones` }),
    read: (w, c) => ({ route: '/api/v4/projects/:id/milestones/:milestone_id', url: `/api/v4/projects/${project(w)}/milestones/${c.id}` }),
    list: (w, c) => ({ route: '/api/v4/projects/:id/milestones', url: `/api/v4/projects/${project(w)}/milestones?iids[]=${c.iid}` }),
    same: ['id', 'iid', 'title', 'description', 'start_date', 'due_date'],
  },
  {
    name: 'issue note',
    fields: fc.record({ body: text, confidential: fc.boolean() }),
    create: (w) => ({ route: '/api/v4/projects/:id/issues/:issue_iid/notes', url: `/api/v4/projects/${project(w)}/issues/${issueIid(w)}/notes` }),
    read: (w, c) => ({ route: '/api/v4/projects/:id/issues/:issue_iid/notes/:note_id', url: `/api/v4/projects/${project(w)}/issues/${issueIid(w)}/notes/${c.id}` }),
    list: (w) => ({ route: '/api/v4/projects/:id/issues/:issue_iid/notes', url: `/api/v4/projects/${project(w)}/issues/${issueIid(w)}/notes?per_page=100&sort=desc` }),
    same: ['id', 'body', 'confidential'],
  },
  {
    name: 'epic',
    fields: fc.record({ title: text, description: fc.option(text, { nil: undefined }), start_date_fixed: fc.option(day, { nil: undefined }), start_date_is_fixed: fc.boolean() }, { requiredKeys: ['title'] }),
    create: (w) => ({ route: '/api/v4/groups/:id/epics', url: `/api/v4/groups/${group(w)}/epics` }),
    read: (w, c) => ({ route: '/api/v4/groups/:id/epics/:epic_iid', url: `/api/v4/groups/${group(w)}/epics/${c.iid}` }),
    list: (w) => ({ route: '/api/v4/groups/:id/epics', url: `/api/v4/groups/${group(w)}/epics?per_page=100` }),
    same: ['id', 'iid', 'title', 'description', 'start_date'],
  },
  {
    name: 'group',
    fields: fc.record({ name: text, path: slug, description: fc.option(text, { nil: undefined }), visibility: fc.constantFrom('public', 'internal', 'private') }),
    create: () => ({ route: '/api/v4/groups', url: '/api/v4/groups' }),
    read: (_w, c) => ({ route: '/api/v4/groups/:id', url: `/api/v4/groups/${c.id}` }),
    list: (_w, c) => ({ route: '/api/v4/groups', url: `/api/v4/groups?search=${encodeSegment(c.path)}` }),
    same: ['id', 'name', 'path', 'description', 'visibility', 'full_path'],
  },
  {
    name: 'project',
    fields: fc.record({ name: text, description: fc.option(text, { nil: undefined }), visibility: fc.constantFrom('public', 'internal', 'private'), topics: fc.option(fc.array(text, { maxLength: 2 }), { nil: undefined }) }),
    create: () => ({ route: '/api/v4/projects', url: '/api/v4/projects' }),
    read: (_w, c) => ({ route: '/api/v4/projects/:id', url: `/api/v4/projects/${c.id}` }),
    list: () => ({ route: '/api/v4/projects', url: '/api/v4/projects?owned=true&order_by=id&sort=desc' }),
    same: ['id', 'name', 'description', 'visibility', 'path_with_namespace', 'topics'],
  },
  {
    name: 'user custom attribute',
    fields: fc.record({ key: text, value: text }),
    create: (w) => ({ route: '/api/v4/users/:id/custom_attributes/:key', url: `/api/v4/users/${w.users.victim.id}/custom_attributes/`, method: 'PUT' }),
    read: (w, c) => ({ route: '/api/v4/users/:id/custom_attributes/:key', url: `/api/v4/users/${w.users.victim.id}/custom_attributes/${encodeSegment(c.key)}` }),
    list: (w) => ({ route: '/api/v4/users/:id/custom_attributes', url: `/api/v4/users/${w.users.victim.id}/custom_attributes` }),
    same: ['key', 'value'],
  },
  {
    name: 'user email',
    fields: fc.record({ email: fc.oneof(text, fc.emailAddress().map((e) => `${Math.random().toString(36).slice(2, 8)}${e}`)) }),
    create: () => ({ route: '/api/v4/user/emails', url: '/api/v4/user/emails' }),
    read: (_w, c) => ({ route: '/api/v4/user/emails/:email_id', url: `/api/v4/user/emails/${c.id}` }),
    list: () => ({ route: '/api/v4/user/emails', url: '/api/v4/user/emails?per_page=100' }),
    same: ['id', 'email', 'confirmed_at'],
  },
  {
    name: 'project custom attribute',
    fields: fc.record({ key: text, value: text }),
    create: (w) => ({ route: '/api/v4/projects/:id/custom_attributes/:key', url: `/api/v4/projects/${project(w)}/custom_attributes/`, method: 'PUT' }),
    read: (w, c) => ({ route: '/api/v4/projects/:id/custom_attributes/:key', url: `/api/v4/projects/${project(w)}/custom_attributes/${encodeSegment(c.key)}` }),
    list: (w) => ({ route: '/api/v4/projects/:id/custom_attributes', url: `/api/v4/projects/${project(w)}/custom_attributes` }),
    same: ['key', 'value'],
  },
];

const step = fc.record({ kind: fc.nat({ max: KINDS.length - 1 }), fields: fc.constant(null), as: fc.constantFrom('admin', 'user') as fc.Arbitrary<'admin' | 'user'> }).chain((s) => KINDS[s.kind].fields.map((fields) => ({ ...s, fields })));

export const createThenRead = {
  arbitrary: (_world: () => World) => fc.array(step, { minLength: 1, maxLength: 3 }),

  async run(app: FuzzApp, world: World, check: Check, steps: { kind: number; fields: Json; as: 'admin' | 'user' }[]) {
    const routeOf = (method: string, path: string) => {
      const r = app.routes.find((x) => x.method === method && x.path === path);
      if (!r) throw new Error(`no route ${method} ${path}`);
      return r;
    };
    const send = async (method: string, route: string, url: string, token: string, body?: Json) => {
      const sent = await app.send(url, { method, headers: { 'PRIVATE-TOKEN': token, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      const problems = check(routeOf(method, route), sent);
      if (problems.length) throw new Error(`${method} ${url.slice(0, 200)} -> ${sent.status} ${sent.text.slice(0, 300)}\n  ${problems.join('\n  ')}`);
      return { status: sent.status, body: sent.text ? JSON.parse(sent.text) : null };
    };
    for (const s of steps) {
      const kind = KINDS[s.kind];
      const token = s.as === 'admin' ? world.tokens.admin : world.tokens.user;
      const c = kind.create(world);
      const fields = { ...s.fields };
      let url = c.url;
      if (c.method === 'PUT') {
        url += encodeSegment(String(fields.key));
        delete fields.key;
      }
      const created = await send(c.method ?? 'POST', c.route, url, token, fields);
      if (created.status >= 300) continue;
      const r = kind.read(world, created.body);
      const read = await send('GET', r.route, r.url, token);
      if (read.status !== 200) throw new Error(`${kind.name}: created (${created.status}) but reading it answered ${read.status}`);
      for (const f of kind.same) {
        if (JSON.stringify(read.body[f]) !== JSON.stringify(created.body[f])) throw new Error(`${kind.name}: ${f} was ${JSON.stringify(created.body[f])?.slice(0, 100)} when created, ${JSON.stringify(read.body[f])?.slice(0, 100)} when read`);
      }
      const l = kind.list(world, created.body);
      const list = await send('GET', l.route, l.url, token);
      const found = (list.body as Json[]).find((x) => (kind.same[0] === 'key' ? x.key === created.body.key : x.id === created.body.id));
      if (!found) throw new Error(`${kind.name}: created ${JSON.stringify(created.body).slice(0, 100)} is missing from ${l.url}`);
    }
  },
};
