import { describe, expect, it } from 'vitest';
import { api, createUser, rootToken, unique } from '../support';

describe('namespaces', () => {
  it('lists the caller\'s personal namespace and groups, as the Namespace entity', async () => {
    const user = await createUser();
    const path = unique('ns');
    const g = await api('/groups', { token: user.token, body: { name: path, path } });
    const res = await api('/namespaces', { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body.map((n: any) => n.full_path)).toEqual([user.username, path]);
    expect(Object.keys(res.body[0])).toEqual(['id', 'name', 'path', 'kind', 'full_path', 'parent_id', 'avatar_url', 'web_url']);
    expect(res.body[0]).toMatchObject({ kind: 'user', path: user.username, parent_id: null });
    expect(res.body[1]).toMatchObject({ id: g.body.id, kind: 'group', members_count_with_descendants: 1 });
    expect(res.body[1].web_url).toMatch(new RegExp(`/groups/${path}$`));
    const byPath = await api(`/namespaces/${user.username}`, { token: user.token });
    expect(byPath.body.id).toBe(res.body[0].id);
    const search = await api(`/namespaces?search=${path}`, { token: user.token });
    expect(search.body.map((n: any) => n.id)).toEqual([g.body.id]);
  });

  it("another user's personal namespace is 404; administrators see it", async () => {
    const a = await createUser();
    const b = await createUser();
    expect((await api(`/namespaces/${a.username}`, { token: b.token })).body).toEqual({ message: '404 Namespace Not Found' });
    expect((await api(`/namespaces/${a.username}`, { token: rootToken })).status).toBe(200);
  });

  it('a public group is visible as a namespace only to its members', async () => {
    const owner = await createUser();
    const stranger = await createUser();
    const path = unique('pub');
    const g = await api('/groups', { token: owner.token, body: { name: path, path, visibility: 'public' } });
    expect((await api(`/namespaces/${g.body.id}`, { token: stranger.token })).body).toEqual({ message: '404 Namespace Not Found' });
    expect((await api(`/namespaces/${path}`, { token: owner.token })).body.id).toBe(g.body.id);
    expect((await api(`/groups/${g.body.id}`, { token: stranger.token })).status).toBe(200);
  });
});
