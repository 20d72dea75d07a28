/**
 * Secondary email addresses (GitLab lib/api/users.rb `emails` routes, app/models/email.rb,
 * Emails::CreateService): the caller's own, and any user's for administrators.
 */
import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const address = () => `${unique('mail')}@example.com`;

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
    expect(list.body).toEqual([res.body]);
    expect(list.headers.get('x-total')).toBe('1');
  });

  it("answers GitLab's model errors: blank, invalid, taken by a secondary or a primary address", async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const taken = address();
    expect((await api('/user/emails', { token: a.token, body: { email: taken } })).status).toBe(201);
    const cases: [string, string[]][] = [
      ['  ', ["can't be blank"]],
      ['not-an-address', ['is invalid']],
      [taken.toUpperCase(), ['has already been taken']],
      [b.email, ['has already been taken']],
      [a.email, ['has already been taken']],
    ];
    for (const [email, messages] of cases) {
      const res = await api('/user/emails', { token: b.token, body: { email } });
      expect([res.status, res.body], email).toEqual([400, { message: { email: messages } }]);
    }
    expect(await api('/user/emails', { token: b.token, body: {} }).then((r) => [r.status, r.body])).toEqual([400, { error: 'email is missing' }]);
    expect((await api('/user/emails', { token: b.token })).body).toEqual([]);
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
    expect((await api('/user/emails', { token: a.token })).body).toEqual([]);
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
    expect(list.body).toEqual([plain.body, confirmed.body]);
    // The user sees the same addresses under /user/emails.
    expect((await api('/user/emails', { token: u.token })).body).toEqual(list.body);
    expect((await api(`/users/${u.id}/emails/${plain.body.id}`, { method: 'DELETE', token: rootToken })).status).toBe(204);
    expect((await api(`/users/${u.id}/emails`, { token: rootToken })).body).toEqual([confirmed.body]);
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
    expect((await api(`/users/${other.id}/emails`, { token: rootToken })).body).toEqual([theirs]);
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
