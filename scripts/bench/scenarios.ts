/**
 * The measured requests. Each scenario makes its next request from the seeded manifest; the mix
 * draws its filter values from what exists in the big project so every filter returns rows.
 */
import { FLOOR_PATH } from './floor';
import type { Req } from './load';
import { rng } from './rng';
import type { Manifest } from './seed';

export interface Scenario {
  id: string;
  title: string;
  /** GitLab GPT test this lines up with (performance.md 1.3), if any. */
  gpt?: string;
  /** Writes rows: run after the reads. */
  writes?: boolean;
  next: () => Req;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function scenarios(m: Manifest): Scenario[] {
  const r = rng(7);
  const member = { 'PRIVATE-TOKEN': m.memberToken };
  const admin = { 'PRIVATE-TOKEN': m.rootToken };
  const big = m.bigProjectId;
  const bigIssues = m.memberProjects.find((p) => p.id === big)!.issues;
  const readable = m.memberProjects.filter((p) => p.issues > 0);
  let created = 0;

  const mix: (() => Req)[] = [
    () => ({ kind: 'labels', method: 'GET', path: `/api/v4/projects/${big}/issues?labels=${encodeURIComponent(r.sample(m.big.labels, 2).join(','))}&state=opened`, headers: member }),
    () => ({ kind: 'milestone', method: 'GET', path: `/api/v4/projects/${big}/issues?milestone=${encodeURIComponent(r.pick(m.big.milestones))}`, headers: member }),
    () => ({ kind: 'assignee', method: 'GET', path: `/api/v4/projects/${big}/issues?assignee_id=${r.pick(m.big.userIds)}`, headers: member }),
    () => ({ kind: 'author', method: 'GET', path: `/api/v4/projects/${big}/issues?author_id=${r.pick(m.big.userIds)}&state=opened`, headers: member }),
    () => {
      const after = m.from + r.next() * (m.to - m.from) * 0.8;
      return { kind: 'dates', method: 'GET', path: `/api/v4/projects/${big}/issues?created_after=${iso(after)}&updated_before=${iso(after + 120 * 86_400_000)}`, headers: member };
    },
    () => ({ kind: 'order', method: 'GET', path: `/api/v4/projects/${big}/issues?order_by=updated_at&sort=asc&state=closed`, headers: member }),
    // Deep offset: page 400 of 20 when the project has 8,000+ issues (performance.md 4.4 S4).
    () => ({ kind: 'deep_page', method: 'GET', path: `/api/v4/projects/${big}/issues?page=${Math.min(400, Math.floor(bigIssues / 20))}`, headers: member }),
    () => ({ kind: 'search', method: 'GET', path: `/api/v4/projects/${big}/issues?search=${r.pick(m.searchTerms)}`, headers: member }),
  ];

  return [
    { id: 'bare', title: `bare route (\`GET ${FLOOR_PATH}\`)`, next: () => ({ method: 'GET', path: FLOOR_PATH }) },
    { id: 'user', title: '`GET /user`', gpt: 'api_v4_user', next: () => ({ method: 'GET', path: '/api/v4/user', headers: member }) },
    {
      id: 'issue',
      title: 'single issue `GET /projects/:id/issues/:iid`',
      gpt: 'api_v4_projects_issues_issue',
      next: () => {
        const p = r.chance(0.5) ? { id: big, issues: bigIssues } : r.pick(readable);
        return { method: 'GET', path: `/api/v4/projects/${p.id}/issues/${r.int(1, p.issues)}`, headers: member };
      },
    },
    {
      id: 'list_default',
      title: `project issues, default query (${m.memberProjects.find((p) => p.id === m.gptProjectId)?.issues} issues)`,
      gpt: 'api_v4_projects_issues',
      next: () => ({ method: 'GET', path: `/api/v4/projects/${m.gptProjectId}/issues`, headers: member }),
    },
    {
      id: 'list_big',
      title: `project issues, default query (${bigIssues} issues, no x-total)`,
      next: () => ({ method: 'GET', path: `/api/v4/projects/${big}/issues`, headers: member }),
    },
    { id: 'list_mix', title: `filtered lists mix (${bigIssues} issues)`, next: () => r.pick(mix)() },
    {
      id: 'group_list',
      title: 'group issues, default query (group of the big project, with subgroups)',
      gpt: 'api_v4_groups_issues',
      next: () => ({ method: 'GET', path: `/api/v4/groups/${m.memberGroupIds[0]}/issues`, headers: member }),
    },
    { id: 'all_admin', title: '`GET /issues?scope=all` (administrator)', next: () => ({ method: 'GET', path: '/api/v4/issues?scope=all', headers: admin }) },
    {
      id: 'all_member',
      title: `\`GET /issues?scope=all\` (member of ${m.memberProjects.length} projects)`,
      next: () => ({ method: 'GET', path: '/api/v4/issues?scope=all', headers: member }),
    },
    {
      id: 'create',
      title: 'create issue `POST /projects/:id/issues`',
      gpt: 'scenario_api_new_issues',
      writes: true,
      next: () => {
        const p = r.pick(readable);
        const body: Record<string, unknown> = { title: `Bench issue ${++created}`, description: 'Created by the benchmark.\n\n- [ ] check it' };
        if (p.id === big) Object.assign(body, { labels: r.sample(m.big.labels, 2).join(','), assignee_ids: [r.pick(m.big.userIds)] });
        return { method: 'POST', path: `/api/v4/projects/${p.id}/issues`, headers: member, body };
      },
    },
  ];
}
