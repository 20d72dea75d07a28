/**
 * The protected-branches service contract used by the repository and merge-request areas:
 * wildcard matching (RefMatcher), canPushToBranch / canMergeToBranch (Gitlab::UserAccess with
 * ProtectedRefAccess#check_access), the Branch entity helpers, default-branch protection rows
 * (ProtectDefaultBranchService) and deletion statements. State is made through the API of a Node
 * app; the service functions are called with its database and a stub context.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, inArray, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import type { AppEnv, Caller } from '../../src/platform/context';
import type { Db } from '../../src/db/client';
import { protectedBranchAccessLevels, protectedBranches, users } from '../../src/db/schema';
import { createNodeApp } from '../../src/node-app';
import { writeSettings } from '../../src/settings/settings';
import {
  branchProtection,
  canMergeToBranch,
  canPushToBranch,
  canPushToBranches,
  defaultBranchProtectionStatements,
  developersCanMerge,
  developersCanPush,
  isProtectedBranch,
  protectedBranchDeletionStatements,
  protectedBranchFor,
  refMatches,
} from '../../src/repository/protected-branches';

let dir: string;
let db: Db;
let call: (path: string, init?: { method?: string; body?: unknown; token?: string }) => Promise<{ status: number; body: any }>;
let projectId: number;
const people: Record<string, { id: number; token: string; level: number }> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wfapi-pb-service-'));
  const created = await createNodeApp({
    databaseUrl: `file:${join(dir, 'db.sqlite')}`,
    blobRoot: join(dir, 'blobs'),
    migrationsFolder: 'drizzle',
    env: { PASSWORD_HASH_ITERATIONS: '1000' },
  });
  db = created.db;
  call = async (path, init = {}) => {
    const res = await created.app.fetch(
      new Request(`http://localhost/api/v4${path}`, {
        method: init.method ?? (init.body ? 'POST' : 'GET'),
        headers: { 'PRIVATE-TOKEN': init.token ?? DEV_ROOT_TOKEN, 'Content-Type': 'application/json' },
        body: init.body ? JSON.stringify(init.body) : undefined,
      }),
    );
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
  const owner = await call('/users', { body: { email: 'pbs-owner@example.com', name: 'Owner', username: 'pbs-owner', password: 'secret-pass-123', skip_confirmation: true } });
  const ownerToken = await call(`/users/${owner.body.id}/personal_access_tokens`, { body: { name: 't', scopes: ['api'] } });
  const group = await call('/groups', { body: { name: 'pbs', path: 'pbs' }, token: ownerToken.body.token });
  expect(group.status).toBe(201);
  const project = await call('/projects', { body: { name: 'repo', namespace_id: group.body.id }, token: ownerToken.body.token });
  expect(project.status).toBe(201);
  projectId = project.body.id;
  people.owner = { id: owner.body.id, token: ownerToken.body.token, level: 50 };
  for (const [name, level] of [
    ['guest', 10],
    ['reporter', 20],
    ['developer', 30],
    ['developer2', 30],
    ['maintainer', 40],
  ] as const) {
    const u = await call('/users', { body: { email: `pbs-${name}@example.com`, name, username: `pbs-${name}`, password: 'secret-pass-123', skip_confirmation: true } });
    expect((await call(`/projects/${projectId}/members`, { body: { user_id: u.body.id, access_level: level } })).status).toBe(201);
    people[name] = { id: u.body.id, token: '', level };
  }
  const admin = await call('/users', { body: { email: 'pbs-admin@example.com', name: 'Admin', username: 'pbs-admin', password: 'secret-pass-123', skip_confirmation: true, admin: true } });
  people.admin = { id: admin.body.id, token: '', level: 0 };

  const pb = (body: Record<string, unknown>) => call(`/projects/${projectId}/protected_branches`, { body, token: people.owner.token });
  expect((await pb({ name: 'main' })).status).toBe(201);
  expect((await pb({ name: 'release/*', push_access_level: 30, merge_access_level: 30 })).status).toBe(201);
  expect((await pb({ name: 'frozen', push_access_level: 0, merge_access_level: 60 })).status).toBe(201);
  expect((await pb({ name: 'personal', push_access_level: 0, allowed_to_push: [{ user_id: people.developer.id }], allowed_to_merge: [{ user_id: people.developer.id }] })).status).toBe(201);
  expect((await pb({ name: 'guestrule', push_access_level: 0, merge_access_level: 0, allowed_to_push: [{ user_id: people.guest.id }], allowed_to_merge: [{ user_id: people.guest.id }] })).status).toBe(201);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function caller(name: string | null): Promise<Caller> {
  if (!name) return { user: null, sudoer: null, credential: null, isAdmin: false };
  const user = (await db.select().from(users).where(eq(users.id, people[name].id)).get())!;
  return { user, sudoer: null, credential: null, isAdmin: user.isAdmin };
}

// The instance's default_branch_protection, as PUT /application/settings would store it (settingsOf reads it through db).
let storedProtection: number | undefined;
const ctx = async (protection = 2) => {
  if (protection !== storedProtection) await writeSettings(db, { default_branch_protection: (storedProtection = protection) });
  return { var: { db } } as unknown as Context<AppEnv>;
};
const level = (name: string | null) => (name ? people[name].level : 0);
const push = async (name: string | null, branch: string, opts = {}, protection = 2) => canPushToBranch(await ctx(protection), await caller(name), level(name), projectId, branch, opts);
const merge = async (name: string | null, branch: string) => canMergeToBranch(await ctx(), await caller(name), level(name), projectId, branch);

describe('refMatches', () => {
  it('matches exact names and wildcards anchored at both ends, everything but * literal', () => {
    expect(refMatches('main', 'main')).toBe(true);
    expect(refMatches('main', 'main2')).toBe(false);
    expect(refMatches('release/*', 'release/1.0')).toBe(true);
    expect(refMatches('release/*', 'release/')).toBe(true);
    expect(refMatches('release/*', 'xrelease/1')).toBe(false);
    expect(refMatches('*-stable', '1-0-stable')).toBe(true);
    expect(refMatches('*-stable', '1-0-stable-x')).toBe(false);
    expect(refMatches('a.*', 'abc')).toBe(false);
    expect(refMatches('a.*', 'a.bc')).toBe(true);
    expect(refMatches('feat/*/done', 'feat/x/y/done')).toBe(true);
    expect(refMatches('(x)*', '(x)1')).toBe(true);
    expect(refMatches('', '')).toBe(false);
  });
});

