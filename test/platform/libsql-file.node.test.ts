/** The Node file client (src/db/libsql-file.ts) keeps @libsql/client's semantics where the product relies on them. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filePathOf, libsqlFileClient } from '../../src/db/libsql-file';

let dir: string;
let client: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wfapi-libsql-file-'));
  client = libsqlFileClient(join(dir, 'db.sqlite'));
  await client.execute('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, big INTEGER, data BLOB)');
});

afterAll(() => {
  client.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('libsqlFileClient', () => {
  it('reads file: URLs and leaves others to @libsql/client', () => {
    expect(filePathOf('file:/tmp/a.db')).toBe('/tmp/a.db');
    expect(filePathOf('file:rel.db')).toBe('rel.db');
    expect(filePathOf('file:///tmp/a%20b.db')).toBe('/tmp/a b.db');
    expect(filePathOf(':memory:')).toBeNull();
    expect(filePathOf('libsql://example.turso.io')).toBeNull();
    expect(filePathOf('file:/tmp/a.db?mode=ro')).toBeNull();
  });

  it('returns rows both indexable and by name, with a repeated name keeping its first value', async () => {
    await client.execute({ sql: 'INSERT INTO t (id, name, big) VALUES (?, ?, ?)', args: [1, 'a', 5] });
    const res = await client.execute({ sql: 'SELECT t.id, t.name, u.id FROM t JOIN t AS u ON u.id = t.id WHERE t.id = ?', args: [1] });
    const row = res.rows[0];
    expect([row.length, row[0], row[1], row[2]]).toEqual([3, 1, 'a', 1]);
    expect(Object.keys(row)).toEqual(['id', 'name']);
    expect(Array.prototype.slice.call(row)).toEqual([1, 'a', 1]);
    expect(res.columns).toEqual(['id', 'name', 'id']);
  });

  it('reports changes and the last rowid of writes, and booleans bind as 1/0', async () => {
    const res = await client.execute({ sql: 'INSERT INTO t (id, name, big) VALUES (?, ?, ?)', args: [2, 'b', true] });
    expect(res.rowsAffected).toBe(1);
    expect(res.lastInsertRowid).toBe(2n);
    expect((await client.execute({ sql: 'SELECT big FROM t WHERE id = ?', args: [2] })).rows[0].big).toBe(1);
  });

  it('runs a batch as one transaction: a failing statement leaves nothing written', async () => {
    await expect(
      client.batch([
        { sql: 'INSERT INTO t (id, name) VALUES (?, ?)', args: [10, 'ten'] },
        { sql: 'INSERT INTO t (id, name) VALUES (?, ?)', args: [11, 'a'] }, // duplicate name
      ]),
    ).rejects.toThrow(/UNIQUE constraint failed/);
    expect((await client.execute('SELECT count(*) AS n FROM t WHERE id = 10')).rows[0].n).toBe(0);
    const ok = await client.batch([{ sql: 'INSERT INTO t (id, name) VALUES (?, ?)', args: [10, 'ten'] }, 'SELECT name FROM t WHERE id = 10']);
    expect(ok[1].rows[0].name).toBe('ten');
  });

  it('refuses integers JavaScript cannot hold, like @libsql/client', async () => {
    await client.execute({ sql: 'INSERT INTO t (id, name, big) VALUES (?, ?, ?)', args: [3, 'c', 2n ** 60n] });
    await expect(client.execute('SELECT big FROM t WHERE id = 3')).rejects.toThrow(RangeError);
  });

  it('returns blobs as ArrayBuffers of exactly their bytes', async () => {
    await client.execute({ sql: 'INSERT INTO t (id, name, data) VALUES (?, ?, ?)', args: [4, 'd', new Uint8Array([1, 2, 3]).buffer] });
    const data = (await client.execute('SELECT data FROM t WHERE id = 4')).rows[0].data as ArrayBuffer;
    expect([...new Uint8Array(data)]).toEqual([1, 2, 3]);
  });

  it('keeps serving correct results past the statement cache limit', async () => {
    for (let i = 0; i < 600; i++) expect((await client.execute(`SELECT ${i} AS v`)).rows[0].v).toBe(i);
    expect((await client.execute({ sql: 'SELECT name FROM t WHERE id = ?', args: [1] })).rows[0].name).toBe('a');
  });
});
