/**
 * The 401/403/404 matrix of the merge request endpoints: every role over private, internal and
 * public projects (read_merge_request needs Reporter on a private project; guests see the project
 * but get 403 from the merge request routes, 404 from those using MergeRequestsFinder).
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
const projects: Record<Vis, { id: number; mr: { iid: number }; draft: { iid: number }; version: number }> = {} as never;

const member = (r: Role) => r in LEVEL;
const atLeast = (r: Role, n: number) => r === 'admin' || (member(r) && LEVEL[r] >= n);
const canRead = (r: Role, v: Vis) => r === 'admin' || member(r) || v === 'public' || (v === 'internal' && r !== 'anonymous');
const readsMr = (r: Role, v: Vis) => canRead(r, v) && (v !== 'private' || atLeast(r, 20));

const NF_PROJECT = { message: '404 Project Not Found' };
const NF = { message: '404 Not found' };
const UNAUTH = { message: '401 Unauthorized' };
const FORBIDDEN = { message: '403 Forbidden' };

interface Case {
  name: string;
  method: string;
  path: (v: Vis) => string;
  body?: (v: Vis) => Record<string, unknown>;
  expect: (r: Role, v: Vis) => [number, unknown?];
  /** After an accepted call, before the next role's: waits for what it queued. */
  settle?: (v: Vis) => Promise<void>;
}

const readCase = (name: string, suffix: (v: Vis) => string): Case => ({
  name,
  method: 'GET',
  path: (v) => `/projects/${projects[v].id}${suffix(v)}`,
  expect: (r, v) => (!canRead(r, v) ? [404, NF_PROJECT] : readsMr(r, v) ? [200] : [403, FORBIDDEN]),
});

const CASES: Case[] = [
  readCase('GET list', () => '/merge_requests'),
  readCase('GET merge request', (v) => `/merge_requests/${projects[v].mr.iid}`),
  readCase('GET participants', (v) => `/merge_requests/${projects[v].mr.iid}/participants`),
  readCase('GET commits', (v) => `/merge_requests/${projects[v].mr.iid}/commits`),
  readCase('GET changes', (v) => `/merge_requests/${projects[v].mr.iid}/changes`),
  readCase('GET reviewers', (v) => `/merge_requests/${projects[v].mr.iid}/reviewers`),
  readCase('GET closes_issues', (v) => `/merge_requests/${projects[v].mr.iid}/closes_issues`),
  readCase('GET raw_diffs', (v) => `/merge_requests/${projects[v].mr.iid}/raw_diffs`),
  readCase('GET pipelines', (v) => `/merge_requests/${projects[v].mr.iid}/pipelines`),
  // merge_request_diffs.rb: `before { authenticate! }`, then find_merge_request_with_access.
  ...[
    ['GET versions', (v: Vis) => `/merge_requests/${projects[v].mr.iid}/versions`],
    ['GET version', (v: Vis) => `/merge_requests/${projects[v].mr.iid}/versions/${projects[v].version}`],
  ].map(([name, suffix]) => {
    const base = readCase(name as string, suffix as (v: Vis) => string);
    return { ...base, expect: (r: Role, v: Vis) => (r === 'anonymous' ? ([401, UNAUTH] as [number, unknown]) : base.expect(r, v)) };
  }),
  {
    // todos.rb: authenticate!, find_merge_request_with_access; each role marks it once per project.
    name: 'POST todo',
    method: 'POST',
    path: (v) => `/projects/${projects[v].id}/merge_requests/${projects[v].mr.iid}/todo`,
    expect: (r, v) => (r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : readsMr(r, v) ? [201] : [403, FORBIDDEN]),
  },
  {
    // No CI configuration: Developer+ reach Chain::Config::Content, readers below stop at create_pipeline.
    name: 'POST pipelines',
    method: 'POST',
    path: (v) => `/projects/${projects[v].id}/merge_requests/${projects[v].mr.iid}/pipelines`,
    expect: (r, v) =>
      r === 'anonymous'
        ? [401, UNAUTH]
        : !canRead(r, v)
          ? [404, NF_PROJECT]
          : !readsMr(r, v)
            ? [403, FORBIDDEN]
            : [400, { message: { base: [atLeast(r, 30) ? 'Missing CI config file' : 'Insufficient permissions to create a new pipeline'] } }],
  },
  {
    // find_project_merge_request, then RebaseService#validate: push access to the (unprotected) source branch.
    name: 'PUT rebase',
    method: 'PUT',
    path: (v) => `/projects/${projects[v].id}/merge_requests/${projects[v].mr.iid}/rebase`,
    expect: (r, v) =>
      r === 'anonymous'
        ? [401, UNAUTH]
        : !canRead(r, v)
          ? [404, NF_PROJECT]
          : !readsMr(r, v)
            ? [404, NF]
            : atLeast(r, 30)
              ? [202, { rebase_in_progress: true }]
              : [403, { message: '403 Forbidden - Cannot push to source branch' }],
    // The rebase is queued: the next role's call would meet it in progress (409).
    settle: async (v) => {
      const until = Date.now() + 25_000;
      while ((await api(`/projects/${projects[v].id}/merge_requests/${projects[v].mr.iid}?include_rebase_in_progress=true`, { token: tokens.owner })).body.rebase_in_progress !== false) {
        if (Date.now() > until) throw new Error('rebase still in progress');
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  },
  {
    name: 'POST merge request (Developer+; a duplicate proves the check passed)',
    method: 'POST',
    path: (v) => `/projects/${projects[v].id}/merge_requests`,
    body: () => ({ title: unique('t'), source_branch: 'feature', target_branch: 'main' }),
    expect: (r, v) => (r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : atLeast(r, 30) ? [409] : [403, FORBIDDEN]),
  },
  {
    name: 'PUT merge request (Developer+ or the author)',
    method: 'PUT',
    path: (v) => `/projects/${projects[v].id}/merge_requests/${projects[v].mr.iid}`,
    body: () => ({ description: unique('d') }),
    expect: (r, v) => (r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : atLeast(r, 30) ? [200] : [403, FORBIDDEN]),
  },
  {
    // Developers and administrators depend on the default branch protection (protected branches area).
    name: 'PUT merge of a draft (401 without merge access, 405 for those who may merge)',
    method: 'PUT',
    path: (v) => `/projects/${projects[v].id}/merge_requests/${projects[v].draft.iid}/merge`,
    expect: (r, v) =>
      r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : !readsMr(r, v) ? [404, NF] : r === 'developer' || r === 'admin' ? [-1] : atLeast(r, 40) ? [405] : [401, UNAUTH],
  },
  {
    name: 'DELETE merge request (refusals only)',
    method: 'DELETE',
    path: (v) => `/projects/${projects[v].id}/merge_requests/${projects[v].mr.iid}`,
    expect: (r, v) => (r === 'owner' || r === 'admin' ? [-1] : r === 'anonymous' ? [401, UNAUTH] : !canRead(r, v) ? [404, NF_PROJECT] : !readsMr(r, v) ? [404, NF] : [403, FORBIDDEN]),
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
    const path = unique(`mracc${v}`);
    const g = await api('/groups', { token: tokens.owner, body: { name: path, path, visibility: v } });
    if (g.status !== 201) throw new Error(g.text);
    for (const r of ['guest', 'reporter', 'developer', 'maintainer'] as const) {
      const m = await api(`/groups/${g.body.id}/members`, { token: tokens.owner, body: { user_id: ids[r], access_level: LEVEL[r] } });
      if (m.status !== 201) throw new Error(m.text);
    }
    const p = await api('/projects', { token: tokens.owner, body: { path: 'proj', namespace_id: g.body.id, visibility: v } });
    if (p.status !== 201) throw new Error(p.text);
    const pid = p.body.id;
    const c1 = await api(`/projects/${pid}/repository/commits`, { token: tokens.owner, body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'README.md', content: 'x' }] } });
    if (c1.status !== 201) throw new Error(c1.text);
    for (const b of ['feature', 'draft']) {
      const br = await api(`/projects/${pid}/repository/branches`, { token: tokens.owner, body: { branch: b, ref: 'main' } });
      if (br.status !== 201) throw new Error(br.text);
      const c = await api(`/projects/${pid}/repository/commits`, { token: tokens.owner, body: { branch: b, commit_message: b, actions: [{ action: 'create', file_path: `${b}.txt`, content: b }] } });
      if (c.status !== 201) throw new Error(c.text);
    }
    const mr = await api(`/projects/${pid}/merge_requests`, { token: tokens.developer, body: { title: 'open', source_branch: 'feature', target_branch: 'main' } });
    const draft = await api(`/projects/${pid}/merge_requests`, { token: tokens.owner, body: { title: 'Draft: wip', source_branch: 'draft', target_branch: 'main' } });
    if (mr.status !== 201 || draft.status !== 201) throw new Error(`${mr.text} ${draft.text}`);
    const versions = await api(`/projects/${pid}/merge_requests/${mr.body.iid}/versions`, { token: tokens.owner });
    if (versions.status !== 200) throw new Error(versions.text);
    projects[v] = { id: pid, mr: mr.body, draft: draft.body, version: versions.body[0].id };
  }
});

