/** Unknown errors: logged with the request id, answered with GitLab's generic 500 body, nothing else leaked. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';

describe('an unexpected storage failure', () => {
  afterEach(() => vi.restoreAllMocks());

  it('answers {"message":"500 Internal Server Error"} and logs the error with the request id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-err-'));
    const { app, db } = await createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000' } });
    // A real failure of our storage: the table behind every token lookup disappears.
    await db.run(sql`DROP TABLE personal_access_tokens`);
    const logged: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void logged.push(String(line)));

    const res = await app.fetch(new Request('http://localhost/api/v4/user', { headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN, 'X-Request-Id': 'req-test-42' } }));

    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ message: '500 Internal Server Error' });
    expect(res.headers.get('x-request-id')).toBe('req-test-42');
    const entry = logged.map((l) => JSON.parse(l)).find((e) => e.request_id === 'req-test-42');
    expect(entry).toMatchObject({ level: 'error', method: 'GET', path: '/api/v4/user' });
    expect(entry.error).toContain('personal_access_tokens');
  });
});
