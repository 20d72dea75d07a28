/**
 * The membership lookup behind every project-scoped request is one SELECT served by the
 * `members_user_source` index (lib/abilities.ts), and projectAccess answers from it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq, inArray, or, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { members, namespaces, projects, users } from '../../src/db/schema';
import { ACCESS, activeMember, groupAccess, projectAccess } from '../../src/projects/abilities';
import { createNodeApp } from '../../src/node-app';

describe('access lookup', () => {
  it('uses the members_user_source index and inherits levels down the tree', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfapi-access-'));
    const { db } = await createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000' } });
    const q = db
      .select({ level: sql`max(${members.accessLevel})` })
      .from(members)
      .where(and(eq(members.userId, 1), or(and(eq(members.sourceType, 'Project'), eq(members.sourceId, 7)), and(eq(members.sourceType, 'Namespace'), inArray(members.sourceId, [1, 2, 3]))), activeMember()));
    const { sql: text, params } = q.toSQL();
    const plan = await db.all<{ detail: string }>(sql.raw(`EXPLAIN QUERY PLAN ${text.replace(/\?/g, () => JSON.stringify(params.shift()).replace(/^"|"$/g, "'"))}`));
    expect(plan.map((r) => r.detail).join('\n')).toContain('members_user_source');

    const now = Date.now();
    const root = (await db.select().from(users).where(eq(users.id, 1)).get())!;
    await db.insert(namespaces).values([
      { id: 9001, kind: 'Group', name: 'top', path: 'top', fullPath: 'top-plan', traversalPath: '/9001/', visibility: 'private', createdAt: now, updatedAt: now },
      { id: 9002, kind: 'Group', name: 'sub', path: 'sub', fullPath: 'top-plan/sub', parentId: 9001, traversalPath: '/9001/9002/', visibility: 'private', createdAt: now, updatedAt: now },
    ]);
    await db.insert(projects).values({ id: 9003, namespaceId: 9002, name: 'p', path: 'p', createdAt: now, updatedAt: now, lastActivityAt: now });
    await db.insert(members).values({ sourceType: 'Namespace', sourceId: 9001, userId: 1, accessLevel: ACCESS.REPORTER, createdAt: now, updatedAt: now });
    const sub = (await db.select().from(namespaces).where(eq(namespaces.id, 9002)).get())!;
    const project = (await db.select().from(projects).where(eq(projects.id, 9003)).get())!;
    expect(await projectAccess(db, root, project, sub)).toBe(ACCESS.REPORTER);
    await db.insert(members).values({ sourceType: 'Project', sourceId: 9003, userId: 1, accessLevel: ACCESS.MAINTAINER, createdAt: now, updatedAt: now });
    expect(await projectAccess(db, root, project, sub)).toBe(ACCESS.MAINTAINER);
    expect(await groupAccess(db, root, sub)).toBe(ACCESS.REPORTER);
    // An expired membership no longer counts.
    await db.update(members).set({ expiresAt: '2000-01-01' }).where(eq(members.sourceType, 'Namespace')).run();
    expect(await groupAccess(db, root, sub)).toBe(0);
  });
});
