/**
 * Query plans of the issue lists (services/issue-finder.ts) on a real migrated libSQL database:
 * every filter and order reads `issues` through an index, never a bare `SCAN issues`, and the
 * default orders walk an index in order (no temp B-tree for ORDER BY), so a page costs its
 * LIMIT rather than the table (reference performance.md §2.4, §4.7). A free instance, which needs
 * its own server, is checked here too.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type InValue } from '@libsql/client';
import { sql as sqlTag } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import type { Caller, UserRow } from '../../src/platform/context';
import { type Db, schema } from '../../src/db/client';
import type { NamespaceRow, ProjectRow } from '../../src/projects/abilities';
import type { IssueListParams } from '../../src/issues/issue-lists-params';
import { buildIssueQuery, type FinderParent, issueCountProjectsQuery, issueCountQuery, issuePageQuery, issueUnionPageQuery } from '../../src/issues/issue-finder';
import { createNodeApp } from '../../src/node-app';
import { ISSUE_LIST_FILTERS as filters, ISSUE_LIST_ORDERS as orders } from './issue-list-filter-cases';

let client: ReturnType<typeof createClient>;
let db: Db;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-issue-plans-'));
  client = createClient({ url: `file:${join(dir, 'db.sqlite')}` });
  db = drizzle(client, { schema }) as unknown as Db;
  await migrate(db as never, { migrationsFolder: 'drizzle' });
});

const user = { id: 5, username: 'planner', external: false } as unknown as UserRow;
const member: Caller = { user, sudoer: null, credential: null, isAdmin: false };
const admin: Caller = { ...member, isAdmin: true };
const anonymous: Caller = { user: null, sudoer: null, credential: null, isAdmin: false };
const project = { id: 7, features: '{}' } as unknown as ProjectRow;
const group = { id: 3, traversalPath: '/3/' } as unknown as NamespaceRow;
const base = { with_labels_details: false, state: 'all', order_by: 'created_at', sort: 'desc' } as IssueListParams;

async function plan(caller: Caller, parent: FinderParent, p: Partial<IssueListParams>, walk = true): Promise<string[]> {
  const q = await buildIssueQuery(db, { caller, plan: 'ultimate', parent, p: { ...base, ...p } as IssueListParams });
  expect(q.possible).toBe(true);
  const { sql: text, params } = issuePageQuery(db, q, 20, 40, walk).toSQL();
  const rows = (await client.execute({ sql: `EXPLAIN QUERY PLAN ${text}`, args: params as InValue[] })).rows;
  return rows.map((r) => String(r.detail));
}

/** No full scan of `issues`: each access to the table names an index or the rowid. */
function expectIndexed(lines: string[]) {
  const issueLines = lines.filter((l) => /\bissues\b/.test(l) && /^(SCAN|SEARCH)/.test(l));
  expect(issueLines.length).toBeGreaterThan(0);
  for (const l of issueLines) expect(l).toMatch(/USING (COVERING )?INDEX|INTEGER PRIMARY KEY/);
}

const projectList: FinderParent = { kind: 'project', project, level: 10 };
const groupList: FinderParent = { kind: 'group', group, level: 0 };
const instance: FinderParent = { kind: 'issues' };

