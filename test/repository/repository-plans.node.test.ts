/**
 * The ancestry walks of services/repository.ts (merge base, base..head, ancestor checks, the last
 * commit of a path) look each queued commit's parent edges up by (project_id, sha). Without
 * statistics SQLite once made the edges the outer loop, so every step of a walk scanned all of the
 * project's edges: a merge base cost edges x depth. Here every statement those walks send is
 * explained on a migrated database, and the walks still answer correctly on a long history.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type InStatement, type InValue } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Db, schema } from '../../src/db/client';
import { repoCommitFiles, repoCommitParents, repoCommits } from '../../src/db/schema';
import { commitsBetween, isAncestor, lastCommitForPath, mergeBase } from '../../src/repository/repository';
import { historyCount, historyPage, lastCommitForPathAtRef } from '../../src/repository/history-reads';
import { sql } from 'drizzle-orm';

let client: ReturnType<typeof createClient>;
let db: Db;
const sent: { sql: string; args: InValue[] }[] = [];

const P = 3;
const sha = (name: string) => createHash('sha1').update(name).digest('hex');
/** main: m0 … m599; a topic branch t0 … t4 forked at m500; a second project's edges around it. */
const MAIN = 600;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-repo-plans-'));
  client = createClient({ url: `file:${join(dir, 'db.sqlite')}` });
  const execute = client.execute.bind(client);
  client.execute = ((stmt: InStatement) => {
    if (typeof stmt === 'object' && /WITH RECURSIVE/.test(stmt.sql) && !stmt.sql.startsWith('EXPLAIN')) sent.push({ sql: stmt.sql, args: (stmt.args ?? []) as InValue[] });
    return execute(stmt);
  }) as typeof client.execute;
  db = drizzle(client, { schema }) as unknown as Db;
  await migrate(db as never, { migrationsFolder: 'drizzle' });
  const commits: (typeof repoCommits.$inferInsert)[] = [];
  const edges: (typeof repoCommitParents.$inferInsert)[] = [];
  const files: (typeof repoCommitFiles.$inferInsert)[] = [];
  const add = (projectId: number, name: string, parent: string | null, generation: number, at: number) => {
    commits.push({ projectId, sha: sha(name), treeSha: sha('t'), parentShas: parent ? [sha(parent)] : [], generation, message: name, authorName: 'a', authorEmail: 'a@x', authoredAt: at, committerName: 'a', committerEmail: 'a@x', committedAt: at });
    if (parent) edges.push({ projectId, sha: sha(name), parentSha: sha(parent), position: 0 });
    // README.md changes at a300 and b2.
    const version = name.startsWith('b') ? (Number(name.slice(1)) >= 2 ? 'v3' : 'v2') : Number(name.slice(1)) >= 300 ? 'v2' : 'v1';
    if (projectId === P) files.push({ projectId, commitSha: sha(name), path: 'README.md', blobSha: sha(version), mode: '100644', size: 1 });
  };
  for (let i = 0; i < MAIN; i++) add(P, `a${i}`, i ? `a${i - 1}` : null, i + 1, 1000 + i);
  for (let i = 0; i < 5; i++) add(P, `b${i}`, i ? `b${i - 1}` : 'a500', 502 + i, 5000 + i);
  for (let i = 0; i < 200; i++) add(P + 1, `a${i}`, i ? `a${i - 1}` : null, i + 1, 1000 + i);
  for (let i = 0; i < commits.length; i += 50) await db.insert(repoCommits).values(commits.slice(i, i + 50));
  for (let i = 0; i < edges.length; i += 100) await db.insert(repoCommitParents).values(edges.slice(i, i + 100));
  for (let i = 0; i < files.length; i += 100) await db.insert(repoCommitFiles).values(files.slice(i, i + 100));
});

async function planOf(s: { sql: string; args: InValue[] }): Promise<string[]> {
  return (await client.execute({ sql: `EXPLAIN QUERY PLAN ${s.sql}`, args: s.args })).rows.map((r) => String(r.detail));
}