describe('merge request access matrix', () => {
  for (const cs of CASES) {
    it(cs.name, async () => {
      const failures: string[] = [];
      for (const v of VIS) {
        for (const r of ROLES) {
          const [status, body] = cs.expect(r, v);
          if (status === -1) continue;
          const res = await api(cs.path(v), { method: cs.method, token: tokens[r], body: cs.body?.(v) });
          if (res.status !== status || (body !== undefined && JSON.stringify(res.body) !== JSON.stringify(body)))
            failures.push(`${r}/${v}: ${res.status} ${res.text.slice(0, 80)} (expected ${status} ${body ? JSON.stringify(body) : ''})`);
          if (res.status === 202) await cs.settle?.(v);
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it('lists across projects show only merge requests the caller may read', async () => {
    for (const r of ROLES) {
      const res = await api('/merge_requests?scope=all&per_page=100', { token: tokens[r] });
      expect(res.status).toBe(200);
      const seen = new Set((res.body as { project_id: number }[]).map((m) => m.project_id));
      for (const v of VIS) expect([r, v, seen.has(projects[v].id)]).toEqual([r, v, readsMr(r, v)]);
      expect(Number(res.headers.get('x-total'))).toBe(res.body.length);
    }
  });

  it('group lists hide the private project merge requests from its guests', async () => {
    const v = 'private';
    const mrRes = await api(`/projects/${projects[v].id}`, { token: tokens.owner });
    const groupId = mrRes.body.namespace.id;
    const asGuest = await api(`/groups/${groupId}/merge_requests`, { token: tokens.guest });
    expect(asGuest.status).toBe(200);
    expect(asGuest.body).toEqual([]);
    expect(asGuest.headers.get('x-total')).toBe('0');
    const asReporter = await api(`/groups/${groupId}/merge_requests`, { token: tokens.reporter });
    expect(asReporter.body).toHaveLength(2);
  });
});