describe('canPushToBranch / canMergeToBranch', () => {
  it('an unprotected branch takes push_code: developers and administrators, not reporters or anonymous', async () => {
    expect(await push('developer', 'feature')).toBe(true);
    expect(await push('admin', 'feature')).toBe(true);
    expect(await push('reporter', 'feature')).toBe(false);
    expect(await push(null, 'feature')).toBe(false);
    expect(await push('developer', 'feature', { archived: true })).toBe(false);
    expect(await merge('developer', 'feature')).toBe(true);
    expect(await merge('reporter', 'feature')).toBe(false);
  });

  it('a Maintainers rule admits maintainers and owners; an administrator needs a membership level', async () => {
    expect(await push('developer', 'main')).toBe(false);
    expect(await push('maintainer', 'main')).toBe(true);
    expect(await push('owner', 'main')).toBe(true);
    expect(await push('admin', 'main')).toBe(false);
    expect(await merge('developer', 'main')).toBe(false);
    expect(await merge('maintainer', 'main')).toBe(true);
  });

  it('a wildcard rule covers matching branches only', async () => {
    expect(await push('developer', 'release/1.0')).toBe(true);
    expect(await push('reporter', 'release/1.0')).toBe(false);
    expect(await merge('developer', 'release/1.0')).toBe(true);
    expect(await push('developer', 'releases/1.0')).toBe(true); // unprotected
    expect((await protectedBranchFor(db, projectId, 'release/2')).map((p) => p.name)).toEqual(['release/*']);
    expect(await isProtectedBranch(db, projectId, 'release/2')).toBe(true);
    expect(await isProtectedBranch(db, projectId, 'other')).toBe(false);
  });

  it('No one (0) admits nobody; Instance admins (60) only administrators', async () => {
    expect(await push('owner', 'frozen')).toBe(false);
    expect(await push('admin', 'frozen')).toBe(false);
    expect(await merge('owner', 'frozen')).toBe(false);
    expect(await merge('admin', 'frozen')).toBe(true);
  });

  it('a user entry admits that member only', async () => {
    expect(await push('developer', 'personal')).toBe(true);
    expect(await push('developer2', 'personal')).toBe(false);
    expect(await push('owner', 'personal')).toBe(false);
    expect(await merge('developer', 'personal')).toBe(true);
    expect(await merge('maintainer', 'personal')).toBe(false);
  });

  it('pushing needs push_code before any rule; merging a protected branch does not (UserAccess)', async () => {
    expect(await push('guest', 'guestrule')).toBe(false);
    expect(await merge('guest', 'guestrule')).toBe(true);
    expect(await merge('guest', 'feature')).toBe(false);
  });

  it('an empty repository protects its default branch per default_branch_protection', async () => {
    // 2 full: maintainers and administrators create it; developers do not.
    expect(await push('developer', 'trunk', { emptyRepo: true }, 2)).toBe(false);
    expect(await push('maintainer', 'trunk', { emptyRepo: true }, 2)).toBe(true);
    expect(await push('admin', 'trunk', { emptyRepo: true }, 2)).toBe(true);
    // 3 developers can merge: still protected against developer pushes.
    expect(await push('developer', 'trunk', { emptyRepo: true }, 3)).toBe(false);
    // 4 developers can make the initial push; 0 and 1 leave it unprotected.
    expect(await push('developer', 'trunk', { emptyRepo: true }, 4)).toBe(true);
    expect(await push('developer', 'trunk', { emptyRepo: true }, 0)).toBe(true);
    expect(await push('developer', 'trunk', { emptyRepo: true }, 1)).toBe(true);
    expect(await push('reporter', 'trunk', { emptyRepo: true }, 0)).toBe(false);
    expect(await push('reporter', 'trunk', { emptyRepo: true }, 4)).toBe(false);
  });
});

