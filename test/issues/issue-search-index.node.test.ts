/**
 * The trigram index behind `search=` (drizzle/0009_issues_search.sql) on libSQL: the migration
 * backfills issues that existed before it, rows written straight into `issues` (no application
 * code) are indexed by the triggers, and on a 20,000-issue project the index answers exactly what
 * a row-by-row substring scan answers.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';
import { searchCondition } from '../../src/issues/issue-search';

describe('migration', () => {
  it('backfills issues created before the index existed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-issue-search-backfill-'));
    // The migrations folder as it was before 0009: the journal cut after 0008.
    const before = join(dir, 'drizzle-before');
    cpSync('drizzle', before, { recursive: true });
    const journalPath = join(before, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { idx: number; tag: string }[] };
    const at = journal.entries.findIndex((e) => e.tag === '0009_issues_search');
    expect(at).toBeGreaterThan(0);
    journal.entries = journal.entries.slice(0, at);
    writeFileSync(journalPath, JSON.stringify(journal));

    const client = createClient({ url: `file:${join(dir, 'db.sqlite')}` });
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: before });
    await client.execute(`INSERT INTO issues (project_id, iid, title, description, author_id, created_at, updated_at)
      VALUES (1, 1, 'Legacy CRASH report', 'found before the index', 1, 1, 1), (1, 2, 'unrelated', NULL, 1, 2, 2)`);
    expect((await client.execute(`SELECT name FROM sqlite_master WHERE name = 'issues_search'`)).rows).toHaveLength(0);

    await migrate(db, { migrationsFolder: 'drizzle' });
    const match = async (q: string) => (await client.execute({ sql: 'SELECT rowid FROM issues_search WHERE issues_search MATCH ? ORDER BY rowid', args: [q] })).rows.map((r) => Number(r.rowid));
    expect(await match('"crash"')).toEqual([1]);
    expect(await match('{description} : "before the"')).toEqual([1]);
    expect(await match('"unrelated"')).toEqual([2]);
    // FTS5's own consistency check of an external-content index against its table.
    await client.execute(`INSERT INTO issues_search (issues_search, rank) VALUES ('integrity-check', 1)`);
    client.close();
  });
});

describe('20,000 issues in one project', () => {
  it('search answers what a substring scan answers, with exact counts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-issue-search-big-'));
    const { app, db } = await createNodeApp({
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
    // This server is the test's own: lift the 30 searches a minute for the many requests below.
    const settings = await app.fetch(
      new Request('http://localhost/api/v4/application/settings?search_rate_limit=0', { method: 'PUT', headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN } }),
    );
    expect(settings.status).toBe(200);
    const project = await call('/projects', { name: 'search-big', visibility: 'public' });
    expect(project.status).toBe(201);
    const pid = project.body.id as number;
    // Straight into the table: the triggers, not application code, index these rows.
    const words = ['alpha', 'Beta', 'GAMMA', 'delta', 'épsilon', 'Zeta'];
    await db.run(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
      INSERT INTO issues (project_id, iid, title, description, author_id, created_at, updated_at)
      SELECT ${pid}, i, 'issue ' || i || ' ' || (CASE i % 6 WHEN 0 THEN 'alpha' WHEN 1 THEN 'Beta' WHEN 2 THEN 'GAMMA' WHEN 3 THEN 'delta' WHEN 4 THEN 'épsilon' ELSE 'Zeta' END)
          || CASE WHEN i % 2 = 0 THEN ' Ärger' ELSE '' END,
        nullif(trim(CASE WHEN i % 7 = 0 THEN 'needle ' || (i % 1000) || ' in the haystack' ELSE '' END || CASE i % 3 WHEN 0 THEN ' TRIPLE 50%_off' WHEN 1 THEN ' 50xyoff' ELSE '' END), ''),
        1, 1700000000000 + i * 1000, 1700000000000 + i * 1000 FROM n`);
    expect(words).toHaveLength(6);

    // Each plan of searchCondition: few index matches drive the query, more drive the count,
    // ASCII words in over 5,000 issues are compared row by row, non-ASCII ones always use the index.
    const cases: [string, (i: number) => boolean, string][] = [
      ['needle 42', (i) => i % 7 === 0, 'count'], // `42` is a short word, ignored
      ['"needle 42 "', (i) => i % 7 === 0 && i % 1000 === 42, 'driven'],
      ['ALPHA', (i) => i % 6 === 0, 'count'],
      ['issue 1999', (i) => String(i).includes('1999'), 'driven'],
      ['ÉPSILON 123', (i) => i % 6 === 4 && String(i).includes('123'), 'driven'],
      ['haystack delta', () => false, 'driven'],
      ['triple', (i) => i % 3 === 0, 'rows'],
      ['Triple Needle', (i) => i % 21 === 0, 'driven'],
      ['tripl haystac', (i) => i % 21 === 0, 'driven'],
      ['issue', () => true, 'rows'],
      ['ärger', (i) => i % 2 === 0, 'count'],
      ['ÄRGER alpha', (i) => i % 6 === 0, 'count'],
      ['ISSUE 12', () => true, 'rows'],
      // LIKE's wildcards in a word compared row by row are literal: `50xyoff` does not match.
      ['50%_off', (i) => i % 3 === 0, 'rows'],
    ];
    for (const [q, expected, plan] of cases) {
      const want = Array.from({ length: 20000 }, (_, k) => k + 1).filter(expected).reverse();
      const condition = await searchCondition(db, q, undefined);
      expect(condition?.plan, q).toBe(plan);
      for (const [page, perPage] of [[1, 20], [3, 7], [40, 100]]) {
        const started = performance.now();
        const res = await call(`/projects/${pid}/issues?per_page=${perPage}&page=${page}&search=${encodeURIComponent(q)}`);
        const ms = performance.now() - started;
        expect(res.status, q).toBe(200);
        expect(res.headers.get('x-total'), q).toBe(want.length > 10_000 ? null : String(want.length));
        expect(res.body.map((i: { iid: number }) => i.iid), `${q} page ${page}`).toEqual(want.slice((page - 1) * perPage, page * perPage));
        if (page === 1) console.log(`search=${q}: ${want.length} matches (${plan}), ${ms.toFixed(1)} ms`);
      }
    }

  }, 120_000);
});
