import { describe, expect, it } from 'vitest';
import { scenarios } from '../../scripts/bench/scenarios';
import { DATASETS, type Manifest } from '../../scripts/bench/seed';

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
};

describe('bench scenarios', () => {
  const list = scenarios(manifest);
  const byId = Object.fromEntries(list.map((s) => [s.id, s]));

  it('covers the bare route, /user, issue get, lists, /issues for both callers and creation (last)', () => {
    expect(list.map((s) => s.id)).toEqual(['bare', 'user', 'issue', 'list_default', 'list_big', 'list_mix', 'group_list', 'all_admin', 'all_member', 'create']);
    expect(list.filter((s) => s.writes).map((s) => s.id)).toEqual(['create']);
    expect(byId.bare.next()).toEqual({ method: 'GET', path: '/__bench/hello' });
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
});
