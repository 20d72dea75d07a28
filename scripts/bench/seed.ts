/**
 * Builds the benchmark database: one SQLite file migrated with drizzle/ (as the Node server does),
 * the root account from services/bootstrap.ts, then a synthetic but realistic dataset written with
 * direct SQL (prepared statements inside one transaction of the synchronous `libsql` driver).
 * Tests create state through the API; the benchmark only needs the rows, and direct SQL keeps the
 * seed of 100k issues and ~300k notes well under 30 s.
 *
 * Writes `<dir>/bench.db` and `<dir>/manifest.json` (tokens, ids and filter values the scenarios use).
 */
import { createClient } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import Database from 'libsql';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/platform/config';
import type { Db } from '../../src/db/client';
import { schema } from '../../src/db/client';
import type { Env } from '../../src/platform/env';
import { tokenDigest } from '../../src/platform/crypto';
import { bootstrap } from '../../src/auth/bootstrap';
import { rng, type Rng } from './rng';
import { seedMergeRequests } from './seed-merge-requests';
import { type DeploySeed, seedDeployments } from './seed-deployments';

export interface DatasetSpec {
  id: string;
  users: number;
  groups: number;
  /** Projects per top-level group; half sit in the group, half in its one subgroup. */
  projectsPerGroup: number;
  personalProjects: number;
  issues: number;
  /** The large project (GitLab drops x-total above 10,000). */
  bigIssues: number;
  /** GPT's "large project" has 6,722 issues (performance.md 1.3): the like-for-like list for GitLab's figures. */
  gptIssues: number;
  notesPerIssue: number;
  /** Projects the "member" user belongs to (2 groups' worth through group membership, the rest directly). */
  memberProjects: number;
  /** Merge requests in all (performance.md 4.3: 10k with ~2 approvals each), `gptMergeRequests` of them in the GPT project. */
  mergeRequests: number;
  gptMergeRequests: number;
  /** S5: open merge requests of the GPT project that `approvers` developers approve and unapprove in turn. */
  approveMergeRequests: number;
  approvers: number;
  /** S6: registered runners (token digests as the server stores them) that poll `jobs/request` and verify. */
  runners: number;
  /** Issue 16: deployments of the GPT-sized project, over its environments (seed-deployments.ts). */
  deployments: number;
}

export const DATASETS: Record<string, DatasetSpec> = {
  // performance.md 4.3 dataset M (issues part): 100k issues, 200+ projects, one project of 20k.
  M: { id: 'M', users: 2000, groups: 20, projectsPerGroup: 10, personalProjects: 10, issues: 100_000, bigIssues: 20_000, gptIssues: 6_722, notesPerIssue: 3, memberProjects: 50,
    mergeRequests: 10_000, gptMergeRequests: 3_609, approveMergeRequests: 1_000, approvers: 20, runners: 10_000, deployments: 400 },
  // Development runs (`--quick`): same shape, a tenth of the size, still one project above 10,000.
  S: { id: 'S', users: 300, groups: 6, projectsPerGroup: 8, personalProjects: 4, issues: 20_000, bigIssues: 11_000, gptIssues: 2_000, notesPerIssue: 1, memberProjects: 30,
    mergeRequests: 1_000, gptMergeRequests: 500, approveMergeRequests: 200, approvers: 20, runners: 1_000, deployments: 100 },
};

export interface Manifest {
  dataset: DatasetSpec;
  seedMs: number;
  counts: Record<string, number>;
  rootToken: string;
  memberToken: string;
  memberUserId: number;
  bigProjectId: number;
  gptProjectId: number;
  /** Projects the member may read and write (developer), with their issue counts. */
  memberProjects: { id: number; issues: number }[];
  /** Top-level groups the member belongs to (the first holds the big project). */
  memberGroupIds: number[];
  /** Filter values that exist in the big project. */
  big: { labels: string[]; milestones: string[]; userIds: number[] };
  searchTerms: string[];
  /** Epoch ms range of issue created_at. */
  from: number;
  to: number;
  /** Merge request counts of the projects that have some (iids 1..n). */
  mergeRequests: { id: number; mergeRequests: number }[];
  /** S5: developers of the GPT project (tokens) and the open merge requests they approve, with HEAD shas. */
  approve: { projectId: number; tokens: string[]; userIds: number[]; mrs: { iid: number; sha: string }[] };
  /** S6: runners 1..count, each with the token `runnerToken(k)` (k = 0..count-1). */
  runners: { count: number };
  /** Issue 16: the project whose deployments are listed, how many, and its environments. */
  deployments: DeploySeed;
}

