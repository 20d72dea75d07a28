/**
 * The trigram index behind merge request `search=` (drizzle/0017_merge_requests_search.sql) on
 * libSQL: the migration backfills merge requests that existed before it, rows written straight
 * into `merge_requests` (no application code) are indexed, re-indexed and dropped by the
 * triggers, and the lists' search reads the index instead of comparing every row.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type InValue } from '@libsql/client';
import { eq, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { describe, expect, it } from 'vitest';
import type { Caller, UserRow } from '../../src/platform/context';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';
import { type Db, schema } from '../../src/db/client';
import type { NamespaceRow, ProjectRow } from '../../src/projects/abilities';
import { buildMergeRequestQuery, type MrFinderParent } from '../../src/merge-requests/finder';
import type { MergeRequestListParams } from '../../src/merge-requests/merge-requests-params';

const columns = 'project_id, iid, title, description, author_id, source_project_id, source_branch, target_branch, created_at, updated_at';
const row = (id: number, title: string, description: string | null) => ({
  sql: `INSERT INTO merge_requests (id, ${columns}) VALUES (?, 1, ?, ?, ?, 1, 1, ?, 'main', 1, 1)`,
  args: [id, id, title, description, `b${id}`],
});

describe('migration and triggers', () => {
  it('backfills merge requests created before the index, and follows inserts, edits and deletes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-mr-search-'));
    // The migrations folder as it was before 0017: the journal cut there.
    const before = join(dir, 'drizzle-before');
    cpSync('drizzle', before, { recursive: true });
    const journalPath = join(before, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { idx: number; tag: string }[] };
    const at = journal.entries.findIndex((e) => e.tag.endsWith('_merge_requests_search'));
    expect(at).toBeGreaterThan(0);
    journal.entries = journal.entries.slice(0, at);
    writeFileSync(journalPath, JSON.stringify(journal));

    const client = createClient({ url: `file:${join(dir, 'db.sqlite')}` });
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: before });
    await client.execute('PRAGMA foreign_keys = OFF');
    await client.execute(row(1, 'Legacy PARSER fix', 'written before the index'));
    await client.execute(row(2, 'unrelated', null));
    expect((await client.execute(`SELECT name FROM sqlite_master WHERE name = 'merge_requests_search'`)).rows).toHaveLength(0);

    await migrate(db, { migrationsFolder: 'drizzle' });
    const match = async (q: string) =>
      (await client.execute({ sql: 'SELECT rowid FROM merge_requests_search WHERE merge_requests_search MATCH ? ORDER BY rowid', args: [q] })).rows.map((r) => Number(r.rowid));
    expect(await match('"parser"')).toEqual([1]);
    expect(await match('{description} : "before the"')).toEqual([1]);
    expect(await match('"unrelated"')).toEqual([2]);

    await client.execute(row(3, 'fresh lexer', 'new body'));
    expect(await match('"lexer"')).toEqual([3]);
    await client.execute(`UPDATE merge_requests SET title = 'renamed tokenizer', description = NULL WHERE id = 3`);
    expect(await match('"lexer"')).toEqual([]);
    expect(await match('"new body"')).toEqual([]);
    expect(await match('"tokenizer"')).toEqual([3]);
    await client.execute(`UPDATE merge_requests SET state = 'closed' WHERE id = 3`);
    expect(await match('"tokenizer"')).toEqual([3]);
    await client.execute('DELETE FROM merge_requests WHERE id = 1');
    expect(await match('"parser"')).toEqual([]);
    // FTS5's own consistency check of an external-content index against its table.
    await client.execute(`INSERT INTO merge_requests_search (merge_requests_search, rank) VALUES ('integrity-check', 1)`);
    client.close();
  });
});

describe('query plans', () => {
  it('search drives the lists from merge_requests_search by rowid, never a scan of merge_requests', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-mr-search-plans-'));
    const client = createClient({ url: `file:${join(dir, 'db.sqlite')}` });
    const db = drizzle(client, { schema }) as unknown as Db;
    await migrate(db as never, { migrationsFolder: 'drizzle' });
    const user = { id: 5, username: 'planner', external: false } as unknown as UserRow;
    const caller: Caller = { user, sudoer: null, credential: null, isAdmin: false };
    const parents: MrFinderParent[] = [
      { kind: 'project', project: { id: 7 } as unknown as ProjectRow },
      { kind: 'group', group: { id: 3, traversalPath: '/3/' } as unknown as NamespaceRow },
      { kind: 'all' },
    ];
    const { mergeRequests, projects, namespaces } = schema;
    for (const parent of parents) {
      for (const [search, inParam] of [['crash on start', undefined], ['crash start', 'title'], ['"crash on" start', 'description'], ['ab cd', undefined]] as const) {
        const p = { state: 'all', order_by: 'created_at', sort: 'desc', scope: 'all', search, in: inParam } as unknown as MergeRequestListParams;
        const q = await buildMergeRequestQuery(db, caller, parent, p);
        const { sql: text, params } = db
          .select({ id: mergeRequests.id })
          .from(mergeRequests)
          .innerJoin(projects, eq(projects.id, mergeRequests.projectId))
          .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
          .where(q.where)
          .orderBy(...q.orderBy)
          .limit(20)
          .toSQL();
        const plan = (await client.execute({ sql: `EXPLAIN QUERY PLAN ${text}`, args: params as InValue[] })).rows.map((r) => String(r.detail)).join('\n');
        const label = `${parent.kind} ${search}`;
        expect(plan, label).toMatch(/SCAN merge_requests_search VIRTUAL TABLE INDEX/);
        expect(plan, label).toMatch(/SEARCH merge_requests USING (INTEGER PRIMARY KEY \(rowid=\?\)|(COVERING )?INDEX merge_requests_project_created \(project_id=\?\))/);
        expect(plan, label).not.toMatch(/SCAN merge_requests\b(?!_search)/);
      }
    }
    client.close();
  });
});

describe('cascades', () => {
  it('deleting a project drops its merge requests and issues from both indexes (same batch, through the triggers)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-mr-search-cascade-'));
    const { app, db } = await createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000' } });
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await app.fetch(
        new Request(`http://localhost/api/v4${path}`, { method, headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN, 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined }),
      );
      return { status: res.status, body: (await res.json().catch(() => null)) as any };
    };
    const project = await call('POST', '/projects', { name: 'cascade-search' });
    expect(project.status).toBe(201);
    const pid = project.body.id as number;
    expect((await call('POST', `/projects/${pid}/repository/commits`, { branch: 'main', commit_message: 'i', actions: [{ action: 'create', file_path: 'R', content: 'r' }] })).status).toBe(201);
    expect((await call('POST', `/projects/${pid}/repository/branches`, { branch: 'topic', ref: 'main' })).status).toBe(201);
    expect((await call('POST', `/projects/${pid}/merge_requests`, { source_branch: 'topic', target_branch: 'main', title: 'cascadeword merge request', description: 'cascadebody' })).status).toBe(201);
    expect((await call('POST', `/projects/${pid}/issues`, { title: 'cascadeword issue', description: 'cascadebody' })).status).toBe(201);
    const matches = async (index: string) => (await db.all<{ rowid: number }>(sql.raw(`SELECT rowid FROM ${index} WHERE ${index} MATCH '"cascadeword" OR "cascadebody"'`))).length;
    expect(await matches('merge_requests_search')).toBe(1);
    expect(await matches('issues_search')).toBe(1);

    expect((await call('DELETE', `/projects/${pid}`)).status).toBe(202);
    expect(await matches('merge_requests_search')).toBe(0);
    expect(await matches('issues_search')).toBe(0);
    for (const index of ['merge_requests_search', 'issues_search']) await db.run(sql.raw(`INSERT INTO ${index} (${index}, rank) VALUES ('integrity-check', 1)`));
  });
});
