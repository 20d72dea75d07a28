/** Hot statements are built once per Db (db/prepared.ts) and give the same answers as a fresh query. */
import { eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { cachedQuery, fragmentOf, prepared, renderedOnce } from '../../src/db/prepared';
import { batchReads } from '../../src/db/batch-reads';
import { personalAccessTokens, users } from '../../src/db/schema';
import { harnessApp } from '../harness/node';
import { api, createUser, rootToken, unique } from '../support';

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

describe('batch statements built once (cachedQuery, renderedOnce)', () => {
  it('binds each use to its own values, alone or in a batch beside ordinary queries', async () => {
    const { db } = await harnessApp();
    const [a, b] = await Promise.all([createUser(), createUser()]);
    let builds = 0;
    const byId = (id: number) =>
      cachedQuery(
        db,
        'test-user-by-id',
        (d) => {
          builds++;
          return d.select({ id: users.id, username: users.username }).from(users).where(eq(users.id, sql.placeholder('id')));
        },
        { id },
      );
    const fresh = db.select({ username: users.username }).from(users).where(eq(users.id, b.id));
    const [rowsA, plain, rowsB] = await batchReads(db, [byId(a.id), fresh, byId(b.id)]);
    expect(rowsA).toEqual([{ id: a.id, username: a.username }]);
    expect(plain).toEqual([{ username: b.username }]);
    expect(rowsB).toEqual([{ id: b.id, username: b.username }]);
    expect(await byId(b.id)).toEqual([{ id: b.id, username: b.username }]);
    // Built once for the cache, then (test mode only) once more per use to compare with the cached text.
    expect(builds).toBe(1 + 3);
  });

  it('fails in test mode when the key leaves out a value written into the statement', async () => {
    const { db } = await harnessApp();
    const user = await createUser();
    // The id is written as a value, not a placeholder: the cached statement would answer the first id to everyone.
    const byIdWrongly = (id: number) => cachedQuery(db, 'test-user-by-baked-id', (d) => d.select({ id: users.id }).from(users).where(eq(users.id, id)), {});
    expect(await byIdWrongly(user.id)).toEqual([{ id: user.id }]);
    expect(() => byIdWrongly(user.id + 1)).toThrow(/does not name everything/);
  });

  it('renders a varying statement once and reuses the statement of the same text with new values', async () => {
    const { db } = await harnessApp();
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const q = (id: number) => db.select({ username: users.username }).from(users).where(eq(users.id, id));
    const [ra, rb] = await batchReads(db, [renderedOnce(db, 'test-username', q(a.id)), renderedOnce(db, 'test-username', q(b.id))]);
    expect(ra).toEqual([{ username: a.username }]);
    expect(rb).toEqual([{ username: b.username }]);
    expect(await renderedOnce(db, 'test-username', q(b.id))).toEqual([{ username: b.username }]);
  });

  it('turns a rendered query into a fragment with its values as placeholders, unless its text holds a literal ?', () => {
    const f = fragmentOf({ sql: 'select id from users where id = ? and name = ?', params: [1, 'x'] });
    expect(f?.values).toEqual({ q0: 1, q1: 'x' });
    expect(fragmentOf({ sql: "select '?' from users where id = ?", params: [1] })).toBeUndefined();
  });
});

describe('rows of statements built once (row-mapper.ts)', () => {
  it('maps rows as Drizzle does: nested tables, SQL columns, and a left-joined table with no row as null', async () => {
    const { db } = await harnessApp();
    const a = await createUser();
    // A user with no token: the left join finds no row for them.
    const username = unique('notoken');
    const created = await api('/users', { token: rootToken, body: { email: `${username}@example.com`, name: username, username, password: `Pw-${unique('p')}-long`, skip_confirmation: true } });
    expect(created.status).toBe(201);
    const b = { id: created.body.id as number };
    const build = (d: typeof db) =>
      d
        .select({ user: { id: users.id, username: users.username }, token: personalAccessTokens, twice: sql<number>`${users.id} * 2`.mapWith(Number) })
        .from(users)
        .leftJoin(personalAccessTokens, eq(personalAccessTokens.userId, users.id))
        .where(inArray(users.id, [a.id, b.id]))
        .orderBy(users.id, personalAccessTokens.id);
    // The ids are written into the text: the key names them.
    const cached = await cachedQuery(db, `test-left-join:${a.id}:${b.id}`, build, {});
    const fresh = await build(db);
    expect(cached).toEqual(fresh);
    expect(cached.some((r) => r.token === null)).toBe(true);
    expect(cached.some((r) => r.token !== null && r.token.userId === r.user.id)).toBe(true);
    expect(cached[0].twice).toBe(cached[0].user.id * 2);
  });
});
