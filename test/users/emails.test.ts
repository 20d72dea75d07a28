/**
 * Email addresses (GitLab lib/api/users.rb `emails` routes, app/models/email.rb,
 * Emails::CreateService, Emails::DestroyService): the caller's own, and any user's for administrators.
 * A confirmed user's primary address is listed too (createUser makes confirmed users).
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique, type TestUser } from '../support';

const address = () => `${unique('mail')}@example.com`;

/** The user's own list, whose first entry is the primary address (created with the user). */
const listOf = async (u: TestUser) => (await api('/user/emails', { token: u.token })).body as { id: number; email: string; confirmed_at: string | null }[];

describe('POST /user/emails', () => {
  it('adds an unconfirmed address, lowercased and trimmed; it reads back one by one and in the list', async () => {
    const u = await createUser();
    const email = address();
    const res = await api('/user/emails', { token: u.token, body: { email: `  ${email.toUpperCase()} ` } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'email', 'confirmed_at']);
    expect(res.body).toMatchObject({ email, confirmed_at: null });
    const one = await api(`/user/emails/${res.body.id}`, { token: u.token });
    expect([one.status, one.body]).toEqual([200, res.body]);
    const list = await api('/user/emails', { token: u.token });
    expect(list.body).toEqual([expect.objectContaining({ email: u.email }), res.body]);
    expect(list.headers.get('x-total')).toBe('2');
  });

  it("answers GitLab's model errors: blank, invalid, taken by a secondary or a primary address", async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const taken = address();
    expect((await api('/user/emails', { token: a.token, body: { email: taken } })).status).toBe(201);
    const cases: [string, string[]][] = [
      ['  ', ["can't be blank"]],
      ['not-an-address', ['is invalid']],
      [taken.toUpperCase(), ['has already been taken']],
      // The caller's own primary: its row is taken (uniqueness), but it is no other user's primary.
      [b.email, ['has already been taken']],
      // Another user's primary: its row (uniqueness) and Email#unique_email, each with its message.
      [a.email, ['has already been taken', 'has already been taken']],
    ];
    for (const [email, messages] of cases) {
      const res = await api('/user/emails', { token: b.token, body: { email } });
      expect([res.status, res.body], email).toEqual([400, { message: { email: messages } }]);
    }
    expect(await api('/user/emails', { token: b.token, body: {} }).then((r) => [r.status, r.body])).toEqual([400, { error: 'email is missing' }]);
    expect((await listOf(b)).map((e) => e.email)).toEqual([b.email]);
  });

  it('needs a signed-in caller', async () => {
    expect((await api('/user/emails')).status).toBe(401);
    expect((await api('/user/emails', { body: { email: address() } })).status).toBe(401);
  });
});