describe('ancestry walks', () => {
  it('answer on a 600-commit history: merge base, base..head, ancestry and a path', async () => {
    sent.length = 0;
    expect(await mergeBase(db, P, sha(`a${MAIN - 1}`), sha('b4'))).toBe(sha('a500'));
    expect((await commitsBetween(db, P, sha(`a${MAIN - 1}`), sha('b4'))).map((c) => c.message)).toEqual(['b4', 'b3', 'b2', 'b1', 'b0']);
    expect(await isAncestor(db, P, sha('a10'), sha('b0'))).toBe(true);
    expect(await isAncestor(db, P, sha('b0'), sha(`a${MAIN - 1}`))).toBe(false);
    expect(await lastCommitForPath(db, P, sha('b4'), 'README.md')).toBe(sha('b2'));
    expect(await lastCommitForPath(db, P, sha(`a${MAIN - 1}`), 'README.md')).toBe(sha('a300'));
    expect(sent.length).toBe(6);
    // A function of the two shas: asked again on the same Db, it is answered without storage.
    expect(await mergeBase(db, P, sha(`a${MAIN - 1}`), sha('b4'))).toBe(sha('a500'));
    expect(sent.length).toBe(6);
  });

  it('look every parent edge up by (project_id, sha), never scanning the edges', async () => {
    sent.length = 0;
    // The merge base of two shas is kept per Db once read (sha-cache.ts): a fresh Db reads it again.
    await mergeBase(drizzle(client, { schema }) as unknown as Db, P, sha(`a${MAIN - 1}`), sha('b4'));
    await commitsBetween(db, P, sha(`a${MAIN - 1}`), sha('b4'));
    await isAncestor(db, P, sha('a10'), sha('b0'));
    await lastCommitForPath(db, P, sha('b4'), 'README.md');
    expect(sent.length).toBe(4);
    for (const s of sent) {
      const lines = await planOf(s);
      const edges = lines.filter((l) => /^(SCAN|SEARCH) p\b/.test(l));
      expect(edges.length, lines.join('\n')).toBeGreaterThan(0);
      for (const l of edges) expect(l).toMatch(/^SEARCH p USING INDEX \S+ \(project_id=\? AND sha=\?\)/);
    }
  });
});

describe('history reads (history-reads.ts)', () => {
  const pid = sql`${P}`;

  it('list a ref history filtered by path, first parents or not, with its count', async () => {
    const head = sha('b4');
    const byPath = await historyPage(db, pid, { ref: head, path: 'README.md' }, 20, 0);
    // README.md changed at a0 (created), a300 and b2.
    expect(byPath.map((c) => c.message)).toEqual(['b2', 'a300', 'a0']);
    expect(await historyCount(db, pid, { ref: head, path: 'README.md' })).toEqual([{ n: 3 }]);
    const page = await historyPage(db, pid, { ref: head, firstParent: true }, 3, 5);
    expect(page.map((c) => c.message)).toEqual(['a500', 'a499', 'a498']);
    expect(await historyCount(db, pid, { ref: head })).toEqual([{ n: 506 }]);
    expect(await historyCount(db, pid, { ref: sha('a10').slice(0, 9) })).toEqual([{ n: 11 }]);
  });

  it('walk parent edges and compare file lists through their indexes, never scanning', async () => {
    sent.length = 0;
    await historyPage(db, pid, { ref: sha('b4'), path: 'README.md' }, 20, 0);
    await historyCount(db, pid, { ref: sha('b4'), firstParent: true });
    await lastCommitForPathAtRef(db, pid, sha('b4'), 'README.md');
    expect(sent.length).toBe(3);
    for (const s of sent) {
      const lines = await planOf(s);
      expect(lines.filter((l) => /^SCAN (p|p1|p0|fa|fb|f0|pf|f|rc|c)\b/.test(l)), lines.join("\n")).toEqual([]);
    }
  });
});