describe('default orders walk an index and stop at LIMIT', () => {
  it('project list: issues_project_created, or issues_project_state_created with state', async () => {
    const lines = await plan(member, projectList, {});
    expect(lines.join('\n')).toContain('issues_project_created');
    expect(lines.join('\n')).not.toContain('TEMP B-TREE FOR ORDER BY');
    const opened = await plan(anonymous, projectList, { state: 'opened' });
    expect(opened.join('\n')).toContain('issues_project_state_created');
    expect(opened.join('\n')).not.toContain('TEMP B-TREE FOR ORDER BY');
  });

  it('project list ordered by updated_at walks issues_project_updated', async () => {
    const lines = await plan(member, projectList, { order_by: 'updated_at' });
    expect(lines.join('\n')).toContain('issues_project_updated');
    expect(lines.join('\n')).not.toContain('TEMP B-TREE FOR ORDER BY');
  });

  it('/issues scope=all for administrators and users, and group lists, walk issues_created', async () => {
    for (const [caller, parent] of [
      [admin, instance],
      [member, instance],
      [anonymous, instance],
      [member, groupList],
      [admin, groupList],
    ] as const) {
      const lines = await plan(caller, parent, { scope: 'all', non_archived: true });
      expect(lines.join('\n')).toContain('SCAN issues USING INDEX issues_created');
      expect(lines.join('\n')).not.toContain('TEMP B-TREE FOR ORDER BY');
    }
  });

  it('updated_at over many projects walks issues_updated', async () => {
    const lines = await plan(member, instance, { scope: 'all', order_by: 'updated_at', non_archived: true });
    expect(lines.join('\n')).toContain('SCAN issues USING INDEX issues_updated');
    expect(lines.join('\n')).not.toContain('TEMP B-TREE FOR ORDER BY');
  });

  it('created_by_me walks issues_author_created', async () => {
    const lines = await plan(member, instance, { scope: 'created_by_me', non_archived: true });
    expect(lines.join('\n')).toContain('issues_author_created');
    expect(lines.join('\n')).not.toContain('TEMP B-TREE FOR ORDER BY');
  });

  it('assigned_to_me starts from the caller\'s assignments (issue_assignees_user), not the table', async () => {
    const lines = await plan(member, instance, { scope: 'assigned_to_me', non_archived: true });
    expect(lines.join('\n')).toMatch(/issue_assignees_user|sqlite_autoindex_issue_assignees/);
    expectIndexed(lines);
  });

  it('below the count cap, many-project lists look issues up per project instead of walking', async () => {
    const lines = await plan(member, groupList, { non_archived: true }, false);
    expect(lines.join('\n')).toMatch(/SEARCH issues USING INDEX issues_project_/);
  });
});

describe('selective filters drive the query from their own index', () => {
  const ns = { id: 3, traversalPath: '/3/' } as unknown as NamespaceRow;
  const inProject: FinderParent = { kind: 'project', project, level: 30, namespace: ns };
  const cases: [string, Partial<IssueListParams>, RegExp][] = [
    ['author_id', { author_id: 9 }, /issues USING INDEX issues_author_created/],
    ['assignee_id', { assignee_id: 9 }, /issue_assignees_user|ia USING COVERING INDEX/],
    ['milestone title', { milestone: 'v1' }, /issues USING INDEX issues_milestone/],
    ['labels', { labels: ['bug', 'ui'] }, /label_links_label_target/],
  ];
  for (const [name, p, expected] of cases) {
    it(`${name}: not every issue of the project or group`, async () => {
      for (const parent of [inProject, groupList]) {
        const lines = (await plan(member, parent, { ...p, non_archived: true }, false)).join('\n');
        expect(lines).toMatch(expected);
        expect(lines).not.toMatch(/issues USING INDEX issues_project_(created|state_created) \(project_id=\?\)/);
      }
    });
  }
});

