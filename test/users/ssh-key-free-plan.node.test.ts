/**
 * A free instance (INSTANCE_PLAN=free) needs its own server, so this lives with the Node-only tests:
 * adding a key for another user records no audit event, and the audit events API answers 403
 * (ee/lib/api/audit_events.rb: `forbidden! unless License.feature_available?(:admin_audit_log)`).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';
import { freshSshKey } from '../fixtures/keys';

async function freeInstance() {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-free-'));
  const { app, db } = await createNodeApp({
    databaseUrl: `file:${join(dir, 'db.sqlite')}`,
    blobRoot: join(dir, 'blobs'),
    migrationsFolder: 'drizzle',
    env: { PASSWORD_HASH_ITERATIONS: '1000', INSTANCE_PLAN: 'free' },
  });
  const call = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await app.fetch(
      new Request(`http://localhost/api/v4${path}`, {
        method: init.method ?? (init.body ? 'POST' : 'GET'),
        headers: { 'PRIVATE-TOKEN': DEV_ROOT_TOKEN, 'Content-Type': 'application/json' },
        body: init.body ? JSON.stringify(init.body) : undefined,
      }),
    );
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
  return { call, db };
}

describe('free plan', () => {
  it('admin adds a key for a user without an audit event; /audit_events answers 403', async () => {
    const { call, db } = await freeInstance();
    const user = await call('/users', { body: { email: 'free-u@example.com', name: 'Free U', username: 'free-u', password: 'secret-pass-123', skip_confirmation: true } });
    expect(user.status).toBe(201);
    const key = await call(`/users/${user.body.id}/keys`, { body: { title: 't', key: freshSshKey().key } });
    expect(key.status).toBe(201);
    const count = await db.get<{ n: number }>(sql`select count(*) as n from audit_events`);
    expect(Number(count?.n)).toBe(0);
    expect(await call('/audit_events')).toEqual({ status: 403, body: { message: '403 Forbidden' } });
    expect(await call('/audit_events/1')).toEqual({ status: 403, body: { message: '403 Forbidden' } });
  });
});
