/**
 * The issue lists' query plans on 100,000 issues (issue 13: "no full scan for every filter"):
 * 200 projects of one group, one of them with 20,000 issues, labels, milestones, assignees,
 * confidential and closed issues, and a trigram index with words matching a few, a few
 * thousand and most issues (each of searchCondition's plans). For every filter, order and scope,
 * on the project, group and instance lists, the page (both forms), the bounded count and the
 * per-project union read `issues` through an index or by rowid, never `SCAN issues`; each query
 * also runs, to show the plan holds with the data in place. Seeded with raw SQL in one
 * transaction; the triggers index the text as they would for the application.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type InValue } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { type SQL, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Caller, UserRow } from '../../src/platform/context';
import { type Db, schema } from '../../src/db/client';
import type { NamespaceRow, ProjectRow } from '../../src/projects/abilities';
import type { IssueListParams } from '../../src/issues/issue-lists-params';
import { buildIssueQuery, type FinderInput, type FinderParent, issueCountProjectsQuery, issuePageQuery, issueUnionPageQuery } from '../../src/issues/issue-finder';
import { searchCondition, searchProbeQuery } from '../../src/issues/issue-search';
import { driverIdsQuery } from '../../src/issues/issue-lists-drivers';
import { ISSUE_LIST_FILTERS, ISSUE_LIST_ORDERS } from './issue-list-filter-cases';

const ISSUES = 100_000;
const BIG = 7;
let client: ReturnType<typeof createClient>;
let db: Db;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-issue-plans-100k-'));
  client = createClient({ url: `file:${join(dir, 'db.sqlite')}` });
  db = drizzle(client, { schema }) as unknown as Db;
  await migrate(db as never, { migrationsFolder: 'drizzle' });
  const started = performance.now();
  const now = 1_700_000_000_000;
  await client.batch(
    [
      `INSERT INTO users (id, username, email, name, created_at, updated_at) VALUES (5, 'planner', 'planner@example.com', 'Planner', ${now}, ${now}), (6, 'helper', 'helper@example.com', 'Helper', ${now}, ${now})`,
      `INSERT INTO namespaces (id, kind, name, path, full_path, traversal_path, created_at, updated_at) VALUES (3, 'Group', 'g', 'g', 'g', '/3/', ${now}, ${now})`,
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
        INSERT INTO projects (id, namespace_id, name, path, visibility, created_at, updated_at, last_activity_at) SELECT i, 3, 'p' || i, 'p' || i, 'private', ${now}, ${now}, ${now} FROM n`,
      `INSERT INTO members (source_type, source_id, user_id, access_level, created_at, updated_at) VALUES ('Namespace', 3, 5, 30, ${now}, ${now})`,
      `INSERT INTO labels (id, group_id, title, color, created_at, updated_at) VALUES (1, 3, 'bug', '#f00', ${now}, ${now}), (2, 3, 'ui', '#0f0', ${now}, ${now})`,
      `INSERT INTO milestones (id, group_id, iid, title, due_date, start_date, created_at, updated_at) VALUES (1, 3, 1, 'v1', '2999-01-01', '2000-01-01', ${now}, ${now})`,
      // Issue i: project 7 for the first 20,000, then spread; `common` in 90% (ASCII, row form),
      // `middling` in 3% (index drives the count), `rareword` in 0.05% (index drives the page).
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ISSUES})
        INSERT INTO issues (id, project_id, iid, title, description, author_id, state, confidential, milestone_id, due_date, weight, created_at, updated_at, closed_at)
        SELECT i, CASE WHEN i <= 20000 THEN ${BIG} ELSE 1 + i % 200 END, i,
          'issue ' || i || CASE WHEN i % 10 THEN ' common' ELSE '' END || CASE WHEN i % 33 = 0 THEN ' middling' ELSE '' END,
          CASE WHEN i % 2000 = 0 THEN 'a rareword crash on start' WHEN i % 3 = 0 THEN 'crash on start' END,
          CASE WHEN i % 97 = 0 THEN 5 ELSE 100 + i % 50 END, CASE WHEN i % 3 = 0 THEN 'closed' ELSE 'opened' END, i % 10 = 0,
          CASE WHEN i % 20 = 0 THEN 1 END, CASE WHEN i % 11 = 0 THEN '2030-01-01' END, CASE WHEN i % 4 = 0 THEN i % 5 END,
          ${now} + i * 1000, ${now} + (i * 7919 % ${ISSUES}) * 1000, CASE WHEN i % 3 = 0 THEN ${now} + i * 1000 END FROM n`,
      `INSERT INTO label_links (label_id, target_type, target_id, created_at) SELECT 1, 'Issue', id, ${now} FROM issues WHERE id % 5 = 0`,
      `INSERT INTO label_links (label_id, target_type, target_id, created_at) SELECT 2, 'Issue', id, ${now} FROM issues WHERE id % 7 = 0`,
      `INSERT INTO issue_assignees (issue_id, user_id) SELECT id, CASE WHEN id % 8 = 0 THEN 5 ELSE 6 END FROM issues WHERE id % 4 = 0`,
    ],
    'write',
  );
  const seconds = (performance.now() - started) / 1000;
  expect(Number((await client.execute('SELECT count(*) AS n FROM issues')).rows[0].n)).toBe(ISSUES);
  console.log(`seeded ${ISSUES} issues in ${seconds.toFixed(1)} s`);
  expect(seconds).toBeLessThan(20);
}, 60_000);

const planner = { id: 5, username: 'planner', external: false } as unknown as UserRow;
const member: Caller = { user: planner, sudoer: null, credential: null, isAdmin: false };
const admin: Caller = { ...member, isAdmin: true };
const anonymous: Caller = { user: null, sudoer: null, credential: null, isAdmin: false };
const project = { id: BIG, features: '{}' } as unknown as ProjectRow;
const group = { id: 3, traversalPath: '/3/' } as unknown as NamespaceRow;
const base = { with_labels_details: false, state: 'all', order_by: 'created_at', sort: 'desc' } as IssueListParams;
const lists: [string, Caller, FinderParent, Partial<IssueListParams>][] = [
  ['project', member, { kind: 'project', project, level: 30 }, {}],
  ['group', member, { kind: 'group', group, level: 30 }, { non_archived: true }],
  ['/issues', member, { kind: 'issues' }, { scope: 'all', non_archived: true }],
  ['/issues (admin)', admin, { kind: 'issues' }, { scope: 'all', non_archived: true }],
];

/** EXPLAIN QUERY PLAN of a statement; the statement also runs (its result is not the point). */
async function plan(query: SQL | { toSQL(): { sql: string; params: unknown[] } }): Promise<string> {
  const { sql: text, params } = 'toSQL' in query ? query.toSQL() : (db as unknown as { dialect: { sqlToQuery(s: SQL): { sql: string; params: unknown[] } } }).dialect.sqlToQuery(query);
  const rows = (await client.execute({ sql: `EXPLAIN QUERY PLAN ${text}`, args: params as InValue[] })).rows;
  await client.execute({ sql: text, args: params as InValue[] });
  return rows.map((r) => String(r.detail)).join('\n');
}