describe('search reads the trigram index issues_search, not every issue', () => {
  /** The page is driven by the index matches: issues is read by rowid, never scanned or walked per project. */
  function expectSearchDriven(lines: string[]) {
    const text = lines.join('\n');
    expect(text).toMatch(/SCAN issues_search VIRTUAL TABLE INDEX/);
    expect(text).toMatch(/SEARCH issues USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(text).not.toMatch(/SCAN issues\b(?!_search)/);
    expect(text).not.toMatch(/issues USING INDEX issues_project_/);
  }
  const cases: [string, Partial<IssueListParams>][] = [
    ['words', { search: 'crash on start' }],
    ['words in=title', { search: 'crash start', in: 'title' }],
    ['quoted phrase in=description', { search: '"crash on" start', in: 'description' }],
    ['short words only (whole query)', { search: 'ab cd' }],
  ];
  for (const [name, p] of cases) {
    it(`${name}: page and count, project, group and /issues`, async () => {
      for (const [caller, parent] of [
        [member, projectList],
        [anonymous, projectList],
        [member, groupList],
        [admin, instance],
        [member, instance],
      ] as const) {
        for (const order of ['created_at', 'updated_at'] as const) {
          const extra: Partial<IssueListParams> = parent.kind === 'issues' ? { scope: 'all', non_archived: true } : { non_archived: true };
          expectSearchDriven(await plan(caller, parent, { ...p, ...extra, order_by: order }, false));
          expectSearchDriven(await plan(caller, parent, { ...p, ...extra, order_by: order }, true));
        }
        const q = await buildIssueQuery(db, { caller, plan: 'ultimate', parent, p: { ...base, ...p, non_archived: true } as IssueListParams });
        const { sql: text, params } = db.select().from(schema.issues).where(q.where).limit(10_001).toSQL();
        const rows = (await client.execute({ sql: `EXPLAIN QUERY PLAN ${text}`, args: params as InValue[] })).rows;
        expectSearchDriven(rows.map((r) => String(r.detail)));
      }
    });
  }
});

describe('search plans by the number of index matches (searchCondition)', () => {
  beforeAll(async () => {
    // Rows of a project no list here reads: only the index probe sees them.
    await db.run(sqlTag`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)
      INSERT INTO issues (project_id, iid, title, author_id, created_at, updated_at)
      SELECT 999, i, 'topword ' || CASE WHEN i <= 1500 THEN 'midword' ELSE '' END || CASE WHEN i <= 20 THEN ' fewword' ELSE '' END, 1, i, i FROM n`);
  });
  const text = async (p: Partial<IssueListParams>, walk = false) => (await plan(member, projectList, p, walk)).join('\n');
  const countText = async (p: Partial<IssueListParams>) => {
    const q = await buildIssueQuery(db, { caller: member, plan: 'ultimate', parent: projectList, p: { ...base, ...p } as IssueListParams });
    const { sql: query, params } = (db as any).dialect.sqlToQuery(issueCountQuery(db, q, 10_001));
    return (await client.execute({ sql: `EXPLAIN QUERY PLAN ${query}`, args: params as InValue[] })).rows.map((r) => String(r.detail)).join('\n');
  };

  it('few matches (<= 1,000) drive page and count by rowid', async () => {
    for (const t of [await text({ search: 'fewword' }), await countText({ search: 'fewword' })]) {
      expect(t).toContain('SCAN issues_search VIRTUAL TABLE');
      expect(t).toContain('SEARCH issues USING INTEGER PRIMARY KEY (rowid=?)');
    }
  });

  it('more matches drive the count, and the page walks the project order testing membership', async () => {
    const page = await text({ search: 'midword' });
    expect(page).toContain('SEARCH issues USING INDEX issues_project_created (project_id=?)');
    expect(page).toContain('SCAN issues_search VIRTUAL TABLE');
    expect(page).not.toContain('TEMP B-TREE FOR ORDER BY');
    const count = await countText({ search: 'midword' });
    expect(count).toContain('SEARCH issues USING INTEGER PRIMARY KEY (rowid=?)');
    // A non-ASCII word keeps the index however many rows match (the row form folds ASCII only).
    await db.run(sqlTag`UPDATE issues SET title = title || ' Überall' WHERE project_id = 999`);
    expect(await text({ search: 'ÜBERALL' })).toContain('SCAN issues_search VIRTUAL TABLE');
  });

  it('an ASCII word in over 5,000 issues is compared row by row along the project order', async () => {
    const page = await text({ search: 'topword' });
    expect(page).not.toContain('issues_search');
    expect(page).toContain('SEARCH issues USING INDEX issues_project_created (project_id=?)');
    expect(page).not.toContain('TEMP B-TREE FOR ORDER BY');
    expect(await countText({ search: 'topword' })).not.toContain('issues_search');
  });
});

describe('search with a NUL byte (answered 400 by the routes, as GitLab does)', () => {
  it('falls back to comparing rows instead of failing in FTS5', async () => {
    const q = await buildIssueQuery(db, { caller: member, plan: 'ultimate', parent: projectList, p: { ...base, search: 'nul\u0000byte' } });
    expect(await issuePageQuery(db, q, 20, 0).all()).toEqual([]);
    expect(issuePageQuery(db, q, 20, 0).toSQL().sql).not.toContain('issues_search');
  });
});

describe('every filter and order keeps issues behind an index', () => {
  for (const [name, p] of filters) {
    it(`filter ${name}`, async () => {
      expectIndexed(await plan(member, projectList, p));
      expectIndexed(await plan(member, groupList, { ...p, non_archived: true }));
      expectIndexed(await plan(member, instance, { ...p, scope: 'all', non_archived: true }));
    });
  }

  for (const order of orders) {
    for (const sort of ['asc', 'desc'] as const) {
      it(`order_by ${order} ${sort}`, async () => {
        expectIndexed(await plan(member, projectList, { order_by: order, sort }));
        expectIndexed(await plan(admin, instance, { order_by: order, sort, scope: 'all', non_archived: true }));
      });
    }
  }

  it('the bounded count reads issues through an index too', async () => {
    const q = await buildIssueQuery(db, { caller: member, plan: 'ultimate', parent: groupList, p: { ...base, non_archived: true } });
    const counted = await db.get<{ n: number }>(issueCountQuery(db, q, 10_001));
    expect(Number(counted?.n)).toBe(0);
    const { sql: text, params } = db.select().from(schema.issues).where(q.where).limit(10_001).toSQL();
    const rows = (await client.execute({ sql: `EXPLAIN QUERY PLAN ${text}`, args: params as InValue[] })).rows;
    expectIndexed(rows.map((r) => String(r.detail)));
  });
});

describe('free edition (INSTANCE_PLAN=free)', () => {
  it('more than one assignee_username is the CheckAssigneesCount 400; premium filters are inert', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-issues-free-'));
    const { app } = await createNodeApp({
      databaseUrl: `file:${join(dir, 'db.sqlite')}`,
      blobRoot: join(dir, 'blobs'),
      migrationsFolder: 'drizzle',
      env: { PASSWORD_HASH_ITERATIONS: '1000', INSTANCE_PLAN: 'free' },
    });
    const call = async (path: string, body?: unknown) => {
      const res = await app.fetch(
        new Request(`http://localhost/api/v4${path}`, {
          method: body ? 'POST' : 'GET',
          headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN, 'Content-Type': 'application/json' },
          body: body ? JSON.stringify(body) : undefined,
        }),
      );
      return { status: res.status, body: (await res.json().catch(() => null)) as any };
    };
    const project = await call('/projects', { name: 'free-issues', visibility: 'public' });
    expect(project.status).toBe(201);
    const issue = await call(`/projects/${project.body.id}/issues`, { title: 'one' });
    expect(issue.status).toBe(201);
    expect(await call(`/projects/${project.body.id}/issues?assignee_username[]=alice&assignee_username[]=bob`)).toEqual({
      status: 400,
      body: { error: 'assignee_username allows one value, but found 2: alice, bob' },
    });
    expect(await call('/issues?scope=all&not[assignee_username][]=a&not[assignee_username][]=b')).toEqual({
      status: 400,
      body: { error: 'not[assignee_username] allows one value, but found 2: a, b' },
    });
    const single = await call(`/projects/${project.body.id}/issues?assignee_username=nobody`);
    expect(single).toEqual({ status: 200, body: [] });
    // weight/epic_id/iteration belong to paid tiers: on a free instance they filter nothing out.
    const paid = await call(`/projects/${project.body.id}/issues?weight=5&epic_id=Any&iteration_id=Any&health_status=at_risk`);
    expect(paid.status).toBe(200);
    expect(paid.body.map((i: { id: number }) => i.id)).toEqual([issue.body.id]);
  });
});

