import { describe, expect, it } from 'vitest';
import { api, createToken, createUser, rootToken, unique } from '../support';

const BASIC_KEYS = ['id', 'username', 'name', 'state', 'avatar_url', 'web_url'];

const follow = (token: string | undefined, id: number) => api(`/users/${id}/follow`, { method: 'POST', token });
const unfollow = (token: string | undefined, id: number) => api(`/users/${id}/unfollow`, { method: 'POST', token });
const followers = (token: string | undefined, id: number, query = '') => api(`/users/${id}/followers${query}`, { token });
const following = (token: string | undefined, id: number, query = '') => api(`/users/${id}/following${query}`, { token });
const ids = (body: { id: number }[]) => body.map((u) => u.id);

describe('POST /users/:id/follow', () => {
  it('follows: 201 with the UserBasic of the followed user; both lists and the counters show it', async () => {
    const a = await createUser();
    const b = await createUser();
    const res = await follow(a.token, b.id);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(BASIC_KEYS);
    expect(res.body).toMatchObject({ id: b.id, username: b.username, name: b.name, state: 'active' });
    expect(res.body.web_url).toMatch(new RegExp(`/${b.username}$`));

    const fs = await followers(a.token, b.id);
    expect(fs.status).toBe(200);
    expect(fs.body).toHaveLength(1);
    expect(fs.body[0]).toMatchObject({ id: a.id, username: a.username });
    expect(Object.keys(fs.body[0])).toEqual(BASIC_KEYS);
    expect(ids((await following(b.token, a.id)).body)).toEqual([b.id]);
    expect((await following(a.token, b.id)).body).toEqual([]);
  });

  it('answers 304 without a body when already following, and for yourself', async () => {
    const a = await createUser();
    const b = await createUser();
    expect((await follow(a.token, b.id)).status).toBe(201);
    const again = await follow(a.token, b.id);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(ids((await followers(a.token, b.id)).body)).toEqual([a.id]);
    const self = await follow(a.token, a.id);
    expect(self.status).toBe(304);
    expect(self.text).toBe('');
    expect((await followers(a.token, a.id)).body).toEqual([]);
  });

  it('creates exactly one relation for concurrent double follows, never a 500', async () => {
    const a = await createUser();
    const b = await createUser();
    const results = await Promise.all([follow(a.token, b.id), follow(a.token, b.id), follow(a.token, b.id)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 304, 304]);
    const fs = await followers(a.token, b.id);
    expect(ids(fs.body)).toEqual([a.id]);
    expect(fs.headers.get('x-total')).toBe('1');
  });

  it('answers 404 User Not Found for an unknown user and the route miss for a non-numeric id', async () => {
    const a = await createUser();
    const res = await follow(a.token, 999999999);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 User Not Found' });
    const miss = await api('/users/abc/follow', { method: 'POST', token: a.token });
    expect(miss.status).toBe(404);
    expect(miss.body).toEqual({ error: '404 Not Found' });
  });

  it('requires authentication', async () => {
    const b = await createUser();
    const res = await follow(undefined, b.id);
    expect(res.status).toBe(401);
    expect((await followers(rootToken, b.id)).body).toEqual([]);
  });
});

