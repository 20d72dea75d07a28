/**
 * A libSQL URL in place of D1: the Worker builds its database with `libsqlUrlDb(LIBSQL_URL)`
 * (src/db/libsql.ts, @libsql/client/web over HTTP). Here that same function talks to a libSQL
 * server over the network, and the Node entry's migrator applies the schema through it too.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { DEV_ROOT_TOKEN, loadConfig } from '../../src/platform/config';
import { libsqlUrlDb } from '../../src/db/libsql';
import { memoryRateLimiter } from '../../src/platform/rate-limiter';
import { createNodeApp } from '../../src/node-app';
import { bootstrap } from '../../src/auth/bootstrap';
import { fsBlobs } from '../../src/platform/fs-blobs';
import { startHranaServer } from '../fixtures/hrana-server';

describe('a remote libSQL server by URL instead of D1', () => {
  let server: Awaited<ReturnType<typeof startHranaServer>>;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wfapi-libsql-url-'));
    server = await startHranaServer(join(dir, 'remote.db'));
  });
  afterAll(async () => server?.close());

  it('migrates through the URL and serves the API from the Worker’s database adapter', async () => {
    // Node start applies the migrations over HTTP (the same drizzle migrator as for files).
    await createNodeApp({ databaseUrl: server.url, blobRoot: join(dir, 'blobs-node'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000' } });
    const before = server.requests();

    const config = loadConfig({ PASSWORD_HASH_ITERATIONS: '1000' });
    const db = libsqlUrlDb(server.url);
    await bootstrap(db, config);
    const { app } = createApp({ db, blobs: fsBlobs(join(dir, 'blobs')), jobs: { send: async () => {} }, config, rateLimiter: memoryRateLimiter() });
    const call = (path: string, init: RequestInit = {}) =>
      app.fetch(new Request(`http://localhost/api/v4${path}`, { ...init, headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN, 'Content-Type': 'application/json', ...(init.headers ?? {}) } }));

    const me = await call('/user');
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: 1, username: 'root' });

    // A write that is one db.batch (user + personal namespace) and a read back.
    const created = await call('/users', { method: 'POST', body: JSON.stringify({ email: 'remote@example.com', name: 'Remote', username: 'remote', password: 'secret-pass-123' }) });
    expect(created.status).toBe(201);
    const list = await call('/users?username=remote');
    expect(((await list.json()) as { username: string }[]).map((u) => u.username)).toEqual(['remote']);
    const dup = await call('/users', { method: 'POST', body: JSON.stringify({ email: 'remote@example.com', name: 'R', username: 'other', password: 'secret-pass-123' }) });
    expect(dup.status).toBe(409);
    // Every query above went over the network to the server.
    expect(server.requests()).toBeGreaterThan(before);
  });
});