/** Every access to `issues` names an index or the rowid: no full scan. */
function expectIndexed(text: string, label: string) {
  const lines = text.split('\n').filter((l) => /^(SCAN|SEARCH) issues\b(?!_search)/.test(l));
  expect(lines.length, `${label}\n${text}`).toBeGreaterThan(0);
  for (const l of lines) expect(l, `${label}\n${text}`).toMatch(/USING (COVERING )?INDEX|INTEGER PRIMARY KEY/);
}

/** Page (sorted and walked), bounded count and, where offered, the per-project union. */
async function expectListIndexed(label: string, caller: Caller, parent: FinderParent, p: Partial<IssueListParams>, read: Partial<FinderInput> = {}) {
  const q = await buildIssueQuery(db, { caller, plan: 'ultimate', parent, p: { ...base, ...p } as IssueListParams, ...read });
  expect(q.possible, label).toBe(true);
  expectIndexed(await plan(issuePageQuery(db, q, 20, 40, false)), `${label} page`);
  if (q.walkWhere) expectIndexed(await plan(issuePageQuery(db, q, 20, 40, true)), `${label} walk`);
  expectIndexed(await plan(issueCountProjectsQuery(db, q, 10_001)), `${label} count`);
  if (q.withProjects) {
    // The page's statements over the readable projects read with the count, as a list.
    const { readable } = (await db.get<{ readable: string | null }>(issueCountProjectsQuery(db, q, 10_001)))!;
    expect(JSON.parse(readable!), label).toEqual(expect.any(Array));
    const listed = q.withProjects(readable!);
    expectIndexed(await plan(issuePageQuery(db, listed, 20, 40, false)), `${label} page over the listed projects`);
    if (listed.walkWhere) expectIndexed(await plan(issuePageQuery(db, listed, 20, 40, true)), `${label} walk over the listed projects`);
  }
  const union = issueUnionPageQuery(db, q, [1, 2, 3, BIG], 20, 40);
  if (union) expectIndexed(await plan(union), `${label} union`);
}