describe('canPushToBranches', () => {
  it('answers for many names at once exactly as canPushToBranch does', async () => {
    const names = ['main', 'release/1', 'frozen', 'personal', 'guestrule', 'feature', 'trunk'];
    for (const who of ['guest', 'reporter', 'developer', 'developer2', 'maintainer', 'owner', 'admin', null])
      for (const [opts, protection] of [
        [{}, 2],
        [{ emptyRepo: true }, 2],
        [{ emptyRepo: true }, 4],
        [{ archived: true }, 2],
      ] as const) {
        const many = await canPushToBranches(await ctx(protection), await caller(who), level(who), projectId, names, opts);
        const one = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await push(who, n, opts, protection)])));
        expect([who, opts, Object.fromEntries(many)]).toEqual([who, opts, one]);
      }
  });
});

describe('Branch entity helpers', () => {
  it('developers_can_push / developers_can_merge / protected', async () => {
    expect(await developersCanPush(db, projectId, 'release/9')).toBe(true);
    expect(await developersCanMerge(db, projectId, 'release/9')).toBe(true);
    expect(await developersCanPush(db, projectId, 'main')).toBe(false);
    expect(await developersCanPush(db, projectId, 'feature')).toBe(false);
    const info = await branchProtection(db, projectId, ['main', 'release/1', 'feature']);
    expect(Object.fromEntries(info)).toEqual({
      main: { protected: true, developersCanPush: false, developersCanMerge: false },
      'release/1': { protected: true, developersCanPush: true, developersCanMerge: true },
      feature: { protected: false, developersCanPush: false, developersCanMerge: false },
    });
  });
});

