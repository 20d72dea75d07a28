/**
 * Users API behaviour that needs state no API call can create (users pending approval, recent
 * activity, SAML identities) or a differently configured server (plan).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEV_ROOT_TOKEN } from '../../src/platform/config';
import {
  auditEvents,
  gpgKeys,
  identities,
  keys,
  namespaces,
  oauthAccessTokens,
  oauthApplications,
  personalAccessTokens,
  userCustomAttributes,
  userFollows,
  userPreferences,
  users,
  userStatuses,
  webSessions,
} from '../../src/db/schema';
import { createNodeApp } from '../../src/node-app';
import { freshGpgKey, freshSshKey } from '../fixtures/keys';

type App = Awaited<ReturnType<typeof createNodeApp>>;

async function makeApp(env: Record<string, string> = {}): Promise<App> {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-users-'));
  return createNodeApp({ databaseUrl: `file:${join(dir, 'db.sqlite')}`, blobRoot: join(dir, 'blobs'), migrationsFolder: 'drizzle', env: { PASSWORD_HASH_ITERATIONS: '1000', ...env } });
}

let n = 0;
async function call(app: App, method: string, path: string, body?: unknown, token: string | null = DEV_ROOT_TOKEN) {
  const headers: Record<string, string> = {};
  if (token) headers['PRIVATE-TOKEN'] = token;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await app.app.fetch(new Request(`http://localhost/api/v4${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function newUser(app: App, attrs: Record<string, unknown> = {}) {
  const username = `nu${Date.now().toString(36)}${n++}`;
  const res = await call(app, 'POST', '/users', { email: `${username}@example.com`, name: username, username, password: 'secret-pass-123', ...attrs });
  expect(res.status).toBe(201);
  return res.body as { id: number; username: string };
}

describe('users on an Ultimate instance, with state set in the database', () => {
  let app: App;
  beforeAll(async () => {
    app = await makeApp();
  });

  it('approves a user pending approval (201 {"message":"Success"}) once', async () => {
    const u = await newUser(app);
    await app.db.update(users).set({ state: 'blocked_pending_approval' }).where(eq(users.id, u.id)).run();
    const res = await call(app, 'POST', `/users/${u.id}/approve`);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ message: 'Success' });
    expect((await call(app, 'GET', `/users/${u.id}`)).body.state).toBe('active');
    const again = await call(app, 'POST', `/users/${u.id}/approve`);
    expect(again.status).toBe(409);
  });

  it('rejects a user pending approval: 200 {"message":"Success"} and the user is deleted', async () => {
    const u = await newUser(app);
    await app.db.update(users).set({ state: 'blocked_pending_approval' }).where(eq(users.id, u.id)).run();
    const res = await call(app, 'POST', `/users/${u.id}/reject`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Success' });
    expect((await call(app, 'GET', `/users/${u.id}`)).status).toBe(404);
  });

  it('hides users pending approval from non-administrators in lists', async () => {
    const viewer = await newUser(app);
    const token = (await call(app, 'POST', `/users/${viewer.id}/personal_access_tokens`, { name: 't', scopes: ['api'] })).body.token;
    const u = await newUser(app);
    await app.db.update(users).set({ state: 'blocked_pending_approval' }).where(eq(users.id, u.id)).run();
    expect((await call(app, 'GET', `/users?username=${u.username}`, undefined, token)).body).toEqual([]);
    expect((await call(app, 'GET', `/users?username=${u.username}`)).body).toHaveLength(1);
  });

  it('refuses to deactivate a user active within the dormant period', async () => {
    const u = await newUser(app);
    await app.db.update(users).set({ lastActivityOn: new Date().toISOString().slice(0, 10) }).where(eq(users.id, u.id)).run();
    const res = await call(app, 'POST', `/users/${u.id}/deactivate`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: 'The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated' });
    await app.db.update(users).set({ lastActivityOn: '2001-01-01' }).where(eq(users.id, u.id)).run();
    expect((await call(app, 'POST', `/users/${u.id}/deactivate`)).status).toBe(201);
  });

  it('filters by saml_provider_id for administrators (Premium)', async () => {
    const u = await newUser(app, { provider: 'group_saml', extern_uid: `saml-${n}` });
    await app.db.update(identities).set({ samlProviderId: 4242 }).where(eq(identities.userId, u.id)).run();
    const res = await call(app, 'GET', '/users?saml_provider_id=4242');
    expect(res.status).toBe(200);
    expect(res.body.map((x: any) => x.id)).toEqual([u.id]);
    expect(res.body[0].identities).toEqual([{ provider: 'group_saml', extern_uid: `saml-${n - 1}`, saml_provider_id: 4242 }]);
  });

  it('deletes every row of the user with it, keeps audit events, and leaves other users alone', async () => {
    const u = await newUser(app, { provider: 'github', extern_uid: `gh-${n}`, skip_confirmation: true });
    const other = await newUser(app, { skip_confirmation: true });
    const db = app.db;
    // Every row the user can own, made through the API the way a client would.
    const token = (await call(app, 'POST', `/users/${u.id}/personal_access_tokens`, { name: 't', scopes: ['api'] })).body.token as string;
    const otherToken = (await call(app, 'POST', `/users/${other.id}/personal_access_tokens`, { name: 't', scopes: ['api'] })).body.token as string;
    const made = [
      await call(app, 'PUT', `/users/${u.id}/custom_attributes/k`, { value: 'v' }),
      await call(app, 'POST', '/user/keys', { title: 't', key: freshSshKey().key }, token),
      await call(app, 'POST', `/users/${u.id}/keys`, { title: 'by admin', key: freshSshKey().key }), // audited
      await call(app, 'POST', '/user/gpg_keys', { key: freshGpgKey().key }, token),
      await call(app, 'PUT', '/user/status', { message: 'hi' }, token),
      await call(app, 'PUT', '/user/preferences', { view_diffs_file_by_file: true, show_whitespace_in_diffs: false }, token),
      await call(app, 'POST', `/users/${other.id}/follow`, undefined, token),
      await call(app, 'POST', `/users/${u.id}/follow`, undefined, otherToken),
    ];
    expect(made.map((r) => r.status)).toEqual([200, 201, 201, 201, 200, 200, 201, 201]);
    const form = (fields: Record<string, string>) => ({ method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
    const oauth = await app.app.fetch(new Request('http://localhost/oauth/token', form({ grant_type: 'password', username: u.username, password: 'secret-pass-123' })));
    expect(oauth.status).toBe(200);
    const signIn = await app.app.fetch(new Request('http://localhost/users/sign_in', { ...form({ 'user[login]': u.username, 'user[password]': 'secret-pass-123' }), redirect: 'manual' }));
    expect(signIn.status).toBe(302);
    // No API creates an application owned by a user (GET/POST /applications are instance-wide), so this one row is seeded.
    await db.insert(oauthApplications).values({ name: 'app', uid: `uid${n}`, secretDigest: 's', ownerId: u.id, createdAt: Date.now() }).run();
    const res = await call(app, 'DELETE', `/users/${u.id}`);
    expect(res.status).toBe(204);
    const left = await Promise.all([
      db.select().from(users).where(eq(users.id, u.id)).all(),
      db.select().from(namespaces).where(eq(namespaces.ownerId, u.id)).all(),
      db.select().from(identities).where(eq(identities.userId, u.id)).all(),
      db.select().from(userCustomAttributes).where(eq(userCustomAttributes.userId, u.id)).all(),
      db.select().from(keys).where(eq(keys.userId, u.id)).all(),
      db.select().from(gpgKeys).where(eq(gpgKeys.userId, u.id)).all(),
      db.select().from(personalAccessTokens).where(eq(personalAccessTokens.userId, u.id)).all(),
      db.select().from(oauthAccessTokens).where(eq(oauthAccessTokens.userId, u.id)).all(),
      db.select().from(oauthApplications).where(eq(oauthApplications.ownerId, u.id)).all(),
      db.select().from(webSessions).where(eq(webSessions.userId, u.id)).all(),
      db.select().from(userStatuses).where(eq(userStatuses.userId, u.id)).all(),
      db.select().from(userPreferences).where(eq(userPreferences.userId, u.id)).all(),
      db.select().from(userFollows).where(eq(userFollows.followerId, u.id)).all(),
      db.select().from(userFollows).where(eq(userFollows.followeeId, u.id)).all(),
    ]);
    expect(left.map((rows) => rows.length)).toEqual(left.map(() => 0));
    // The audit event of the administrator-added key is kept: audit history outlives the user.
    expect(await db.select().from(auditEvents).where(eq(auditEvents.entityId, u.id)).all()).toHaveLength(1);
    expect((await call(app, 'GET', `/users/${other.id}`)).status).toBe(200);
    expect(await db.select().from(namespaces).where(eq(namespaces.ownerId, other.id)).all()).toHaveLength(1);
  });

  it('PUT: an administrator changing another user\'s password expires it now; the email waits in unconfirmed_email', async () => {
    const u = await newUser(app);
    const before = Date.now();
    expect((await call(app, 'PUT', `/users/${u.id}`, { password: 'another-pass-123', email: `new-${u.username}@example.com` })).status).toBe(200);
    const row = (await app.db.select().from(users).where(eq(users.id, u.id)).get())!;
    expect(row.passwordExpiresAt).toBeGreaterThanOrEqual(before);
    expect(row.passwordExpiresAt).toBeLessThanOrEqual(Date.now());
    expect(row.unconfirmedEmail).toBe(`new-${u.username}@example.com`);
    expect(row.email).toBe(`${u.username}@example.com`);
    // root changing its own password is not forced to change it again.
    expect((await call(app, 'PUT', '/users/1', { password: 'root-pass-12345' })).status).toBe(200);
    expect((await app.db.select().from(users).where(eq(users.id, 1)).get())!.passwordExpiresAt).toBeNull();
  });
});

describe('users on a Free instance', () => {
  it('leaves the Premium attributes out of the administrator view and ignores saml_provider_id', async () => {
    const app = await makeApp({ INSTANCE_PLAN: 'free' });
    const u = await newUser(app);
    const res = await call(app, 'GET', `/users/${u.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveProperty('is_admin');
    for (const k of ['shared_runners_minutes_limit', 'extra_shared_runners_minutes_limit', 'is_auditor', 'provisioned_by_group_id', 'using_license_seat']) {
      expect(res.body).not.toHaveProperty(k);
    }
    const list = await call(app, 'GET', `/users?saml_provider_id=1&username=${u.username}`);
    expect(list.body.map((x: any) => x.id)).toEqual([u.id]);
    const ultimate = await makeApp();
    const v = await newUser(ultimate);
    expect((await call(ultimate, 'GET', `/users/${v.id}`)).body).toHaveProperty('using_license_seat', true);
  });
});
