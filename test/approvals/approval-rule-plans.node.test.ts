/**
 * Every approval-state read asks for one merge request's rules (state-reads.ts), and a list page's
 * for the page's merge requests (page-reads.ts). The table's unique indexes are partial (per rule
 * type), so without a plain index on merge_request_id each of those reads scanned every rule of the
 * instance. Both statements are explained here on a migrated database.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { asc, eq, inArray } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Db, schema } from '../../src/db/client';
import { approvalMergeRequestRules } from '../../src/db/schema';

let client: ReturnType<typeof createClient>;
let db: Db;

beforeAll(async () => {
  client = createClient({ url: `file:${join(mkdtempSync(join(tmpdir(), 'wfapi-approval-plans-')), 'db.sqlite')}` });
  db = drizzle(client, { schema }) as unknown as Db;
  await migrate(db as never, { migrationsFolder: 'drizzle' });
});

const planOf = async (q: { toSQL(): { sql: string; params: unknown[] } }) => {
  const { sql, params } = q.toSQL();
  return (await client.execute({ sql: `EXPLAIN QUERY PLAN ${sql}`, args: params as never })).rows.map((r) => String(r.detail));
};

describe('approval rules of merge requests', () => {
  it('are found by merge request through an index, for one merge request and for a page', async () => {
    const one = await planOf(db.select().from(approvalMergeRequestRules).where(eq(approvalMergeRequestRules.mergeRequestId, 7)).orderBy(asc(approvalMergeRequestRules.id)));
    const page = await planOf(db.select().from(approvalMergeRequestRules).where(inArray(approvalMergeRequestRules.mergeRequestId, [1, 2, 3])));
    for (const lines of [one, page]) {
      expect(lines.some((l) => /^SEARCH approval_merge_request_rules USING INDEX approval_merge_request_rules_mr \(merge_request_id=\?\)/.test(l)), lines.join('\n')).toBe(true);
      expect(lines.filter((l) => /^SCAN approval_merge_request_rules\b/.test(l))).toEqual([]);
    }
  });
});