describe('more than 10,000 matches (the index-walk path)', () => {
  it('omits X-Total, X-Total-Pages and rel="last", and pages newest first through the walk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-issues-big-'));
    const { app, db: bigDb } = await createNodeApp({
      databaseUrl: `file:${join(dir, 'db.sqlite')}`,
      blobRoot: join(dir, 'blobs'),
      migrationsFolder: 'drizzle',
      env: { PASSWORD_HASH_ITERATIONS: '1000' },
    });
    const call = async (path: string, body?: unknown) => {
      const res = await app.fetch(
        new Request(`http://localhost/api/v4${path}`, {
          method: body ? 'POST' : 'GET',
          headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN, 'Content-Type': 'application/json' },
          body: body ? JSON.stringify(body) : undefined,
        }),
      );
      return { status: res.status, headers: res.headers, body: (await res.json().catch(() => null)) as any };
    };
    const group = await call('/groups', { name: 'big', path: 'big', visibility: 'public' });
    expect(group.status).toBe(201);
    const project = await call('/projects', { name: 'big', namespace_id: group.body.id, visibility: 'public' });
    expect(project.status).toBe(201);
    // Bulk rows straight into the table: 10,005 issues through the API would take minutes.
    await bigDb.run(sqlTag`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10005)
      INSERT INTO issues (project_id, iid, title, author_id, created_at, updated_at) SELECT ${project.body.id}, i, 'bulk ' || i, 1, 1700000000000 + i * 1000, 1700000000000 + i * 1000 FROM n`);
    for (const path of [`/projects/${project.body.id}/issues`, `/groups/${group.body.id}/issues`, '/issues?scope=all']) {
      const sep = path.includes('?') ? '&' : '?';
      const res = await call(`${path}${sep}per_page=3&page=2`);
      expect(res.status).toBe(200);
      expect(res.body.map((i: { iid: number }) => i.iid)).toEqual([10002, 10001, 10000]);
      expect(res.headers.get('x-total')).toBeNull();
      expect(res.headers.get('x-total-pages')).toBeNull();
      expect(res.headers.get('x-next-page')).toBe('3');
      expect(res.headers.get('link')).not.toContain('rel="last"');
      expect(res.headers.get('link')).toContain('rel="first"');
      const asc = await call(`${path}${sep}per_page=2&sort=asc&order_by=updated_at`);
      expect(asc.body.map((i: { iid: number }) => i.iid)).toEqual([1, 2]);
    }
    // A filter that leaves few matches goes back to counting.
    const few = await call(`/groups/${group.body.id}/issues?iids[]=5&iids[]=7`);
    expect(few.headers.get('x-total')).toBe('2');
    expect(few.body.map((i: { iid: number }) => i.iid)).toEqual([7, 5]);
  });
});