describe('GET/DELETE /user/emails/:email_id', () => {
  it("sees only the caller's own addresses, deletes them, and 404s what is gone or another user's", async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const mine = (await api('/user/emails', { token: a.token, body: { email: address() } })).body;
    expect(await api(`/user/emails/${mine.id}`, { token: b.token }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 Email Not Found' }]);
    expect(await api(`/user/emails/${mine.id}`, { method: 'DELETE', token: b.token }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 Email Not Found' }]);
    expect((await api(`/user/emails/${mine.id}`, { method: 'DELETE', token: a.token })).status).toBe(204);
    expect((await api(`/user/emails/${mine.id}`, { token: a.token })).status).toBe(404);
    expect((await listOf(a)).map((e) => e.email)).toEqual([a.email]);
    expect(await api('/user/emails/abc', { token: a.token }).then((r) => [r.status, r.body])).toEqual([400, { error: 'email_id is invalid' }]);
  });

  it('frees a deleted address for someone else', async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const email = address();
    const mine = (await api('/user/emails', { token: a.token, body: { email } })).body;
    expect((await api('/user/emails', { token: b.token, body: { email } })).status).toBe(400);
    await api(`/user/emails/${mine.id}`, { method: 'DELETE', token: a.token });
    expect((await api('/user/emails', { token: b.token, body: { email } })).status).toBe(201);
  });
});

describe('/users/:id/emails (administrators)', () => {
  it('adds (confirmed with skip_confirmation), lists and deletes the addresses of a user', async () => {
    const u = await createUser();
    const plain = await api(`/users/${u.id}/emails`, { token: rootToken, body: { email: address() } });
    expect(plain.status).toBe(201);
    expect(plain.body.confirmed_at).toBeNull();
    const confirmed = await api(`/users/${u.id}/emails`, { token: rootToken, body: { email: address(), skip_confirmation: true } });
    expect(confirmed.status).toBe(201);
    expect(confirmed.body.confirmed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const list = await api(`/users/${u.id}/emails`, { token: rootToken });
    expect(list.body).toEqual([expect.objectContaining({ email: u.email }), plain.body, confirmed.body]);
    // The user sees the same addresses under /user/emails.
    expect((await api('/user/emails', { token: u.token })).body).toEqual(list.body);
    expect((await api(`/users/${u.id}/emails/${plain.body.id}`, { method: 'DELETE', token: rootToken })).status).toBe(204);
    expect((await api(`/users/${u.id}/emails`, { token: rootToken })).body).toEqual([list.body[0], confirmed.body]);
  });

  it('skip_confirmation is not a parameter of /user/emails: the address stays unconfirmed', async () => {
    const u = await createUser();
    const res = await api('/user/emails', { token: u.token, body: { email: address(), skip_confirmation: true } });
    expect(res.status).toBe(201);
    expect(res.body.confirmed_at).toBeNull();
  });

  it('refuses non-administrators before the lookup and 404s missing users and addresses', async () => {
    const [u, other] = await Promise.all([createUser(), createUser()]);
    for (const [method, path] of [
      ['GET', `/users/${other.id}/emails`],
      ['POST', `/users/${other.id}/emails`],
      ['DELETE', `/users/${other.id}/emails/1`],
      ['GET', '/users/999999999/emails'],
    ]) {
      const res = await api(path, { method, token: u.token, body: method === 'POST' ? { email: address() } : undefined });
      expect([res.status, res.body], `${method} ${path}`).toEqual([403, { message: '403 Forbidden' }]);
    }
    expect(await api('/users/999999999/emails', { token: rootToken }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 User Not Found' }]);
    expect(await api('/users/999999999/emails', { token: rootToken, body: { email: address() } }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 User Not Found' }]);
    const theirs = (await api(`/users/${other.id}/emails`, { token: rootToken, body: { email: address() } })).body;
    // Another user's address is not found under this user.
    expect(await api(`/users/${u.id}/emails/${theirs.id}`, { method: 'DELETE', token: rootToken }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 Email Not Found' }]);
    expect((await api(`/users/${other.id}/emails`, { token: rootToken })).body).toEqual([expect.objectContaining({ email: other.email }), theirs]);
  });
});

describe('uniqueness with primary addresses (User.by_any_email)', () => {
  it('a secondary address cannot become anyone else’s primary: POST /users 409, PUT /users/:id as GitLab', async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const email = address();
    expect((await api('/user/emails', { token: a.token, body: { email } })).status).toBe(201);
    const username = unique('user');
    const create = await api('/users', { token: rootToken, body: { email: email.toUpperCase(), username, name: username, password: 'long-password-1', skip_confirmation: true } });
    expect([create.status, create.body]).toEqual([409, { message: 'Email has already been taken' }]);
    const update = await api(`/users/${b.id}`, { method: 'PUT', token: rootToken, body: { email } });
    expect(update.body).toEqual({ message: 'Email has already been taken' });
    // The owner of the secondary address may make it their primary one.
    const own = await api(`/users/${a.id}`, { method: 'PUT', token: rootToken, body: { email, skip_reconfirmation: true } });
    expect(own.status).toBe(200);
  });

  it('deleting the user deletes their addresses, which are free again', async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const email = address();
    expect((await api('/user/emails', { token: a.token, body: { email } })).status).toBe(201);
    expect((await api(`/users/${a.id}`, { method: 'DELETE', token: rootToken })).status).toBe(204);
    // User deletion may finish asynchronously (ghost migration); the address is free once it has.
    let res = await api('/user/emails', { token: b.token, body: { email } });
    for (let i = 0; i < 50 && res.status !== 201; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await api('/user/emails', { token: b.token, body: { email } });
    }
    expect(res.status).toBe(201);
  });
});

describe('the primary address (User#add_primary_email_to_emails!, Emails::DestroyService)', () => {
  it("is listed for a confirmed user, with the user's confirmed_at, and read by its id", async () => {
    const u = await createUser();
    const [primary] = await listOf(u);
    const me = await api(`/users/${u.id}`, { token: rootToken });
    expect(primary).toEqual({ id: expect.any(Number), email: u.email, confirmed_at: me.body.confirmed_at });
    expect(primary.confirmed_at).not.toBeNull();
    expect((await api(`/user/emails/${primary.id}`, { token: u.token })).body).toEqual(primary);
  });

  it('is not listed for an unconfirmed user, who may add it (it is no other user\'s primary)', async () => {
    const username = unique('unconf');
    const created = await api('/users', { token: rootToken, body: { email: `${username}@example.com`, username, name: username, password: 'long-password-1' } });
    expect([created.status, created.body.confirmed_at]).toEqual([201, null]);
    expect((await api(`/users/${created.body.id}/emails`, { token: rootToken })).body).toEqual([]);
    const added = await api(`/users/${created.body.id}/emails`, { token: rootToken, body: { email: `${username}@example.com` } });
    expect([added.status, added.body.confirmed_at]).toEqual([201, null]);
  });

  it('refuses to delete it on both routes (GitLab raises a 500; here a 400 with the same message), and it stays', async () => {
    const u = await createUser();
    const [primary] = await listOf(u);
    for (const [path, token] of [[`/user/emails/${primary.id}`, u.token], [`/users/${u.id}/emails/${primary.id}`, rootToken]] as const) {
      const res = await api(path, { method: 'DELETE', token });
      expect([res.status, res.body], path).toEqual([400, { message: 'Cannot delete primary email' }]);
    }
    expect(await listOf(u)).toEqual([primary]);
  });

  it('follows a change of primary: the new address gets a confirmed row, the old one stays and can go', async () => {
    const u = await createUser();
    const [old] = await listOf(u);
    const fresh = address();
    const put = await api(`/users/${u.id}`, { method: 'PUT', token: rootToken, body: { email: fresh, skip_reconfirmation: true } });
    expect([put.status, put.body.email]).toEqual([200, fresh]);
    const after = await listOf(u);
    expect(after).toEqual([old, { id: expect.any(Number), email: fresh, confirmed_at: old.confirmed_at }]);
    // The new primary is protected now, the old address is an ordinary secondary one.
    expect((await api(`/user/emails/${after[1].id}`, { method: 'DELETE', token: u.token })).status).toBe(400);
    expect((await api(`/user/emails/${old.id}`, { method: 'DELETE', token: u.token })).status).toBe(204);
    expect((await listOf(u)).map((e) => e.email)).toEqual([fresh]);
  });

  it('confirms the row of an own unconfirmed secondary address made primary, keeping its id', async () => {
    const u = await createUser();
    const secondary = (await api('/user/emails', { token: u.token, body: { email: address() } })).body;
    expect(secondary.confirmed_at).toBeNull();
    expect((await api(`/users/${u.id}`, { method: 'PUT', token: rootToken, body: { email: secondary.email, skip_reconfirmation: true } })).status).toBe(200);
    const row = (await listOf(u)).find((e) => e.id === secondary.id)!;
    expect(row.email).toBe(secondary.email);
    expect(row.confirmed_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await listOf(u)).length).toBe(2);
  });

  it('is not added for a change that waits for reconfirmation', async () => {
    const u = await createUser();
    const before = await listOf(u);
    expect((await api(`/users/${u.id}`, { method: 'PUT', token: rootToken, body: { email: address() } })).status).toBe(200);
    expect(await listOf(u)).toEqual(before);
  });
});