const extraFilters: [string, Partial<IssueListParams>][] = [
  ['state opened', { state: 'opened' }],
  ['author_username', { author_username: 'planner' }],
  ['assignee_username', { assignee_username: ['planner'] }],
  ['search description', { search: 'crash start', in: 'description' }],
  ['search quoted in both columns', { search: '"crash on start"' }],
  ['search few matches (index drives)', { search: 'rareword' }],
  ['search thousands of matches (index drives the count)', { search: 'middling' }],
  ['search most issues (row by row)', { search: 'common' }],
  ['search only short words', { search: 'ab cd' }],
];

describe('every filter of the issue lists on 100,000 issues reads issues through an index', () => {
  it('the check itself catches a full scan of issues', async () => {
    const scan = await plan(db.select().from(schema.issues).where(sql`${schema.issues.title} = ${'x'}`).limit(20));
    expect(scan).toMatch(/^SCAN issues$/m);
    expect(() => expectIndexed(scan, 'scan')).toThrow();
  });

  it('the searches exercise each of searchCondition\'s plans on this data', async () => {
    expect((await searchCondition(db, 'rareword', undefined))?.plan).toBe('driven');
    expect((await searchCondition(db, 'middling', undefined))?.plan).toBe('count');
    expect((await searchCondition(db, 'common', undefined))?.plan).toBe('rows');
  });

  for (const [name, p] of [...ISSUE_LIST_FILTERS, ...extraFilters]) {
    it(`filter ${name}`, async () => {
      for (const [list, caller, parent, extra] of lists) await expectListIndexed(`${list} ${name}`, caller, parent, { ...p, ...extra });
    });
  }

  it('every order_by and sort', async () => {
    for (const order of ISSUE_LIST_ORDERS) {
      for (const sort of ['asc', 'desc'] as const) {
        for (const [list, caller, parent, extra] of lists) await expectListIndexed(`${list} ${order} ${sort}`, caller, parent, { order_by: order, sort, ...extra });
      }
    }
  }, 60_000);

  it('the project list\'s reads with the project lookup (driver ids, search probe) and the lists they make', async () => {
    const projectList = lists[0];
    const cases: [string, Partial<IssueListParams>][] = [
      ['assignee_id', { assignee_id: 5 }],
      ['labels', { labels: ['bug', 'ui'] }],
      ['labels and assignee_id, opened', { labels: ['ui'], assignee_id: 6, state: 'opened' }],
      ['labels and assignee_id', { labels: ['bug', 'ui'], assignee_id: 5 }],
      ['labels, no match', { labels: ['bug', 'nonexistent'] }],
    ];
    const sizes: number[] = [];
    for (const [name, p] of cases) {
      const query = driverIdsQuery(db, { ...base, ...p } as IssueListParams, sql`${BIG}`)!;
      expectIndexed(await plan(query), `driver ids ${name}`);
      const ids = ((await query.all()) as { ids: string | null }[])[0].ids;
      expect(ids, name).not.toBeNull();
      const n = (JSON.parse(ids!) as number[]).length;
      if (name.includes('no match')) expect(n).toBe(0);
      else {
        expect(n, name).toBeGreaterThan(0);
        sizes.push(n);
        await expectListIndexed(`project ${name} by ids`, projectList[1], projectList[2], { ...p, ...projectList[3] }, { driverIds: ids });
      }
    }
    // Both plans occur: up to 200 ids drive, more are tested while the page walks the project.
    expect(Math.min(...sizes)).toBeLessThanOrEqual(200);
    expect(Math.max(...sizes)).toBeGreaterThan(200);
    for (const word of ['rareword', 'middling', 'common']) {
      const probe = searchProbeQuery(db, word, undefined, sql`${BIG}`)!;
      expectIndexed(await plan(probe), `search probe ${word}`);
      const [row] = (await probe.all()) as { n: number; ids: string | null }[];
      await expectListIndexed(`project search ${word} by ids`, projectList[1], projectList[2], { search: word, ...projectList[3] }, { searchMatches: row.n, searchProjectMatches: row.ids });
    }
  });

  it('every scope of /issues, for users and anonymous callers', async () => {
    for (const scope of ['created_by_me', 'assigned_to_me', 'all'] as const) {
      for (const order_by of ['created_at', 'updated_at'] as const) {
        await expectListIndexed(`/issues scope=${scope} ${order_by}`, member, { kind: 'issues' }, { scope, order_by, non_archived: true });
      }
    }
    await expectListIndexed('/issues anonymous', anonymous, { kind: 'issues' }, { scope: 'all', non_archived: true });
  });
});