describe('defaultBranchProtectionStatements', () => {
  async function freshProject(name: string): Promise<number> {
    const p = await call('/projects', { body: { name } });
    expect(p.status).toBe(201);
    return p.body.id;
  }
  const levelsOf = async (pid: number, branch: string) => {
    const res = await call(`/projects/${pid}/protected_branches/${encodeURIComponent(branch)}`);
    if (res.status !== 200) return res.status;
    return [res.body.push_access_levels.map((l: any) => l.access_level), res.body.merge_access_levels.map((l: any) => l.access_level), res.body.allow_force_push];
  };

  it('protects the default branch per level (0 none, 1 dev push, 2 full, 3 dev merge, 4 initial push), once', async () => {
    const expected: Record<number, unknown> = { 0: 404, 1: [[30], [40], false], 2: [[40], [40], false], 3: [[40], [30], false], 4: [[40], [40], false] };
    for (const protection of [0, 1, 2, 3, 4]) {
      const pid = await freshProject(`dbp${protection}`);
      const stmts = defaultBranchProtectionStatements(db, { id: pid }, 'main', { default_branch_protection: protection });
      expect(stmts.length).toBe(protection === 0 ? 0 : 3);
      if (stmts.length) {
        await db.batch(stmts as never);
        // A second push (or a lost race) adds nothing.
        await db.batch(defaultBranchProtectionStatements(db, { id: pid }, 'main', { default_branch_protection: protection }) as never);
      }
      expect(await levelsOf(pid, 'main')).toEqual(expected[protection]);
    }
  });

  it('leaves an existing rule alone, and adds nothing when a wildcard already covers the branch', async () => {
    const pid = await freshProject('dbpx');
    expect((await call(`/projects/${pid}/protected_branches`, { body: { name: 'main', push_access_level: 0 } })).status).toBe(201);
    await db.batch(defaultBranchProtectionStatements(db, { id: pid }, 'main', { default_branch_protection: 1 }) as never);
    expect(await levelsOf(pid, 'main')).toEqual([[0], [40], false]);
    expect(defaultBranchProtectionStatements(db, { id: pid }, 'release/1', { default_branch_protection: 2 }, { existingNames: ['release/*'] })).toEqual([]);
    // Without existingNames the statements find the covering wildcard themselves ([ and ? are literal in rule names).
    expect((await call(`/projects/${pid}/protected_branches`, { body: { name: 'rel[1]?/*' } })).status).toBe(201);
    await db.batch(defaultBranchProtectionStatements(db, { id: pid }, 'rel[1]?/x', { default_branch_protection: 2 }) as never);
    await db.batch(defaultBranchProtectionStatements(db, { id: pid }, 'rel1/x', { default_branch_protection: 2 }) as never);
    const names = (await call(`/projects/${pid}/protected_branches`)).body.map((b: any) => b.name);
    expect(names).toEqual(['main', 'rel[1]?/*', 'rel1/x']);
  });
});

describe('protectedBranchDeletionStatements', () => {
  it('removes the rules and their access levels of the given projects only', async () => {
    const p = await call('/projects', { body: { name: 'doomed' } });
    expect((await call(`/projects/${p.body.id}/protected_branches`, { body: { name: 'main' } })).status).toBe(201);
    const ids = (await db.select({ id: protectedBranches.id }).from(protectedBranches).where(eq(protectedBranches.projectId, p.body.id)).all()).map((r) => r.id);
    expect(ids.length).toBe(1);
    await db.batch(protectedBranchDeletionStatements(db, sql`(${p.body.id})`) as never);
    expect(await db.select().from(protectedBranches).where(eq(protectedBranches.projectId, p.body.id)).all()).toEqual([]);
    expect(await db.select().from(protectedBranchAccessLevels).where(inArray(protectedBranchAccessLevels.protectedBranchId, ids)).all()).toEqual([]);
    expect((await protectedBranchFor(db, projectId, 'main')).length).toBe(1);
  });
});