describe('many-project lists below the cap: one index range per project (issueUnionPageQuery)', () => {
  const pids = Array.from({ length: 50 }, (_, i) => 100 + i);
  const variants: [string, Partial<IssueListParams>, RegExp][] = [
    ['created_at desc', {}, /issues_project_created/],
    ['created_at asc', { sort: 'asc' }, /issues_project_created/],
    ['updated_at desc', { order_by: 'updated_at' }, /issues_project_updated/],
    // issues_project_created carries state (and the confidentiality columns): an index-only walk.
    ['opened, created_at desc', { state: 'opened' }, /issues_project_(state_)?created/],
  ];
  for (const [name, p, index] of variants) {
    it(`${name}: each of 50 projects is an index range stopping at offset+limit, and only their keys are sorted`, async () => {
      for (const [caller, parent] of [
        [member, groupList],
        [admin, groupList],
        [member, instance],
        [anonymous, instance],
      ] as const) {
        const q = await buildIssueQuery(db, { caller, plan: 'ultimate', parent, p: { ...base, ...p, scope: 'all', non_archived: true } as IssueListParams });
        const union = issueUnionPageQuery(db, q, pids, 20, 40);
        expect(union).not.toBeNull();
        const { sql: text, params } = union!.toSQL();
        expect(params.length).toBeLessThanOrEqual(100);
        expect(text.match(/ LIMIT 60\)/g)).toHaveLength(50);
        const lines = (await client.execute({ sql: `EXPLAIN QUERY PLAN ${text}`, args: params as InValue[] })).rows.map((r) => String(r.detail));
        expectIndexed(lines);
        const ranges = lines.filter((l) => /^SEARCH issues USING (COVERING )?INDEX issues_project_\w+ \(project_id=\?/.test(l));
        expect(ranges).toHaveLength(50);
        for (const l of ranges) expect(l).toMatch(index);
        // The arms read in index order (no sort of their own); the sorts are of their (key, id)
        // pairs and of the page's rows, and only the page's rows are read by id.
        // (`created_at ASC, id DESC` sorts only the ids of equal timestamps, still stopping at LIMIT.)
        expect(lines.filter((l) => l === 'USE TEMP B-TREE FOR ORDER BY')).toHaveLength(2);
        for (const l of lines.filter((l) => l.includes('TEMP B-TREE'))) expect(l).toMatch(/^USE TEMP B-TREE FOR (RIGHT PART OF )?ORDER BY$/);
        expect(lines.join('\n')).toContain('SEARCH issues USING INTEGER PRIMARY KEY (rowid=?)');
        expect(text).toMatch(/ORDER BY k (DESC|ASC), id DESC LIMIT 20 OFFSET 40\)/);
      }
    });
  }

  it('the count that reports the projects reads issues through an index too', async () => {
    for (const [caller, parent] of [
      [member, groupList],
      [member, instance],
    ] as const) {
      const q = await buildIssueQuery(db, { caller, plan: 'ultimate', parent, p: { ...base, scope: 'all', non_archived: true } });
      const query = db.get<{ n: number; projects: string | null; readable: string | null }>(issueCountProjectsQuery(db, q, 10_001));
      // With the readable projects (`readable`), which the page's statements then take as a list.
      expect(await query).toMatchObject({ n: 0, projects: '[]' });
      expect(JSON.parse((await query)!.readable!)).toEqual(expect.any(Array));
      const { sql: text, params } = (db as any).dialect.sqlToQuery(issueCountProjectsQuery(db, q, 10_001));
      const rows = (await client.execute({ sql: `EXPLAIN QUERY PLAN ${text}`, args: params as InValue[] })).rows;
      expectIndexed(rows.map((r) => String(r.detail)));
    }
  });

  it('is not offered for other orders, driven filters, too many projects, or over 100 parameters', async () => {
    const q = (p: Partial<IssueListParams>) => buildIssueQuery(db, { caller: member, plan: 'ultimate', parent: groupList, p: { ...base, ...p, non_archived: true } as IssueListParams });
    expect(issueUnionPageQuery(db, await q({ order_by: 'title' }), pids, 20, 0)).toBeNull();
    expect(issueUnionPageQuery(db, await q({ author_id: 9 }), pids, 20, 0)).toBeNull();
    expect(issueUnionPageQuery(db, await q({ search: 'crash' }), pids, 20, 0)).toBeNull();
    expect(issueUnionPageQuery(db, await q({}), [...pids, 999], 20, 0)).toBeNull();
    // Two bound values per project (emoji name, due-date window...) times 50 projects.
    const heavy = await q({ my_reaction_emoji: 'thumbsup', due_date: 'week' });
    expect(issueUnionPageQuery(db, heavy, pids, 20, 0)).toBeNull();
    expect(issueUnionPageQuery(db, heavy, pids.slice(0, 10), 20, 0)).not.toBeNull();
  });
});

