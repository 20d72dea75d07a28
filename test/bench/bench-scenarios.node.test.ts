import { describe, expect, it, vi } from 'vitest';
import type { Req } from '../../scripts/bench/load';
import { scenarios } from '../../scripts/bench/scenarios';
import { DATASETS, runnerToken, type Manifest } from '../../scripts/bench/seed';
import { seedDeployments } from '../../scripts/bench/seed-deployments';
import { TARGETS } from '../../scripts/bench/targets';

const manifest: Manifest = {
  dataset: DATASETS.S,
  seedMs: 1,
  counts: {},
  rootToken: 'root-token',
  memberToken: 'member-token',
  memberUserId: 2,
  bigProjectId: 1,
  gptProjectId: 2,
  memberProjects: [
    { id: 1, issues: 12000 },
    { id: 2, issues: 6722 },
    { id: 7, issues: 30 },
  ],
  memberGroupIds: [302, 304],
  big: { labels: ['bug', 'good first issue', 'ui'], milestones: ['v1.1', 'v2.0'], userIds: [2, 5, 9] },
  searchTerms: ['deadlock', 'timeout'],
  from: Date.UTC(2023, 0, 1),
  to: Date.UTC(2026, 0, 1),
  mergeRequests: [
    { id: 1, mergeRequests: 40 },
    { id: 2, mergeRequests: 500 },
  ],
  approve: {
    projectId: 2,
    tokens: ['approver-a', 'approver-b', 'approver-c'],
    userIds: [31, 32, 33],
    mrs: [
      { iid: 498, sha: 'a'.repeat(40) },
      { iid: 499, sha: 'b'.repeat(40) },
      { iid: 500, sha: 'c'.repeat(40) },
      { iid: 501, sha: 'd'.repeat(40) },
    ],
  },
  runners: { count: 5 },
  deployments: { projectId: 2, count: 400, environments: ['production', 'staging'] },
};