describe('POST /users/:id/unfollow', () => {
  it('unfollows: 201 with UserBasic, then 304 when not following', async () => {
    const a = await createUser();
    const b = await createUser();
    await follow(a.token, b.id);
    const res = await unfollow(a.token, b.id);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(BASIC_KEYS);
    expect(res.body).toMatchObject({ id: b.id, username: b.username });
    expect((await followers(a.token, b.id)).body).toEqual([]);
    expect((await following(a.token, a.id)).body).toEqual([]);
    const again = await unfollow(a.token, b.id);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('answers 404 for an unknown user and 401 anonymously', async () => {
    const a = await createUser();
    expect((await unfollow(a.token, 999999999)).body).toEqual({ message: '404 User Not Found' });
    expect((await unfollow(undefined, a.id)).status).toBe(401);
  });
});

describe('GET /users/:id/followers and /following', () => {
  it('refuses anonymous callers with 403 Not authorized!', async () => {
    const b = await createUser();
    for (const res of [await followers(undefined, b.id), await following(undefined, b.id)]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: '403 Forbidden - Not authorized!' });
    }
  });

  it('answers 404 User Not Found for an unknown user', async () => {
    const a = await createUser();
    expect((await followers(a.token, 999999999)).body).toEqual({ message: '404 User Not Found' });
    expect((await following(a.token, 999999999)).status).toBe(404);
  });

  it('hides the lists of a private profile from other users but not from the user or an administrator', async () => {
    const priv = await createUser({ attrs: { private_profile: true } });
    const other = await createUser();
    await follow(other.token, priv.id);
    for (const res of [await followers(other.token, priv.id), await following(other.token, priv.id)]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: '404 User Not Found' });
    }
    expect(ids((await followers(priv.token, priv.id)).body)).toEqual([other.id]);
    expect(ids((await followers(rootToken, priv.id)).body)).toEqual([other.id]);
  });

  it('hides the lists of a blocked user from other users', async () => {
    const target = await createUser();
    const other = await createUser();
    expect((await api(`/users/${target.id}/block`, { method: 'POST', token: rootToken })).status).toBe(201);
    expect((await followers(other.token, target.id)).status).toBe(404);
    expect((await followers(rootToken, target.id)).status).toBe(200);
  });

  it('paginates by user id with exact headers', async () => {
    const target = await createUser();
    const fans = [await createUser(), await createUser(), await createUser()];
    for (const f of fans) expect((await follow(f.token, target.id)).status).toBe(201);
    const sorted = fans.map((f) => f.id).sort((x, y) => x - y);

    const page1 = await followers(fans[0].token, target.id, '?per_page=2');
    expect(page1.status).toBe(200);
    expect(ids(page1.body)).toEqual(sorted.slice(0, 2));
    expect(page1.headers.get('x-total')).toBe('3');
    expect(page1.headers.get('x-total-pages')).toBe('2');
    expect(page1.headers.get('x-per-page')).toBe('2');
    expect(page1.headers.get('x-page')).toBe('1');
    expect(page1.headers.get('x-next-page')).toBe('2');
    expect(page1.headers.get('x-prev-page')).toBe('');
    const link = page1.headers.get('link')!;
    expect(link).toContain(`/api/v4/users/${target.id}/followers?id=${target.id}&page=2&per_page=2>; rel="next"`);
    expect(link).toContain('rel="first"');
    expect(link).toContain(`page=2&per_page=2>; rel="last"`);

    const page2 = await followers(fans[0].token, target.id, '?per_page=2&page=2');
    expect(ids(page2.body)).toEqual(sorted.slice(2));
    expect(page2.headers.get('x-next-page')).toBe('');
    expect(page2.headers.get('x-prev-page')).toBe('1');

    // Each fan follows exactly one user: the target.
    for (const f of fans) expect(ids((await following(target.token, f.id)).body)).toEqual([target.id]);
  });

  it('lists followees of a user sorted by id', async () => {
    const fan = await createUser();
    const stars = [await createUser(), await createUser()];
    for (const s of [...stars].reverse()) await follow(fan.token, s.id);
    const res = await following(stars[0].token, fan.id);
    expect(ids(res.body)).toEqual(stars.map((s) => s.id).sort((x, y) => x - y));
    expect(res.headers.get('x-total')).toBe('2');
  });

  it('accepts a username-like id only as a route miss', async () => {
    const a = await createUser();
    const res = await api(`/users/${unique('nobody')}/followers`, { token: a.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: '404 Not Found' });
  });

  it('take read_user tokens for the lists but not for follow', async () => {
    const a = await createUser();
    const b = await createUser();
    const readUser = await createToken(a.id, ['read_user']);
    const res = await follow(readUser, b.id);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('insufficient_scope');
    expect((await followers(readUser, b.id)).body).toEqual([]);
  });

  it('feed the followers/following/is_followed of GET /users/:id', async () => {
    const a = await createUser();
    const b = await createUser();
    await follow(a.token, b.id);
    expect((await api(`/users/${b.id}`, { token: a.token })).body).toMatchObject({ followers: 1, following: 0, is_followed: true });
    expect((await api(`/users/${a.id}`, { token: b.token })).body).toMatchObject({ followers: 0, following: 1, is_followed: false });
    await unfollow(a.token, b.id);
    expect((await api(`/users/${b.id}`, { token: a.token })).body).toMatchObject({ followers: 0, is_followed: false });
  });

  it('drop a deleted user from the lists', async () => {
    const a = await createUser();
    const b = await createUser();
    await follow(a.token, b.id);
    await follow(b.token, a.id);
    expect((await api(`/users/${b.id}?hard_delete=true`, { method: 'DELETE', token: rootToken })).status).toBe(204);
    expect((await following(a.token, a.id)).body).toEqual([]);
    expect((await followers(a.token, a.id)).body).toEqual([]);
  });
});