describe('the per-project union pages exactly like the sorted query', () => {
  it('on 4,000 issues over 8 projects with tied timestamps, for every order, state and caller', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-issues-union-'));
    const { app, db: bigDb } = await createNodeApp({
      databaseUrl: `file:${join(dir, 'db.sqlite')}`,
      blobRoot: join(dir, 'blobs'),
      migrationsFolder: 'drizzle',
      env: { PASSWORD_HASH_ITERATIONS: '1000' },
    });
    const call = async (path: string, body?: unknown) => {
      const res = await app.fetch(
        new Request(`http://localhost/api/v4${path}`, {
          method: body ? 'POST' : 'GET',
          headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN, 'Content-Type': 'application/json' },
          body: body ? JSON.stringify(body) : undefined,
        }),
      );
      return { status: res.status, headers: res.headers, body: (await res.json().catch(() => null)) as any };
    };
    const g = await call('/groups', { name: 'union', path: 'union', visibility: 'public' });
    expect(g.status).toBe(201);
    const projectIds: number[] = [];
    for (let i = 0; i < 8; i++) {
      const p = await call('/projects', { name: `union-${i}`, namespace_id: g.body.id, visibility: 'public' });
      expect(p.status).toBe(201);
      projectIds.push(p.body.id);
    }
    // Timestamps repeat (a few hundred values for 4,000 rows) so the id tie-break decides often,
    // and the newest 500 (and last updated 300) all sit in one project, which must supply a whole page.
    await bigDb.run(sqlTag`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
      INSERT INTO issues (project_id, iid, title, author_id, state, confidential, created_at, updated_at)
      SELECT json_extract(${JSON.stringify(projectIds)}, '$[' || (CASE WHEN i > 3500 THEN 0 ELSE (i * 5) % 8 END) || ']'), i, 'u ' || i, 1,
        CASE WHEN i % 3 = 0 THEN 'closed' ELSE 'opened' END, i % 11 = 0,
        1700000000000 + (CASE WHEN i > 3500 THEN 600 + i % 50 ELSE (i * 7919) % 500 END) * 1000,
        1700000000000 + (CASE WHEN i > 3700 THEN 400 + i % 30 ELSE (i * 104729) % 300 END) * 1000 FROM n`);
    const groupRow = { id: g.body.id, traversalPath: `/${g.body.id}/` } as unknown as NamespaceRow;
    const parents: FinderParent[] = [{ kind: 'group', group: groupRow, level: 0 }, instance];
    let compared = 0;
    for (const caller of [admin, anonymous]) {
      for (const parent of parents) {
        for (const p of [{}, { sort: 'asc' }, { order_by: 'updated_at' }, { order_by: 'updated_at', sort: 'asc' }, { state: 'opened' }, { state: 'closed', order_by: 'updated_at' }] as Partial<IssueListParams>[]) {
          const q = await buildIssueQuery(bigDb, { caller, plan: 'ultimate', parent, p: { ...base, ...p, scope: 'all', non_archived: true } as IssueListParams });
          for (const [limit, offset] of [[20, 0], [20, 20], [100, 300], [7, 993], [100, 2600]]) {
            const plain = (await issuePageQuery(bigDb, q, limit, offset).all()).map((r) => r.id);
            const union = (await issueUnionPageQuery(bigDb, q, projectIds, limit, offset)!.all()).map((r) => r.id);
            expect(union, JSON.stringify({ p, limit, offset })).toEqual(plain);
            compared += plain.length;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(5_000);
    // Through the API (the union serves the first pages, the sorted query the deep ones).
    const first = await call(`/groups/${g.body.id}/issues?per_page=5&page=1`);
    expect(first.headers.get('x-total')).toBe('4000');
    const deep = await call(`/groups/${g.body.id}/issues?per_page=100&page=1`);
    expect(deep.body.slice(0, 5).map((i: { id: number }) => i.id)).toEqual(first.body.map((i: { id: number }) => i.id));
  }, 120_000);
});