export const BENCH_MEMBER_TOKEN = 'glpat-bench-member-token-000001';
const approverToken = (k: number) => `glpat-bench-approver-${String(k).padStart(10, '0')}`;
/** The k-th seeded runner's authentication token (20 characters, the legacy form a registered runner gets). */
export const runnerToken = (k: number) => `benchrunner${String(k).padStart(9, '0')}`;
const DAY = 86_400_000;
/** A fixed clock so two seeds of one spec are identical. */
const NOW = Date.UTC(2026, 9, 1);
const SPAN = 3 * 365 * DAY;

const WORDS = (
  'error crash timeout pipeline deploy runner merge request branch commit build test flaky cache ' +
  'memory leak slow query index migration upgrade release docs typo login token permission access ' +
  'webhook api endpoint pagination search filter label milestone assignee notification email export ' +
  'import backup restore storage registry container kubernetes helm terraform security vulnerability ' +
  'dependency license audit compliance dashboard chart metric alert incident outage latency throughput'
).split(' ');
const RARE = ['segfault', 'deadlock', 'unicode', 'zeitgeist'];
const GROUP_LABELS = ['bug', 'feature', 'documentation', 'security', 'performance', 'priority::high', 'priority::low', 'customer'];
const PROJECT_LABELS = ['backend', 'frontend', 'database', 'ui', 'ux', 'api', 'ci', 'infra', 'needs-review', 'blocked', 'good first issue', 'regression'];
const EMOJI = ['thumbsup', 'thumbsup', 'thumbsup', 'thumbsdown', 'tada', 'heart'];

