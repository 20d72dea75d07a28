/** Hot statements are built once per Db (db/prepared.ts) and give the same answers as a fresh query. */
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { prepared } from '../../src/db/prepared';
import { users } from '../../src/db/schema';
import { harnessApp } from '../harness/node';
import { createUser } from '../support';

describe('prepared statements', () => {
  it('builds a named statement once per Db and runs it with new values each time', async () => {
    const { db } = await harnessApp();
    const [a, b] = await Promise.all([createUser(), createUser()]);
    let builds = 0;
    const byId = () =>
      prepared(db, 'test-user-by-id', (d) => {
        builds++;
        return d.select({ id: users.id, username: users.username }).from(users).where(eq(users.id, sql.placeholder('id'))).prepare();
      });
    expect(await byId().get({ id: a.id })).toEqual({ id: a.id, username: a.username });
    expect(await byId().get({ id: b.id })).toEqual({ id: b.id, username: b.username });
    expect(await byId().get({ id: 999999999 })).toBeUndefined();
    expect(builds).toBe(1);
    expect(byId()).toBe(byId());
  });
});
