import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

const BASIC_KEYS = ['id', 'username', 'name', 'state', 'avatar_url', 'web_url'];
const ADMIN_ONLY = ['email', 'is_admin', 'note', 'namespace_id', 'created_by', 'current_sign_in_ip', 'last_sign_in_ip', 'highest_role', 'sign_in_count'];

describe('GET /users', () => {
  describe('access', () => {
    it('answers 403 to anonymous callers without username', async () => {
      const res = await api('/users');
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: '403 Forbidden - Not authorized to access /api/v4/users' });
    });

    it('lets anonymous callers look up one username, exactly and case-insensitively', async () => {
      const u = await createUser();
      const res = await api(`/users?username=${u.username.toUpperCase()}`);
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(1);
      expect(Object.keys(res.body[0])).toEqual(BASIC_KEYS);
      expect(res.body[0]).toMatchObject({ id: u.id, username: u.username, state: 'active' });
      // Exact: a prefix matches nothing.
      const prefix = await api(`/users?username=${u.username.slice(0, -2)}`);
      expect(prefix.status).toBe(200);
      expect(prefix.body).toEqual([]);
    });

    it('answers 405 to keyset pagination, which users do not support', async () => {
      const res = await api('/users?pagination=keyset', { token: rootToken });
      expect(res.status).toBe(405);
      expect(res.body).toEqual({ error: 'Keyset pagination is not yet available for this type of request' });
    });

    it('accepts the read_user scope', async () => {
      const u = await createUser({ scopes: ['read_user'] });
      const res = await api(`/users?username=${u.username}`, { token: u.token });
      expect(res.status).toBe(200);
      expect(res.body[0].id).toBe(u.id);
    });
  });

  describe('entities', () => {
    it('shows UserBasic to non-administrators: no email, admin flags, notes or IPs', async () => {
      const viewer = await createUser();
      const target = await createUser({ attrs: { note: 'secret note', bio: 'hello' } });
      const res = await api(`/users?username=${target.username}`, { token: viewer.token });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body[0])).toEqual(BASIC_KEYS);
      for (const k of [...ADMIN_ONLY, 'bio', 'created_at', 'identities']) expect(res.body[0]).not.toHaveProperty(k);
      expect(res.body[0].web_url).toMatch(new RegExp(`/${target.username}$`));
    });

    it('shows UserWithAdmin to administrators, without sign-in IPs or highest_role', async () => {
      const target = await createUser({ attrs: { note: 'admin note', provider: 'github', extern_uid: unique('gh') } });
      const res = await api(`/users?username=${target.username}`, { token: rootToken });
      expect(res.status).toBe(200);
      const u = res.body[0];
      expect(u).toMatchObject({ id: target.id, email: target.email, is_admin: false, note: 'admin note', followers: 0, following: 0 });
      expect(u.namespace_id).toEqual(expect.any(Number));
      expect(u.created_by).toMatchObject({ id: 1, username: 'root' });
      expect(u.identities).toEqual([{ provider: 'github', extern_uid: expect.any(String), saml_provider_id: null }]);
      for (const k of ['current_sign_in_ip', 'last_sign_in_ip', 'highest_role', 'sign_in_count', 'plan', 'trial']) expect(u).not.toHaveProperty(k);
      // GitLab's key order of the UserWithAdmin entity.
      const keys = Object.keys(u);
      expect(keys.slice(0, 7)).toEqual(['id', 'username', 'name', 'state', 'avatar_url', 'web_url', 'created_at']);
      expect(keys.indexOf('is_admin')).toBeGreaterThan(keys.indexOf('commit_email'));
    });

    it('loads extras for a whole page: identities and follower counts per user', async () => {
      const a = await createUser({ attrs: { provider: 'ldapmain', extern_uid: unique('uid=a') } });
      const b = await createUser();
      const follow = await api(`/users/${a.id}/follow`, { method: 'POST', token: b.token });
      const tag = unique('pg');
      await api(`/users/${a.id}/custom_attributes/page`, { method: 'PUT', token: rootToken, body: { value: tag } });
      await api(`/users/${b.id}/custom_attributes/page`, { method: 'PUT', token: rootToken, body: { value: tag } });
      const res = await api(`/users?custom_attributes[page]=${tag}&with_custom_attributes=true`, { token: rootToken });
      expect(res.status).toBe(200);
      expect(res.body.map((u: any) => u.id)).toEqual([b.id, a.id]);
      const [ub, ua] = res.body;
      expect(ua.identities).toHaveLength(1);
      expect(ub.identities).toEqual([]);
      expect(ua.custom_attributes).toEqual([{ key: 'page', value: tag }]);
      if (follow.status === 201) {
        expect(ua.followers).toBe(1);
        expect(ub.following).toBe(1);
      }
    });
  });

  describe('filters', () => {
    it('searches name, username and public email; administrators keep the list order, others get exact matches first', async () => {
      const stem = unique('srch');
      const longer = await createUser({ attrs: { username: `${stem}x`, email: `${stem}x@example.com`, name: `Aaa ${stem}` } });
      const exact = await createUser({ attrs: { username: stem, email: `${stem}@example.com`, name: 'Zzz' } });
      const byName = await createUser({ attrs: { name: `Named ${stem}zz` } });
      const ids = (res: { body: any[] }) => res.body.map((u: any) => u.id);
      // users.rb reorder_users: order_by/sort default to id/desc and apply to an administrator's search too.
      const res = await api(`/users?search=${stem}`, { token: rootToken });
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual([byName.id, exact.id, longer.id]);
      const byUsername = await api(`/users?search=${stem}&order_by=username&sort=asc`, { token: rootToken });
      expect(byUsername.body.map((u: any) => u.username)).toEqual(byUsername.body.map((u: any) => u.username).sort());
      expect(ids(byUsername).slice(0, 2)).toEqual([exact.id, longer.id]);
      expect(ids(await api(`/users?search=${stem}&sort=asc`, { token: rootToken }))).toEqual([longer.id, exact.id, byName.id]);
      // Non-administrators: order_by/sort are dropped, User.search ranks the exact username first, then by name.
      const asUser = await api(`/users?search=${stem.toUpperCase()}&order_by=id&sort=desc`, { token: longer.token });
      expect(ids(asUser)).toEqual([exact.id, longer.id, byName.id]);
    });

    it('matches private emails only for administrators, and only exactly', async () => {
      const u = await createUser();
      const admin = await api(`/users?search=${u.email}`, { token: rootToken });
      expect(admin.body.map((x: any) => x.id)).toEqual([u.id]);
      const viewer = await createUser();
      const other = await api(`/users?search=${u.email}`, { token: viewer.token });
      expect(other.status).toBe(200);
      expect(other.body).toEqual([]);
    });

    it('never answers 500 to a very long search string', async () => {
      const res = await api(`/users?search=${'x'.repeat(400)}`, { token: rootToken });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
    });

    it('filters blocked (blocked and ldap_blocked) and active (active, not internal) users', async () => {
      const tag = unique('st');
      const blocked = await createUser();
      const active = await createUser();
      for (const u of [blocked, active]) await api(`/users/${u.id}/custom_attributes/st`, { method: 'PUT', token: rootToken, body: { value: tag } });
      expect((await api(`/users/${blocked.id}/block`, { method: 'POST', token: rootToken })).status).toBe(201);
      const b = await api(`/users?blocked=true&custom_attributes[st]=${tag}`, { token: rootToken });
      expect(b.body.map((u: any) => u.id)).toEqual([blocked.id]);
      const a = await api(`/users?active=true&custom_attributes[st]=${tag}`, { token: rootToken });
      expect(a.body.map((u: any) => u.id)).toEqual([active.id]);
      // false values have no effect.
      const f = await api(`/users?active=false&blocked=false&custom_attributes[st]=${tag}`, { token: rootToken });
      expect(f.body.map((u: any) => u.id)).toEqual([active.id, blocked.id]);
    });

    it('filters external and exclude_external', async () => {
      const tag = unique('ex');
      const ext = await createUser({ attrs: { external: true } });
      const internal = await createUser();
      for (const u of [ext, internal]) await api(`/users/${u.id}/custom_attributes/ex`, { method: 'PUT', token: rootToken, body: { value: tag } });
      const e = await api(`/users?external=true&custom_attributes[ex]=${tag}`, { token: rootToken });
      expect(e.body.map((u: any) => u.id)).toEqual([ext.id]);
      const ne = await api(`/users?exclude_external=true&custom_attributes[ex]=${tag}`, { token: rootToken });
      expect(ne.body.map((u: any) => u.id)).toEqual([internal.id]);
      const none = await api(`/users?external=false&custom_attributes[ex]=${tag}`, { token: rootToken });
      expect(none.body).toHaveLength(2);
    });

    it('filters admins=true for administrators only (ignored for others)', async () => {
      const res = await api('/users?admins=true&per_page=100', { token: rootToken });
      expect(res.status).toBe(200);
      expect(res.body.length).toBeGreaterThan(0);
      expect(res.body.every((u: any) => u.is_admin === true)).toBe(true);
      expect(res.body.some((u: any) => u.id === 1)).toBe(true);
      const viewer = await createUser();
      const ignored = await api(`/users?admins=true&username=${viewer.username}`, { token: viewer.token });
      expect(ignored.body.map((u: any) => u.id)).toEqual([viewer.id]);
    });

    it('filters by extern_uid and provider for administrators; 403 for others; 400 with only one', async () => {
      const uid = unique('uid');
      const u = await createUser({ attrs: { provider: 'github', extern_uid: uid } });
      const res = await api(`/users?extern_uid=${uid}&provider=github`, { token: rootToken });
      expect(res.status).toBe(200);
      expect(res.body.map((x: any) => x.id)).toEqual([u.id]);
      const other = await api(`/users?extern_uid=${uid}&provider=github`, { token: u.token });
      expect(other.status).toBe(403);
      expect(other.body).toEqual({ message: '403 Forbidden' });
      const one = await api(`/users?extern_uid=${uid}`, { token: rootToken });
      expect(one.status).toBe(400);
      expect(one.body).toEqual({ error: 'extern_uid, provider provide all or none of parameters' });
    });

    it('filters created_before/created_after for administrators, silently drops them for others', async () => {
      const u = await createUser();
      const future = new Date(Date.now() + 3_600_000).toISOString();
      const admin = await api(`/users?created_after=${encodeURIComponent(future)}`, { token: rootToken });
      expect(admin.status).toBe(200);
      expect(admin.body).toEqual([]);
      const before = await api(`/users?created_before=2000-01-01T00:00:00Z`, { token: rootToken });
      expect(before.body).toEqual([]);
      const other = await api(`/users?created_after=${encodeURIComponent(future)}&username=${u.username}`, { token: u.token });
      expect(other.status).toBe(200);
      expect(other.body.map((x: any) => x.id)).toEqual([u.id]);
    });

    it('excludes internal users (the ghost user) with exclude_internal', async () => {
      // Deleting a user creates the ghost user.
      const doomed = await createUser();
      expect((await api(`/users/${doomed.id}`, { method: 'DELETE', token: rootToken })).status).toBe(204);
      const all = await api('/users?search=ghost&per_page=100', { token: rootToken });
      const ghost = all.body.find((u: any) => u.name === 'Ghost User');
      expect(ghost).toBeTruthy();
      const filtered = await api('/users?search=ghost&exclude_internal=true&per_page=100', { token: rootToken });
      expect(filtered.body.find((u: any) => u.id === ghost.id)).toBeUndefined();
      const active = await api('/users?search=ghost&active=true&per_page=100', { token: rootToken });
      expect(active.body.find((u: any) => u.id === ghost.id)).toBeUndefined();
    });

    it('requires every custom attribute pair, and takes many pairs without a 500', async () => {
      const tag = unique('ca');
      const both = await createUser();
      const one = await createUser();
      await api(`/users/${both.id}/custom_attributes/a`, { method: 'PUT', token: rootToken, body: { value: tag } });
      await api(`/users/${both.id}/custom_attributes/b`, { method: 'PUT', token: rootToken, body: { value: tag } });
      await api(`/users/${one.id}/custom_attributes/a`, { method: 'PUT', token: rootToken, body: { value: tag } });
      const res = await api(`/users?custom_attributes[a]=${tag}&custom_attributes[b]=${tag}`, { token: rootToken });
      expect(res.body.map((u: any) => u.id)).toEqual([both.id]);
      const onlyA = await api(`/users?custom_attributes[a]=${tag}`, { token: rootToken });
      expect(onlyA.body.map((u: any) => u.id)).toEqual([one.id, both.id]);
      const many = Array.from({ length: 120 }, (_, i) => `custom_attributes[k${i}]=v`).join('&');
      const big = await api(`/users?${many}`, { token: rootToken });
      expect(big.status).toBe(200);
      expect(big.body).toEqual([]);
    });

    it('ignores custom_attributes filters for non-administrators', async () => {
      const u = await createUser();
      const res = await api(`/users?custom_attributes[nope]=x&username=${u.username}`, { token: u.token });
      expect(res.body.map((x: any) => x.id)).toEqual([u.id]);
    });

    it('accepts without_projects and two_factor', async () => {
      const u = await createUser();
      const res = await api(`/users?without_projects=true&two_factor=disabled&username=${u.username}`, { token: rootToken });
      expect(res.status).toBe(200);
      expect(res.body.map((x: any) => x.id)).toEqual([u.id]);
      const enabled = await api(`/users?two_factor=enabled&username=${u.username}`, { token: rootToken });
      expect(enabled.body).toEqual([]);
    });
  });

  describe('order and pagination', () => {
    it('orders by id descending by default, with exact pagination headers', async () => {
      const tag = unique('pg');
      const made = [];
      for (let i = 0; i < 3; i++) {
        const u = await createUser();
        await api(`/users/${u.id}/custom_attributes/pg`, { method: 'PUT', token: rootToken, body: { value: tag } });
        made.push(u);
      }
      const res = await api(`/users?custom_attributes[pg]=${tag}&per_page=2`, { token: rootToken });
      expect(res.status).toBe(200);
      expect(res.body.map((u: any) => u.id)).toEqual([made[2].id, made[1].id]);
      expect(res.headers.get('x-total')).toBe('3');
      expect(res.headers.get('x-total-pages')).toBe('2');
      expect(res.headers.get('x-next-page')).toBe('2');
      expect(res.headers.get('x-per-page')).toBe('2');
      const link = res.headers.get('link')!;
      expect(link).toContain('rel="next"');
      expect(link).toContain('order_by=id');
      const page2 = await api(`/users?custom_attributes[pg]=${tag}&per_page=2&page=2`, { token: rootToken });
      expect(page2.body.map((u: any) => u.id)).toEqual([made[0].id]);
    });

    it('orders by name/username ascending for administrators; drops order_by for others', async () => {
      const tag = unique('ord');
      const z = await createUser({ attrs: { name: 'Zed' } });
      const a = await createUser({ attrs: { name: 'Abe' } });
      const m = await createUser({ attrs: { name: 'Mo' } });
      for (const u of [z, a, m]) await api(`/users/${u.id}/custom_attributes/ord`, { method: 'PUT', token: rootToken, body: { value: tag } });
      const byName = await api(`/users?custom_attributes[ord]=${tag}&order_by=name&sort=asc`, { token: rootToken });
      expect(byName.body.map((u: any) => u.name)).toEqual(['Abe', 'Mo', 'Zed']);
      const byIdAsc = await api(`/users?custom_attributes[ord]=${tag}&order_by=id&sort=asc`, { token: rootToken });
      expect(byIdAsc.body.map((u: any) => u.id)).toEqual([z.id, a.id, m.id]);
      // Non-administrators: order_by and sort are dropped (id DESC), even invalid-free values.
      const viewer = await createUser();
      const nonAdmin = await api(`/users?order_by=name&sort=asc&per_page=3`, { token: viewer.token });
      expect(nonAdmin.status).toBe(200);
      const ids = nonAdmin.body.map((u: any) => u.id);
      expect([...ids].sort((x: number, y: number) => y - x)).toEqual(ids);
      expect(nonAdmin.headers.get('link')).not.toContain('order_by');
    });

    it('answers 400 for an order_by or sort outside the list', async () => {
      const bad = await api('/users?order_by=email', { token: rootToken });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ error: 'order_by does not have a valid value' });
      const badSort = await api('/users?sort=up', { token: rootToken });
      expect(badSort.status).toBe(400);
      expect(badSort.body).toEqual({ error: 'sort does not have a valid value' });
    });
  });
});