/** Zipf-ish word choice: a few words are in many titles, the tail in few (so searches differ in selectivity). */
function word(r: Rng): string {
  if (r.chance(0.002)) return r.pick(RARE);
  const i = Math.floor(WORDS.length * Math.pow(r.next(), 2.2));
  return WORDS[i];
}
function sentence(r: Rng, lo: number, hi: number): string {
  const n = r.int(lo, hi);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(word(r));
  out[0] = out[0][0].toUpperCase() + out[0].slice(1);
  return out.join(' ');
}
function description(r: Rng): string {
  const paras = r.int(1, 4);
  const out: string[] = [];
  for (let i = 0; i < paras; i++) out.push(`${sentence(r, 8, 20)}. ${sentence(r, 6, 16)}.`);
  if (r.chance(0.3)) out.push('```\n' + sentence(r, 4, 10) + '\n```');
  if (r.chance(0.3)) out.push(`- [ ] ${sentence(r, 3, 6)}\n- [x] ${sentence(r, 3, 6)}`);
  return out.join('\n\n');
}
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function seed(spec: DatasetSpec, dir: string, log: (s: string) => void = () => {}): Promise<Manifest> {
  const t0 = performance.now();
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'bench.db');
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(file + suffix, { force: true });

  // Schema and root exactly as the Node server makes them (src/node-app.ts).
  const env = {} as Env;
  const config = loadConfig(env);
  const client = createClient({ url: `file:${file}` });
  const db = drizzle(client, { schema }) as unknown as Db;
  await migrate(db as never, { migrationsFolder: 'drizzle' });
  await bootstrap(db, config);
  client.close();

  const sq = new Database(file);
  sq.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA cache_size = -200000;');
  const r = rng(42);
  const counts: Record<string, number> = {};
  const stmts = new Map<string, ReturnType<typeof sq.prepare>>();
  const insert = (table: string, row: Record<string, unknown>) => {
    const cols = Object.keys(row);
    const key = `${table}(${cols.join(',')})`;
    let st = stmts.get(key);
    if (!st) {
      st = sq.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
      stmts.set(key, st);
    }
    const values = cols.map((c) => (typeof row[c] === 'boolean' ? Number(row[c]) : row[c]));
    st.run(...(values as [{}]));
    counts[table] = (counts[table] ?? 0) + 1;
  };

  const manifest = sq.transaction(() => {
    // Users 2..users+1 with their personal namespaces (same id as the user: root has namespace 1).
    const userIds: number[] = [];
    for (let i = 0; i < spec.users; i++) {
      const id = i + 2;
      const username = id === 2 ? 'bench-member' : `user${id}`;
      const created = NOW - SPAN - r.int(0, 365) * DAY;
      insert('users', { id, username, email: `${username}@example.com`, name: id === 2 ? 'Bench Member' : `User ${id}`, confirmed_at: created, created_at: created, updated_at: created });
      insert('namespaces', { id, kind: 'User', name: `User ${id}`, path: username, full_path: username, owner_id: id, created_at: created, updated_at: created });
      userIds.push(id);
    }
    const memberId = 2;

    // Groups with one subgroup each; traversal_path as services/groups.ts writes it.
    let nsId = spec.users + 2;
    const groups: { id: number; sub: number; path: string; users: number[] }[] = [];
    const member = (sourceType: string, sourceId: number, userId: number, level: number) =>
      insert('members', { source_type: sourceType, source_id: sourceId, user_id: userId, access_level: level, created_at: NOW - SPAN, updated_at: NOW - SPAN });
    for (let g = 0; g < spec.groups; g++) {
      const id = nsId++;
      const sub = nsId++;
      const path = `group-${g + 1}`;
      const vis = g % 5 === 4 ? 'public' : 'internal';
      insert('namespaces', { id, kind: 'Group', name: `Group ${g + 1}`, path, full_path: path, visibility: vis, traversal_path: `/${id}/`, created_at: NOW - SPAN, updated_at: NOW - SPAN });
      insert('namespaces', { id: sub, kind: 'Group', name: 'Team', path: 'team', full_path: `${path}/team`, parent_id: id, visibility: vis, traversal_path: `/${id}/${sub}/`, created_at: NOW - SPAN, updated_at: NOW - SPAN });
      const people = r.sample(userIds.slice(1), 16);
      member('Namespace', id, people[0], 50);
      for (const u of people.slice(1)) member('Namespace', id, u, r.pick([10, 20, 30, 30, 40]));
      const subPeople = r.sample(userIds.slice(1), 5).filter((u) => !people.includes(u));
      for (const u of subPeople) member('Namespace', sub, u, r.pick([20, 30, 40]));
      groups.push({ id, sub, path, users: [...people, ...subPeople] });
    }
    // The member reaches the projects of the first two groups through group membership.
    const memberGroups = groups.slice(0, Math.min(2, groups.length));
    for (const g of memberGroups) member('Namespace', g.id, memberId, 30);

    // Group labels.
    let labelId = 1;
    const groupLabels = new Map<number, number[]>();
    for (const g of groups) {
      const ids: number[] = [];
      for (const title of GROUP_LABELS) {
        insert('labels', { id: labelId, group_id: g.id, title, color: '#' + r.int(0, 0xffffff).toString(16).padStart(6, '0'), description: `${title} (group)`, created_at: NOW - SPAN, updated_at: NOW - SPAN });
        ids.push(labelId++);
      }
      groupLabels.set(g.id, ids);
    }

    // Projects: the big one first (group 1), the GPT-sized one second (group 2), then the rest.
    interface P { id: number; ns: number; group: (typeof groups)[number] | null; users: number[]; issues: number; labels: number[]; labelTitles: string[]; milestones: number[]; milestoneTitles: string[] }
    const projects: P[] = [];
    let projectId = 1;
    let milestoneId = 1;
    const addProject = (ns: number, nsPath: string, group: (typeof groups)[number] | null, vis: string, owner: number | null) => {
      const id = projectId++;
      const path = `project-${id}`;
      const created = NOW - SPAN - r.int(0, 30) * DAY;
      insert('projects', { id, namespace_id: ns, name: `Project ${id}`, path, description: sentence(r, 5, 12), visibility: vis, default_branch: 'main', creator_id: owner ?? group?.users[0] ?? 1, created_at: created, updated_at: NOW, last_activity_at: NOW });
      const users = group ? [...group.users] : owner ? [owner] : [];
      for (const u of r.sample(userIds.slice(1), 8)) {
        if (users.includes(u)) continue;
        member('Project', id, u, r.pick([20, 30, 30, 40]));
        users.push(u);
      }
      const labels: number[] = [...(group ? groupLabels.get(group.id)! : [])];
      const labelTitles: string[] = group ? [...GROUP_LABELS] : [];
      for (const title of PROJECT_LABELS) {
        insert('labels', { id: labelId, project_id: id, title, color: '#' + r.int(0, 0xffffff).toString(16).padStart(6, '0'), created_at: created, updated_at: created });
        labels.push(labelId++);
        labelTitles.push(title);
      }
      const milestones: number[] = [];
      const milestoneTitles: string[] = [];
      for (let m = 1; m <= 6; m++) {
        const due = created + (m * SPAN) / 6;
        const title = `v${Math.floor(m / 3) + 1}.${m % 3}`;
        insert('milestones', { id: milestoneId, project_id: id, iid: m, title, description: sentence(r, 4, 10), state: due < NOW - 60 * DAY ? 'closed' : 'active', due_date: isoDay(due), start_date: isoDay(due - SPAN / 6), created_at: created, updated_at: created });
        milestones.push(milestoneId++);
        milestoneTitles.push(title);
      }
      insert('internal_ids', { usage: 'milestones', scope_id: id, last_value: 6 });
      projects.push({ id, ns, group, users, issues: 0, labels, labelTitles, milestones, milestoneTitles });
      return projects[projects.length - 1];
    };
    for (const g of groups) {
      for (let k = 0; k < spec.projectsPerGroup; k++) {
        const inSub = k >= spec.projectsPerGroup / 2;
        // Mostly private (members only), some internal and public, as on a company instance.
        const vis = projects.length < 2 ? 'private' : r.chance(0.7) ? 'private' : g.path.endsWith('5') ? 'public' : 'internal';
        addProject(inSub ? g.sub : g.id, inSub ? `${g.path}/team` : g.path, g, vis, null);
      }
    }
    for (let k = 0; k < spec.personalProjects; k++) {
      const owner = userIds[1 + k];
      addProject(owner, `user${owner}`, null, r.chance(0.5) ? 'private' : 'public', owner);
    }
    // Direct developer memberships of the member outside its two groups, up to spec.memberProjects.
    const inherited = projects.filter((p) => p.group && memberGroups.includes(p.group));
    const others = projects.filter((p) => !inherited.includes(p));
    const direct = r.sample(others, Math.max(0, spec.memberProjects - inherited.length));
    for (const p of direct) {
      member('Project', p.id, memberId, 30);
      p.users.push(memberId);
    }
    for (const p of inherited) if (!p.users.includes(memberId)) p.users.push(memberId);
    const memberProjects = [...inherited, ...direct];

    // Issue counts: big, GPT-sized, the rest spread with uneven weights.
    projects[0].issues = spec.bigIssues;
    projects[1].issues = spec.gptIssues;
    const rest = projects.slice(2);
    const weights = rest.map(() => 0.2 + r.next() * r.next() * 3);
    const sum = weights.reduce((a, b) => a + b, 0);
    let left = spec.issues - spec.bigIssues - spec.gptIssues;
    rest.forEach((p, i) => {
      p.issues = i === rest.length - 1 ? left : Math.min(left, Math.round(((spec.issues - spec.bigIssues - spec.gptIssues) * weights[i]) / sum));
      left -= p.issues;
    });

    let issueId = 1;
    for (const p of projects) {
      const times = Array.from({ length: p.issues }, () => NOW - r.next() * SPAN).sort((a, b) => a - b);
      for (let i = 0; i < p.issues; i++) {
        const id = issueId++;
        const created = Math.round(times[i]);
        const updated = Math.min(NOW, created + Math.round(r.next() * r.next() * 90 * DAY));
        const closed = r.chance(0.35);
        const author = r.chance(0.9) && p.users.length ? r.pick(p.users) : r.pick(userIds);
        const awards: [string, number][] = [];
        if (r.chance(0.25)) {
          const seen = new Set<string>();
          for (let k = r.int(1, 4); k > 0; k--) {
            const a: [string, number] = [r.pick(EMOJI), r.pick(p.users.length ? p.users : userIds)];
            if (!seen.has(a.join())) (seen.add(a.join()), awards.push(a));
          }
        }
        insert('issues', {
          id,
          project_id: p.id,
          iid: i + 1,
          title: sentence(r, 3, 9),
          description: description(r),
          state: closed ? 'closed' : 'opened',
          author_id: author,
          issue_type: r.chance(0.02) ? 'incident' : 'issue',
          confidential: r.chance(0.03),
          milestone_id: r.chance(0.6) ? r.pick(p.milestones) : null,
          due_date: r.chance(0.15) ? isoDay(created + r.int(7, 120) * DAY) : null,
          weight: r.chance(0.3) ? r.int(0, 8) : null,
          time_estimate: r.chance(0.1) ? r.int(1, 40) * 1800 : 0,
          upvotes: awards.filter(([n]) => n === 'thumbsup').length,
          downvotes: awards.filter(([n]) => n === 'thumbsdown').length,
          closed_at: closed ? updated : null,
          closed_by_id: closed ? r.pick(p.users.length ? p.users : userIds) : null,
          created_at: created,
          updated_at: updated,
        });
        for (const [name, user] of awards) insert('award_emoji', { name, user_id: user, awardable_type: 'Issue', awardable_id: id, created_at: updated, updated_at: updated });
        const nAssignees = r.chance(0.2) ? 0 : r.chance(0.12) ? 2 : 1;
        r.sample(p.users.length ? p.users : userIds, nAssignees).forEach((u, pos) => insert('issue_assignees', { issue_id: id, user_id: u, position: pos }));
        const nLabels = r.int(0, 4);
        for (const l of r.sample(p.labels, nLabels)) insert('label_links', { label_id: l, target_type: 'Issue', target_id: id, created_at: created });
        const nNotes = r.int(0, 2 * spec.notesPerIssue);
        for (let k = 0; k < nNotes; k++) {
          const system = k === 0 && r.chance(0.5);
          const at = created + Math.round(((updated - created) * (k + 1)) / (nNotes + 1));
          insert('notes', {
            noteable_type: 'Issue',
            noteable_id: id,
            project_id: p.id,
            author_id: system ? author : r.pick(p.users.length ? p.users : userIds),
            body: system ? r.pick(['changed the description', 'added ~bug label', 'assigned to @user' + author, 'changed milestone']) : `${sentence(r, 6, 24)}.`,
            system,
            discussion_id: `${id.toString(16).padStart(20, '0')}${k.toString(16).padStart(20, '0')}`,
            created_at: at,
            updated_at: at,
          });
        }
      }
      insert('internal_ids', { usage: 'issues', scope_id: p.id, last_value: p.issues });
    }

    // S5 approvers: developers of the GPT project who are not among its authors (they start with no approvals).
    const gpt = projects[1];
    const approverIds = r.sample(userIds.filter((u) => u !== memberId && !gpt.users.includes(u)), spec.approvers);
    for (const u of approverIds) member('Project', gpt.id, u, 30);
    const mrs = seedMergeRequests({
      r,
      insert,
      projects: projects.map((p) => ({ id: p.id, groupId: p.group ? p.ns : null, users: p.users, labels: p.labels, milestones: p.milestones })),
      gptProjectId: gpt.id,
      approverIds,
      total: spec.mergeRequests,
      gpt: spec.gptMergeRequests,
      approveCount: spec.approveMergeRequests,
      now: NOW,
      span: SPAN,
      sentence,
    });

    const deployments = seedDeployments({ insert, projectId: gpt.id, users: gpt.users, count: spec.deployments, now: NOW, span: SPAN });

    // The member's token (the root token is the bootstrap one: config.rootToken).
    return {
      deployments,
      approverIds,
      mrs,
      memberId,
      memberProjects: memberProjects.map((p) => ({ id: p.id, issues: p.issues })),
      memberGroupIds: memberGroups.map((g) => g.id),
      big: { labels: projects[0].labelTitles, milestones: projects[0].milestoneTitles, userIds: projects[0].users },
    };
  })();

  const digest = await tokenDigest(BENCH_MEMBER_TOKEN, config.tokenPepper);
  const token = sq.prepare('INSERT INTO personal_access_tokens (user_id, name, token_digest, scopes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
  token.run(manifest.memberId, 'bench', digest, JSON.stringify(['api']), NOW, NOW);
  for (const [k, u] of manifest.approverIds.entries()) token.run(u, 'bench', await tokenDigest(approverToken(k), config.tokenPepper), JSON.stringify(['api']), NOW, NOW);
  // S6: runners as POST /runners leaves them, their tokens stored as the server digests them
  // (tokenDigest with the configured pepper: runner-tokens.ts digestOf). Last contact a while ago, so
  // each runner's first poll persists its contact, as after a restart of the fleet.
  const runner = sq.prepare(
    "INSERT INTO ci_runners (id, runner_type, description, token_digest, active, locked, run_untagged, tag_list, access_level, contacted_at, registration_type, created_at, updated_at) VALUES (?, 'instance_type', ?, ?, 1, 0, 1, '[]', 'not_protected', ?, 'registration_token', ?, ?)",
  );
  const runnerDigests = await Promise.all(Array.from({ length: spec.runners }, (_, k) => tokenDigest(runnerToken(k), config.tokenPepper)));
  sq.transaction(() => {
    for (let k = 0; k < spec.runners; k++) runner.run(k + 1, `bench runner ${k + 1}`, runnerDigests[k], NOW - DAY, NOW - SPAN, NOW - SPAN);
  })();
  counts.ci_runners = spec.runners;
  // One self-contained file (Miniflare's D1 gets a copy of it).
  sq.exec('PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;');
  sq.close();

  const out: Manifest = {
    dataset: spec,
    seedMs: Math.round(performance.now() - t0),
    counts,
    rootToken: config.rootToken,
    memberToken: BENCH_MEMBER_TOKEN,
    memberUserId: manifest.memberId,
    bigProjectId: 1,
    gptProjectId: 2,
    memberProjects: manifest.memberProjects,
    memberGroupIds: manifest.memberGroupIds,
    big: manifest.big,
    searchTerms: ['deadlock', 'kubernetes', 'timeout', 'error'],
    from: NOW - SPAN,
    to: NOW,
    mergeRequests: manifest.mrs.perProject,
    approve: { projectId: 2, tokens: manifest.approverIds.map((_, k) => approverToken(k)), userIds: manifest.approverIds, mrs: manifest.mrs.approve },
    runners: { count: spec.runners },
    deployments: manifest.deployments,
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(out, null, 1));
  log(`seeded dataset ${spec.id} in ${(out.seedMs / 1000).toFixed(1)} s: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  return out;
}

// `tsx scripts/bench/seed.ts [M|S] [dir]`
if (import.meta.url === `file://${process.argv[1]}`) {
  const spec = DATASETS[process.argv[2] ?? 'S'];
  await seed(spec, process.argv[3] ?? '/tmp/workflow-api-bench/' + spec.id, console.log);
}