describe('bench scenarios', () => {
  const list = scenarios(manifest);
  const byId = Object.fromEntries(list.map((s) => [s.id, s]));

  it('covers the bare route, /user, issue get, lists, /issues and merge requests for both callers, merge requests, approvals, runners, import/export and creation', () => {
    expect(list.map((s) => s.id)).toEqual(['bare', 'user', 'issue', 'list_default', 'list_big', 'list_mix', 'group_list', 'all_admin', 'all_member', 'mr_list', 'mr_group_list', 'mr_all_member', 'mr', 'deployments', 'approve', 'runner', 'import_export', 'create', 'hook_fanout']);
    expect(list.filter((s) => s.writes).map((s) => s.id)).toEqual(['approve', 'import_export', 'create', 'hook_fanout']);
    // One issue update in a project with 20 webhooks (issue 18): a PUT of the title as administrator.
    expect(byId.hook_fanout.next()).toEqual({ method: 'PUT', path: '/api/v4/projects/2/issues/1', headers: { 'PRIVATE-TOKEN': 'root-token' }, body: { title: 'Fan-out 1' } });
    expect(byId.mr_list.next()).toEqual({ method: 'GET', path: '/api/v4/projects/2/merge_requests', headers: { 'PRIVATE-TOKEN': 'member-token' } });
    expect(byId.bare.next()).toEqual({ method: 'GET', path: '/__bench/hello' });
    expect(byId.deployments.next()).toEqual({ method: 'GET', path: '/api/v4/projects/2/deployments', headers: { 'PRIVATE-TOKEN': 'member-token' } });
    expect(byId.deployments.title).toBe('project deployments, default query (400 deployments, 2 environments)');
    expect(byId.all_admin.next().headers).toEqual({ 'PRIVATE-TOKEN': 'root-token' });
    expect(byId.all_member.next()).toMatchObject({ path: '/api/v4/issues?scope=all', headers: { 'PRIVATE-TOKEN': 'member-token' } });
    expect(byId.list_default.next().path).toBe('/api/v4/projects/2/issues');
    expect(byId.group_list.next().path).toBe('/api/v4/groups/302/issues');
  });

  it('asks for issues that exist in projects the member belongs to', () => {
    for (let i = 0; i < 200; i++) {
      const m = /^\/api\/v4\/projects\/(\d+)\/issues\/(\d+)$/.exec(byId.issue.next().path)!;
      const p = manifest.memberProjects.find((x) => x.id === Number(m[1]))!;
      expect(Number(m[2])).toBeGreaterThanOrEqual(1);
      expect(Number(m[2])).toBeLessThanOrEqual(p.issues);
    }
  });

  it('asks for merge requests of the GPT-sized project that exist', () => {
    const iids = new Set<number>();
    for (let i = 0; i < 300; i++) {
      const m = /^\/api\/v4\/projects\/2\/merge_requests\/(\d+)$/.exec(byId.mr.next().path)!;
      iids.add(Number(m[1]));
    }
    expect(Math.min(...iids)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...iids)).toBeLessThanOrEqual(500);
    expect(iids.size).toBeGreaterThan(100);
  });

  it('approves every (merge request, developer) pair once, with the HEAD sha, then unapproves them, never the same pair twice in a row', () => {
    const writes: Req[] = [];
    let reads = 0;
    while (writes.length < 24) {
      const r = byId.approve.next();
      if (r.method === 'GET') {
        reads++;
        expect(r.path).toMatch(/^\/api\/v4\/projects\/2\/merge_requests\/(498|499|500|501)\/approvals$/);
        continue;
      }
      writes.push(r);
    }
    expect(reads).toBeGreaterThan(0);
    const pair = (r: Req) => `${r.path.split('/')[6]} ${r.headers!['PRIVATE-TOKEN']}`;
    const first = writes.slice(0, 12);
    expect(first.every((r) => r.kind === 'approve' && r.path.endsWith('/approve'))).toBe(true);
    expect(new Set(first.map(pair)).size).toBe(12);
    expect(first[0]).toMatchObject({ path: '/api/v4/projects/2/merge_requests/498/approve', body: { sha: 'a'.repeat(40) } });
    expect(first[1]).toMatchObject({ path: '/api/v4/projects/2/merge_requests/499/approve', body: { sha: 'b'.repeat(40) } });
    for (let i = 1; i < first.length; i++) expect(first[i].path).not.toBe(first[i - 1].path);
    const second = writes.slice(12);
    expect(second.every((r) => r.kind === 'unapprove' && r.path.endsWith('/unapprove') && r.body === undefined)).toBe(true);
    expect(second.map(pair)).toEqual(first.map(pair));
  });

  it('tracks each pair from its answers and checks the approvals left against them', async () => {
    const s = scenarios(manifest).find((x) => x.id === 'approve')!;
    const writes: Req[] = [];
    while (writes.length < 16) {
      const r = s.next();
      if (r.method === 'POST') writes.push(r);
    }
    // The server: approvals by (iid, user id) as the answers claim; one unapprove is never answered.
    const server = new Set<string>();
    const userOf = (r: Req) => manifest.approve.userIds[manifest.approve.tokens.indexOf(r.headers!['PRIVATE-TOKEN'])];
    for (const [i, r] of writes.entries()) {
      const key = `${r.path.split('/')[6]} ${userOf(r)}`;
      if (i === 13) {
        r.onDone!(null);
        continue;
      }
      if (r.kind === 'approve') server.add(key);
      else server.delete(key);
      r.onDone!(201);
    }
    const answer = (flip?: string) => async (url: string | URL | Request) => {
      const iid = String(url).split('/')[8];
      const ids = manifest.approve.userIds.filter((u) => server.has(`${iid} ${u}`) !== (flip === `${iid} ${u}`));
      return new Response(JSON.stringify({ approved_by: ids.map((id) => ({ user: { id } })) }));
    };
    vi.stubGlobal('fetch', answer());
    try {
      expect(await s.verify!(1)).toBe('final state after 16 writes: 9 approvals; of 12 pairs written, 11 known from their last answer, 0 of those differ, 1 unanswered');
      // An approval the server lost (or kept) is reported.
      vi.stubGlobal('fetch', answer(`501 ${manifest.approve.userIds[2]}`));
      expect(await s.verify!(1)).toMatch(/, 1 of those differ, 1 unanswered$/);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('polls as each runner in turn, echoing the stamp its first poll got, and verifies one time in ten', async () => {
    const s = scenarios(manifest).find((x) => x.id === 'runner')!;
    // The server: 204 with a stamp per runner token, as the runner-facing API answers a poll.
    const bodies: Record<string, unknown>[] = [];
    vi.stubGlobal('fetch', async (_url: string, init: RequestInit) => {
      const body = JSON.parse(String(init.body));
      bodies.push(body);
      return new Response(null, { status: 204, headers: { 'X-GitLab-Last-Update': `stamp-${body.token}`, 'X-Storage-Round-Trips': '2' } });
    });
    try {
      expect(await s.prepare!(1)).toMatch(/^first polls of 5 runners in [\d.]+ s: 5 × 204, 2\.00 round trips each$/);
    } finally {
      vi.unstubAllGlobals();
    }
    expect(bodies.map((b) => b.token).sort()).toEqual([0, 1, 2, 3, 4].map(runnerToken));
    const reqs = Array.from({ length: 400 }, () => s.next());
    const polls = reqs.filter((r) => r.kind === 'poll');
    const verifies = reqs.filter((r) => r.kind === 'verify');
    expect(polls.length + verifies.length).toBe(400);
    expect(verifies.length).toBeGreaterThan(20);
    expect(verifies.length).toBeLessThan(70);
    for (const [i, r] of reqs.entries()) {
      const token = runnerToken(i % 5);
      expect(r).toMatchObject({ method: 'POST', headers: { 'RUNNER-TOKEN': token }, body: { token, info: { name: 'gitlab-runner', features: { variables: true } } } });
      expect((r.body as { system_id: string }).system_id).toMatch(/^s_[0-9a-f]{12}$/);
      if (r.kind === 'poll') expect(r).toMatchObject({ path: '/api/v4/jobs/request', body: { last_update: `stamp-${token}` } });
      else expect(r.path).toBe('/api/v4/runners/verify');
    }
  });

  it('mixes every filter on the big project with values from the dataset', () => {
    const seen = new Map<string, string>();
    for (let i = 0; i < 400; i++) {
      const r = byId.list_mix.next();
      expect(r.path.startsWith('/api/v4/projects/1/issues?')).toBe(true);
      seen.set(r.kind!, r.path);
    }
    expect([...seen.keys()].sort()).toEqual(['assignee', 'author', 'dates', 'deep_page', 'labels', 'milestone', 'order', 'search']);
    expect(seen.get('deep_page')).toContain('page=400');
    expect(seen.get('search')).toMatch(/search=(deadlock|timeout)/);
    expect(decodeURIComponent(seen.get('milestone')!)).toMatch(/milestone=v(1\.1|2\.0)$/);
  });

  it('creates issues with distinct titles; on the big project with labels and an assignee', () => {
    const titles = new Set<string>();
    let withLabels = 0;
    for (let i = 0; i < 60; i++) {
      const r = byId.create.next();
      expect(r.method).toBe('POST');
      const body = r.body as Record<string, unknown>;
      titles.add(body.title as string);
      if (r.path === '/api/v4/projects/1/issues') {
        withLabels++;
        expect(body.assignee_ids).toHaveLength(1);
        expect(String(body.labels).split(',')).toHaveLength(2);
      }
    }
    expect(titles.size).toBe(60);
    expect(withLabels).toBeGreaterThan(0);
  });

  it('seeds the deployments list: environments, then deployments in time order to them, the newest running', () => {
    const rows: Record<string, Record<string, unknown>[]> = {};
    const insert = (table: string, row: Record<string, unknown>) => void (rows[table] ??= []).push(row);
    const out = seedDeployments({ insert, projectId: 2, users: [5, 9], count: 300, now: Date.UTC(2026, 0, 1), span: 365 * 86_400_000 });
    expect(out).toMatchObject({ projectId: 2, count: 300 });
    expect(rows.environments.map((e) => e.name)).toEqual(out.environments);
    expect(new Set(rows.environments.map((e) => e.slug)).size).toBe(out.environments.length);
    const envIds = new Set(rows.environments.map((e) => e.id));
    const d = rows.deployments;
    expect(d).toHaveLength(300);
    expect(d.map((x) => x.iid)).toEqual(d.map((_, i) => i + 1));
    for (let i = 1; i < d.length; i++) expect(d[i].created_at as number).toBeGreaterThanOrEqual(d[i - 1].created_at as number);
    expect(d.every((x) => envIds.has(x.environment_id) && [5, 9].includes(x.user_id as number) && /^[0-9a-f]{40}$/.test(x.sha as string))).toBe(true);
    expect(d.slice(-3).map((x) => [x.status, x.finished_at])).toEqual([['running', null], ['running', null], ['running', null]]);
    const statuses = new Set(d.map((x) => x.status));
    expect([...statuses].sort()).toEqual(['canceled', 'failed', 'running', 'success']);
    expect(d.filter((x) => x.status !== 'running').every((x) => (x.finished_at as number) > (x.created_at as number))).toBe(true);
    // Listed with the other lists' target.
    expect(TARGETS.find((t) => t.label.startsWith('every list'))!.scenarios).toContain('deployments');
  });
});
