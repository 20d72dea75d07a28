/**
 * Commit discussions in storage, on a Node app of its own: a commit's notes carry commit_id (GitLab's
 * `id_key = :commit_id`), and deleting a project removes its commit notes (notes/cascade.ts), and
 * only its own, read back from storage.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client';
import { notes } from '../../src/db/schema';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import { createNodeApp } from '../../src/node-app';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function instance() {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-disc-'));
  dirs.push(dir);
  const { app, db } = await createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000' } });
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
  return { call, db: db as Db };
}

describe('commit discussions in storage', () => {
  it('store commit_id, and go with their project only', async () => {
    const { call, db } = await instance();
    const make = async (name: string) => {
      const p = (await call('/projects', { body: { name } })).body;
      const c = await call(`/projects/${p.id}/repository/commits`, { body: { branch: 'main', commit_message: 'init', actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }] } });
      const d = await call(`/projects/${p.id}/repository/commits/${c.body.id}/discussions`, { body: { body: 'hi' } });
      expect(d.status).toBe(201);
      return { id: p.id as number, sha: c.body.id as string };
    };
    const gone = await make('gone');
    const kept = await make('kept');
    const stored = await db.select().from(notes).where(and(eq(notes.noteableType, 'Commit'), eq(notes.projectId, gone.id))).all();
    expect(stored.map((n) => [n.commitId, n.noteableId, n.type])).toEqual([[gone.sha, 0, 'DiscussionNote']]);
    expect((await call(`/projects/${gone.id}`, { method: 'DELETE' })).status).toBe(202);
    expect(await db.select().from(notes).where(eq(notes.projectId, gone.id)).all()).toEqual([]);
    expect((await db.select().from(notes).where(eq(notes.projectId, kept.id)).all()).map((n) => n.commitId)).toEqual([kept.sha]);
  });
});
