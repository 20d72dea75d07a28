/**
 * Query plan of `GET /merge_requests` (finder.ts mergeRequestPage with `idsFirst`) on a real
 * migrated libSQL database: the matches of many projects are sorted as ids read from a covering
 * index, and only the page's rows are read by rowid. Sorting the whole rows read every match's row
 * (issue 13: `mr_all_member`, ~5 ms of SQLite's CPU a request on dataset M).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type InValue } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Caller, UserRow } from '../../src/platform/context';
import { type Db, schema } from '../../src/db/client';
import { buildMergeRequestQuery, mergeRequestPage } from '../../src/merge-requests/finder';
import type { MergeRequestListParams } from '../../src/merge-requests/merge-requests-params';

let client: ReturnType<typeof createClient>;
let db: Db;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-mr-plans-'));
  client = createClient({ url: `file:${join(dir, 'db.sqlite')}` });
  db = drizzle(client, { schema }) as unknown as Db;
  await migrate(db as never, { migrationsFolder: 'drizzle' });
});

const user = { id: 5, username: 'member', external: false } as unknown as UserRow;
const member: Caller = { user, sudoer: null, credential: null, isAdmin: false };
const admin: Caller = { ...member, isAdmin: true };
const base = { state: 'all', order_by: 'created_at', sort: 'desc', scope: 'all', with_labels_details: false } as unknown as MergeRequestListParams;

async function plan(caller: Caller, p: Partial<MergeRequestListParams>): Promise<string[]> {
  const q = await buildMergeRequestQuery(db, caller, { kind: 'all' }, { ...base, ...p } as MergeRequestListParams);
  const { sql: text, params } = (mergeRequestPage(db, q, 20, 40) as unknown as { toSQL(): { sql: string; params: unknown[] } }).toSQL();
  const rows = (await client.execute({ sql: `EXPLAIN QUERY PLAN ${text}`, args: params as InValue[] })).rows;
  return rows.map((r) => String(r.detail));
}

describe('GET /merge_requests: the page sorts ids, then reads its rows', () => {
  for (const [name, caller, p] of [
    ['member, default order', member, {}],
    ['member, opened', member, { state: 'opened' }],
    ['member, updated_at', member, { order_by: 'updated_at' }],
    ['administrator, default order', admin, {}],
  ] as const) {
    it(name, async () => {
      const lines = await plan(caller, p);
      const reads = lines.filter((l) => /^(SCAN|SEARCH) merge_requests\b/.test(l));
      expect(reads.length).toBeGreaterThan(0);
      // No merge request row is read to be sorted: the rows are read by rowid (the page's ids), the
      // matches from an index that holds what the WHERE and ORDER BY need.
      for (const l of reads) expect(l).toMatch(/USING (COVERING INDEX|INTEGER PRIMARY KEY)/);
      expect(reads.some((l) => /USING INTEGER PRIMARY KEY/.test(l))).toBe(true);
    });
  }
});
